-- ALTER ROLE ... SET: a role's defaults for its sessions, who may change
-- them, and what a session starts with.
\set VERBOSITY verbose
\set QUIET on
\set admin :USER
set client_min_messages = warning;
drop role if exists rs_app, rs_other;
reset client_min_messages;
create role rs_app login;
create role rs_other login;
alter role rs_app set statement_timeout = '5s';
alter role rs_app set lock_timeout = 2000;
alter role rs_app set search_path = rs, public;
alter role rs_app set no_such_setting = 1;
alter role rs_app set statement_timeout = 'soon';
alter role rs_nobody set lock_timeout = 1;
select rolname, rolconfig from pg_roles where rolname like 'rs\_%' order by 1;
\c - rs_app
show statement_timeout;
show lock_timeout;
show search_path;
set statement_timeout = 0;
reset statement_timeout;
show statement_timeout;
alter role rs_app set idle_session_timeout = '1h';
alter role rs_other set statement_timeout = '1s';
\c - :admin
alter role rs_app reset lock_timeout;
select rolname, rolconfig from pg_roles where rolname like 'rs\_%' order by 1;
alter role rs_app reset all;
select rolname, rolconfig from pg_roles where rolname like 'rs\_%' order by 1;
drop role rs_app, rs_other;
