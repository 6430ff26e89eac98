-- The compatibility corpus: every statement runs against PostgreSQL 15 and
-- against seqd; rows, column names, types and SQLSTATEs must match.
-- One statement per line. Sequences are named o_*.
create sequence o_a
select nextval('o_a')
select currval('o_a')
select nextval('pg_class')
select currval('pg_class')
select setval('pg_class', 1)
select lastval()
select nextval('o_a') from generate_series(1, 5)
select currval('o_a')
select setval('o_a', 100)
select nextval('o_a')
select setval('o_a', 100, false)
select nextval('o_a')
select setval('o_a', 0)
select setval('o_a', 9223372036854775807)
select nextval('o_a')
select last_value, is_called from o_a
create sequence o_a
create sequence if not exists o_a
create sequence o_b increment by -3 minvalue -10 maxvalue 0 cycle
select nextval('o_b') from generate_series(1, 9)
create sequence o_c as smallint start with 32766
select nextval('o_c')
select nextval('o_c')
select nextval('o_c')
select nextval('o_c')
create sequence o_d as integer increment -1 start -2147483647
select nextval('o_d')
select nextval('o_d')
select nextval('o_d')
create sequence o_e as smallint maxvalue 40000
create sequence o_e as integer minvalue -3000000000
create sequence o_e increment 0
create sequence o_e minvalue 5 maxvalue 5
create sequence o_e start 0
create sequence o_e minvalue 10 start 5
create sequence o_e cache 0
create sequence o_e cache 1 cache 2
create sequence o_e start 99999999999999999999
create sequence o_e as text
create sequence o_e increment by 9223372036854775807 minvalue -9223372036854775808 start -1
select nextval('o_e')
select nextval('o_e')
select nextval('o_e')
create sequence o_f increment 10 maxvalue 35 cycle cache 1
select nextval('o_f') from generate_series(1, 6)
alter sequence o_f restart
select nextval('o_f')
alter sequence o_f restart with 21
select nextval('o_f')
alter sequence o_f restart with 99
alter sequence o_f increment by -7
select nextval('o_f')
alter sequence o_f no minvalue
alter sequence o_f as smallint
alter sequence o_g restart
alter sequence if exists o_g restart
select nextval('o_g')
select currval('o_g')
select currval('o_f')
create sequence o_h
select currval('o_h')
drop sequence o_h
select nextval('o_h')
drop sequence o_h
drop sequence if exists o_h
drop sequence if exists o_h, o_a
select lastval()
create sequence o_i cache 20
select nextval('o_i')
select nextval('o_i') from generate_series(1, 3)
select setval('o_i', 50, true)
select currval('o_i')
select nextval('o_i')
select nextval('O_I')
select nextval('"O_I"')
create sequence "O_Mixed"
select nextval('"O_Mixed"')
select nextval('o_mixed')
select 1
select 'x' as y
SELECT 1; SELECT nextval('o_i')
select nextval('o_i') from generate_series(5, 1)
create sequence o_j as smallint minvalue -5 maxvalue 5 increment 4 cycle
select nextval('o_j') from generate_series(1, 6)
create sequence o_k maxvalue 3
select nextval('o_k') from generate_series(1, 5)
select nextval('o_k')
select setval('o_k', 1, false)
select nextval('o_k')
create sequence o_l start 5 minvalue 1 maxvalue 10 increment 2
alter sequence o_l maxvalue 4
alter sequence o_l minvalue 6
select nextval('o_l')
create sequence o_m increment -1
select nextval(NULL)
select setval('o_m', -5, NULL)
create sequence o_n start with -5 increment by 2 minvalue -10 maxvalue 10 cache 3 no cycle
select nextval('o_n') from generate_series(1, 12)
-- Transaction blocks: nextval is not undone; a failed block ignores
-- commands until it ends.
create sequence txs
begin
begin
select nextval('txs')
rollback
select currval('txs')
begin
select nextval('nope_tx')
select 1
select nextval('txs')
commit
commit
rollback
select nextval('txs')
-- Functions in FROM.
select * from nextval('txs')
select * from nextval('txs') as n
select * from setval('txs', 50) s
select * from currval('txs')
drop sequence txs
-- The evaluator: several items, arithmetic, casts with range checks.
create sequence ev start 3000000000
select nextval('ev'), currval('ev') + 1, currval('ev') * 2 as twice
select currval('ev')::int
select currval('ev')::smallint
select currval('ev')::text, 1::bigint, 'x'::text || 'y'
select 7 / 2, 7 % 2, -7 / 2, 1 / 0
select 2147483647 + 1
select case when currval('ev') > 5 then 'big' else 'small' end, coalesce(null, 4), greatest(1, 5, 3), least(2, 1)
select nextval(ev)
selec nextval('ev')
select nextval('ev') from
select 1 = 1 and not false, null is null, 3 between 1 and 5, 'ab' like 'a%', 'ab' ~ '^a', 4 in (1, 4)
select x from generate_series(1, 5) x where x % 2 = 1 order by x desc limit 2
select count(*), min(x), max(x), sum(x) from generate_series(1, 10) x
select x % 3 as m, count(*) from generate_series(1, 10) x group by x % 3 order by 1
select x % 3 as m, count(*) from generate_series(1, 10) x group by 1 order by 1
select x % 3 as m, count(*) from generate_series(1, 10) x group by m order by 1
select x % 2 as x, count(*) from generate_series(1, 10) x group by x order by 1, 2
select x % 2 as a, x % 3 as b, count(*) from generate_series(1, 12) x group by 2, a order by 1, 2
select count(*) from generate_series(1, 3) x group by 2
select count(*) from generate_series(1, 3) x group by 0
select x, count(*) from generate_series(1, 3) x group by nosuch
select x, count(*) from generate_series(1, 3) x
select x, y, count(*) from (values (1, 2), (1, 3)) v(x, y) group by x
select v.x, count(*) from (values (1, 2), (1, 3)) v(x, y) group by x
select x + 1, count(*) from (values (1, 2), (1, 3)) v(x, y) group by x
select count(*) from (values (1, 2)) v(x, y) having x > 0
select count(*) from (values (1, 2)) v(x, y) group by x order by y
select x, (select count(*) from generate_series(1, x)) from (values (1, 2)) v(x, y) group by x
select max(x), y from (values (1, 2)) v(x, y)
select sum(x) filter (where y > 0) from (values (1, 2)) v(x, y)
select sequencename, increment_by from pg_sequences where sequencename = 'ev' order by 1
select sequence_name, data_type, start_value, cycle_option from information_schema.sequences where sequence_name = 'ev'
select relname, relkind from pg_class where relname = 'ev'
select format_type(20, null), format_type(23, -1), pg_typeof(1), pg_typeof('a'::text)
select * from pg_sequence_parameters('ev'::regclass)
select pg_sequence_last_value('ev'), 'ev'::regclass::text
select 'nope'::regclass
select 'information_schema.tables'::regclass, 'pg_class'::regclass, pg_table_is_visible('information_schema.tables'::regclass)
begin
set local search_path = information_schema, pg_catalog
select 'information_schema.tables'::regclass, 'tables'::regclass::oid = 'information_schema.tables'::regclass::oid, pg_table_is_visible('information_schema.tables'::regclass)
commit
select t.oid, t.typarray from pg_type t join pg_namespace ns on t.typnamespace = ns.oid where t.typname = 'hstore'
select typname from pg_type where oid = 20
select t.typname, n.nspname from pg_type t left join pg_namespace n on n.oid = t.typnamespace where t.oid in (16, 25) order by 1
select array['a', 'b'], array_to_string(array['a', 'b'], ','), (current_schemas(true))[1]
select exists (select 1 from pg_class where relname = 'ev'), (select count(*) from generate_series(1, 3))
select * from nosuch
select nosuchcol from pg_class
select lower('AbC'), upper('x'), length('héllo'), quote_ident('Ab'), quote_ident('select'), substring('hello', 2, 3)
show transaction isolation level
select pg_advisory_unlock_all()
drop sequence ev
-- Names in text: too many parts, empty parts, other databases.
select nextval('a.b.c.d')
select nextval('a..b')
select nextval('x.y.z')
select nextval(' "Mixed" ')
-- tableoid, the system column pg_dump reads with each catalog row
select c.tableoid, c.tableoid::regclass, n.tableoid from pg_class c left join pg_namespace n on n.oid = c.relnamespace and false where c.relname = 'pg_class'
select tableoid from pg_class c, pg_namespace n limit 1
select x.tableoid, x.oid, x.extname from pg_extension x join pg_namespace n on n.oid = x.extnamespace where x.extname = 'nosuch'
-- Correlated subqueries (psql's \dp), ARRAY(subquery), two levels out
select n.nspname, array(select c.relname from pg_class c where c.relnamespace = n.oid and c.relname in ('pg_class', 'pg_type') order by 1) from pg_namespace n where n.nspname in ('pg_catalog', 'information_schema') order by 1
select c.relname, (select count(*) from pg_attribute a where a.attrelid = c.oid) > 20 from pg_class c where c.relname in ('pg_class', 'pg_namespace') order by 1
select c.relname from pg_class c where exists (select 1 from pg_namespace n where n.oid = c.relnamespace and n.nspname = 'information_schema' and exists (select 1 where c.relname = 'sequences'))
select array(select 1 where false), array(select x from (values (2), (1)) v(x) order by x)
select (select relname from pg_class where oid = c.oid) from pg_class c where c.relname = 'pg_type'
select acldefault('s', 10) is not null, acldefault('d', 10) is not null, array_length(acldefault('f', 10), 1), acldefault('c', 10)
select nspname, nspacl is not null from pg_namespace where nspname in ('pg_catalog', 'information_schema', 'pg_toast') order by 1
-- regnamespace and regrole: names, OIDs, unknown OIDs, 0, errors
select 'pg_catalog'::regnamespace, 'public'::regnamespace::oid, 2200::regnamespace, 99999::oid::regnamespace, 0::regnamespace
select 'nosuch'::regnamespace
select 'pg_database_owner'::regrole, 6171::regrole, 'nosuchrole'::regrole
select nspname from pg_namespace where oid = 'pg_catalog'::regnamespace
select 'a.b'::regnamespace
select '"pg_catalog"'::regnamespace::text, 'PG_CATALOG'::regnamespace
-- unnest in the select list (pg_dump's unnest(setconfig))
select unnest(array[3,1,2]) as u, 'x' order by u
select nspname, unnest(array[nspname, 'b']) from pg_namespace where nspname like 'pg_c%'
select unnest(null::int[])
-- Array concatenation, sizes, functions described
select array[1,2] || array[3], array['a'] || 'b'::text, 'z'::text || array['a'], null::int[] || array[1], array[1] || null::int
select pg_size_pretty(0::bigint), pg_size_pretty(10239::bigint), pg_size_pretty(10240::bigint), pg_size_pretty(123456789::bigint), pg_size_pretty(-5000000000::bigint)
select pg_get_function_arguments('nextval'::regproc), pg_get_function_result('nextval'::regproc), pg_get_function_identity_arguments('setval(regclass,bigint,boolean)'::regprocedure)
select pg_get_function_arguments('pg_sequence_parameters'::regproc), pg_get_function_result('pg_sequence_parameters'::regproc), pg_function_is_visible('nextval'::regproc)
select 'nextval(regclass)'::regprocedure, 'nosuchfn'::regproc
select 'max'::regproc
select p.proname, p.prorettype::regtype, p.proargtypes from pg_proc p where p.proname in ('nextval', 'setval', 'currval', 'lastval') order by 1, 3
-- pg_tables: the catalog's tables
select schemaname, tablename, tablespace from pg_tables where tablename in ('pg_class', 'pg_type', 'sql_features') order by 2
-- Timestamps with time zone (pg_stat_activity's), in the session's TimeZone
select '2026-01-01 00:00:00+00'::timestamptz, '2020-01-01'::timestamptz, '2020-01-01T10:00:00Z'::timestamptz, '2026-11-24 12:05:20.123456+01'::timestamptz
select '2026-11-24 12:05:20.5 UTC'::timestamptz, '2026-11-24 12:05'::timestamptz, 'epoch'::timestamptz, '2026-11-24 12:05:20-0330'::timestamptz
select '2026-01-01'::timestamptz < '2026-01-02', '2026-01-01 00:00:00+01'::timestamptz = '2025-12-31 23:00:00+00', '2026-01-01'::timestamptz::text
select 'x'::timestamptz
select '2026-13-01'::timestamptz
set timezone = 'Nowhere/Land'
set timezone = '+05:30'
show timezone
select '2026-01-01 00:00:00+00'::timestamptz, '2026-06-01 12:00'::timestamptz
set timezone = 'America/New_York'
select '2026-01-01 00:00:00+00'::timestamptz, '2026-07-01 00:00:00+00'::timestamptz, '2026-07-01 00:00'::timestamptz
set timezone = 'Asia/Kathmandu'
select '2026-01-01 00:00:00+00'::timestamptz
set timezone = 'UTC'
select count(*) from pg_stat_activity where pid = pg_backend_pid() and state = 'active' and backend_start <= query_start and usename = current_user
select '2026-02-30 10:00'::timestamptz
select '2026-01-01 25:00'::timestamptz
-- The session's prepared statements and cursors
prepare oracle_p1(int, text) as select 1
execute oracle_p1(1, 'a')
select name, statement, parameter_types, from_sql from pg_prepared_statements where name like 'oracle%'
begin
declare oracle_c binary cursor for select 1::int, 'ab'::text
declare oracle_c2 cursor with hold for select 2
select name, statement, is_holdable, is_binary, is_scrollable from pg_cursors order by name
fetch oracle_c
commit
select name, is_holdable from pg_cursors
close oracle_c2
deallocate oracle_p1
select count(*) from pg_prepared_statements where name like 'oracle%'
prepare oracle_p2 as select 1
discard all
select count(*) from pg_prepared_statements where name like 'oracle%'
execute oracle_p2
-- The catalog's relations: their ACLs, who may read them, information_schema.tables
-- (seqd has no pg_read_all_stats, which PostgreSQL grants two relations to)
select c.relname, replace(c.relacl::text, current_user, 'OWNER') from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname in ('pg_catalog', 'information_schema') and c.relkind in ('r', 'v') and c.relname not like 'seqd%' and c.relname not in ('pg_backend_memory_contexts', 'pg_shmem_allocations') order by 1
select table_catalog = current_database(), table_schema, table_name, table_type, is_insertable_into, is_typed, commit_action from information_schema.tables where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%' order by 2, 3
select has_table_privilege('pg_class', 'select'), has_table_privilege('pg_authid', 'select, insert'), has_table_privilege('pg_settings', 'update'), has_table_privilege('pg_class'::regclass, 'insert')
select has_table_privilege('pg_class', 'usage')
select has_table_privilege('nosuch', 'select')
create role oracle_reader
select has_table_privilege('oracle_reader', 'pg_class', 'select'), has_table_privilege('oracle_reader', 'pg_authid', 'select'), has_table_privilege('oracle_reader', 'pg_settings', 'select, update'), has_table_privilege('oracle_reader', 'pg_class', 'insert')
select has_table_privilege('oracle_reader', 'pg_statistic', 'select'), has_any_column_privilege('oracle_reader', 'pg_shadow', 'select'), has_table_privilege('oracle_reader', 'pg_stat_activity', 'select')
create sequence oracle_tp
grant select on oracle_tp to oracle_reader
select has_table_privilege('oracle_reader', 'oracle_tp', 'select'), has_table_privilege('oracle_reader', 'oracle_tp', 'update'), has_table_privilege('oracle_tp', 'insert'), has_table_privilege('oracle_reader', 'oracle_tp', 'insert')
set role oracle_reader
select count(*) from pg_authid
select count(*) from pg_statistic
select count(*) from pg_class where relname = 'pg_class'
select table_schema, table_name from information_schema.tables where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%' order by 1, 2
reset role
drop sequence oracle_tp
drop role oracle_reader
-- CREATE ROLE with IN ROLE, ROLE, ADMIN: memberships made with the role
create role oracle_g
create role oracle_m
create role oracle_a
create role oracle_c in role oracle_g role oracle_m admin oracle_a
select roleid::regrole, member::regrole, admin_option from pg_auth_members where roleid::regrole::text like 'oracle\_%' order by roleid::regrole::text, member::regrole::text
create role oracle_d in role oracle_nosuch
create role oracle_e in role oracle_g role oracle_g
select count(*) from pg_roles where rolname in ('oracle_d', 'oracle_e')
drop role oracle_c
drop role oracle_a
drop role oracle_m
drop role oracle_g
-- JOIN ... USING: the columns merged, the join's condition
select a.x, y, b.z from (values (1, 'a'), (2, 'b')) a(x, y) join (values (2, 'c'), (3, 'd')) b(x, z) using (x)
select x, y, z from (values (1, 'a'), (2, 'b')) a(x, y) left join (values (2, 'c'), (3, 'd')) b(x, z) using (x) order by x
select x, y, z from (values (1, 'a'), (2, 'b')) a(x, y) right join (values (2, 'c'), (3, 'd')) b(x, z) using (x) order by x
select count(*) from (values (1, 1)) a(x, w) join (values (1, 2)) b(x, w) using (x, w)
select x from (values (1)) a(x) join (values (1)) b(y) using (x)
select c.relname, attname from pg_class c join pg_attribute a on a.attrelid = c.oid join (values (1::int2)) v(attnum) using (attnum) where c.relname = 'pg_namespace'
-- Aggregates: ORDER BY within the call, FILTER
select array_agg(x order by x desc), array_agg(x order by x), string_agg(y, ',' order by y desc) from (values (1, 'a'), (3, 'c'), (2, 'b')) v(x, y)
select array_agg(x order by y nulls first, x desc) from (values (1, 'a'), (3, null), (2, 'a'), (4, null)) v(x, y)
select count(*) filter (where x > 1), sum(x) filter (where x < 3), array_agg(x order by x) filter (where x <> 2), count(x) filter (where false) from (values (1), (2), (3)) v(x)
select y, array_agg(x order by x desc) from (values (1, 'a'), (3, 'b'), (2, 'a')) v(x, y) group by y order by y
select lower('A') filter (where true)
select lower(distinct 'A')
select lower('A' order by 1)
select lower(*)
select pg_backend_pid(*)
-- Set-returning functions in the select list, in lockstep
select unnest(array[10, 20, 30]) as a, generate_subscripts(array[10, 20, 30], 1) as i
select unnest(array['x', 'y']), unnest(array[1, 2, 3]), 'k'
select generate_subscripts(array[1, 2], 2), generate_subscripts(null::int[], 1)
select unnest(array[]::int[]), unnest(array[1])
select array_agg(attname order by i) from (select unnest(array[2, 1]::int2[]) as attnum, generate_subscripts(array[2, 1]::int2[], 1) as i) x join pg_attribute c using (attnum) where c.attrelid = 'pg_namespace'::regclass
-- A subquery in FROM of a correlated subquery reads the enclosing row (pgcli's foreign keys query)
select v.a, (select max(y) from (select v.a * 2 as y) s), (select array_agg(z order by z desc) from (select unnest(array[v.a, v.a + 10]) as z) s) from (values (1), (2)) v(a) order by 1
select s_p.nspname as parentschema, t_p.relname as parenttable, unnest((select array_agg(attname order by i) from (select unnest(confkey) as attnum, generate_subscripts(confkey, 1) as i) x join pg_catalog.pg_attribute c using (attnum) where c.attrelid = fk.confrelid)) as parentcolumn, s_c.nspname as childschema, t_c.relname as childtable, unnest((select array_agg(attname order by i) from (select unnest(conkey) as attnum, generate_subscripts(conkey, 1) as i) x join pg_catalog.pg_attribute c using (attnum) where c.attrelid = fk.conrelid)) as childcolumn from pg_catalog.pg_constraint fk join pg_catalog.pg_class t_p on t_p.oid = fk.confrelid join pg_catalog.pg_namespace s_p on s_p.oid = t_p.relnamespace join pg_catalog.pg_class t_c on t_c.oid = fk.conrelid join pg_catalog.pg_namespace s_c on s_c.oid = t_c.relnamespace where fk.contype = 'f'
comment on schema nosuch is 'x'
-- Joins that look up the right relation by the left row's key
select c.relname, a.attname, a.attnum from pg_class c left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 where c.relname = 'pg_am' order by 3
select v.x, a.attname from (values (null::oid), (1259::oid), (1::oid)) v(x) left join pg_attribute a on a.attrelid = v.x and a.attnum = 1 order by 1
select v.x, a.attname from (values (null::oid), (1259::oid), (1::oid)) v(x) join pg_attribute a on v.x = a.attrelid and a.attnum = 2 order by 1
select count(*) from pg_class c join pg_attribute a on a.attrelid = c.oid where c.relname in ('pg_class', 'pg_am') and a.attnum < 0
-- A double's arithmetic that overflows or underflows is an error, not Infinity or 0
select 1e308::float8 + 1e308
select -(1e308::float8) - 1e308
select float8 '1e308' * 10 is null
select 1e-200::float8 * 1e-200
select 1e-300::float8 / 1e300
select 1e300::float8 / 1e-300
select 1e300::numeric::float8 * 1e10
select 3e38::float4 * 10::float4
select 'Infinity'::float8 * 2, 'Infinity'::float8 + 1, 1::float8 / 'Infinity', 1e308::float8 * 'Infinity'
select sum(x) from (values (1e308::float8), (1e308)) t(x)
select sum(x) from (values (1e308::float8), (1e308), (-1e308)) t(x)
select sum(x) from (values (3e38::float4), (3e38)) t(x)
select avg(x) from (values (1e308::float8), (1e308)) t(x)
select avg(x) from (values (1e200::float8), (-1e200)) t(x)
select avg(x) from (values (3e38::float4), (3e38)) t(x)
select sum(x), avg(x) from (values ('Infinity'::float8), (1)) t(x)
select avg(x) from (values (1::float8), ('Infinity'), (1e308)) t(x)
select avg(x) from (values ('NaN'::float8), (1e308), (1e308)) t(x)
select sum(x), avg(x) from (values (1.5::float8), (2.25), (-7)) t(x)
