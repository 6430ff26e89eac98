-- Role administration: who may create, alter and drop which roles, as
-- PostgreSQL 15 decides (superusers, CREATEROLE roles, plain roles).
\set VERBOSITY verbose
\set QUIET on
\set admin :USER
set client_min_messages = warning;
drop role if exists ra_plain, ra_creator, ra_other, ra_super, ra_new, ra_new2;
reset client_min_messages;
create role ra_plain login;
create role ra_creator login createrole;
create role ra_other login;
create role ra_super login superuser;
select rolname, rolsuper, rolcreaterole, rolcanlogin from pg_roles where rolname like 'ra\_%' order by 1;
\c - ra_plain
alter role ra_plain superuser;
alter role ra_plain createrole;
alter role ra_super password 'taken';
alter role ra_other password 'taken';
alter role ra_other nologin;
alter role ra_plain password 'mine';
alter role ra_plain password 'mine' nologin;
alter role ra_plain nologin;
alter role ra_nobody password 'x';
create role ra_new;
create role ra_new superuser;
drop role ra_other;
drop role ra_super;
drop role if exists ra_nobody;
set session authorization ra_plain;
set session authorization ra_other;
set session authorization ra_nobody;
show session_authorization;
show is_superuser;
\c - ra_creator
create role ra_new login;
create role ra_new2 superuser;
alter role ra_new nologin;
alter role ra_new createrole;
alter role ra_new password 'x';
alter role ra_other password 'x';
alter role ra_super password 'x';
alter role ra_super nosuperuser;
alter role ra_creator superuser;
drop role ra_super;
drop role ra_creator;
drop role ra_new;
drop role if exists ra_nobody;
create role pg_ra;
alter role ra_creator nocreaterole;
create role ra_new;
\c - ra_super
show is_superuser;
alter role ra_plain superuser;
alter role ra_plain nosuperuser;
create role ra_new2 superuser;
drop role ra_new2;
drop role ra_super;
\c - :admin
set session authorization ra_plain;
select current_user, session_user;
show is_superuser;
create role ra_x;
begin;
set local session authorization ra_creator;
select current_user;
create role ra_x;
drop role ra_x;
rollback;
select current_user;
reset session authorization;
select current_user = :'admin' as back;
show is_superuser;
select rolname, rolsuper, rolcreaterole, rolcanlogin from pg_roles where rolname like 'ra\_%' order by 1;
drop role ra_plain, ra_creator, ra_other, ra_super;
