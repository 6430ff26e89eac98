package pgwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/xdg-go/scram"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/frontend/frontendtest"
	"github.com/seqd/seqd/internal/testenv"
)

// TestDeepStatementsOverTheWire: statements nested past the parser's
// bound, up to the message limit, from one connection: each fails with
// 54001 or another SQL error (never a crash), while another connection's
// nextval goes on throughout.
func TestDeepStatementsOverTheWire(t *testing.T) {
	dsn, _ := startServer(t)
	ctx := context.Background()
	other := mustConnect(t, dsn, "create sequence s")
	attacker := mustConnect(t, dsn)
	last := int64(0)
	shapes := []func(n int) string{
		func(n int) string { return "select 1" + strings.Repeat("+1", n) },
		func(n int) string { return "select " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) },
		func(n int) string { return "select 'a'" + strings.Repeat("||'a'", n) },
		func(n int) string { return "select " + strings.Repeat("not ", n) + "true" },
		func(n int) string { return "select 1" + strings.Repeat(" union select 1", n) },
		func(n int) string {
			return "select " + strings.Repeat("case when true then ", n) + "1" + strings.Repeat(" end", n)
		},
	}
	refused := 0
	for _, shape := range shapes {
		for _, n := range []int{2000, 30000, 100000} {
			q := shape(n)
			if len(q) >= 1<<20 {
				continue
			}
			_, err := attacker.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol)
			code, _ := pgCode(err)
			if code == "" {
				t.Fatalf("%.40q (%d bytes): %v, want an SQL error", q, len(q), err)
			}
			if code == "54001" {
				refused++
			}
			if v := mustNextval(t, other, "s"); v != last+1 {
				t.Fatalf("nextval %d after %d", v, last)
			} else {
				last = v
			}
		}
	}
	if refused < len(shapes) {
		t.Fatalf("only %d statements refused with 54001", refused)
	}
	// The attacker's own connection is still usable.
	mustNextval(t, attacker, "s")
}

// TestPanicContained: a statement that panics ends with XX000; the
// connection and the server go on.
func TestPanicContained(t *testing.T) {
	panicHook = func(text string) {
		if text == "select 'boom'" {
			panic("planted")
		}
	}
	t.Cleanup(func() { panicHook = nil })
	dsn, _ := startServer(t)
	c := mustConnect(t, dsn, "create sequence s")
	for i, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		_, err := c.Exec(context.Background(), "select 'boom'", mode)
		if code, msg := pgCode(err); code != "XX000" || msg != "internal error: planted" {
			t.Fatalf("%v: got %v, want XX000", mode, err)
		}
		if v := mustNextval(t, c, "s"); v != int64(i+1) {
			t.Fatalf("%v: nextval after the panic: %d", mode, v)
		}
	}
}

// flakyListener fails its first Accepts with EMFILE, as a process out of
// file descriptors does.
type flakyListener struct {
	net.Listener
	failures atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.failures.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// TestAcceptFailuresRetried: Accept failing with EMFILE is retried (with
// backoff), not the end of the listener.
func TestAcceptFailuresRetried(t *testing.T) {
	_, srv := startServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln}
	fl.failures.Store(5)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(fl) }()
	flaky := fmt.Sprintf("postgres://u@%s/db?sslmode=disable", ln.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, flaky)
	if err != nil {
		t.Fatalf("connect through the listener that failed: %v", err)
	}
	c.Close(ctx)
	if fl.failures.Load() >= 0 {
		t.Fatalf("the planted failures were not all met")
	}
	select {
	case err := <-served:
		if !errors.Is(err, net.ErrClosed) && err != nil {
			t.Fatalf("Serve ended: %v", err)
		}
		t.Fatal("Serve ended after accept failures")
	default:
	}
}

// runaway is a statement that would run for hours: a count over a cross
// join (the inner side, 200,000 rows, is held; the count streams).
const runaway = "select count(*) from generate_series(1, 200000) a, generate_series(1, 200000) b"

