-- Privileges: owners, GRANT and REVOKE, and what a role may do without them.
\set VERBOSITY verbose
\set QUIET on
\set admin :USER
set client_min_messages = warning;
drop role if exists priv_owner;
drop role if exists priv_user;
reset client_min_messages;
create role priv_owner login;
create role priv_user login;
create sequence priv_s;
alter sequence priv_s owner to priv_owner;
alter sequence priv_s owner to priv_nobody;
select sequencename, sequenceowner from pg_sequences where sequencename like 'priv%';
\c - priv_user
select nextval('priv_s');
select * from pg_sequence_parameters('priv_s'::regclass);
begin read only;
select nextval('priv_s');
rollback;
select currval('priv_s');
select * from priv_s;
select nextval('priv_s') from generate_series(1, 3);
alter sequence priv_s restart;
alter sequence priv_s rename to priv_x;
comment on sequence priv_s is 'mine';
drop sequence priv_s;
grant usage on sequence priv_s to priv_user;
select has_sequence_privilege('priv_s', 'usage'), has_sequence_privilege('priv_s', 'select,update');
select sequencename, last_value from pg_sequences where sequencename = 'priv_s';
create sequence priv_mine;
alter sequence priv_mine owner to priv_owner;
select sequencename, sequenceowner from pg_sequences where sequencename like 'priv%' order by 1;
\c - priv_owner
select nextval('priv_s');
grant usage on sequence priv_s to priv_user;
grant select on priv_s to priv_user;
grant insert on sequence priv_s to priv_user;
grant insert, update on priv_s to public;
grant usage on sequence priv_s to priv_nobody;
grant usage on sequence priv_missing to priv_user;
\c - priv_user
select nextval('priv_s');
select last_value, is_called from priv_s;
select setval('priv_s', 10);
select sequencename, last_value from pg_sequences where sequencename = 'priv_s';
grant usage on sequence priv_s to priv_owner;
revoke usage on sequence priv_s from priv_owner;
\c - priv_owner
revoke all on sequence priv_s from public;
revoke update on sequence priv_s from priv_user;
\c - priv_user
select setval('priv_s', 20);
select has_sequence_privilege('priv_owner', 'priv_s', 'update'), has_sequence_privilege('priv_s', 'usage with grant option');
select has_sequence_privilege('priv_s', 'usage, update'), has_sequence_privilege('priv_owner', 'priv_s', 'select with grant option');
select has_sequence_privilege('priv_s', 'delete');
select has_sequence_privilege('priv_nosuch', 'usage');
select has_sequence_privilege('priv_nobody', 'priv_s', 'usage');
drop sequence priv_mine;
\c - :admin
drop role priv_owner;
drop role priv_user;
grant select on all sequences in schema public to priv_user;
select has_sequence_privilege('priv_user', 'priv_s', 'select'), has_sequence_privilege('priv_user', 'priv_mine', 'select');
drop sequence priv_s, priv_mine;
drop role priv_user;
drop role priv_owner;
drop sequence priv_s;
drop role priv_user;
drop role priv_owner;
