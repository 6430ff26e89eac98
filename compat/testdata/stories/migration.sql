-- A migration rolled back halfway: DDL in a transaction block is seen by
-- the block at once and undone by ROLLBACK, by an error, or by a COMMIT
-- of a failed block; committed, it all takes effect at once.
\set VERBOSITY verbose
create sequence orders start 1000;
select nextval('orders');
begin;
create schema billing;
create sequence billing.invoices start 1;
select nextval('billing.invoices'), nextval('billing.invoices');
alter sequence orders rename to orders_v2;
comment on sequence orders_v2 is 'orders, version 2';
select schemaname, sequencename, start_value, increment_by from pg_sequences order by 1, 2;
select obj_description('orders_v2'::regclass, 'pg_class');
select nextval('orders_v2');
drop sequence nosuch;
select nextval('orders_v2');
commit;
select schemaname, sequencename from pg_sequences order by 1, 2;
select nspname from pg_namespace where nspname = 'billing';
select nextval('orders');
select nextval('billing.invoices');
select obj_description('orders'::regclass, 'pg_class');
-- The same migration, committed.
begin;
create schema billing;
create sequence billing.invoices;
select nextval('billing.invoices');
alter sequence orders rename to orders_v2;
comment on sequence orders_v2 is 'orders, version 2';
drop sequence if exists gone;
commit;
select nextval('orders_v2'), nextval('billing.invoices');
select schemaname, sequencename from pg_sequences order by 1, 2;
select obj_description('orders_v2'::regclass, 'pg_class');
-- Created and dropped in one block; dropped and made again.
begin;
create sequence tmp1;
select nextval('tmp1');
drop sequence tmp1;
drop sequence orders_v2;
select nextval('orders_v2');
rollback;
select nextval('orders_v2');
begin;
drop sequence orders_v2;
create sequence orders_v2 start 7;
select nextval('orders_v2');
commit;
select nextval('orders_v2');
select obj_description('orders_v2'::regclass, 'pg_class');
-- Schemas: dropped with their sequences, undone.
begin;
drop schema billing cascade;
select nextval('billing.invoices');
rollback;
select nextval('billing.invoices');
begin;
drop schema billing;
rollback;
begin;
drop schema billing cascade;
create schema billing;
create sequence billing.receipts;
commit;
select schemaname, sequencename from pg_sequences order by 1, 2;
-- Read-only blocks refuse DDL; SET SCHEMA and unlogged in a block.
begin;
create schema archive;
alter sequence orders_v2 set schema archive;
alter sequence archive.orders_v2 set unlogged;
select nextval('archive.orders_v2');
select schemaname, sequencename from pg_sequences order by 1, 2;
rollback;
select nextval('orders_v2');
select relpersistence from pg_class where relname = 'orders_v2';
drop schema billing cascade;
drop sequence orders_v2;
-- Errors name a sequence as the block knows it: created in the block, or
-- renamed there.
create sequence kept maxvalue 3;
begin;
create sequence fresh maxvalue 1;
select nextval('fresh');
select nextval('fresh');
rollback;
begin;
alter sequence kept rename to renamed;
select setval('renamed', 10);
rollback;
begin;
alter sequence kept rename to renamed;
select setval('renamed', 3);
select nextval('renamed');
rollback;
drop sequence kept;
-- Grants and comments in a block are undone with it.
create sequence shared_ids;
create role app_reader;
begin;
grant select, usage on sequence shared_ids to app_reader;
comment on sequence shared_ids is 'ids';
select has_sequence_privilege('app_reader', 'shared_ids', 'usage'), obj_description('shared_ids'::regclass, 'pg_class');
rollback;
select has_sequence_privilege('app_reader', 'shared_ids', 'usage'), obj_description('shared_ids'::regclass, 'pg_class');
begin;
grant usage on sequence shared_ids to app_reader;
commit;
select has_sequence_privilege('app_reader', 'shared_ids', 'usage');
revoke all on sequence shared_ids from app_reader;
drop sequence shared_ids;
drop role app_reader;
