package mysqlwire

import (
	"database/sql"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestRenameOutsideQuotes: the spellings renamed before TiDB's parser are
// renamed in the statement only, never inside a string, a quoted name or
// a comment.
func TestRenameOutsideQuotes(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	if _, err := db.Exec("CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var a, b, e string
	var v int64
	q := "SELECT 'previous value for s', \"it's setval(s, 1)\", 'a\\'setval(', /* setval( */ NEXTVAL(s) -- previous value for s"
	if err := c.QueryRowContext(ctx, q).Scan(&a, &b, &e, &v); err != nil {
		t.Fatal(err)
	}
	if a != "previous value for s" || b != "it's setval(s, 1)" || e != "a'setval(" || v != 1 {
		t.Fatalf("literals %q %q %q, value %d", a, b, e, v)
	}
	var prev int64
	if err := c.QueryRowContext(ctx, "SELECT PREVIOUS VALUE FOR s").Scan(&prev); err != nil || prev != 1 {
		t.Fatalf("PREVIOUS VALUE FOR s outside quotes: %d %v", prev, err)
	}
}

// TestInformationSchema: information_schema's SCHEMATA and TABLES as
// MariaDB 10.11 shows them (SELECT * names the columns in capitals, a
// sequence is TABLE_TYPE SEQUENCE), and SEQUENCES as TiDB's
// documentation shows it (CACHE 1 and CACHE_VALUE for a cached sequence).
func TestInformationSchema(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	for _, q := range []string{"CREATE DATABASE test", "CREATE SEQUENCE test.seq", "CREATE SEQUENCE test.nc NOCACHE CYCLE INCREMENT BY 2"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT * FROM information_schema.SEQUENCES WHERE SEQUENCE_SCHEMA = 'test' ORDER BY sequence_name",
			"TABLE_CATALOG,SEQUENCE_SCHEMA,SEQUENCE_NAME,CACHE,CACHE_VALUE,CYCLE,INCREMENT,MAX_VALUE,MIN_VALUE,START,COMMENT\n" +
				"def,test,nc,0,NULL,1,2,9223372036854775806,1,1,\n" +
				"def,test,seq,1,1000,0,1,9223372036854775806,1,1,"},
		{"SELECT * FROM information_schema.tables WHERE table_schema = 'test' AND table_name = 'seq'",
			"TABLE_CATALOG,TABLE_SCHEMA,TABLE_NAME,TABLE_TYPE,ENGINE,VERSION,ROW_FORMAT,TABLE_ROWS,AVG_ROW_LENGTH,DATA_LENGTH,MAX_DATA_LENGTH," +
				"INDEX_LENGTH,DATA_FREE,AUTO_INCREMENT,CREATE_TIME,UPDATE_TIME,CHECK_TIME,TABLE_COLLATION,CHECKSUM,CREATE_OPTIONS,TABLE_COMMENT,MAX_INDEX_LENGTH,TEMPORARY\n" +
				"def,test,seq,SEQUENCE,InnoDB,10,Fixed,1,0,0,0,0,0,NULL,NULL,NULL,NULL,utf8mb4_general_ci,NULL,,,0,N"},
		{"SELECT * FROM information_schema.schemata ORDER BY schema_name",
			"CATALOG_NAME,SCHEMA_NAME,DEFAULT_CHARACTER_SET_NAME,DEFAULT_COLLATION_NAME,SQL_PATH,SCHEMA_COMMENT\n" +
				"def,information_schema,utf8mb3,utf8mb3_general_ci,NULL,\ndef,public,utf8mb4,utf8mb4_general_ci,NULL,\ndef,test,utf8mb4,utf8mb4_general_ci,NULL,"},
		{"SHOW DATABASES", "Database\ninformation_schema\npublic\ntest"},
	} {
		if got := table(t, db, c.q); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.q, got, c.want)
		}
	}
}

