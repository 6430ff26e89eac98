-- Renames, moves between schemas, owners and comments keep a sequence's
-- identity and position.
\set VERBOSITY verbose
create sequence orders;
select nextval('orders'), nextval('orders');
alter sequence orders rename to invoices;
select nextval('invoices');
select nextval('orders');
alter table invoices rename to bills;
select nextval('bills'), currval('bills');
alter sequence if exists nosuch rename to x;
alter sequence nosuch rename to x;
create sequence other;
alter sequence bills rename to other;
create schema archive;
alter sequence bills set schema archive;
select nextval('archive.bills');
select schemaname, sequencename, last_value from pg_sequences order by 1, 2;
create sequence bills;
alter sequence bills set schema archive;
alter sequence bills set schema nosuch;
alter sequence if exists nosuch set schema archive;
alter sequence bills owner to current_user;
alter sequence bills owner to nobody_here;
alter sequence bills owned by none;
alter sequence bills set logged;
comment on sequence bills is 'customer bills';
comment on sequence nosuch is 'x';
select obj_description('bills'::regclass, 'pg_class'), obj_description('other'::regclass, 'pg_class');
select d.description from pg_description d join pg_class c on c.oid = d.objoid where c.relname = 'bills';
alter sequence bills rename to bills2;
select obj_description('bills2'::regclass, 'pg_class');
comment on sequence bills2 is null;
select obj_description('bills2'::regclass, 'pg_class');
\d archive.bills