// TestStatementTimeout: statement_timeout stops a runaway statement with
// PostgreSQL's 57014 and message, set by SET and as a server default;
// another session's nextval goes on meanwhile.
func TestStatementTimeout(t *testing.T) {
	dsn, _ := startServer(t)
	ctx := context.Background()
	other := mustConnect(t, dsn, "create sequence s")
	c := mustConnect(t, dsn, "set statement_timeout = '300ms'")
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(ctx, runaway)
		done <- err
	}()
	mustNextval(t, other, "s")
	select {
	case err := <-done:
		if code, msg := pgCode(err); code != "57014" || msg != "canceling statement due to statement timeout" {
			t.Fatalf("runaway: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("statement_timeout did not stop the statement")
	}
	mustNextval(t, c, "s")
	var shown string
	if err := c.QueryRow(ctx, "show statement_timeout").Scan(&shown); err != nil || shown != "300ms" {
		t.Fatalf("show: %q %v", shown, err)
	}
	if _, err := c.Exec(ctx, "set statement_timeout = 'soon'"); err == nil {
		t.Fatal("set statement_timeout = 'soon' accepted")
	} else if code, msg := pgCode(err); code != "22023" || msg != `invalid value for parameter "statement_timeout": "soon"` {
		t.Fatalf("bad value: %v", err)
	}
	// As a server default (postgresql.conf's statement_timeout).
	dsn2, _ := startServerWith(t, Config{SessionDefaults: map[string]string{"statement_timeout": "200ms"}})
	c2 := mustConnect(t, dsn2)
	if _, err := c2.Exec(ctx, runaway); err == nil {
		t.Fatal("the server default did not stop the statement")
	} else if code, _ := pgCode(err); code != "57014" {
		t.Fatalf("server default: %v", err)
	}
}

// TestCancelRunaway: a CancelRequest stops a statement that produces no
// rows (an aggregate over a cross join) with 57014.
func TestCancelRunaway(t *testing.T) {
	dsn, _ := startServer(t)
	ctx := context.Background()
	c := mustConnect(t, dsn)
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(ctx, runaway)
		done <- err
	}()
	// Cancel until the statement is running (a cancel that arrives before
	// it is lost, as in PostgreSQL).
	for {
		select {
		case err := <-done:
			if code, msg := pgCode(err); code != "57014" || msg != "canceling statement due to user request" {
				t.Fatalf("runaway: %v", err)
			}
			return
		case <-time.After(100 * time.Millisecond):
			if err := c.PgConn().CancelRequest(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestDisconnectStopsStatement: a client that goes away while its
// statement runs does not leave it running.
func TestDisconnectStopsStatement(t *testing.T) {
	ended := make(chan string, 16)
	dsn, _ := startServerWith(t, Config{OnStatement: func(tag, code string) func(time.Duration) {
		return func(time.Duration) { ended <- code }
	}})
	c := dialRaw(t, dsn)
	c.send(&pgproto3.Query{String: runaway})
	time.Sleep(200 * time.Millisecond)
	c.nc.Close()
	select {
	case code := <-ended:
		if code != "57014" {
			t.Fatalf("the statement ended with %s", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the statement ran on after its client left")
	}
}

// TestStatementMemory: a statement that would keep more than
// MaxStatementMemory fails with 53200 and the connection goes on;
// aggregates that need only their state stream over as many rows.
func TestStatementMemory(t *testing.T) {
	dsn, _ := startServerWith(t, Config{MaxStatementMemory: 16 << 20})
	ctx := context.Background()
	c := mustConnect(t, dsn, "create sequence s")
	for _, q := range []string{
		"select array_agg(g) from generate_series(1, 1000000) g",
		"select g from generate_series(1, 1000000) g order by g desc limit 1",
		"select distinct g from generate_series(1, 1000000) g limit 1",
		"select string_agg(g::text, ',') from generate_series(1, 1000000) g",
		"select count(distinct g) from generate_series(1, 1000000) g",
		"select g, count(*) from generate_series(1, 1000000) g group by g limit 1",
		"select count(*) from generate_series(1, 1000) a, generate_series(1, 1000000) b",
	} {
		_, err := c.Exec(ctx, q)
		if code, msg := pgCode(err); code != "53200" || msg != "out of memory" {
			t.Fatalf("%s: %v, want 53200", q, err)
		}
		mustNextval(t, c, "s")
	}
	var n, sum, lo, hi int64
	var all bool
	if err := c.QueryRow(ctx, "select count(*), sum(g), min(g), max(g), bool_and(g > 0) from generate_series(1, 1000000) g").Scan(&n, &sum, &lo, &hi, &all); err != nil {
		t.Fatal(err)
	}
	if n != 1000000 || sum != 500000500000 || lo != 1 || hi != 1000000 || !all {
		t.Fatalf("streamed aggregates: %d %d %d %d %v", n, sum, lo, hi, all)
	}
	// A long string made for each row (2 KB by replace, 200 MB over the
	// rows) counts only while its row is under way: it was counted as
	// kept, never given back, and the statement failed where PostgreSQL
	// answers. Made for one row past the limit, it is still 53200.
	b := strings.Repeat("b", 200)
	var total int64
	if err := c.QueryRow(ctx, "select sum(length(replace(g::text || '"+b+"', 'b', 'cccccccccc'))) from generate_series(1, 100000) g").Scan(&total); err != nil || total != 200488895 {
		t.Fatalf("a long string made for each of 100,000 rows: %d, %v, want 200488895", total, err)
	}
	if err := c.QueryRow(ctx, "select count(*) from generate_series(1, 100000) g where length(replace(g::text || '"+b+"', 'b', 'cccccccccc')) > 0").Scan(&total); err != nil || total != 100000 {
		t.Fatalf("the same in WHERE: %d, %v", total, err)
	}
	made := "replace(g::text || '" + b + "', 'b', '" + strings.Repeat("c", 50000) + "')" // 10 MB
	if err := c.QueryRow(ctx, "select sum(length("+made+")) from generate_series(1, 3) g").Scan(&total); err != nil || total != 30000003 {
		t.Fatalf("a 10 MB string made for each of 3 rows: %d, %v", total, err)
	}
	_, err := c.Exec(ctx, "select length("+made+" || "+made+") from generate_series(1, 3) g")
	if code, msg := pgCode(err); code != "53200" || msg != "out of memory" {
		t.Fatalf("two 10 MB strings made for one row: %v, want 53200", err)
	}
}

// TestLockTimeout: lock_timeout ends a wait for a lock another block
// holds with 55P03.
func TestLockTimeout(t *testing.T) {
	dsn, _ := startServer(t)
	ctx := context.Background()
	a := mustConnect(t, dsn, "create sequence s", "begin", "alter sequence s restart with 100")
	b := mustConnect(t, dsn, "set lock_timeout = 100")
	_, err := b.Exec(ctx, "select nextval('s')")
	if code, msg := pgCode(err); code != "55P03" || msg != "canceling statement due to lock timeout" {
		t.Fatalf("nextval waiting for the block: %v", err)
	}
	if _, err := a.Exec(ctx, "commit"); err != nil {
		t.Fatal(err)
	}
	if v := mustNextval(t, b, "s"); v != 100 {
		t.Fatalf("after the block: %d", v)
	}
}

// TestParseRoom: a long statement (frontend.LongStatement bytes or more)
// takes its room from the room every front end shares while it is
// parsed and built, and run for a simple Query; another, simple or extended (Parse), waits for
// room, and its statement_timeout ends the wait (57014, the session goes
// on); a short one takes none; once room is given back, the long ones
// run; and a client that does not read a long query's rows holds no
// room.
func TestParseRoom(t *testing.T) {
	reg := frontend.NewRegistry(100, 3)
	reg.SetParseRoom(frontend.LongStatement * frontend.ParseCostPerByte * 3 / 2) // one long statement at a time
	dsn, _ := startServerWith(t, Config{Registry: reg})
	ctx := context.Background()
	pad := " /*" + strings.Repeat("x", frontend.LongStatement) + "*/"
	a := mustConnect(t, dsn, "create sequence s", "begin", "alter sequence s restart with 100")
	b := mustConnect(t, dsn)
	holder := make(chan int64, 1)
	go func() { // takes the room, then waits for a's block
		// A statement holds its room while it is parsed and planned,
		// and a simple query's until it is under way: an ALTER waits
		// for the block there (a nextval would wait as its row is made,
		// the room given back).
		_, err := b.Exec(ctx, "alter sequence s increment by 1"+pad, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			t.Errorf("the long statement that held the room: %v", err)
		}
		holder <- 100
	}()
	frontendtest.WaitParseRoom(t, reg, true) // a long statement waiting for a lock holds it
	c := mustConnect(t, dsn, "set statement_timeout = 200")
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		_, err := c.Exec(ctx, "select 1"+pad, mode)
		if code, msg := pgCode(err); code != "57014" || msg != "canceling statement due to statement timeout" {
			t.Fatalf("a long statement waiting for room (%v): %v, want 57014", mode, err)
		}
		var one int
		if err := c.QueryRow(ctx, "select 1", mode).Scan(&one); err != nil || one != 1 {
			t.Fatalf("a short statement while the room is taken (%v): %d, %v", mode, one, err)
		}
	}
	if _, err := a.Exec(ctx, "commit"); err != nil {
		t.Fatal(err)
	}
	if v := <-holder; v != 100 {
		t.Fatalf("the holder's value: %d", v)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		var two int
		if err := c.QueryRow(ctx, "select 2"+pad, mode).Scan(&two); err != nil || two != 2 {
			t.Fatalf("a long statement once the room is free (%v): %d, %v", mode, two, err)
		}
	}

	// A client that sends a long query and does not read its rows (some
	// 30 MB, more than the sockets hold) holds no room once they are
	// under way.
	for _, q := range []string{"begin", "alter sequence s restart with 200"} {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	raw := dialRaw(t, dsn)
	raw.send(&pgproto3.Query{String: "select nextval('s'), g, g, g from generate_series(1, 1000000) g" + pad})
	if _, err := a.Exec(ctx, "commit"); err != nil {
		t.Fatal(err)
	}
	for until := time.Now().Add(10 * time.Second); ; { // until it sends its rows, or waits to
		var n int
		if err := c.QueryRow(ctx, "select count(*) from pg_stat_activity where state = 'active' and query like 'select nextval(''s''), g, g, g%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(until) {
			t.Fatal("the query whose rows are not read is not under way")
		}
		time.Sleep(10 * time.Millisecond)
	}
	frontendtest.WaitParseRoom(t, reg, false)

	// A query of several statements holds the room while the rows of all
	// but its last are sent: a client that does not take them loses its
	// connection after roomWriteWait, and the room is given back.
	defer func(w time.Duration) { roomWriteWait = w }(roomWriteWait)
	roomWriteWait = 300 * time.Millisecond
	several := dialRaw(t, dsn)
	several.send(&pgproto3.Query{String: "select g, g, g, g from generate_series(1, 1000000) g; select 1" + pad})
	frontendtest.WaitParseRoom(t, reg, true)
	frontendtest.WaitParseRoom(t, reg, false)
}

// TestIdleTimeouts: idle_in_transaction_session_timeout ends a session
// idle inside a block (25P03); idle_session_timeout one idle outside
// (57P05); each only where it applies.
func TestIdleTimeouts(t *testing.T) {
	dsn, _ := startServer(t)
	inTx := dialRaw(t, dsn)
	inTx.send(&pgproto3.Query{String: "set idle_in_transaction_session_timeout = 200; begin"})
	if code, msg := firstError(inTx); code != "25P03" || msg != "terminating connection due to idle-in-transaction timeout" {
		t.Fatalf("idle in a block: %s %s", code, msg)
	}
	idle := dialRaw(t, dsn)
	idle.send(&pgproto3.Query{String: "set idle_session_timeout = 200"})
	if code, msg := firstError(idle); code != "57P05" || msg != "terminating connection due to idle-session timeout" {
		t.Fatalf("idle: %s %s", code, msg)
	}
	// Outside a block, idle_in_transaction_session_timeout does not apply:
	// a session idle past it ends by idle_session_timeout, later.
	both := dialRaw(t, dsn)
	both.send(&pgproto3.Query{String: "set idle_in_transaction_session_timeout = 50; set idle_session_timeout = 400"})
	if code, msg := firstError(both); code != "57P05" {
		t.Fatalf("idle outside a block with both timeouts: %s %s, want 57P05 (the session's timeout, not the block's)", code, msg)
	}
}

// TestConnectionSlots: sessions beyond MaxConns-ReservedConns are for
// superusers (53300 with PostgreSQL's message for others); connections
// that never start count against MaxConns, the next is refused at once,
// and they are dropped after AuthTimeout, after which others get in.
// TestInBeforeTold: a connection is out of eviction's reach before its
// client is told it is in (ReadyForQuery). Marked after, a connection
// accepted in between, with the budget full, took the place of a
// session its client already held, as a CI run once found.
func TestInBeforeTold(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(Config{Engine: testenv.MemEngine(t)})
	var told, evictable atomic.Int32
	go srv.Serve(watchWrites{ln, func(b []byte) {
		// A flush that ends with ReadyForQuery, idle: the startup's.
		if len(b) >= 6 && string(b[len(b)-6:]) == "Z\x00\x00\x00\x05I" {
			told.Add(1)
			evictable.Add(int32(srv.Registry().Evictable()))
		}
	}})
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	ctx := context.Background()
	for range 3 {
		c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/db?sslmode=disable", ln.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
	}
	if told.Load() < 3 {
		t.Fatalf("%d ReadyForQuery seen in 3 startups", told.Load())
	}
	if n := evictable.Load(); n != 0 {
		t.Fatalf("%d connections evictable as their clients were told they were in", n)
	}
}

// watchWrites is a listener whose connections show what the server
// writes to seen before writing it.
type watchWrites struct {
	net.Listener
	seen func([]byte)
}

func (l watchWrites) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return watchedConn{nc, l.seen}, nil
}

type watchedConn struct {
	net.Conn
	seen func([]byte)
}

func (c watchedConn) Write(b []byte) (int, error) {
	c.seen(b)
	return c.Conn.Write(b)
}

func TestConnectionSlots(t *testing.T) {
	dsn, srv := startServerWith(t, Config{MaxConns: 4, ReservedConns: 2, AuthTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "create role plain login"); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	for srv.Conns() > 0 { // the server sees the close a moment later
		time.Sleep(time.Millisecond)
	}
	plainDSN := strings.Replace(dsn, "//u@", "//plain@", 1)
	var held []*pgx.Conn
	defer func() {
		for _, c := range held {
			c.Close(ctx)
		}
	}()
	for range 2 {
		c, err := pgx.Connect(ctx, plainDSN)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	_, err = pgx.Connect(ctx, plainDSN)
	if code, msg := pgCode(err); code != "53300" || msg != "remaining connection slots are reserved for non-replication superuser connections" {
		t.Fatalf("third plain session: %v", err)
	}
	for srv.Conns() > 2 { // the refused connection leaves a moment later
		time.Sleep(time.Millisecond)
	}
	for range 2 { // the reserved slots: a superuser's
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("superuser in a reserved slot: %v", err)
		}
		held = append(held, c)
	}
	if _, err := pgx.Connect(ctx, dsn); err == nil {
		t.Fatal("a fifth session with MaxConns 4")
	} else if code, _ := pgCode(err); code != "53300" {
		t.Fatalf("fifth session: %v", err)
	}
	for _, c := range held {
		c.Close(ctx)
	}
	held = nil
	for srv.Conns() > 0 { // the server sees the closes a moment later
		time.Sleep(time.Millisecond)
	}

	// Four connections that send nothing fill the budget; a client that
	// authenticates takes the place of the oldest of them (evicted, its
	// connection closed) rather than being locked out until they time
	// out.
	addr := strings.Split(strings.Split(dsn, "@")[1], "/")[0]
	var silent []net.Conn
	for range 4 {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, nc)
	}
	defer func() {
		for _, nc := range silent {
			nc.Close()
		}
	}()
	// The server counts a connection once it accepted it: wait for all 4.
	for srv.Conns() < 4 {
		time.Sleep(time.Millisecond)
	}
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("a session while silent connections fill the budget: %v", err)
	}
	defer c.Close(ctx)
	silent[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := silent[0].Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("the oldest silent connection was not evicted: %v", err)
	}
	// After AuthTimeout the other silent ones are gone too.
	for _, nc := range silent[1:] {
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := nc.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("a silent connection outlived AuthTimeout: %v", err)
		}
	}
}

// TestFailedStatementsLogged: a failed statement is logged with its
// SQLSTATE, message, user, connection and text (bounded), from the
// simple and the extended protocol.
func TestFailedStatementsLogged(t *testing.T) {
	var buf testenv.LogBuffer
	dsn, _ := startServerWith(t, Config{Logger: log.New(&buf, "", 0)})
	ctx := context.Background()
	c := mustConnect(t, dsn)
	c.Exec(ctx, "selec 1", pgx.QueryExecModeSimpleProtocol)
	c.Exec(ctx, "select nextval('nope')", pgx.QueryExecModeExec)
	long := "select nextval('nope') /*" + strings.Repeat("x", 5000) + "*/"
	c.Exec(ctx, long, pgx.QueryExecModeSimpleProtocol)
	// A character across the bound is left out whole, not cut in two.
	wide := "select nextval('nope') /*" + strings.Repeat("é", 2000) + "*/"
	c.Exec(ctx, wide, pgx.QueryExecModeSimpleProtocol)
	c.Exec(ctx, "select 1", pgx.QueryExecModeSimpleProtocol)
	pid := c.PgConn().PID()
	got := buf.String()
	for _, want := range []string{
		fmt.Sprintf(`ERROR 42601 syntax error at or near "selec" (user "u", connection %d) STATEMENT: selec 1`, pid),
		fmt.Sprintf(`ERROR 42P01 relation "nope" does not exist (user "u", connection %d) STATEMENT: select nextval('nope')`+"\n", pid),
		"STATEMENT: " + long[:frontend.MaxLoggedStatement] + "...\n",
		"STATEMENT: " + wide[:frontend.MaxLoggedStatement-1] + "...\n", // 25 ASCII bytes, then 2-byte characters
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %.120q:\n%.2000s", want, got)
		}
	}
	if !utf8.ValidString(got) {
		t.Error("the log is not valid UTF-8")
	}
	if strings.Contains(got, "select 1\n") {
		t.Error("a statement that succeeded was logged")
	}
	// A failing statement in a loop writes its burst, not a line each.
	start := time.Now()
	for range 500 {
		c.Exec(ctx, "select 1/0", pgx.QueryExecModeSimpleProtocol)
	}
	// The burst of 100, and 10 a second after it.
	if n, most := strings.Count(buf.String(), "ERROR 22012 "), 101+int(10*time.Since(start).Seconds()); n < 100 || n > most {
		t.Errorf("%d lines for 500 failures of one statement in a loop, want 100 to %d", n, most)
	}
}

// TestAuthenticatingHoldsNoPlaces: connections in the middle of SCRAM
// (their proof never sent) hold none of the places ordinary roles may
// take: with as many of them as those places, an ordinary role still
// logs in.
func TestAuthenticatingHoldsNoPlaces(t *testing.T) {
	const max, reserved = 6, 2
	dsn, srv := startServerWith(t, Config{Auth: AuthSCRAM, MaxConns: max, ReservedConns: reserved, AuthTimeout: time.Minute})
	ctx := context.Background()
	v, err := auth.NewVerifier("right")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.cfg.Engine.PutRole(ctx, engine.Role{Name: "app", Login: true, Verifier: v}, true); err != nil {
		t.Fatal(err)
	}
	addr := strings.Split(strings.Split(dsn, "@")[1], "/")[0]
	for range max - reserved {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		fe := pgproto3.NewFrontend(nc, nc)
		fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "app", "database": "db"}})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		if m, err := fe.Receive(); err != nil {
			t.Fatal(err)
		} else if _, ok := m.(*pgproto3.AuthenticationSASL); !ok {
			t.Fatalf("the server's first answer: %T", m)
		}
	}
	app, err := pgx.Connect(ctx, strings.Replace(dsn, "//u@", "//app:right@", 1))
	if err != nil {
		t.Fatalf("an ordinary role beside %d connections still authenticating: %v", max-reserved, err)
	}
	app.Close(ctx)
}

