package mysqlwire

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
)

// TestSelectFromNeedsSelect: MariaDB's read of a sequence as a table
// (SELECT ... FROM s) answers as PostgreSQL 15's read of a sequence
// relation does: a role with SELECT on the sequence sees its true
// next_not_cached_value; a role without it, USAGE or not, gets 1142
// (42000) and no row, as MariaDB 10.11 answers a user without SELECT on
// the sequence, never a made-up position (pg_sequences' last_value is
// NULL to a role without privileges, which once showed as start_value).
// information_schema shows no position to anyone: its tables read the
// same however far the sequence has gone, to the superuser and to a role
// it lists the sequence to.
func TestSelectFromNeedsSelect(t *testing.T) {
	addr, eng := startServer(t, Config{})
	root := open(t, addr, "root", "public")
	for _, q := range []string{"CREATE SEQUENCE s START WITH 1 CACHE 10", "SELECT NEXTVAL(s)", "SELECT NEXTVAL(s)"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	info := infoSchemaTables(t, root)
	if _, err := root.Exec("SELECT NEXTVAL(s)"); err != nil { // after information_schema was read
		t.Fatal(err)
	}
	want := table(t, root, "SELECT next_not_cached_value FROM s")
	if want == "next_not_cached_value\n1" {
		t.Fatalf("the superuser's read: %q, want the advanced position", want)
	}
	reads := []struct {
		db, q string
		args  []any // some: prepared (COM_STMT_PREPARE, EXECUTE)
	}{
		{"public", "SELECT * FROM s", nil},
		{"public", "SELECT next_not_cached_value FROM s", nil},
		{"", "SELECT next_not_cached_value FROM public.s", nil},
		{"public", "SELECT next_not_cached_value FROM s WHERE increment = ?", []any{1}},
	}
	denied := func(when string) {
		t.Helper()
		for _, r := range reads {
			rows, err := open(t, addr, "app", r.db).Query(r.q, r.args...)
			if err == nil {
				cols, vals, _ := testenv.RowStrings(rows)
				rows.Close()
				t.Errorf("%s: %s gave %v %v, want 1142", when, r.q, cols, vals)
				continue
			}
			if number(err) != 1142 || sqlState(err) != "42000" {
				t.Errorf("%s: %s: %v, want 1142 (42000)", when, r.q, err)
			}
		}
	}
	denied("no privileges")

	pgExec(t, eng, "GRANT SELECT ON SEQUENCE public.s TO app")
	app := open(t, addr, "app", "public")
	if got := table(t, app, "SELECT next_not_cached_value FROM s"); got != want {
		t.Errorf("with SELECT: %q, want %q", got, want)
	}
	if got, all := table(t, app, "SELECT * FROM s"), table(t, root, "SELECT * FROM s"); got != all {
		t.Errorf("with SELECT, SELECT *: %q, want %q", got, all)
	}
	if got := table(t, open(t, addr, "app", ""), "SELECT next_not_cached_value FROM public.s"); got != want {
		t.Errorf("with SELECT, qualified: %q, want %q", got, want)
	}
	var prepared string
	if err := app.QueryRow("SELECT next_not_cached_value FROM s WHERE increment = ?", 1).Scan(&prepared); err != nil ||
		"next_not_cached_value\n"+prepared != want {
		t.Errorf("with SELECT, prepared: %q, %v; want %q", prepared, err, want)
	}

	// USAGE lets a role take values (NEXT VALUE FOR), not read the
	// sequence's row: PostgreSQL 15 reads a sequence relation only with
	// SELECT.
	pgExec(t, eng, "REVOKE SELECT ON SEQUENCE public.s FROM app")
	pgExec(t, eng, "GRANT USAGE ON SEQUENCE public.s TO app")
	if _, err := app.Exec("SELECT NEXT VALUE FOR s"); err != nil {
		t.Fatalf("NEXT VALUE FOR with USAGE: %v", err)
	}
	denied("USAGE only")

	if got := infoSchemaTables(t, root); got != info {
		t.Errorf("information_schema changed as the sequence advanced:\n%s\nwas\n%s", got, info)
	}
	if got := infoSchemaTables(t, open(t, addr, "app", "public")); got != info {
		t.Errorf("information_schema to a role with USAGE:\n%s\nto the superuser:\n%s", got, info)
	}
}

// TestInformationSchemaPrivileges: SHOW [FULL] TABLES and
// information_schema's TABLES and SEQUENCES list to a role only the
// sequences it holds a privilege on (USAGE on their schema or not) or
// owns, as MariaDB lists a user the tables it holds some privilege on and
// PostgreSQL's information_schema.sequences a role its sequences; a
// superuser sees every one. They used to list every sequence to anyone.
func TestInformationSchemaPrivileges(t *testing.T) {
	addr, eng := startServer(t, Config{})
	for _, q := range []string{"CREATE SEQUENCE public.granted", "CREATE SEQUENCE public.hidden", "CREATE SEQUENCE public.owned",
		"CREATE SCHEMA other", "CREATE SEQUENCE other.elsewhere", "CREATE SEQUENCE other.unseen",
		"GRANT UPDATE ON SEQUENCE public.granted TO app", "ALTER SEQUENCE public.owned OWNER TO app",
		"GRANT SELECT ON SEQUENCE other.elsewhere TO app"} { // app has no USAGE on other
		pgExec(t, eng, q)
	}
	lists := func(user string) string {
		db := open(t, addr, user, "public")
		var out []string
		for _, q := range []string{"SHOW TABLES", "SHOW FULL TABLES FROM other",
			"SELECT table_schema, table_name, table_type FROM information_schema.tables ORDER BY 1, 2",
			"SELECT sequence_schema, sequence_name FROM information_schema.SEQUENCES ORDER BY 1, 2",
			"SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'hidden'"} {
			out = append(out, table(t, db, q))
		}
		return strings.Join(out, "\n\n")
	}
	for _, c := range []struct{ user, want string }{
		{"app", `Tables_in_public
granted
owned

Tables_in_other,Table_type
elsewhere,SEQUENCE

table_schema,table_name,table_type
other,elsewhere,SEQUENCE
public,granted,SEQUENCE
public,owned,SEQUENCE

sequence_schema,sequence_name
other,elsewhere
public,granted
public,owned

n
0`},
		{"root", `Tables_in_public
granted
hidden
owned

Tables_in_other,Table_type
elsewhere,SEQUENCE
unseen,SEQUENCE

table_schema,table_name,table_type
other,elsewhere,SEQUENCE
other,unseen,SEQUENCE
public,granted,SEQUENCE
public,hidden,SEQUENCE
public,owned,SEQUENCE

sequence_schema,sequence_name
other,elsewhere
other,unseen
public,granted
public,hidden
public,owned

n
1`},
	} {
		if got := lists(c.user); got != c.want {
			t.Errorf("to %s:\n%s\nwant\n%s", c.user, got, c.want)
		}
	}
}

// infoSchemaTables is every information_schema table seqd answers, as
// text.
func infoSchemaTables(t *testing.T, db *sql.DB) string {
	t.Helper()
	out := ""
	for _, name := range []string{"SCHEMATA", "TABLES", "SEQUENCES", "PARTITIONS", "FILES", "ROUTINES", "PARAMETERS", "EVENTS", "TRIGGERS", "VIEWS",
		"STATISTICS", "KEY_COLUMN_USAGE", "TABLE_CONSTRAINTS", "REFERENTIAL_CONSTRAINTS", "CHECK_CONSTRAINTS"} {
		out += table(t, db, "SELECT * FROM information_schema."+name) + "\n"
	}
	// COLUMNS but its PRIVILEGES, the reader's own (TestShowColumnsPrivileges).
	return out + table(t, db, "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, "+
		"DATA_TYPE, NUMERIC_PRECISION, COLUMN_TYPE, COLUMN_COMMENT FROM information_schema.COLUMNS")
}

// pgExec runs q, PostgreSQL's text, as the superuser root on eng.
func pgExec(t *testing.T, eng *engine.Engine, q string) {
	t.Helper()
	s, err := executor.NewSession(executor.Config{Engine: eng, User: "root", Superuser: "root", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stmts, err := pgsql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	for i := range stmts {
		p, err := s.Prepare(&stmts[i], nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		res, err := s.Execute(context.Background(), p, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		s.Release(res)
	}
}

// TestShowAndLockPrivileges: as MariaDB shows a table only to a user
// holding some privilege on it, SHOW CREATE TABLE, SHOW CREATE SEQUENCE
// and DESCRIBE give a role without any privilege on the sequence 1142
// naming the table (SHOW, SELECT: MariaDB's words), not its definition;
// with one (USAGE, enough for NEXT VALUE FOR) they show it. LOCK TABLES
// ... READ needs SELECT, as MariaDB's needs SELECT (with its LOCK TABLES
// privilege, which seqd has not): 1142 with USAGE alone; a missing
// sequence is 1146. FLUSH TABLES needs MariaDB's RELOAD privilege, a
// superuser's here (1227).
func TestShowAndLockPrivileges(t *testing.T) {
	addr, eng := startServer(t, Config{})
	pgExec(t, eng, "CREATE SEQUENCE public.s START 7")
	app := open(t, addr, "app", "public")
	app.SetMaxOpenConns(1)
	denied := func(when, q, command string) {
		t.Helper()
		want := command + " command denied to user 'app'@'127.0.0.1' for table `public`.`s`"
		rows, err := app.Query(q)
		if err == nil {
			cols, vals, _ := testenv.RowStrings(rows)
			rows.Close()
			t.Errorf("%s: %s gave %v %v, want 1142", when, q, cols, vals)
			return
		}
		if number(err) != 1142 || sqlState(err) != "42000" || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %s: %v, want 1142 %q", when, q, err, want)
		}
	}
	denied("no privileges", "SHOW CREATE TABLE s", "SHOW")
	denied("no privileges", "SHOW CREATE SEQUENCE public.s", "SHOW")
	denied("no privileges", "DESCRIBE s", "SELECT")
	denied("no privileges", "LOCK TABLES s READ", "SELECT")
	pgExec(t, eng, "GRANT USAGE ON SEQUENCE public.s TO app")
	denied("USAGE", "LOCK TABLES s READ", "SELECT")
	if got := table(t, app, "SHOW CREATE SEQUENCE s"); !strings.Contains(got, "start with 7") {
		t.Errorf("USAGE: SHOW CREATE SEQUENCE s: %q", got)
	}
	if got := table(t, app, "SHOW CREATE TABLE s"); !strings.Contains(got, "SEQUENCE=1") {
		t.Errorf("USAGE: SHOW CREATE TABLE s: %q", got)
	}
	if _, err := app.Exec("LOCK TABLES nope READ"); number(err) != 1146 {
		t.Errorf("LOCK TABLES nope READ: %v, want 1146", err)
	}
	if _, err := app.Exec("FLUSH TABLES"); number(err) != 1227 {
		t.Errorf("FLUSH TABLES by a role: %v, want 1227", err)
	}
	pgExec(t, eng, "GRANT SELECT ON SEQUENCE public.s TO app")
	for _, q := range []string{"LOCK TABLES s READ LOCAL", "UNLOCK TABLES"} {
		if _, err := app.Exec(q); err != nil {
			t.Errorf("with SELECT: %s: %v", q, err)
		}
	}
	if _, err := open(t, addr, "root", "public").Exec("FLUSH TABLES"); err != nil {
		t.Errorf("FLUSH TABLES by a superuser: %v", err)
	}
}

// TestShowColumnsPrivileges: SHOW [FULL] COLUMNS, with LIKE or WHERE too,
// shows a sequence's columns to a role holding some privilege on it,
// as DESCRIBE does (1142 otherwise; 1146 for a missing one), FULL's
// Privileges naming the role's as MariaDB 10.11 names a user's on a
// table's columns: "select" for SELECT alone, as MariaDB shows a user
// granted SELECT on the table, "insert" for USAGE (MariaDB's NEXT VALUE
// FOR needs INSERT), "select,update", and MariaDB's four,
// "select,insert,update,references", to the owner and a superuser, as
// MariaDB shows a user with ALL on the table. information_schema's
// PARTITIONS lists a role the sequences TABLES lists it, SHOW MASTER
// STATUS is a superuser's (1227, MariaDB's BINLOG MONITOR).
func TestShowColumnsPrivileges(t *testing.T) {
	addr, eng := startServer(t, Config{})
	for _, q := range []string{"CREATE SEQUENCE public.s", "CREATE SEQUENCE public.hidden", "CREATE SEQUENCE public.owned",
		"ALTER SEQUENCE public.owned OWNER TO app"} {
		pgExec(t, eng, q)
	}
	app := open(t, addr, "app", "public")
	app.SetMaxOpenConns(1)
	shows := []string{"SHOW FULL COLUMNS FROM s", "SHOW COLUMNS FROM s LIKE 'c%'", "SHOW FULL COLUMNS FROM s WHERE Field = 'increment'"}
	for _, q := range shows {
		_, err := app.Exec(q)
		want := "SELECT command denied to user 'app'@'127.0.0.1' for table `public`.`s`"
		if number(err) != 1142 || sqlState(err) != "42000" || !strings.Contains(err.Error(), want) {
			t.Errorf("no privileges: %s: %v, want 1142 %q", q, err, want)
		}
		if _, err := app.Exec(strings.Replace(q, " s", " nope", 1)); number(err) != 1146 {
			t.Errorf("%s of a missing sequence: %v, want 1146", q, err)
		}
	}
	privileges := func(db *sql.DB, seq string) string {
		t.Helper()
		var out []string
		for _, q := range []string{"SHOW FULL COLUMNS FROM " + seq, "SHOW FULL COLUMNS FROM " + seq + " WHERE Field LIKE 'cache%'"} {
			rows, err := db.Query(q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			_, vals, err := testenv.RowStrings(rows)
			rows.Close()
			if err != nil || len(vals) == 0 {
				t.Fatalf("%s: %v, %d rows", q, err, len(vals))
			}
			for _, r := range vals {
				if r[7] != vals[0][7] {
					t.Errorf("%s: Privileges %q and %q", q, r[7], vals[0][7])
				}
			}
			out = append(out, vals[0][7])
		}
		if out[0] != out[1] {
			t.Errorf("SHOW FULL COLUMNS FROM %s: Privileges %q, with WHERE %q", seq, out[0], out[1])
		}
		// information_schema.COLUMNS shows each column's the same.
		cols := table(t, db, "SELECT DISTINCT PRIVILEGES FROM information_schema.COLUMNS WHERE TABLE_NAME = '"+seq+"'")
		if cols != "PRIVILEGES\n"+out[0] {
			t.Errorf("information_schema.COLUMNS of %s: %q, SHOW FULL COLUMNS' Privileges %q", seq, cols, out[0])
		}
		return out[0]
	}
	for _, c := range []struct{ grant, want string }{
		{"GRANT SELECT ON SEQUENCE public.s TO app", "select"},
		{"REVOKE SELECT ON SEQUENCE public.s FROM app; GRANT USAGE ON SEQUENCE public.s TO app", "insert"},
		{"REVOKE USAGE ON SEQUENCE public.s FROM app; GRANT SELECT, UPDATE ON SEQUENCE public.s TO app", "select,update"},
		{"GRANT USAGE ON SEQUENCE public.s TO app", "select,insert,update"},
	} {
		pgExec(t, eng, c.grant)
		if got := privileges(app, "s"); got != c.want {
			t.Errorf("after %s: Privileges %q, want %q", c.grant, got, c.want)
		}
	}
	if got := privileges(app, "owned"); got != "select,insert,update,references" {
		t.Errorf("the owner's Privileges: %q", got)
	}
	root := open(t, addr, "root", "public")
	if got := privileges(root, "hidden"); got != "select,insert,update,references" {
		t.Errorf("a superuser's Privileges: %q", got)
	}
	for _, db := range []*sql.DB{app, root} {
		tables := table(t, db, "SELECT table_schema, table_name FROM information_schema.TABLES ORDER BY 1, 2")
		if got := table(t, db, "SELECT table_schema, table_name FROM information_schema.PARTITIONS ORDER BY 1, 2"); got != tables {
			t.Errorf("PARTITIONS lists\n%s\nTABLES\n%s", got, tables)
		}
	}
	for _, q := range []string{"SELECT table_name FROM information_schema.PARTITIONS", "SELECT table_name FROM information_schema.COLUMNS"} {
		if strings.Contains(table(t, app, q), "hidden") {
			t.Errorf("%s lists a role a sequence it holds no privilege on", q)
		}
	}
	if _, err := app.Exec("SHOW MASTER STATUS"); number(err) != 1227 {
		t.Errorf("SHOW MASTER STATUS by a role: %v, want 1227", err)
	}
	if got := table(t, root, "SHOW MASTER STATUS"); got != "File,Position,Binlog_Do_DB,Binlog_Ignore_DB" {
		t.Errorf("SHOW MASTER STATUS by a superuser: %q, want no rows", got)
	}
}
