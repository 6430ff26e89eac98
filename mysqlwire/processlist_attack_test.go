package mysqlwire

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgwire"
)

// What an ordinary login, or a careless operator, can do with
// PROCESSLIST: what it shows, to whom, and at what cost.

// startBoth serves MySQL's and PostgreSQL's protocols on one engine,
// sharing one Registry (and so one Activity), and returns their
// addresses.
func startBoth(t *testing.T) (mysqlAddr, pgAddr string) {
	t.Helper()
	reg := frontend.NewRegistry(2000, 0)
	eng := testenv.MemEngine(t)
	mysqlAddr = serve(t, eng, Config{Registry: reg}).Addr().String()
	pg := pgwire.NewServer(pgwire.Config{Engine: eng, Registry: reg, Logger: log.New(io.Discard, "", 0)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go pg.Serve(ln)
	t.Cleanup(func() { pg.Shutdown(context.Background()) })
	return mysqlAddr, ln.Addr().String()
}

// pgSession is a PostgreSQL session of user (trust), that ran a
// statement.
func pgSession(t *testing.T, addr, user string) *pgx.Conn {
	t.Helper()
	pc, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s@%s/seqd?sslmode=disable", user, addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close(context.Background()) })
	var one int
	if err := pc.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&one); err != nil {
		t.Fatal(err)
	}
	return pc
}

// plRows are a query's rows as text, the query failing the test.
func plRows(t *testing.T, c *sql.Conn, q string, args ...any) [][]string {
	t.Helper()
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	_, vals, err := testenv.RowStrings(rows)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return vals
}

// TestProcesslistPrivacy: an ordinary login sees nothing of a
// superuser's sessions, MySQL's or PostgreSQL's, busy or idle, through
// any way of reading PROCESSLIST (counts, joins, subqueries, UNION,
// prepared, SHOW), while the superuser sees every front end's.
func TestProcesslistPrivacy(t *testing.T) {
	maddr, paddr := startBoth(t)
	root, err := open(t, maddr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := root.ExecContext(ctx, "CREATE DATABASE secretdb"); err != nil {
		t.Fatal(err)
	}
	if _, err := root.ExecContext(ctx, "USE secretdb"); err != nil {
		t.Fatal(err)
	}
	rootPG := pgSession(t, paddr, "root")
	var rootPGPID int64
	rootPG.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&rootPGPID)
	appPG := pgSession(t, paddr, "app")
	var appPGPID int64
	appPG.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&appPGPID)
	// A superuser's statement that runs while app reads: a second root
	// connection sleeping in SELECT SLEEP is not needed, root's reading
	// connection is busy while app reads concurrently below.
	app, err := open(t, maddr, "app", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	var appID string
	if err := app.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&appID); err != nil {
		t.Fatal(err)
	}
	var rootID string
	if err := root.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&rootID); err != nil {
		t.Fatal(err)
	}

	for _, q := range []string{
		"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER <> 'app'",
		"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND (DB = 'secretdb' OR INFO LIKE '%secretdb%' OR ID = " + rootID + ")",
		"SELECT COUNT(*) FROM information_schema.PROCESSLIST p JOIN information_schema.PROCESSLIST q ON p.USER <> q.USER",
		"SELECT (SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'root'), (SELECT MAX(ID) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND USER <> 'app')",
		"SELECT COUNT(*) FROM (SELECT ID FROM information_schema.PROCESSLIST UNION ALL SELECT ID FROM information_schema.processlist) x WHERE ID NOT IN (CONNECTION_ID(), " + strconv.FormatInt(appPGPID, 10) + ")",
		"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID IN (" + rootID + ", " + strconv.FormatInt(rootPGPID, 10) + ")",
	} {
		for _, prepared := range []bool{false, true} {
			var got [][]string
			if prepared {
				st, err := app.PrepareContext(ctx, q)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				rows, err := st.QueryContext(ctx)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				_, got, err = testenv.RowStrings(rows)
				rows.Close()
				st.Close()
				if err != nil {
					t.Fatal(err)
				}
			} else {
				got = plRows(t, app, q)
			}
			for _, v := range got[0] {
				if v != "0" && v != "NULL" {
					t.Errorf("app reads %v of others' sessions (prepared %v): %s", got[0], prepared, q)
				}
			}
		}
	}
	for _, q := range []string{"SHOW PROCESSLIST", "SHOW FULL PROCESSLIST"} {
		for _, r := range plRows(t, app, q) {
			if r[1] != "app" || (r[0] != appID && r[0] != strconv.FormatInt(appPGPID, 10)) {
				t.Errorf("%s shows app another's session: %q", q, r)
			}
		}
	}
	// The superuser sees every front end's sessions: its own two, app's
	// two.
	seen := map[string]string{}
	for _, r := range plRows(t, root, "SELECT ID, USER, COALESCE(DB, 'NULL') FROM information_schema.PROCESSLIST") {
		seen[r[0]] = r[1] + "/" + r[2]
	}
	for id, want := range map[string]string{rootID: "root/secretdb", appID: "app/NULL", strconv.FormatInt(rootPGPID, 10): "root/NULL",
		strconv.FormatInt(appPGPID, 10): "app/NULL"} {
		if seen[id] != want {
			t.Errorf("root sees session %s as %q, want %q (all: %v)", id, seen[id], want, seen)
		}
	}
}