// TestSCRAMNoRoleLeak: on the wire, an unknown role, a role that may not
// log in and a wrong password go through the same SCRAM exchange (the
// server's first message with a salt, then the failure after the proof)
// and end with the same error: the answers do not tell which roles
// exist.
func TestSCRAMNoRoleLeak(t *testing.T) {
	dsn, srv := startServerWith(t, Config{Auth: AuthSCRAM})
	ctx := context.Background()
	v, err := auth.NewVerifier("right")
	if err != nil {
		t.Fatal(err)
	}
	eng := srv.cfg.Engine
	if err := eng.PutRole(ctx, engine.Role{Name: "app", Login: true, Verifier: v}, true); err != nil {
		t.Fatal(err)
	}
	if err := eng.PutRole(ctx, engine.Role{Name: "nl", Verifier: v}, true); err != nil {
		t.Fatal(err)
	}
	addr := strings.Split(strings.Split(dsn, "@")[1], "/")[0]
	// exchange runs SCRAM as user with password and describes what the
	// server answered, step by step.
	exchange := func(user, password string) string {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		fe := pgproto3.NewFrontend(nc, nc)
		fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": user, "database": "db"}})
		fe.Flush()
		var steps []string
		client, _ := scram.SHA256.NewClient("", password, "")
		conv := client.NewConversation()
		for {
			m, err := fe.Receive()
			if err != nil {
				return strings.Join(append(steps, "closed"), " ")
			}
			switch m := m.(type) {
			case *pgproto3.AuthenticationSASL:
				steps = append(steps, "SASL "+strings.Join(m.AuthMechanisms, ","))
				first, _ := conv.Step("")
				fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte(first)})
				fe.Flush()
			case *pgproto3.AuthenticationSASLContinue:
				steps = append(steps, "continue")
				final, err := conv.Step(string(m.Data))
				if err != nil {
					t.Fatal(err)
				}
				fe.Send(&pgproto3.SASLResponse{Data: []byte(final)})
				fe.Flush()
			case *pgproto3.ErrorResponse:
				return strings.Join(append(steps, m.Severity+" "+m.Code+" "+strings.ReplaceAll(m.Message, user, "USER")), " ")
			case *pgproto3.ReadyForQuery:
				return strings.Join(append(steps, "ready"), " ")
			case *pgproto3.ParameterStatus, *pgproto3.BackendKeyData:
			default:
				steps = append(steps, fmt.Sprintf("%T", m))
			}
		}
	}
	wrong := exchange("app", "guess")
	want := `SASL SCRAM-SHA-256 continue FATAL 28P01 password authentication failed for user "USER"`
	if wrong != want {
		t.Fatalf("wrong password: %s\nwant %s", wrong, want)
	}
	for _, user := range []string{"nobody", "nl"} {
		if got := exchange(user, "guess"); got != wrong {
			t.Errorf("%s: %s\nwrong password: %s", user, got, wrong)
		}
	}
	if got := exchange("app", "right"); got != "SASL SCRAM-SHA-256 continue *pgproto3.AuthenticationSASLFinal *pgproto3.AuthenticationOk ready" {
		t.Errorf("the right password: %s", got)
	}
}

