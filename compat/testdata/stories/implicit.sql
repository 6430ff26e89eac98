-- Several statements in one Query (psql's \;) are one implicit
-- transaction: an error undoes the DDL before it; COMMIT or ROLLBACK
-- among them end it with a warning; BEGIN turns it into a block.
\set VERBOSITY verbose
create sequence a \; create sequence b \; create sequence a;
select count(*) from pg_sequences;
create sequence a \; alter sequence a increment 5 \; select nextval('a');
select nextval('a');
drop sequence a \; select nextval('nope');
select nextval('a');
create sequence c \; commit \; create sequence d \; select nextval('nope');
select sequencename from pg_sequences order by 1;
create sequence e \; rollback \; create sequence f;
select sequencename from pg_sequences order by 1;
create sequence g \; begin \; create sequence h;
select nextval('g'), nextval('h');
rollback;
select sequencename from pg_sequences order by 1;
begin;
create sequence i;
commit \; create sequence j \; select 1/0;
select sequencename from pg_sequences order by 1;
alter sequence a restart 100 \; select nextval('a') \; select 1/0;
select nextval('a');
drop sequence a, c, f, i;
