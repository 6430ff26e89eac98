-- Temporary sequences: private to the session, first on the search path,
-- gone at its end; nextval works on them in a read-only transaction.
\set VERBOSITY verbose
create sequence t start 100;
create temp sequence t start 1;
select nextval('t'), nextval('public.t'), nextval('pg_temp.t');
select sequencename, start_value from pg_sequences order by 2;
create temporary sequence t2 increment 10;
select nextval('t2'), currval('t2'), lastval();
create sequence pg_temp.t3;
select nextval('t3');
create temp sequence public.bad;
start transaction read only;
select nextval('t');
select setval('t2', 500);
select nextval('public.t');
rollback;
select last_value, is_called from t;
drop sequence t;
select nextval('t');
discard temp;
select nextval('t2');
create temp sequence again;
discard all;
select nextval('again');
\c
select nextval('t');
select nextval('t3');