// TestKeptMemory: what a session's statements keep past their end, open
// cursors and portals suspended with rows left, counts with what a
// statement keeps against MaxStatementMemory: one cursor or portal over
// a large sort fits, a second does not (53200), and once the first is
// closed the same fits again; the session goes on throughout.
func TestKeptMemory(t *testing.T) {
	dsn, _ := startServerWith(t, Config{MaxStatementMemory: 16 << 20})
	ctx := context.Background()
	const sorted = "select g from generate_series(1, 120000) g order by g desc"
	c := mustConnect(t, dsn, "create sequence s", "begin", "declare c1 cursor for "+sorted, "fetch 1 from c1")
	_, err := c.Exec(ctx, "declare c2 cursor for "+sorted)
	if code, msg := pgCode(err); code != "53200" || msg != "out of memory" {
		t.Fatalf("a second cursor over a sort: %v, want 53200", err)
	}
	for _, q := range []string{"rollback", "begin", "declare c3 cursor for " + sorted, "fetch 1 from c3", "close c3",
		"declare c4 cursor for " + sorted, "fetch 1 from c4", "commit",
		"declare h1 cursor with hold for " + sorted, "close h1", "declare h2 cursor with hold for " + sorted} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s, the cursor before closed: %v", q, err)
		}
	}
	if _, err := c.Exec(ctx, "declare h3 cursor with hold for "+sorted); err == nil {
		t.Fatal("a second WITH HOLD cursor over a sort fits")
	}
	// DISCARD ALL closes them too, with what they keep.
	for _, q := range []string{"discard all", "declare h4 cursor with hold for " + sorted, "close all"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mustNextval(t, c, "s")

	r := dialRaw(t, dsn)
	r.send(&pgproto3.Query{String: "begin"})
	r.until(&pgproto3.ReadyForQuery{})
	step := func(msgs ...pgproto3.FrontendMessage) string {
		r.send(append(msgs, &pgproto3.Sync{})...)
		return strings.Join(r.until(&pgproto3.ReadyForQuery{}), " ")
	}
	parse := &pgproto3.Parse{Query: sorted}
	if got := step(parse, &pgproto3.Bind{DestinationPortal: "p1"}, &pgproto3.Execute{Portal: "p1", MaxRows: 1}); !strings.Contains(got, "D 120000") || !strings.Contains(got, "PortalSuspended") {
		t.Fatalf("a portal suspended over a sort: %s", got)
	}
	if got := step(parse, &pgproto3.Bind{DestinationPortal: "p2"}, &pgproto3.Execute{Portal: "p2", MaxRows: 1}); !strings.Contains(got, "E 53200") {
		t.Fatalf("a second portal over a sort, the first suspended: %s", got)
	}
	r.send(&pgproto3.Query{String: "rollback"})
	r.until(&pgproto3.ReadyForQuery{})
	r.send(&pgproto3.Query{String: "begin"})
	r.until(&pgproto3.ReadyForQuery{})
	if got := step(&pgproto3.Close{ObjectType: 'P', Name: "p1"}, parse, &pgproto3.Bind{DestinationPortal: "p2"}, &pgproto3.Execute{Portal: "p2", MaxRows: 1}); !strings.Contains(got, "D 120000") {
		t.Fatalf("a portal over a sort once the first is closed: %s", got)
	}
	// Read to its end, a portal keeps nothing counted.
	if got := step(&pgproto3.Execute{Portal: "p2"}, parse, &pgproto3.Bind{DestinationPortal: "p3"}, &pgproto3.Execute{Portal: "p3", MaxRows: 1}); !strings.Contains(got, "PortalSuspended") || strings.Contains(got, "E ") {
		t.Fatalf("a portal over a sort once the other was read to its end: %.200s", got)
	}
}

// TestCursorTextKept: a cursor's text and plan count as what it keeps:
// cursors of a large statement that keep no rows still meet the
// session's bound (53200), and closing them gives it back.
func TestCursorTextKept(t *testing.T) {
	dsn, _ := startServerWith(t, Config{MaxStatementMemory: 16 << 20})
	ctx := context.Background()
	big := "select 1 where '" + strings.Repeat("x", 512<<10) + "' = ''"
	c := mustConnect(t, dsn, "create sequence s")
	var err error
	n := 0
	for ; n < 100 && err == nil; n++ {
		_, err = c.Exec(ctx, fmt.Sprintf("declare c%d cursor with hold for %s", n, big))
	}
	if code, _ := pgCode(err); code != "53200" || n > 10 {
		t.Fatalf("after %d cursors of a 512 KiB statement: %v, want 53200 within 16 MiB", n, err)
	}
	if _, err := c.Exec(ctx, "close all"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "declare again cursor with hold for "+big); err != nil {
		t.Fatalf("a cursor once the others closed: %v", err)
	}
	mustNextval(t, c, "s")
}
