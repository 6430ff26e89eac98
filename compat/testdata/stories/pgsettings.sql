-- Every PostgreSQL 15 parameter is known: SET, SHOW, RESET, set_config
-- and current_setting check and show them as PostgreSQL does, those seqd
-- gives no meaning to included (pg_dump begins with one of them).
\set VERBOSITY verbose
\set admin :USER
set client_min_messages = warning;
drop role if exists pgs_plain;
reset client_min_messages;
create role pgs_plain login;
set synchronize_seqscans to off;
show synchronize_seqscans;
set synchronize_seqscans = 'maybe';
set work_mem = '8MB';
show work_mem;
set work_mem = 16384;
show work_mem;
set work_mem = '1.5GB';
show work_mem;
set work_mem = 10;
set work_mem = 'lots';
set work_mem = '8XB';
set work_mem = '9999999999';
reset work_mem;
show work_mem;
set effective_cache_size = '2GB';
show effective_cache_size;
set log_min_duration_statement = '1min';
show log_min_duration_statement;
set log_min_duration_statement = '250us';
show log_min_duration_statement;
set log_min_duration_statement = -1;
show log_min_duration_statement;
set vacuum_cost_delay = 0;
set deadlock_timeout = '2s';
show deadlock_timeout;
set deadlock_timeout = '5 fortnights';
set random_page_cost = 1.1;
show random_page_cost;
set random_page_cost = -1;
set cpu_tuple_cost = 1234567;
show cpu_tuple_cost;
set constraint_exclusion = 'ON';
show constraint_exclusion;
set constraint_exclusion = 'sometimes';
set default_toast_compression = 'lz4';
show default_toast_compression;
set shared_buffers = '1GB';
set checkpoint_timeout = 10;
set log_connections = on;
set server_version_num = 1;
select set_config('geqo', 'off', false), current_setting('geqo');
select set_config('geqo_threshold', '20', false), current_setting('geqo_threshold');
show shared_buffers;
show max_wal_size;
show wal_level;
show enable_seqscan;
begin;
set local enable_seqscan = off;
show enable_seqscan;
rollback;
show enable_seqscan;
\c - pgs_plain
set log_min_duration_statement = 10;
set log_statement = 'all';
set enable_hashjoin = off;
show enable_hashjoin;
\c - :admin
select name, setting, unit, context, vartype, min_val, max_val, enumvals, boot_val, reset_val from pg_settings
  where name in ('work_mem', 'statement_timeout', 'random_page_cost', 'constraint_exclusion', 'geqo', 'shared_buffers',
    'synchronize_seqscans', 'log_min_duration_statement', 'max_wal_size', 'DateStyle') order by name;
alter role pgs_plain set shared_buffers = '1GB';
alter role pgs_plain set checkpoint_timeout = 100;
alter role pgs_plain set log_connections = on;
alter role pgs_plain set work_mem = 100;
alter role pgs_plain set work_mem = '8MB';
select rolconfig from pg_roles where rolname = 'pgs_plain';
drop role pgs_plain;
