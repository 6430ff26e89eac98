package pgwire

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
)

// catalogSetup makes the same objects on both servers: a schema, a role,
// sequences of each type and option, owned by and granted to the role,
// with comments and a role setting.
var catalogSetup = []string{
	"drop schema if exists cr cascade",
	"drop role if exists cr_owner",
	"drop role if exists cr_reader",
	"create role cr_owner login createrole",
	"create role cr_reader",
	"grant cr_reader to cr_owner",
	"alter role cr_reader set search_path = cr, public",
	"alter role cr_owner set statement_timeout = '5s'",
	"create schema cr authorization cr_owner",
	"grant usage on schema cr to cr_reader",
	"create sequence cr.s_big",
	"create sequence cr.s_int as integer start 10 increment 5 minvalue 10 maxvalue 1000 cache 20 cycle",
	"create sequence cr.s_small as smallint increment -1",
	"alter sequence cr.s_int owner to cr_owner",
	"comment on sequence cr.s_big is 'a plain one'",
	"comment on schema cr is 'the catalog rows'' schema'",
	"grant select, usage on cr.s_big to cr_reader",
	"grant update on cr.s_int to cr_reader",
	// (nextval of a cached sequence would differ: PostgreSQL's last_value
	// counts the values its session cached, seqd's CACHE does not.)
	"select nextval('cr.s_big'), setval('cr.s_int', 105), setval('cr.s_small', -5, false)",
}

