-- UNION, INTERSECT and EXCEPT, as catalog queries and tools write them.
\set VERBOSITY verbose
set client_min_messages = warning;
drop sequence if exists so_a, so_b, so_c;
reset client_min_messages;
create sequence so_a;
create sequence so_b start 10;
create sequence so_c;
select 1 union select 2 union select 1 order by 1;
select 1 as n union all select 1 union all select 2 order by n desc;
select 'a' union select 'b' order by 1;
select 1 union select 2.5 order by 1;
select 1::int2 union all select 100000::int8 order by 1;
select sequencename::text from pg_sequences where sequencename like 'so\_%'
  union all select 'extra' order by 1;
select relname from pg_class where relname = 'so_a'
  union select relname from pg_class where relname = 'so_b' order by relname;
select sequencename from pg_sequences where sequencename like 'so\_%'
  except select 'so_b' order by 1;
select sequencename from pg_sequences where sequencename like 'so\_%'
  intersect select 'so_c' order by 1;
select 1, 2 union select 3, 4 order by 2 desc limit 1;
select 1 union all select 1 union all select 2 except all select 1 order by 1;
select 1 union all select 1 union all select 2 intersect all select 1;
select 1, 2 union select 3;
select 1 union select 'x'::text;
select 1 as a union select 2 order by a + 1;
select 1 as a union select 2 order by b;
select 1 union select 2 order by 3;
select 1 union select null order by 1 nulls first;
select nextval('so_a') union all select nextval('so_a') order by 1;
(select 1 order by 1 limit 1) union all (select 2) order by 1 desc;
select count(*) from (select 1 union all select 2 union all select 3) s;
drop sequence so_a, so_b, so_c;