// TestRenameTable: RENAME TABLE moves a sequence to another database,
// keeping its values; a role that does not own it may not rename it
// (1142), and a connection without a database must name one (1046).
func TestRenameTable(t *testing.T) {
	addr, _ := startServer(t, Config{})
	root := open(t, addr, "root", "")
	for _, q := range []string{"CREATE DATABASE a", "CREATE DATABASE b", "CREATE SEQUENCE a.s", "SELECT NEXT VALUE FOR a.s", "RENAME TABLE a.s TO b.t"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var v int64
	if err := root.QueryRow("SELECT NEXT VALUE FOR b.t").Scan(&v); err != nil || v != 2 {
		t.Fatalf("NEXT VALUE FOR the moved sequence: %d, %v; want 2", v, err)
	}
	if _, err := root.Exec("SELECT NEXT VALUE FOR a.s"); number(err) != 4091 || !strings.HasSuffix(err.Error(), "Unknown SEQUENCE: 's'") {
		t.Fatalf("the old name: %v", err)
	}
	if _, err := open(t, addr, "app", "b").Exec("RENAME TABLE t TO u"); number(err) != 1142 {
		t.Fatalf("renaming another role's sequence: %v, want 1142", err)
	}
	if _, err := root.Exec("RENAME TABLE t TO u"); number(err) != 1046 {
		t.Fatalf("no database selected: %v, want 1046", err)
	}
}

// TestTemporaryMarks: in a query string of several statements, only the
// statements written TEMPORARY become temporary, wherever they stand and
// however TEMPORARY is spelled; a TEMPORARY in a literal or a comment
// changes nothing.
func TestTemporaryMarks(t *testing.T) {
	q := "SELECT 'create temporary sequence x' AS t; /* DROP TEMPORARY SEQUENCE y */ CREATE SEQUENCE a;\n" +
		"create   Temporary\tsequence b start with 7; SELECT NEXTVAL(b); CREATE SEQUENCE c; DROP TEMPORARY SEQUENCE b, d; DROP SEQUENCE a"
	steps, err := translate(newParser(), q, stmtEnv{db: "db"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, shown(t, s))
	}
	want := []string{
		"", // answered here
		`CREATE SEQUENCE a CACHE 1000 MAXVALUE 9223372036854775806`,
		`CREATE TEMPORARY SEQUENCE b START 7 CACHE 1000 MAXVALUE 9223372036854775806`,
		`SELECT seqd_mariadb_nextval(b)`,
		`CREATE SEQUENCE c CACHE 1000 MAXVALUE 9223372036854775806`,
		`DROP SEQUENCE pg_temp.b, pg_temp.d`,
		`DROP SEQUENCE a`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestShowLimitMarks: SHOW WARNINGS's and SHOW ERRORS's LIMIT, in
// MariaDB's forms, is blanked out and marked where its statement begins
// (other marks staying where their statements begin);
// one in quotes, or followed by more than the statement's end (MariaDB's
// 1064 too), stays.
func TestShowLimitMarks(t *testing.T) {
	for _, c := range []struct {
		q, renamed string
		limits     []showLimit
	}{
		{"SHOW WARNINGS LIMIT 1", "SHOW WARNINGS        ", []showLimit{{0, 0, 1}}},
		{"show errors limit 2 , 3;", "show errors            ;", []showLimit{{0, 2, 3}}},
		{"SHOW WARNINGS LIMIT 4 OFFSET 5", "SHOW WARNINGS" + strings.Repeat(" ", 17), []showLimit{{0, 5, 4}}},
		{"SELECT 1; SHOW\tERRORS LIMIT 99999999999999999999", "SELECT 1; SHOW\tERRORS" + strings.Repeat(" ", 27), []showLimit{{10, 0, math.MaxInt}}},
		// The temporary mark after it stays where its statement begins.
		{"SHOW WARNINGS LIMIT 1; CREATE TEMPORARY SEQUENCE t", "SHOW WARNINGS        ; CREATE SEQUENCE t", []showLimit{{0, 0, 1}}},
		{"SELECT 'SHOW WARNINGS LIMIT 1'", "SELECT 'SHOW WARNINGS LIMIT 1'", nil},
		{"SHOW WARNINGS LIMIT 1 WHERE 1", "SHOW WARNINGS LIMIT 1 WHERE 1", nil},
		{"SHOW WARNINGS LIMIT -1", "SHOW WARNINGS LIMIT -1", nil},
	} {
		q, _, m := rename(c.q)
		if q != c.renamed || !slices.Equal(m.limits, c.limits) {
			t.Errorf("rename(%q) = %q, %v; want %q, %v", c.q, q, m.limits, c.renamed, c.limits)
		}
		if at := strings.Index(q, "CREATE SEQUENCE"); at >= 0 && !m.temporary.in(at, at+1) {
			t.Errorf("rename(%q): the temporary mark %v is not at %d", c.q, m.temporary, at)
		}
	}
}

// TestTiDBDocumented: TiDB's documentation's own examples of its
// sequences (the sequence functions, SHOW CREATE SEQUENCE and
// information_schema.SEQUENCES pages) give what that documentation
// shows: TiDB's sequences are modeled on MariaDB's, and where its
// documented forms are MariaDB's too, seqd's answers are both.
func TestTiDBDocumented(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("USE test"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, want string }{
		{"CREATE SEQUENCE s1", ""},
		{"SELECT NEXTVAL(s1)", "NEXTVAL(s1)\n1"},
		{"SELECT NEXTVAL(s1)", "NEXTVAL(s1)\n2"},
		{"SELECT NEXT VALUE FOR s1", "NEXT VALUE FOR s1\n3"},
		{"SELECT NEXTVAL(s1)", "NEXTVAL(s1)\n4"},
		{"SELECT SETVAL(s1, 10)", "SETVAL(s1, 10)\n10"},
		{"SELECT NEXTVAL(s1)", "NEXTVAL(s1)\n11"},
		{"SELECT LASTVAL(s1)", "LASTVAL(s1)\n11"},
		{"CREATE SEQUENCE seq", ""},
		{"SHOW CREATE SEQUENCE seq", "Table,Create Table\nseq,CREATE SEQUENCE `seq` start with 1 minvalue 1 maxvalue 9223372036854775806 increment by 1 cache 1000 nocycle ENGINE=InnoDB"},
		{"SELECT nextval(test.seq)", "nextval(test.seq)\n1"},
		{"SELECT * FROM information_schema.SEQUENCES WHERE SEQUENCE_NAME = 'seq'",
			"TABLE_CATALOG,SEQUENCE_SCHEMA,SEQUENCE_NAME,CACHE,CACHE_VALUE,CYCLE,INCREMENT,MAX_VALUE,MIN_VALUE,START,COMMENT\n" +
				"def,test,seq,1,1000,0,1,9223372036854775806,1,1,"},
	} {
		if c.want == "" {
			if _, err := db.Exec(c.q); err != nil {
				t.Fatalf("%s: %v", c.q, err)
			}
			continue
		}
		if got := table(t, db, c.q); got != c.want {
			t.Errorf("%s:\n%s\nwant (TiDB's documentation)\n%s", c.q, got, c.want)
		}
	}
}

// TestPrepareActsWhenExecuted: a statement seqd answers itself that
// changes something (RENAME TABLE, USE, SET, KILL) does so when it is
// executed, once, not when it is prepared; sequence DDL prepares too.
func TestPrepareActsWhenExecuted(t *testing.T) {
	addr, _ := startServer(t, Config{})
	if _, err := open(t, addr, "root", "").Exec("CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	c, err := open(t, addr, "root", "test").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	prepare := func(q string) *sql.Stmt {
		t.Helper()
		st, err := c.PrepareContext(ctx, q)
		if err != nil {
			t.Fatalf("prepare %s: %v", q, err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	create := prepare("CREATE SEQUENCE a START WITH 7")
	rename := prepare("RENAME TABLE a TO b")
	use := prepare("USE information_schema")
	set := prepare("SET autocommit = 0")
	var n int64
	if err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'test'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("sequences after preparing: %d %v, want none", n, err)
	}
	if _, err := create.ExecContext(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := rename.ExecContext(ctx); err != nil {
		t.Fatalf("RENAME TABLE prepared, executed once: %v", err)
	}
	if _, err := rename.ExecContext(ctx); number(err) != 1146 {
		t.Fatalf("RENAME TABLE executed again: %v, want 1146", err)
	}
	var auto int64
	if err := c.QueryRowContext(ctx, "SELECT @@autocommit").Scan(&auto); err != nil || auto != 1 {
		t.Fatalf("@@autocommit after preparing SET autocommit = 0: %d %v", auto, err)
	}
	if _, err := set.ExecContext(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRowContext(ctx, "SELECT @@autocommit").Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("@@autocommit after executing SET autocommit = 0: %d %v", auto, err)
	}
	var db string
	if err := c.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db); err != nil || db != "test" {
		t.Fatalf("DATABASE() after preparing USE: %q %v", db, err)
	}
	if _, err := use.ExecContext(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db); err != nil || db != "information_schema" {
		t.Fatalf("DATABASE() after executing USE: %q %v", db, err)
	}
	var next int64
	if err := prepare("SELECT NEXT VALUE FOR test.b AS id").QueryRowContext(ctx).Scan(&next); err != nil || next != 7 {
		t.Fatalf("NEXT VALUE FOR with an alias, prepared: %d %v, want 7", next, err)
	}
}