// catalogRowQueries read, from each relation seqd populates, its rows for
// the objects catalogSetup made, their OIDs as names (OIDs differ between
// the servers; built-in objects' do not).
var catalogRowQueries = []string{
	`select c.relname, c.relnamespace::regnamespace, c.reltype, c.reloftype, c.relowner::regrole, c.relam, c.reltablespace, c.relpages, c.reltuples,
		c.relallvisible, c.reltoastrelid, c.relhasindex, c.relisshared, c.relpersistence, c.relkind, c.relnatts, c.relchecks, c.relhasrules,
		c.relhastriggers, c.relhassubclass, c.relrowsecurity, c.relforcerowsecurity, c.relispopulated, c.relreplident, c.relispartition,
		c.relrewrite, c.relacl, c.reloptions, c.relpartbound
	 from pg_class c where c.relnamespace = 'cr'::regnamespace order by 1`,
	`select seqrelid::regclass, seqtypid::regtype, seqstart, seqincrement, seqmax, seqmin, seqcache, seqcycle from pg_sequence
	 where seqrelid::regclass::text like 'cr.%' order by 1`,
	`select * from pg_sequences where schemaname = 'cr' order by 2`,
	`select * from information_schema.sequences where sequence_schema = 'cr' order by 3`,
	`select nspname, nspowner::regrole, nspacl from pg_namespace where nspname = 'cr'`,
	`select * from information_schema.schemata where schema_name = 'cr'`,
	`select attrelid::regclass, attname, atttypid::regtype, attstattarget, attlen, attnum, attndims, attcacheoff, atttypmod, attbyval,
		attalign, attstorage, attcompression, attnotnull, atthasdef, atthasmissing, attidentity, attgenerated, attisdropped, attislocal,
		attinhcount, attcollation, attacl, attoptions, attfdwoptions, attmissingval
	 from pg_attribute where attrelid::regclass::text like 'cr.%' order by 1, attnum`,
	`select attrelid::regclass, attname, atttypid::regtype, attstattarget, attlen, attnum, attbyval, attalign, attnotnull from pg_attribute
	 where attrelid in ('pg_class'::regclass, 'pg_roles'::regclass) and attnum < 0 order by 1, attnum`,
	`select classid::regclass, objid::regclass, objsubid, refclassid::regclass, refobjid::regnamespace, refobjsubid, deptype from pg_depend
	 where classid = 'pg_class'::regclass and objid::regclass::text like 'cr.%' order by 2`,
	`select objoid::regclass, classoid::regclass, objsubid, description from pg_description
	 where classoid = 'pg_class'::regclass and objoid::regclass::text like 'cr.%' order by 1`,
	`select objoid::regnamespace, classoid::regclass, objsubid, description from pg_description
	 where classoid = 'pg_namespace'::regclass and objoid = 'cr'::regnamespace`,
	`select obj_description('cr.s_big'::regclass, 'pg_class'), obj_description('cr'::regnamespace, 'pg_namespace'), col_description('cr.s_big'::regclass, 1)`,
	`select rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolconnlimit, rolpassword, rolvaliduntil,
		rolbypassrls, rolconfig from pg_roles where rolname like 'cr\_%' order by 1`,
	`select usename, usecreatedb, usesuper, userepl, usebypassrls, passwd, valuntil, useconfig from pg_user where usename like 'cr\_%' order by 1`,
	`select roleid::regrole, member::regrole, grantor::regrole, admin_option from pg_auth_members where member::regrole::text like 'cr\_%' order by 1, 2`,
	`select setdatabase, setrole::regrole, setconfig from pg_db_role_setting where setrole::regrole::text like 'cr\_%' order by setrole::regrole::text`,
	`select * from information_schema.usage_privileges where object_schema = 'cr' order by 3, 4, 5, 7`,
	`select * from information_schema.role_usage_grants where object_schema = 'cr' order by 3, 4, 5, 7`,
	`select * from information_schema.applicable_roles where grantee like 'cr\_%' order by 1, 2`,
	`select has_sequence_privilege('cr_reader', 'cr.s_big', 'usage'), has_sequence_privilege('cr_reader', 'cr.s_int', 'select'),
		has_table_privilege('cr_reader', 'cr.s_int', 'update'), has_schema_privilege('cr_reader', 'cr', 'usage, create'),
		pg_has_role('cr_owner', 'cr_reader', 'member'), pg_has_role('cr_reader', 'cr_owner', 'usage')`,
	`select pg_get_userbyid(relowner), pg_sequence_last_value(oid), pg_relation_size(oid) > 0 from pg_class where oid = 'cr.s_int'::regclass`,
	`select * from pg_sequence_parameters('cr.s_small'::regclass)`,
	`select groname, array_length(grolist, 1), grolist = array[(select oid from pg_roles where rolname = 'cr_owner')] from pg_group where groname like 'cr\_%' order by 1`,
	`select gss_authenticated, principal, encrypted from pg_stat_gssapi where pid = pg_backend_pid()`,
	`select * from information_schema.character_sets`,
	`select * from information_schema.collations where collation_name in ('default', 'C', 'POSIX') order by 3`,
	`select * from information_schema.collation_character_set_applicability where collation_name in ('default', 'C', 'POSIX') order by 3`,
	`select format_type(seqtypid, null), pg_catalog.format_type(atttypid, atttypmod) from pg_sequence, pg_attribute
	 where seqrelid = 'cr.s_small'::regclass and attrelid = seqrelid and attnum = 1`,
	`select * from information_schema.table_privileges where table_name in ('pg_class', 'pg_authid', 'pg_settings', 'tables') order by 4, 5, 2, 6`,
	// seqd has no predefined roles: PostgreSQL's grants to
	// pg_read_all_stats (of pg_shmem_allocations and
	// pg_backend_memory_contexts) are not made.
	`select grantee, privilege_type, is_grantable, with_hierarchy, count(*) from information_schema.table_privileges
	 where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%' and grantee <> 'pg_read_all_stats'
	 group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
	`select * from information_schema.role_table_grants where table_name in ('pg_roles', 'pg_statistic') order by 4, 5, 2, 6`,
	`select * from information_schema.column_privileges where table_name in ('pg_subscription', 'pg_authid') order by 4, 5, 6, 2, 7`,
	`select grantee, privilege_type, is_grantable, count(*) from information_schema.column_privileges
	 where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%' and grantee <> 'pg_read_all_stats'
	 group by 1, 2, 3 order by 1, 2, 3`,
	// information_schema.columns: every catalog column as PostgreSQL
	// describes it (as pg_attribute, its NOT NULL, typmod and dimensions).
	`select * from information_schema.columns where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%'
	 order by table_schema, table_name, ordinal_position`,
	// (atttypid aside: information_schema's domains are their base types
	// in seqd.)
	`select attrelid::regclass, attname, attnum, atttypmod, attndims, attnotnull, attcollation from pg_attribute
	 where attrelid in (select oid from pg_class where relnamespace in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
	 and relkind in ('r', 'v') and relname not like 'seqd%') and attnum > 0 order by attrelid::regclass::text, attnum`,
	`select classid::regclass, case classid when 'pg_class'::regclass then objid::regclass::text when 'pg_namespace'::regclass then objid::regnamespace::text
		when 'pg_database'::regclass then (select datname::text from pg_database where oid = objid) end, objsubid, refclassid::regclass, refobjid::regrole, deptype,
		dbid = (select oid from pg_database where datname = current_database())
	 from pg_shdepend where refobjid in (select oid from pg_roles where rolname like 'cr\_%') order by 2, 5, 6`,
	`select datid = (select oid from pg_database where datname = current_database()), datname, confl_tablespace, confl_lock, confl_snapshot,
		confl_bufferpin, confl_deadlock from pg_stat_database_conflicts where datname = current_database()`,
	`select relid::regclass, schemaname, relname from pg_statio_all_sequences where schemaname = 'cr' order by 3`,
	`select relid::regclass, schemaname, relname from pg_statio_user_sequences where schemaname = 'cr' order by 3`,
	`select count(*) from pg_statio_sys_sequences`,
	`select * from pg_timezone_names where name in ('UTC', 'Europe/Paris', 'Asia/Kolkata', 'America/St_Johns', 'Etc/GMT+5', 'Australia/Lord_Howe')
	 order by 1`,
	`select count(*), count(distinct name) from pg_timezone_names where name not like 'posix/%'`,
	`select * from information_schema.sql_implementation_info where implementation_info_name <> 'DBMS VERSION'`,
	`select * from pg_views where schemaname in ('pg_catalog', 'information_schema') and viewname not like 'seqd%' order by 1, 2`,
	`select * from information_schema.views where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%' order by 2, 3`,
	`select pg_get_viewdef('pg_roles'::regclass) = pg_get_viewdef('pg_roles'), pg_get_viewdef('pg_class'::regclass), pg_get_viewdef('pg_class'),
		pg_get_viewdef(0), pg_get_viewdef('cr.s_big')`,
	`select grantee, count(*) from information_schema.role_column_grants
	 where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%' and grantee <> 'pg_read_all_stats'
	 group by 1 order by 1`,
}