// TestProcesslistInfoOracle: INFO is the statement as MariaDB keeps its
// text, without the white space before it nor the white space and
// semicolons after it, sent alone, as one of several, or prepared (it
// showed "  SELECT ... ;" as sent).
func TestProcesslistInfoOracle(t *testing.T) {
	addr, _ := startServer(t, Config{})
	self := "SELECT COMMAND, INFO FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()"
	results := func(dsn string) string {
		pool, err := sql.Open("mysql", dsn+"?multiStatements=true")
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		c, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var out []string
		for _, q := range []string{
			"  " + self + " ; ",
			"\n\t" + self + ";;",
			"/* c */ " + self + ";",
			"SELECT 1 ;\n  " + self + "  ",
			self + ";" + self + "; SELECT 3",
			"  SELECT COMMAND, INFO, ? FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID() ; ",
		} {
			var rows *sql.Rows
			if strings.Contains(q, "?") {
				rows, err = c.QueryContext(ctx, q, "x")
			} else {
				rows, err = c.QueryContext(ctx, q)
			}
			if err != nil {
				out = append(out, fmt.Sprintf("%q: %v", q, err))
				continue
			}
			for {
				_, vals, err := testenv.RowStrings(rows)
				out = append(out, fmt.Sprintf("%q: %q %v", q, vals, err))
				if !rows.NextResultSet() {
					break
				}
			}
			rows.Close()
		}
		return strings.Join(out, "\n")
	}
	if want, got := results(testenv.MariaDBDSN(t)), results(seqdDSN(addr, "root")); want != got {
		t.Errorf("INFO differs from MariaDB 10.11's:\nMariaDB:\n%s\nseqd:\n%s", want, got)
	}
}

