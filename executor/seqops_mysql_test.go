package executor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/sqlerr"
)

// mysqlSessions are a superuser's session and role app's, on one engine
// with schemas x and y, sequences x.a (NOCACHE, advanced to 6), x.b
// (app's) and y.c (SELECT granted to app).
func mysqlSessions(t *testing.T) (root, app *Session) {
	t.Helper()
	eng := testenv.MemEngine(t)
	var err error
	if root, err = NewSession(Config{Engine: eng, MaxBulkRows: 1000, User: "seqd", Superuser: "seqd", Database: "seqd"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"create role app login", "create schema x", "create schema y", "grant usage on schema x, y to app",
		"create sequence x.a start 5 cache 1", "select nextval('x.a'), nextval('x.a')", "create sequence x.b", "alter sequence x.b owner to app",
		"create sequence y.c increment -2 cycle cache 20", "grant select on sequence y.c to app"} {
		if out := execTranscript(root, q); strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", q, out)
		}
	}
	if app, err = NewSession(Config{Engine: eng, MaxBulkRows: 1000, User: "app", Superuser: "seqd", Database: "seqd"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close(); app.Close() })
	return root, app
}

// TestMySQLRelations: the names the MySQL front end builds resolve in a
// FROM clause to MySQL's information_schema (the sequences a role holds
// a privilege on) and to MariaDB's row of a sequence (SELECT on it
// needed), which follows the sequence's position; pg_namespace and
// pg_class list neither.
func TestMySQLRelations(t *testing.T) {
	root, app := mysqlSessions(t)
	app.ShowVariables(func() []catalog.SystemVariable {
		return []catalog.SystemVariable{{Name: "autocommit", Session: "0", Global: "1", Default: "1"}}
	})
	info, _ := MySQLInformationSchema("tables")
	if _, ok := MySQLInformationSchema("innodb_metrics"); ok {
		t.Error("information_schema.innodb_metrics is not MySQL's here")
	}
	seq := MariaDBSequenceTable("x", "a")
	infoName := info.Catalog + "." + info.Schema + "." + info.Rel
	for _, c := range []struct {
		s    *Session
		q    string
		want string
	}{
		{root, "select table_schema, table_name, table_type from " + infoName + " order by 1, 2",
			"table_schema:name table_name:name table_type:text\nx a SEQUENCE\nx b SEQUENCE\ny c SEQUENCE\nSELECT 3\n[I]\n"},
		{app, "select table_schema, table_name from " + infoName + " where table_name <> 'z' order by 1, 2",
			"table_schema:name table_name:name\nx b\ny c\nSELECT 2\n[I]\n"},
		{app, "select sequence_name, increment, cycle from information_schema." + mysqlSchema + ".sequences where sequence_name = 'c'",
			"sequence_name:name increment:bigint cycle:integer\nc -2 1\nSELECT 1\n[I]\n"},
		{root, "select * from " + seq.Catalog + "." + seq.Schema + "." + seq.Rel,
			"next_not_cached_value:bigint minimum_value:bigint maximum_value:bigint start_value:bigint increment:bigint cache_size:bigint cycle_option:integer cycle_count:integer\n" +
				"7 1 9223372036854775807 5 1 0 0 0\nSELECT 1\n[I]\n"},
		{root, "alter sequence x.a restart with 9; select next_not_cached_value from x." + mysqlSchema + ".a",
			"ALTER SEQUENCE\nnext_not_cached_value:bigint\n9\nSELECT 1\n[I]\n"},
		{root, "set search_path = y; select next_not_cached_value, cache_size, cycle_option from " + mysqlSchema + ".c",
			"SET\nnext_not_cached_value:bigint cache_size:bigint cycle_option:integer\n-1 20 1\nSELECT 1\n[I]\n"},
		{app, "select next_not_cached_value from y." + mysqlSchema + ".c", "next_not_cached_value:bigint\n-1\nSELECT 1\n[I]\n"},
		{app, "select next_not_cached_value from x." + mysqlSchema + ".a", "ERROR insufficient_privilege: permission denied for sequence a\n[I]\n"},
		{root, "select * from x." + mysqlSchema + ".nope", "ERROR undefined_table: relation \"x.nope\" does not exist (at 15)\n[I]\n"},
		{root, "select * from information_schema." + mysqlSchema + ".innodb_metrics",
			"ERROR undefined_table: relation \"information_schema.innodb_metrics\" does not exist (at 15)\n[I]\n"},
		// A session without a front end's variables (ShowVariables) has
		// none to list; app's front end gives its own.
		{root, "select count(*) from information_schema." + mysqlSchema + ".session_variables", "count:bigint\n0\nSELECT 1\n[I]\n"},
		{app, "select * from information_schema." + mysqlSchema + ".session_variables",
			"variable_name:text variable_value:text\nAUTOCOMMIT OFF\nSELECT 1\n[I]\n"},
		{root, "select count(*) from pg_namespace where nspname like 'pg_seqd%'", "count:bigint\n0\nSELECT 1\n[I]\n"},
		{root, "select count(*) from pg_class where relname = 'schemata'", "count:bigint\n1\nSELECT 1\n[I]\n"},
	} {
		if got := execTranscript(c.s, c.q); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.q, got, c.want)
		}
	}
}