// TestCatalogRows: the catalog relations seqd populates hold, for the same
// objects, the rows PostgreSQL 15 holds (each read with its OIDs as names).
func TestCatalogRows(t *testing.T) {
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, testenv.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	// The same user and database names on both (they show in the rows).
	dsn := strings.Replace(startSeqd(t), "//u@", "//"+pg.Config().User+"@", 1)
	sd, err := pgx.Connect(ctx, strings.Replace(dsn, "/db?", "/"+pg.Config().Database+"?", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer sd.Close(ctx)
	for _, q := range catalogSetup {
		for _, c := range []struct {
			name string
			out  outcome
		}{{"postgres", run(ctx, pg, q)}, {"seqd", run(ctx, sd, q)}} {
			if c.out.state != "" {
				t.Fatalf("%s: %s: %s", c.name, q, c.out)
			}
		}
	}
	t.Cleanup(func() {
		for _, q := range []string{"drop schema cr cascade", "drop role cr_owner", "drop role cr_reader"} {
			run(ctx, pg, q)
		}
	})
	rows := 0
	for _, q := range catalogRowQueries {
		want, got := run(ctx, pg, q), run(ctx, sd, q)
		if want.String() != got.String() {
			t.Errorf("%s\n postgres: %s\n     seqd: %s", q, want, got)
		}
		rows += len(want.rows)
	}
	// The functions seqd lists, as information_schema describes them.
	var specific string
	if err := sd.QueryRow(ctx, "select string_agg(quote_literal(specific_name), ',') from information_schema.routines").Scan(&specific); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"select * from information_schema.routines where specific_name in (%s) order by specific_name",
		"select * from information_schema.parameters where specific_name in (%s) order by specific_name, ordinal_position",
		"select * from information_schema.routine_privileges where specific_name in (%s) order by specific_name, grantee",
		"select * from information_schema.role_routine_grants where specific_name in (%s) order by specific_name, grantee",
		"select count(*) from information_schema.routines where specific_name in (%s)",
	} {
		q = fmt.Sprintf(q, specific)
		want, got := run(ctx, pg, q), run(ctx, sd, q)
		if want.String() != got.String() {
			t.Errorf("%s\n postgres: %s\n     seqd: %s", q[:60], want, got)
		}
		rows += len(want.rows)
	}
	// As a role that is no superuser, the grants and roles it may see.
	for _, q := range []string{
		"set role cr_owner",
		// OID 10 stays the bootstrap superuser whichever role is taken.
		"select rolname, rolsuper from pg_roles where oid = 10",
		"select relacl from pg_class where oid = 'pg_class'::regclass",
		"select nspacl from pg_namespace where nspname = 'pg_catalog'",
		`select * from information_schema.enabled_roles where role_name like 'cr\_%' order by 1`,
		`select * from information_schema.applicable_roles order by 1, 2`,
		`select * from information_schema.administrable_role_authorizations order by 1, 2`,
		`select * from information_schema.usage_privileges where object_schema = 'cr' order by 3, 4, 5, 2`,
		`select * from information_schema.role_usage_grants where object_schema = 'cr' order by 3, 4, 5, 2`,
		"set role cr_reader",
		`select * from information_schema.usage_privileges where object_schema = 'cr' order by 3, 4, 5, 2`,
		`select * from information_schema.applicable_roles order by 1, 2`,
		`select grantee, privilege_type, count(*) from information_schema.table_privileges
		 where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%' group by 1, 2 order by 1, 2`,
		`select * from information_schema.column_privileges where table_name = 'pg_subscription' order by 6, 7`,
		`select table_schema, table_name, count(*) from information_schema.columns
		 where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%' group by 1, 2 order by 1, 2`,
		`select count(*) from information_schema.role_table_grants`,
		`select count(*) from information_schema.routines where routine_name = 'nextval' and routine_definition is null`,
		`select grantee, count(*) from information_schema.routine_privileges where routine_name in ('nextval', 'setval') group by 1`,
		`select count(*) from information_schema.role_routine_grants`,
		`select count(*), count(view_definition) from information_schema.views where table_schema in ('pg_catalog', 'information_schema') and table_name not like 'seqd%'`,
		`select count(*) from information_schema.role_column_grants`,
		"reset role",
	} {
		want, got := run(ctx, pg, q), run(ctx, sd, q)
		if want.String() != got.String() {
			t.Errorf("%s\n postgres: %s\n     seqd: %s", q, want, got)
		}
		rows += len(want.rows)
	}
	if rows < 40 {
		t.Errorf("%d rows compared in all, want the setup's objects in them", rows)
	}
}
