-- SQL-level prepared statements: PREPARE, EXECUTE with values and
-- expressions, the errors of a name taken or unknown and of a wrong count,
-- DEALLOCATE of one and of all; and catalog queries by a sequence's name
-- or OID, which seqd answers by lookup, with the same rows as PostgreSQL.
\set VERBOSITY verbose
create sequence ps_s;
create schema ps;
create sequence ps.ps_s start 10;
prepare p1 as select nextval('ps_s');
execute p1;
execute p1;
prepare p2(bigint, boolean) as select setval('ps_s', $1, $2);
execute p2(100, false);
execute p2(100 + 1, true);
prepare p1 as select 1;
execute nope;
execute p2(1);
execute p2('x', true);
deallocate p1;
execute p1;
deallocate prepare p2;
deallocate nope;
prepare p3(int) as select $1 + 1 as x;
execute p3('41');
prepare p4(name) as select schemaname, start_value from pg_sequences where sequencename = $1 order by 1;
execute p4('ps_s');
deallocate all;
execute p3(1);
select n.nspname, c.relname, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relname = 'ps_s' order by 1;
select relname from pg_class where oid = 'ps.ps_s'::regclass;
select sequence_schema, start_value from information_schema.sequences where sequence_name = 'ps_s' order by 1;
select count(*) from pg_sequences where sequencename = 'nope';