// TestProcesslistInfoText: INFO keeps the first 1024 bytes of a long
// statement, cut where a character starts; bytes that are not UTF-8 and
// NUL in a comment break neither the row nor the connection.
func TestProcesslistInfoText(t *testing.T) {
	addr, _ := startServer(t, Config{})
	c, err := open(t, addr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q := "SELECT LENGTH(INFO), RIGHT(INFO, 1) FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID() /*"
	for pad := range 4 {
		r := plRows(t, c, q+strings.Repeat("x", pad)+strings.Repeat("\U0001F600", 300)+"*/")[0]
		n, _ := strconv.Atoi(r[0])
		if n > 1024 || n < 1021 || r[1] != "\U0001F600" {
			t.Errorf("a long statement's INFO (%d bytes before the emoji): %d bytes, ending %q", pad, n, r[1])
		}
	}
	for _, junk := range []string{"\xff\xfe", "\x00", "\xc3", strings.Repeat("\x80", 1100)} {
		for _, show := range []string{"SHOW FULL PROCESSLIST /* " + junk + " */",
			"SELECT INFO FROM information_schema.PROCESSLIST /* " + junk + " */"} {
			plRows(t, c, show)
			if err := c.PingContext(ctx); err != nil {
				t.Fatalf("after %q: %v", show, err)
			}
		}
	}
}

// TestProcesslistReset: after COM_RESET_CONNECTION the connection shows
// the database it stays in, asleep, as the same user; so does one that
// connected with a database (COM_INIT_DB's) and has run nothing since.
func TestProcesslistReset(t *testing.T) {
	addr, _ := startServer(t, Config{})
	root, err := open(t, addr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := root.ExecContext(ctx, "CREATE DATABASE kept"); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	c.command(append([]byte{comQuery}, "USE kept"...)...)
	if p := c.mustRead(); p[0] != 0 {
		t.Fatal(describe(p))
	}
	c.command(comResetConnection)
	if p := c.mustRead(); p[0] != 0 {
		t.Fatal(describe(p))
	}
	got := plRows(t, root, "SELECT USER, DB, COMMAND, COALESCE(INFO, 'NULL') FROM information_schema.PROCESSLIST WHERE ID = ?", c.thread)
	if len(got) != 1 || strings.Join(got[0], ",") != "app,kept,Sleep,NULL" {
		t.Errorf("after COM_RESET_CONNECTION the connection shows as %q", got)
	}
	var connected *sql.Conn
	if connected, err = open(t, addr, "app", "kept").Conn(ctx); err != nil {
		t.Fatal(err)
	}
	defer connected.Close()
	got = plRows(t, root, "SELECT USER, DB, COMMAND, COALESCE(INFO, 'NULL') FROM information_schema.PROCESSLIST WHERE USER = 'app' AND ID <> ?", c.thread)
	if len(got) != 1 || strings.Join(got[0], ",") != "app,kept,Sleep,NULL" {
		t.Errorf("a connection made with a database shows as %q", got)
	}
}

// TestProcesslistEveryConnection: a superuser sees every authenticated
// MySQL connection, as MariaDB lists every thread, including one that
// has run no statement yet, one that ran only what the front end answers
// itself (the mysql client's SELECT @@version_comment), and one whose
// session COM_RESET_CONNECTION ended. Connections not yet authenticated
// are not listed (MariaDB shows them as "unauthenticated user").
func TestProcesslistEveryConnection(t *testing.T) {
	addr, _ := startServer(t, Config{})
	root, err := open(t, addr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	quiet := dialRaw(t, addr)
	quiet.mustLogin("app", "app pw")
	answered := dialRaw(t, addr)
	answered.mustLogin("app", "app pw")
	answered.command(append([]byte{comQuery}, "select @@version_comment limit 1"...)...)
	for range 2 { // the columns, then the rows, each ended by EOF
		for p := answered.mustRead(); p[0] != 0xfe && p[0] != 0xff; p = answered.mustRead() {
		}
	}
	reset := dialRaw(t, addr)
	reset.mustLogin("app", "app pw")
	reset.command(append([]byte{comQuery}, "DO 1"...)...)
	reset.mustRead()
	reset.command(comResetConnection)
	reset.mustRead()
	for _, c := range []*rawConn{quiet, answered, reset} {
		if got := plRows(t, root, "SELECT USER, COMMAND FROM information_schema.PROCESSLIST WHERE ID = ?", c.thread); len(got) != 1 {
			t.Errorf("connection %d: %q, want its row", c.thread, got)
		}
	}
}

// TestProcesslistConcurrent: reading PROCESSLIST while connections open,
// change database and close (run under -race): IDs in order, times
// never negative, a DB only of the databases there are.
func TestProcesslistConcurrent(t *testing.T) {
	maddr, paddr := startBoth(t)
	root, err := open(t, maddr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, q := range []string{"CREATE DATABASE d1", "CREATE DATABASE d2"} {
		if _, err := root.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if w == 3 {
					pc, err := pgx.Connect(ctx, fmt.Sprintf("postgres://app@%s/seqd?sslmode=disable", paddr))
					if err == nil {
						pc.Exec(ctx, "SELECT 1")
						pc.Close(ctx)
					}
					continue
				}
				db, err := sql.Open("mysql", fmt.Sprintf("app:app pw@tcp(%s)/", maddr))
				if err != nil {
					continue
				}
				c, err := db.Conn(ctx)
				if err == nil {
					for _, q := range []string{"USE d1", "SELECT COUNT(*) FROM information_schema.PROCESSLIST", "USE d2", "SHOW PROCESSLIST"} {
						if rows, err := c.QueryContext(ctx, q); err == nil {
							rows.Close()
						}
					}
					c.Close()
				}
				db.Close()
			}
		}()
	}
	for range 100 {
		prev := int64(-1)
		for _, r := range plRows(t, root, "SELECT ID, TIME, TIME_MS, COALESCE(DB, '') FROM information_schema.PROCESSLIST") {
			id, _ := strconv.ParseInt(r[0], 10, 64)
			if id <= prev {
				t.Errorf("ID %d after %d", id, prev)
			}
			prev = id
			if strings.HasPrefix(r[1], "-") || strings.HasPrefix(r[2], "-") {
				t.Errorf("a negative time: %q", r)
			}
			if r[3] != "" && r[3] != "d1" && r[3] != "d2" {
				t.Errorf("DB %q", r[3])
			}
		}
		plRows(t, root, "SHOW FULL PROCESSLIST")
	}
	close(stop)
	wg.Wait()
}

// TestProcesslistManyConnections: a thousand idle connections are each
// a row, in the order of their IDs.
func TestProcesslistManyConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand connections")
	}
	addr, _ := startServer(t, Config{Registry: frontend.NewRegistry(1100, 0)})
	pool := open(t, addr, "app", "")
	pool.SetMaxIdleConns(1000)
	var conns []*sql.Conn
	for range 1000 {
		c, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.ExecContext(ctx, "DO 1"); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	began := time.Now()
	rows := plRows(t, conns[0], "SHOW FULL PROCESSLIST")
	t.Logf("SHOW FULL PROCESSLIST of %d rows: %v", len(rows), time.Since(began))
	if len(rows) != 1000 {
		t.Errorf("%d rows, want 1000", len(rows))
	}
	for i := 1; i < len(rows); i++ {
		a, _ := strconv.ParseInt(rows[i-1][0], 10, 64)
		b, _ := strconv.ParseInt(rows[i][0], 10, 64)
		if a >= b {
			t.Fatalf("row %d's ID %d after %d", i, b, a)
		}
	}
}

// TestProcesslistGrammarOracle: what MariaDB's grammar refuses of SHOW
// PROCESSLIST and SHOW PLUGINS (a LIKE, a WHERE; TiDB's reads SHOW
// PLUGINS'), refused with MariaDB's 1064 near the clause, text and
// prepared (SHOW PLUGINS' was 1235).
func TestProcesslistGrammarOracle(t *testing.T) {
	_, dbName, addr := sameDatabases(t, "seqd_plgrammar")
	mc, sc := tappedConn(t, testenv.MariaDBDSN(t), dbName), tappedConn(t, seqdDSN(addr, "root"), dbName)
	var diffs []string
	for _, q := range []string{
		"SHOW PROCESSLIST LIKE 'x'", "SHOW FULL PROCESSLIST WHERE Id = 1", "SHOW PROCESSLIST FULL",
		"SHOW PLUGINS LIKE 'Inno%'", "show plugins  like\n'x'", "SHOW PLUGINS WHERE Name = 'InnoDB'", "SHOW PLUGINS where (1)",
		"SHOW PLUGINS WHERE -1", "SHOW PLUGINS WHERE `Name` IN ('a') AND 1", "SHOW FULL PLUGINS",
	} {
		for _, prepared := range []bool{false, true} {
			if want, got := outcome(mc, q, prepared), outcome(sc, q, prepared); want != got {
				diffs = append(diffs, fmt.Sprintf("%q (prepared %v)\n  MariaDB: %s\n  seqd:    %s", q, prepared, want, got))
			}
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

// TestProcesslistKilled: a statement KILL QUERY cancels while it waits
// for a lock leaves its connection's row asleep, its Info NULL.
func TestProcesslistKilled(t *testing.T) {
	addr, eng := startServer(t, Config{})
	root, err := open(t, addr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := root.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	pgExec(t, eng, "GRANT USAGE ON SEQUENCE public.s TO app")
	app, err := open(t, addr, "app", "public").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	var id int64
	if err := app.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	hold := holdS(t, eng)
	defer hold.Rollback()
	done := make(chan error, 1)
	go func() { _, err := app.ExecContext(ctx, "SELECT NEXTVAL(s)"); done <- err }()
	row := func() string {
		return strings.Join(plRows(t, root, "SELECT COMMAND, STATE, COALESCE(INFO, 'NULL') FROM information_schema.PROCESSLIST WHERE ID = ?", id)[0], ",")
	}
	for deadline := time.Now().Add(10 * time.Second); row() != "Query,Waiting for table metadata lock,SELECT NEXTVAL(s)"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the waiting statement shows as %s", row())
		}
	}
	if _, err := root.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; number(err) != 1317 {
		t.Fatalf("the killed statement: %v, want 1317", err)
	}
	if got := row(); got != "Sleep,,NULL" {
		t.Errorf("after KILL QUERY the connection shows as %s", got)
	}
}

// TestProcesslistIPv6: a client's IPv6 address and port, as MariaDB
// writes its Host (%s:%u: ::1:port, without brackets).
func TestProcesslistIPv6(t *testing.T) {
	eng := testenv.MemEngine(t)
	serve(t, eng, Config{}) // the roles
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	s, err := NewServer(Config{Engine: eng, Auth: AuthPassword, Logger: log.New(io.Discard, "", 0)}, ln)
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(s.Close)
	c, err := open(t, ln.Addr().String(), "app", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var host string
	if err := c.QueryRowContext(ctx, "SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()").Scan(&host); err != nil {
		t.Fatal(err)
	}
	if port, ok := strings.CutPrefix(host, "::1:"); !ok || strconv.Itoa(func() int { n, _ := strconv.Atoi(port); return n }()) != port {
		t.Errorf("an IPv6 client's Host is %q, want ::1:<port>", host)
	}
}

// TestProcesslistUseRolledBack: USE is no part of a transaction, in
// MariaDB: after BEGIN; USE d1; ROLLBACK the connection is in d1, which
// DATABASE() and PROCESSLIST's DB say, and its names resolve there.
func TestProcesslistUseRolledBack(t *testing.T) {
	addr, _ := startServer(t, Config{})
	c, err := open(t, addr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{"CREATE DATABASE d1", "CREATE SEQUENCE d1.s1", "BEGIN", "USE d1", "ROLLBACK"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	got := plRows(t, c, "SELECT DATABASE(), (SELECT DB FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID())")[0]
	if got[0] != "d1" || got[1] != "d1" {
		t.Errorf("after BEGIN; USE d1; ROLLBACK: DATABASE() %s, DB %s", got[0], got[1])
	}
	if _, err := c.ExecContext(ctx, "SELECT NEXTVAL(s1)"); err != nil {
		t.Errorf("after BEGIN; USE d1; ROLLBACK, NEXTVAL(s1): %v", err)
	}
	// Nor does a ROLLBACK to a savepoint taken before it.
	for _, q := range []string{"CREATE DATABASE d2", "CREATE SEQUENCE d2.s2", "BEGIN", "SAVEPOINT p", "USE d2", "ROLLBACK TO SAVEPOINT p", "COMMIT"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := c.ExecContext(ctx, "SELECT NEXTVAL(s2)"); err != nil {
		t.Errorf("after SAVEPOINT p; USE d2; ROLLBACK TO SAVEPOINT p, NEXTVAL(s2): %v", err)
	}
}