// TestRenameSequence: RenameSequence renames and moves a sequence as
// ALTER SEQUENCE RENAME TO and SET SCHEMA do, with their checks.
func TestRenameSequence(t *testing.T) {
	root, app := mysqlSessions(t)
	ctx := context.Background()
	for _, c := range []struct {
		s                              *Session
		fromSchema, from, toSchema, to string
		want                           sqlerr.Kind // "" for none
	}{
		{root, "x", "a", "x", "a2", ""},
		{root, "x", "a2", "y", "a3", ""}, // renamed, then moved
		{root, "y", "a3", "x", "a3", ""}, // moved only
		{root, "x", "a3", "x", "a3", sqlerr.DuplicateTable},
		{root, "x", "nope", "x", "n", sqlerr.UndefinedTable},
		{root, "x", "a3", "nodb", "a3", sqlerr.UndefinedSchema},
		{app, "x", "a3", "x", "z", sqlerr.InsufficientPrivilege}, // not its owner
		{app, "x", "b", "x", "b2", ""},
	} {
		err := c.s.RenameSequence(ctx, c.fromSchema, c.from, c.toSchema, c.to)
		c.s.Idle()
		if got := errKind(err); got != c.want {
			t.Errorf("%s.%s to %s.%s: %v, want %q", c.fromSchema, c.from, c.toSchema, c.to, err, c.want)
		}
	}
	want := "schemaname:name sequencename:name\nx a3\nx b2\ny c\nSELECT 3\n[I]\n"
	if got := execTranscript(root, "select schemaname, sequencename from pg_sequences order by 1, 2"); got != want {
		t.Errorf("after the renames:\n%s\nwant\n%s", got, want)
	}
}

// TestUseSchema: UseSchema makes an existing schema the search path, as
// SET search_path does, but no ROLLBACK undoes it (MariaDB's USE is no
// part of a transaction), and refuses one that is not there.
func TestUseSchema(t *testing.T) {
	root, _ := mysqlSessions(t)
	ctx := context.Background()
	if err := root.UseSchema(ctx, "nodb"); errKind(err) != sqlerr.UndefinedSchema {
		t.Fatalf("a schema that is not there: %v", err)
	}
	for _, c := range []struct{ schema, q, want string }{
		{"y", "show search_path", "search_path:text\ny\nSHOW 1\n[I]\n"},
		{"", "begin", "BEGIN\n[T]\n"},
		{"x", "select nextval('a')", "nextval:bigint\n7\nSELECT 1\n[T]\n"},
		{"", "rollback; show search_path", "ROLLBACK\nsearch_path:text\nx\nSHOW 1\n[I]\n"},
	} {
		if c.schema != "" {
			if err := root.UseSchema(ctx, c.schema); err != nil {
				t.Fatal(err)
			}
			root.Idle()
		}
		if got := execTranscript(root, c.q); got != c.want {
			t.Errorf("USE %s; %s:\n%s\nwant\n%s", c.schema, c.q, got, c.want)
		}
	}
}

// TestDefinition: Definition is a sequence's options to any role, as
// pg_sequences shows them (no position, so no privilege needed), found
// along the search path when unqualified, a temporary one first; its
// cache MariaDB's cache_size, 0 for PostgreSQL's CACHE 1 (NOCACHE);
// its Privileges the role's own on it, none for a role without any;
// Temporary for the session's temporary one.
func TestDefinition(t *testing.T) {
	root, app := mysqlSessions(t)
	ctx := context.Background()
	for _, q := range []string{"set search_path = x", "create temp sequence a start 100 cache 3"} {
		if out := execTranscript(root, q); strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", q, out)
		}
	}
	for _, c := range []struct {
		s            *Session
		schema, rel  string
		start, cache int64
		cycle        bool
		privileged   bool
		want         sqlerr.Kind
	}{
		{root, "x", "a", 5, 0, false, true, ""},
		{root, "", "a", 100, 3, false, true, ""}, // the temporary one
		{app, "x", "a", 5, 0, false, false, ""},  // no privilege on it
		{app, "y", "c", -1, 20, true, true, ""},
		{root, "x", "nope", 0, 0, false, false, sqlerr.UndefinedTable},
		{root, "pg_catalog", "pg_class", 0, 0, false, false, sqlerr.WrongObjectType},
	} {
		d, err := c.s.Definition(ctx, c.schema, c.rel)
		c.s.Idle()
		temporary := c.s == root && c.schema == "" && c.rel == "a"
		if errKind(err) != c.want || err == nil && (d.Start != c.start || d.Cache != c.cache || d.Cycle != c.cycle || (d.Privileges != 0) != c.privileged ||
			d.Temporary != temporary) {
			t.Errorf("%s.%s: %+v, %v", c.schema, c.rel, d, err)
		}
	}
}

// errKind is err's kind; "" for none.
func errKind(err error) sqlerr.Kind {
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return se.Kind
	}
	if err != nil {
		return "not an sqlerr.Error"
	}
	return ""
}
