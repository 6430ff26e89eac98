package mysqlwire

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/seqmath"
)

// startServer serves MySQL's protocol on an in-memory engine with a
// superuser "root" and a role "app", both with passwords, and returns
// its address.
func startServer(t *testing.T, cfg Config) (string, *engine.Engine) {
	t.Helper()
	eng := testenv.MemEngine(t)
	s := serve(t, eng, cfg)
	return s.Addr().String(), eng
}

// serve serves MySQL's protocol on eng, as startServer.
func serve(t testing.TB, eng *engine.Engine, cfg Config) *Server {
	t.Helper()
	ctx := context.Background()
	for _, r := range []engine.Role{{Name: "root", Superuser: true, Login: true, CreateRole: true}, {Name: "app", Login: true}} {
		v, err := auth.NewVerifier(r.Name + " pw")
		if err != nil {
			t.Fatal(err)
		}
		r.Verifier = v
		if err := eng.PutRole(ctx, r, true); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Engine, cfg.Auth, cfg.Logger = eng, AuthPassword, log.New(io.Discard, "", 0)
	s, err := NewServer(cfg, ln)
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(s.Close)
	return s
}

// open opens a go-sql-driver/mysql pool, with the driver's defaults, as
// user (whose password is user + " pw").
func open(t *testing.T, addr, user, db string) *sql.DB {
	t.Helper()
	pool, err := sql.Open("mysql", fmt.Sprintf("%s:%s pw@tcp(%s)/%s", user, user, addr, db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

var ctx = context.Background()

// sqlState is a MySQL error's SQLSTATE.
func sqlState(err error) string {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return string(me.SQLState[:])
	}
	return ""
}

// number is a MySQL error's number, 0 if err is none.
func number(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// TestDriver: go-sql-driver/mysql, with its defaults, logs in with a
// role's password (mysql_native_password against the stored hash, a
// wrong one 1045), creates a sequence, takes 200 values concurrently (all
// distinct), reads PREVIOUS VALUE FOR and LASTVAL, sets a value, gets an
// unknown sequence's error by its number, and runs a transaction.
func TestDriver(t *testing.T) {
	addr, _ := startServer(t, Config{})
	if err := open(t, addr, "app", "").Ping(); err != nil {
		t.Fatalf("log in as app: %v", err)
	}
	bad, err := sql.Open("mysql", fmt.Sprintf("app:wrong@tcp(%s)/", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := bad.Ping(); number(err) != 1045 {
		t.Fatalf("a wrong password: %v, want 1045", err)
	}
	root := open(t, addr, "root", "")
	if _, err := root.Exec("CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	db := open(t, addr, "root", "test")
	if _, err := db.Exec("CREATE SEQUENCE s START WITH 1 INCREMENT BY 1 NOCACHE"); err != nil {
		t.Fatal(err)
	}
	takeConcurrently(t, db, "SELECT NEXT VALUE FOR s", 200)

	conn, err := open(t, addr, "root", "test").Conn(context.Background()) // a session of its own
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	var prev sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT PREVIOUS VALUE FOR s").Scan(&prev); err != nil || prev.Valid {
		t.Fatalf("PREVIOUS VALUE FOR s before NEXTVAL in this session: %v %v, want NULL", prev, err)
	}
	var next, last int64
	if err := conn.QueryRowContext(ctx, "SELECT NEXTVAL(s)").Scan(&next); err != nil || next != 201 {
		t.Fatalf("NEXTVAL(s): %d %v", next, err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT lastval(test.s)").Scan(&last); err != nil || last != next {
		t.Fatalf("LASTVAL(s): %d %v, want %d", last, err, next)
	}
	if _, err := conn.ExecContext(ctx, "SELECT SETVAL(s, 1000)"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT NEXT VALUE FOR s").Scan(&next); err != nil || next != 1001 {
		t.Fatalf("after SETVAL(s, 1000): %d %v", next, err)
	}
	// Parameters: the driver's default is a server-side prepared
	// statement (the binary protocol); with interpolateParams it sends
	// them in the text.
	var set int64
	if err := conn.QueryRowContext(ctx, "SELECT SETVAL(s, ?)", 3000).Scan(&set); err != nil || set != 3000 {
		t.Fatalf("SETVAL(s, ?) prepared: %d %v", set, err)
	}
	var label string
	if err := conn.QueryRowContext(ctx, "SELECT NEXTVAL(s), ?", "x").Scan(&next, &label); err != nil || next != 3001 || label != "x" {
		t.Fatalf("NEXTVAL(s), ? prepared: %d %q %v", next, label, err)
	}
	interp, err := sql.Open("mysql", fmt.Sprintf("root:root pw@tcp(%s)/test?interpolateParams=true", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer interp.Close()
	if err := interp.QueryRow("SELECT SETVAL(s, ?)", 4000).Scan(&set); err != nil || set != 4000 {
		t.Fatalf("SETVAL(s, ?) interpolated: %d %v", set, err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT NEXTVAL(s)").Scan(&next); err != nil || next != 4001 {
		t.Fatalf("after SETVAL(s, 4000): %d %v", next, err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT NEXT VALUE FOR missing"); number(err) != 4091 {
		t.Fatalf("an unknown sequence: %v, want 4091", err)
	}
	if _, err := conn.ExecContext(ctx, "SELEC 1"); number(err) != 1064 {
		t.Fatalf("a syntax error: %v, want 1064", err)
	}
	// A number of more digits than the grammar's decimal implements (its
	// panic, found by FuzzTranslate): an error, and the session goes on.
	if _, err := conn.ExecContext(ctx, "SELECT "+strings.Repeat("0", 62)+"2"+strings.Repeat("0", 19)); number(err) != 1235 {
		t.Fatalf("an 82-digit number: %v, want 1235", err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var inTx int64
	if err := tx.QueryRow("SELECT NEXT VALUE FOR s").Scan(&inTx); err != nil || inTx <= next {
		t.Fatalf("in a transaction: %d %v", inTx, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var comment, dbName string
	if err := conn.QueryRowContext(ctx, "SELECT @@version_comment, DATABASE() LIMIT 1").Scan(&comment, &dbName); err != nil || comment != "seqd" || dbName != "test" {
		t.Fatalf("@@version_comment, DATABASE(): %q %q %v", comment, dbName, err)
	}
	var table, kind string
	if err := conn.QueryRowContext(ctx, "SHOW FULL TABLES").Scan(&table, &kind); err != nil || table != "s" || kind != "SEQUENCE" {
		t.Fatalf("SHOW FULL TABLES: %q %q %v", table, kind, err)
	}
	// app may not take values of root's sequence.
	if _, err := open(t, addr, "app", "test").Exec("SELECT NEXT VALUE FOR test.s"); number(err) != 1142 {
		t.Fatalf("app's nextval of root's sequence: %v, want 1142", err)
	}
}

// TestTooManyConnections: a connection over the budget the front ends
// share gets MySQL's 1040.
func TestTooManyConnections(t *testing.T) {
	reg := frontend.NewRegistry(1, 0)
	addr, _ := startServer(t, Config{Registry: reg})
	first := open(t, addr, "root", "")
	first.SetMaxOpenConns(1)
	if err := first.Ping(); err != nil {
		t.Fatal(err)
	}
	if err := open(t, addr, "root", "").Ping(); number(err) != 1040 {
		t.Fatalf("a connection over the budget: %v, want 1040", err)
	}
}

// TestStandby: a cluster's standby refuses MySQL connections in place of
// the handshake with 1053 and SQLSTATE 08S01 (a connection failure to
// the drivers, which move on to their next host), and StopEngine ends
// the connections of a leader whose term ended.
func TestStandby(t *testing.T) {
	eng := testenv.MemEngine(t)
	var standby atomic.Bool
	s := serve(t, eng, Config{Node: func() (*engine.Engine, bool) { return eng, standby.Load() }})
	addr := s.Addr().String()
	db := open(t, addr, "root", "")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var v int64
	if _, err := c.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRowContext(ctx, "SELECT NEXT VALUE FOR s").Scan(&v); err != nil || v != 1 {
		t.Fatalf("the leader's NEXT VALUE FOR: %d, %v", v, err)
	}
	if !s.Uses(eng) {
		t.Fatal("Uses: false for a connection's engine")
	}
	standby.Store(true)
	err = open(t, addr, "root", "").Ping()
	if number(err) != 1053 || sqlState(err) != "08S01" || !strings.Contains(err.Error(), "standby") {
		t.Fatalf("connecting to a standby: %v, want 1053 (08S01)", err)
	}
	s.StopEngine(eng)
	if err := c.QueryRowContext(ctx, "SELECT NEXT VALUE FOR s").Scan(&v); err == nil {
		t.Fatalf("a connection of a stopped engine still answers: %d", v)
	}
	for deadline := time.Now().Add(10 * time.Second); s.Uses(eng); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Uses: still true 10s after StopEngine")
		}
	}
}

// holdS has a block of the engine's own hold public.s (an ALTER not yet
// committed): a nextval of s waits until it is rolled back.
func holdS(t *testing.T, eng *engine.Engine) *engine.Txn {
	t.Helper()
	n, err := engine.NewName("public", "s")
	if err != nil {
		t.Fatal(err)
	}
	tx := eng.Begin()
	inc := int64(2)
	if err := tx.Alter(ctx, n, seqmath.Spec{Increment: &inc}); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	return tx
}

// TestStatementTimeout: statement_timeout ends a statement over MySQL as
// over PostgreSQL (1317 with its words), and the next one runs.
func TestStatementTimeout(t *testing.T) {
	addr, eng := startServer(t, Config{SessionDefaults: map[string]string{"statement_timeout": "200ms"}})
	root := open(t, addr, "root", "public")
	root.SetMaxOpenConns(1)
	if _, err := root.Exec("CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	tx := holdS(t, eng)
	var v int64
	err := root.QueryRow("SELECT NEXTVAL(s)").Scan(&v)
	tx.Rollback()
	if number(err) != 1317 || !strings.Contains(err.Error(), "statement timeout") {
		t.Fatalf("a nextval waiting past statement_timeout: %v, want 1317 canceling statement due to statement timeout", err)
	}
	for i := int64(1); i <= 3; i++ {
		if err := root.QueryRow("SELECT NEXTVAL(s)").Scan(&v); err != nil || v != i {
			t.Fatalf("nextval %d after the timeout: %d, %v", i, v, err)
		}
	}
}

// TestKill: KILL QUERY n cancels the statement connection n runs (its
// client gets 1317, the connection goes on); another role may not
// (1095); an unknown id is 1094; KILL CONNECTION n ends the connection.
func TestKill(t *testing.T) {
	addr, eng := startServer(t, Config{})
	root := open(t, addr, "root", "")
	if _, err := root.Exec("CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	defer holdS(t, eng).Rollback()
	waiter, err := open(t, addr, "root", "public").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := waiter.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := waiter.ExecContext(ctx, "SELECT NEXTVAL(s)")
		done <- err
	}()
	if _, err := open(t, addr, "app", "").Exec(fmt.Sprintf("KILL QUERY %d", id)); number(err) != 1095 {
		t.Fatalf("KILL QUERY of another role's connection: %v, want 1095", err)
	}
	if _, err := root.Exec("KILL QUERY 4294967295"); number(err) != 1094 {
		t.Fatalf("KILL QUERY of no connection: %v, want 1094", err)
	}
	// KILL until the statement is cancelled: it may not be waiting yet.
	for {
		if _, err := root.Exec(fmt.Sprintf("KILL QUERY %d", id)); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if number(err) != 1317 {
				t.Fatalf("the killed statement: %v, want 1317", err)
			}
			var one int64
			if err := waiter.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
				t.Fatalf("the connection after KILL QUERY: %v", err)
			}
			// A KILL QUERY finding the connection idle cancels nothing
			// it runs later.
			if _, err := root.Exec(fmt.Sprintf("KILL QUERY %d", id)); err != nil {
				t.Fatal(err)
			}
			if err := waiter.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
				t.Fatalf("a statement after a KILL QUERY of the idle connection: %v", err)
			}
			if _, err := root.Exec(fmt.Sprintf("KILL %d", id)); err != nil {
				t.Fatal(err)
			}
			if err := waiter.QueryRowContext(ctx, "SELECT 1").Scan(&one); err == nil {
				t.Fatal("the connection after KILL CONNECTION still answers")
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestMaxMessage: a statement longer than max_allowed_packet (which says
// the bound) ends its connection, and only it; a shorter one runs.
func TestMaxMessage(t *testing.T) {
	addr, _ := startServer(t, Config{MaxMessage: 64 << 10})
	db := open(t, addr, "root", "")
	var max int64
	if err := db.QueryRow("SELECT @@max_allowed_packet").Scan(&max); err != nil || max != 64<<10 {
		t.Fatalf("@@max_allowed_packet: %d %v", max, err)
	}
	other, err := db.Conn(ctx) // a connection of its own, before
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	long, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Close()
	if _, err := long.ExecContext(ctx, "SELECT '"+strings.Repeat("x", 200<<10)+"'"); err == nil {
		t.Fatal("a 200 KiB statement ran under a 64 KiB bound")
	}
	var one int64
	if err := long.QueryRowContext(ctx, "SELECT 1").Scan(&one); err == nil {
		t.Fatal("the connection that sent a 200 KiB statement still answers")
	}
	var s string
	if err := other.QueryRowContext(ctx, "SELECT '"+strings.Repeat("y", 32<<10)+"'").Scan(&s); err != nil || len(s) != 32<<10 {
		t.Fatalf("a 32 KiB statement on another connection: %d bytes, %v", len(s), err)
	}
}

// TestCloseEndsConnections: closing the server ends its connections, not
// only its listener.
func TestCloseEndsConnections(t *testing.T) {
	eng := testenv.MemEngine(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(Config{Engine: eng, Logger: log.New(io.Discard, "", 0)}, ln)
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	db, err := sql.Open("mysql", "seqd@tcp("+s.Addr().String()+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err == nil {
		t.Fatal("a connection of a closed server still answers")
	}
}

// takeConcurrently runs q, a one-value query, n times at once on db and
// checks that the values are 1 to n, each once.
func takeConcurrently(t *testing.T, db *sql.DB, q string, n int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v int64
			if err := db.QueryRow(q).Scan(&v); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[v] {
				errs <- fmt.Errorf("value %d twice", v)
			}
			seen[v] = true
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != n || !seen[1] || !seen[int64(n)] {
		t.Fatalf("%d distinct values, want 1 to %d", len(seen), n)
	}
}

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
	steps, err := translate(newParser(), q, "db")
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

// TestLibraryLog: the protocol library's errors reach the server's
// logger, marked as the MySQL listener's (a client that sends a
// handshake response that cannot be parsed); its lines for a connection
// closed are dropped.
func TestLibraryLog(t *testing.T) {
	var buf testenv.LogBuffer
	eng := testenv.MemEngine(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(Config{Engine: eng, Logger: log.New(&buf, "", 0)}, ln)
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, 4)
	if _, err := io.ReadFull(c, hdr); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte{2, 0, 0, 1, 0xff, 0xff}) // a response of two bytes
	io.Copy(io.Discard, c)
	c.Close()
	db := open(t, s.Addr().String(), "seqd", "")
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Prepare("SELECT NEXTVAL(missing)"); number(err) != 4091 {
		t.Fatalf("preparing an unknown sequence's NEXTVAL: %v, want 4091", err)
	}
	db.Close()
	if got := strings.Count(buf.String(), "NEXTVAL(missing)"); got != 1 || strings.Contains(buf.String(), "unable to prepare") {
		t.Fatalf("a statement that failed to prepare: logged %d times, want once and as seqd's:\n%s", got, buf.String())
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(buf.String(), "mysql: "); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no line of the library's in the server's log:\n%s", buf.String())
		}
	}
	before := buf.String()
	libPrintf("Error reading packet from client %d: %v", 7, errors.New("read tcp: use of closed network connection"))
	libPrint("Cannot read client handshake response: EOF")
	if now := buf.String(); now != before {
		t.Fatalf("a closed connection logged: %q", strings.TrimPrefix(now, before))
	}
}

// table is q's result as text: the column names, then a line per row,
// values comma-separated (NULL for NULL).
func table(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	r, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer r.Close()
	cols, rows, err := testenv.RowStrings(r)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out := strings.Join(cols, ",")
	for _, row := range rows {
		out += "\n" + strings.Join(row, ",")
	}
	return out
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
