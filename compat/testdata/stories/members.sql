-- Role membership: GRANT role TO role, privileges through it, SET ROLE,
-- who may grant, cycles, and DROP ROLE taking memberships with it.
\set VERBOSITY verbose
\set QUIET on
\set admin :USER
set client_min_messages = warning;
drop role if exists mem_app, mem_reader, mem_alice, mem_bob, mem_boss;
drop sequence if exists mem_s;
reset client_min_messages;
create role mem_app;
create role mem_reader;
create role mem_alice login;
create role mem_bob login;
create role mem_boss login createrole;
create sequence mem_s;
grant usage on sequence mem_s to mem_app;
grant select on sequence mem_s to mem_reader;
grant mem_app to mem_alice;
grant mem_app to mem_alice;
grant mem_reader to mem_app with admin option;
grant mem_alice to mem_app;
grant mem_app to mem_app;
grant mem_nobody to mem_alice;
grant mem_app to mem_nobody;
select r.rolname as role, m.rolname as member, a.admin_option
  from pg_auth_members a join pg_roles r on r.oid = a.roleid join pg_roles m on m.oid = a.member
  where r.rolname like 'mem\_%' order by 1, 2;
select pg_has_role('mem_alice', 'mem_app', 'member'), pg_has_role('mem_alice', 'mem_reader', 'usage'),
  pg_has_role('mem_bob', 'mem_app', 'member'), pg_has_role('mem_app', 'mem_reader', 'member with admin option'),
  pg_has_role('mem_alice', 'mem_reader', 'member with admin option');
\c - mem_alice
select nextval('mem_s');
select currval('mem_s');
select has_sequence_privilege('mem_s', 'usage'), has_sequence_privilege('mem_s', 'select'), has_sequence_privilege('mem_s', 'update');
show role;
set role mem_app;
select current_user, session_user;
show role;
select nextval('mem_s');
set role mem_reader;
select current_user;
select nextval('mem_s');
set role mem_bob;
set role mem_nobody;
reset role;
select current_user;
grant mem_app to mem_bob;
grant mem_reader to mem_bob;
revoke mem_reader from mem_bob;
\c - mem_bob
select nextval('mem_s');
set role mem_app;
\c - mem_boss
grant mem_app to mem_bob;
revoke mem_app from mem_bob;
revoke mem_app from mem_bob;
\c - :admin
revoke admin option for mem_reader from mem_app;
select r.rolname as role, m.rolname as member, a.admin_option
  from pg_auth_members a join pg_roles r on r.oid = a.roleid join pg_roles m on m.oid = a.member
  where r.rolname like 'mem\_%' order by 1, 2;
begin;
grant mem_reader to mem_bob;
select count(*) from pg_auth_members a join pg_roles m on m.oid = a.member where m.rolname = 'mem_bob';
rollback;
select count(*) from pg_auth_members a join pg_roles m on m.oid = a.member where m.rolname = 'mem_bob';
drop role mem_app;
revoke select on sequence mem_s from mem_reader;
drop role mem_reader;
select count(*) from pg_auth_members a join pg_roles r on r.oid = a.roleid where r.rolname like 'mem\_%';
drop sequence mem_s;
drop role mem_alice, mem_bob, mem_boss;
