-- Pattern matches with ANY and ALL, as psql's and tools' catalog queries
-- write them (sequence_name ~ ANY(ARRAY[...])).
\set VERBOSITY verbose
set client_min_messages = warning;
drop sequence if exists pat_orders, pat_invoices, pat_other;
reset client_min_messages;
create sequence pat_orders;
create sequence pat_invoices;
create sequence pat_other;
select 'abc' ~ any(array['^a', 'x']), 'abc' ~ all(array['^a', 'x']), 'abc' like any(array['a%', 'z']),
  'abc' ilike all(array['A%', '%C']), 'abc' !~ any(array['^a']), 'abc' ~ any(array[null, 'x']),
  null ~ any(array['a']), 'abc' ~* any(array['^A']), 'abc' not like all(array['x%', 'y%']);
select sequencename from pg_sequences where sequencename ~ any(array['^pat_o', 'invoices$']) order by 1;
select sequence_name from information_schema.sequences where sequence_name like all(array['pat%', '%r%']) order by 1;
select 1 ~ any(array['1']);
drop sequence pat_orders, pat_invoices, pat_other;
