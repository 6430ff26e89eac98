-- A savepoint undone: ROLLBACK TO undoes the DDL since the savepoint and
-- keeps what came before. nextval and setval are not transactional, but
-- for a sequence created or rewritten (ALTER ... RESTART, INCREMENT, ...)
-- in the block: its values are undone with it, as in PostgreSQL.
\set VERBOSITY verbose
create sequence s;
select nextval('s');
begin;
select nextval('s');
savepoint a;
alter sequence s restart with 100;
select nextval('s');
rollback to savepoint a;
select nextval('s');
savepoint b;
drop sequence s;
select nextval('s');
rollback to b;
select nextval('s');
savepoint c;
create sequence s2;
alter sequence s rename to s3;
release savepoint c;
select nextval('s3');
select nextval('s2');
savepoint d;
alter sequence s2 restart with 40;
select nextval('s2');
rollback to d;
select nextval('s2');
rollback;
select nextval('s');
select nextval('s2');
-- values from a sequence's own copy are undone with it
begin;
alter sequence s increment 10;
select nextval('s');
rollback;
select nextval('s');
-- setval in a block is kept
begin;
select setval('s', 50);
rollback;
select nextval('s');
-- setval after a rewrite is undone with it
begin;
alter sequence s restart;
select setval('s', 500);
rollback;
select nextval('s');
-- START WITH alone rewrites it too (PostgreSQL 15)
begin;
alter sequence s start with 1000;
select nextval('s');
select start_value from pg_sequences where sequencename = 's';
rollback;
select start_value, last_value from pg_sequences where sequencename = 's';
-- committed: the block's copy is what stays
begin;
alter sequence s increment 2;
select nextval('s'), nextval('s');
commit;
select nextval('s');
select increment_by, last_value from pg_sequences where sequencename = 's';
-- a block's own copy and lastval/currval
begin;
create sequence s4 start 10;
select nextval('s4');
rollback;
select currval('s');
select lastval();
drop sequence s;
