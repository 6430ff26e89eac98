-- Schema and database privileges: USAGE and CREATE on schemas, CREATE and TEMPORARY on the database, owners.
\set VERBOSITY verbose
\set QUIET on
\set admin :USER
set client_min_messages = warning;
drop role if exists sp_user;
drop role if exists sp_other;
reset client_min_messages;
create role sp_user login;
create role sp_other login;
create schema sp_a;
create sequence sp_a.s;
create sequence sp_pub;
select has_schema_privilege('sp_user', 'sp_a', 'usage'), has_schema_privilege('sp_user', 'public', 'usage'), has_schema_privilege('sp_user', 'public', 'create');
\c - sp_user
select nextval('sp_a.s');
select * from sp_a.s;
select last_value from sp_a.s;
select nextval('sp_pub');
create sequence sp_mine;
create sequence sp_a.mine;
create schema sp_b;
select has_schema_privilege('sp_a', 'usage'), has_schema_privilege('public', 'usage'), has_schema_privilege('public', 'create');
select has_schema_privilege('sp_a', 'usage with grant option'), has_schema_privilege('sp_a', 'usage, create');
select has_schema_privilege('sp_nosuch', 'usage');
select has_schema_privilege('sp_a', 'select');
select has_database_privilege(current_database(), 'create'), has_database_privilege('seqd_story', 'connect, temp');
select has_database_privilege('public', 'seqd_story', 'temporary'), has_schema_privilege('public', 'public', 'usage'), has_schema_privilege('public', 'public', 'create');
select has_database_privilege('nosuchdb', 'connect');
grant usage on schema sp_a to sp_other;
grant usage on schema public to sp_other;
drop schema sp_a;
alter schema sp_a owner to sp_user;
set search_path = sp_a, public;
select current_schema(), current_schemas(false);
select nextval('s');
reset search_path;
\c - :admin
grant usage on schema sp_a to sp_user;
grant create on schema public to sp_user;
grant create on database seqd_story to sp_user;
grant select on schema sp_a to sp_user;
grant usage on schema sp_nosuch to sp_user;
grant usage on schema sp_a to sp_nobody;
grant all on schema sp_a to sp_other;
revoke create on schema sp_a from sp_other;
\c - sp_user
select nextval('sp_a.s');
set search_path = sp_a, public;
select current_schema();
select last_value from s;
reset search_path;
create sequence sp_mine;
select nextval('sp_mine');
create schema sp_b;
create sequence sp_b.t;
create schema sp_c authorization sp_other;
create schema authorization sp_user;
select nspname, pg_get_userbyid(nspowner) from pg_namespace where nspname like 'sp_%' order by 1;
select schema_name, schema_owner from information_schema.schemata where schema_name like 'sp_%' order by 1;
alter sequence sp_mine set schema sp_a;
alter sequence sp_mine set schema sp_b;
alter sequence sp_b.sp_mine rename to sp_renamed;
alter schema sp_b owner to sp_other;
\c - sp_other
select nextval('sp_b.t');
create sequence sp_b.u;
select has_schema_privilege('sp_b', 'usage');
\c - sp_user
grant usage, create on schema sp_b to sp_other;
revoke create on schema sp_b from sp_other;
\c - sp_other
select nextval('sp_b.t');
create sequence sp_b.u;
select has_schema_privilege('sp_b', 'usage'), has_schema_privilege('sp_b', 'create');
\c - :admin
begin;
revoke usage on schema sp_b from sp_other;
select has_schema_privilege('sp_other', 'sp_b', 'usage');
rollback;
select has_schema_privilege('sp_other', 'sp_b', 'usage');
revoke temporary on database seqd_story from public;
\c - sp_user
create temporary sequence sp_temp;
\c - :admin
grant temporary on database seqd_story to public;
alter schema sp_b owner to sp_other;
drop role sp_other;
drop schema sp_b cascade;
drop schema sp_a cascade;
drop sequence sp_pub;
revoke create on schema public from sp_user;
revoke all on database seqd_story from sp_user;
drop role sp_user;
drop schema sp_user;
drop role sp_user;
drop role sp_other;
