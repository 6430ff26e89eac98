-- Unlogged sequences are served like others (the crash reset is tested in
-- the engine); their persistence shows in the catalog and psql.
\set VERBOSITY verbose
create unlogged sequence u start 5;
select nextval('u'), nextval('u');
select relname, relpersistence from pg_class where relname = 'u';
\d u
alter sequence u set logged;
select relpersistence from pg_class where relname = 'u';
select nextval('u');
alter sequence u set unlogged;
select relpersistence from pg_class where relname = 'u';
create temp sequence tt;
select relpersistence from pg_class where relname = 'tt';
