-- ALTER ROLE ... RENAME TO: who may rename which role, and a renamed
-- role keeping what it owns, holds, is a member of and has set.
\set VERBOSITY verbose
\set QUIET on
\set admin :USER
set client_min_messages = warning;
drop sequence if exists rn_s, rn_other;
drop schema if exists rn_schema cascade;
drop role if exists rn_app, rn_app2, rn_app3, rn_group, rn_group2, rn_boss, rn_plain, rn_super, rn_super2, rn_taken, rn_member;
reset client_min_messages;
create role rn_app login;
create role rn_group;
create role rn_member login;
create role rn_boss login createrole;
create role rn_plain login;
create role rn_super login superuser;
create role rn_taken;
create sequence rn_s;
create sequence rn_other;
alter sequence rn_s owner to rn_app;
grant usage on sequence rn_other to rn_app;
grant select on sequence rn_other to rn_group;
grant rn_group to rn_app with admin option;
grant rn_app to rn_member;
create schema rn_schema authorization rn_app;
grant create on schema public to rn_app;
alter role rn_app set statement_timeout = '5s';
-- Who may.
\c - rn_plain
alter role rn_app rename to rn_app2;
alter role rn_nobody rename to rn_x;
\c - rn_boss
alter role rn_super rename to rn_super2;
alter role rn_boss rename to rn_boss2;
alter role rn_app rename to rn_taken;
alter role rn_app rename to pg_app;
alter role rn_nobody rename to rn_x;
alter role rn_app rename to rn_app2;
alter role rn_app2 rename to rn_app;
\c - rn_super
alter role rn_super rename to rn_super2;
alter role rn_boss rename to rn_boss2;
alter role rn_boss2 rename to rn_boss;
\c - :admin
set role rn_plain;
alter role rn_plain rename to rn_plain2;
reset role;
alter role rn_super rename to rn_super2;
alter role rn_super2 rename to rn_super;
-- In a block: seen at once, undone by ROLLBACK, kept by COMMIT.
begin;
alter role rn_app rename to rn_app2;
select rolname from pg_roles where rolname like 'rn\_app%' order by 1;
select sequence_name, sequence_owner from (select sequencename as sequence_name, sequenceowner as sequence_owner from pg_sequences) s where sequence_name = 'rn_s';
rollback;
select rolname from pg_roles where rolname like 'rn\_app%' order by 1;
begin;
alter role rn_app rename to rn_app2;
alter role rn_app2 rename to rn_app3;
alter role rn_group rename to rn_group2;
commit;
-- What the role had, it has under its new name.
select rolname, rolcanlogin, rolconfig from pg_roles where rolname like 'rn\_app%' order by 1;
select sequencename, sequenceowner from pg_sequences where sequencename like 'rn\_%' order by 1;
select relname, has_sequence_privilege('rn_app3', oid, 'usage') as app_usage, has_sequence_privilege('rn_app3', oid, 'update') as app_update,
  has_sequence_privilege('rn_group2', oid, 'select') as group_select from pg_class where relname like 'rn\_%' order by 1;
select nspname, pg_get_userbyid(nspowner) from pg_namespace where nspname = 'rn_schema';
select has_schema_privilege('rn_app3', 'public', 'create');
select r.rolname as role, m.rolname as member, a.admin_option
  from pg_auth_members a join pg_roles r on r.oid = a.roleid join pg_roles m on m.oid = a.member
  where r.rolname like 'rn\_%' order by 1, 2;
select pg_has_role('rn_member', 'rn_app3', 'member'), pg_has_role('rn_app3', 'rn_group2', 'member with admin option'),
  pg_has_role('rn_member', 'rn_group2', 'usage');
\c - rn_app3
show statement_timeout;
select current_user, nextval('rn_s'), nextval('rn_other');
select currval('rn_other');
create sequence rn_schema.t;
\c - rn_member
select nextval('rn_s');
\c - :admin
alter role rn_app3 rename to rn_app;
select sequencename, sequenceowner from pg_sequences where sequencename like 'rn\_%' order by 1;
drop schema rn_schema cascade;
revoke create on schema public from rn_app;
drop sequence rn_s, rn_other;
drop role rn_app, rn_group2, rn_member, rn_boss, rn_plain, rn_super, rn_taken;
select count(*) from pg_roles where rolname like 'rn\_%';
