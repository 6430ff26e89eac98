-- Roles: what CREATE, ALTER and DROP ROLE answer.
\set VERBOSITY verbose
drop role if exists story_app, story_ro;
create user story_app password 'app-pw';
create user story_app;
create role story_ro nologin;
create role pg_story;
alter role story_app password 'other';
alter role story_app with nosuperuser login;
alter role story_nobody password 'x';
select rolname, rolsuper, rolcanlogin from pg_roles where rolname like 'story%' order by 1;
select usename from pg_user where usename like 'story%';
drop role story_nobody;
drop role if exists story_nobody;
drop role story_app, story_ro;
select count(*) from pg_roles where rolname like 'story%';
-- Role commands are transactional: undone by ROLLBACK, by an error in
-- the same Query, and seen by the block at once.
begin;
create role story_block login;
alter role story_block nologin;
select rolname, rolcanlogin from pg_roles where rolname like 'story%';
rollback;
select count(*) from pg_roles where rolname like 'story%';
create role story_a \; create role story_b \; create role story_a;
select count(*) from pg_roles where rolname like 'story%';
begin;
create role story_kept;
savepoint s;
drop role story_kept;
rollback to s;
commit;
select rolname from pg_roles where rolname like 'story%';
begin;
drop role story_kept;
select count(*) from pg_roles where rolname like 'story%';
commit;
select count(*) from pg_roles where rolname like 'story%';
