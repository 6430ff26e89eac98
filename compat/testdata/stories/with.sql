-- WITH (not RECURSIVE): common table expressions, as tools' catalog
-- queries write them; one named twice runs once.
\set VERBOSITY verbose
set client_min_messages = warning;
drop sequence if exists w_s, w_t;
reset client_min_messages;
create sequence w_s;
create sequence w_t start 100;
with s as (select sequencename from pg_sequences where sequencename like 'w\_%')
  select * from s order by 1;
with a(n) as (values (1), (2)), b as (select n * 10 as m from a)
  select n, m from a join b on b.m = a.n * 10 order by n;
with v as (select nextval('w_s') as x)
  select v1.x = v2.x as same from v v1, v v2;
select nextval('w_s');
with c as (select count(*) as n from pg_sequences where sequencename like 'w\_%')
  select n, (select n from c) as again from c;
with x as (select 1) , x as (select 2) select 1;
with x(a, b) as (select 1) select 1;
with q as (select 'outer' as w) select (with q as (select 'inner' as w) select w from q), w from q;
with recursive r(n) as (values (1) union all select n + 1 from r where n < 3) select * from r;
with recursive r(n) as (select 1 union all select n + 1 from r where n < 5) select sum(n), count(*) from r;
with recursive r(n) as (select 1::int union select (n + 1)::bigint from r where n < 3) select * from r;
with recursive r(n) as (select 1 union select 1 from r) select * from r;
with recursive r(n, path) as (select 1, '1'::text union all select n + 1, path || '.' || (n + 1) from r where n < 4)
  select * from r order by n desc;
with recursive a as (select 1 as x), r(n) as (select x from a union all select n + 1 from r where n < 2) select * from r;
drop sequence w_s, w_t;
