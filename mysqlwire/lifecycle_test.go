package mysqlwire

import (
	"database/sql"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/frontend/frontendtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/seqmath"
)

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

// TestParseRoom: a long statement (frontend.LongStatement bytes or more)
// takes its room from the room every front end shares while it is
// parsed, built and run; another, text or prepared, waits for room, and
// KILL QUERY ends the wait (1317, the connection goes on); a short one
// takes none; once room is given back, the long ones run; and a client
// that does not read a long statement's result holds no room.
func TestParseRoom(t *testing.T) {
	reg := frontend.NewRegistry(100, 3)
	reg.SetParseRoom(frontend.LongStatement * frontend.ParseCostPerByte * 3 / 2) // one long statement at a time
	addr, eng := startServer(t, Config{Registry: reg})
	root := open(t, addr, "root", "")
	if _, err := root.Exec("CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	pad := " /*" + strings.Repeat("x", frontend.LongStatement) + "*/"
	hold := holdS(t, eng)
	defer hold.Rollback()
	holder := make(chan int64, 1)
	go func() { // takes the room, then waits for s
		var v int64
		if err := root.QueryRow("SELECT NEXTVAL(s)" + pad).Scan(&v); err != nil {
			t.Errorf("the long statement that held the room: %v", err)
		}
		holder <- v
	}()
	frontendtest.WaitParseRoom(t, reg, true) // the holder has it
	waiter, err := open(t, addr, "root", "public").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := waiter.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, long := range []func() error{
		func() error { _, err := waiter.ExecContext(ctx, "SELECT 1"+pad); return err },
		func() error {
			st, err := waiter.PrepareContext(ctx, "SELECT ?"+pad)
			if err == nil {
				st.Close()
			}
			return err
		},
	} {
		done := make(chan error, 1)
		go func() { done <- long() }()
		// KILL until the statement is cancelled: it may not be waiting
		// yet, or the holder may not have taken the room yet.
	kill:
		for {
			if _, err := root.Exec(fmt.Sprintf("KILL QUERY %d", id)); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if number(err) != 1317 {
					t.Fatalf("a long statement waiting for room, killed: %v, want 1317", err)
				}
				break kill
			case <-time.After(50 * time.Millisecond):
			}
		}
		var one int64
		if err := waiter.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("a short statement while the room is taken: %d, %v", one, err)
		}
	}
	hold.Rollback()
	if v := <-holder; v != 1 {
		t.Fatalf("the holder's value: %d", v)
	}
	var two int64
	if err := waiter.QueryRowContext(ctx, "SELECT 2"+pad).Scan(&two); err != nil || two != 2 {
		t.Fatalf("a long statement once the room is free: %d, %v", two, err)
	}
	if err := waiter.QueryRowContext(ctx, "SELECT ?"+pad, 3).Scan(&two); err != nil || two != 3 {
		t.Fatalf("a long statement prepared once the room is free: %d, %v", two, err)
	}

	// A client that sends a long statement and does not read its result
	// (20 MB, more than the sockets hold) holds no room once the result
	// is made.
	hold = holdS(t, eng)
	defer hold.Rollback()
	c := dialRaw(t, addr)
	c.mustLogin("root", "root pw")
	c.command(append([]byte{comQuery}, "SELECT NEXTVAL(s), "+strings.Repeat("REPEAT('x', 500000), ", 40)+"1"+pad...)...)
	frontendtest.WaitParseRoom(t, reg, true) // it has the room, waiting for s
	hold.Rollback()
	frontendtest.WaitParseRoom(t, reg, false) // given back, its result not read

	// A query of several statements holds the room while the results of
	// all but its last are sent: a client that does not take them loses
	// its connection after roomWriteWait, and the room is given back.
	defer func(w time.Duration) { roomWriteWait = w }(roomWriteWait)
	roomWriteWait = 300 * time.Millisecond
	addr2, _ := startServer(t, Config{Registry: reg}) // its connections take the shortened wait
	multi, err := sql.Open("mysql", fmt.Sprintf("root:root pw@tcp(%s)/?multiStatements=true", addr2))
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	unread := make(chan struct{})
	defer close(unread)
	go func() {
		rows, err := multi.Query("SELECT " + strings.Repeat("REPEAT('x', 500000), ", 40) + "1; SELECT 1" + pad)
		if err == nil {
			<-unread // its first result not read until the test ends
			rows.Close()
		}
	}()
	frontendtest.WaitParseRoom(t, reg, true)
	frontendtest.WaitParseRoom(t, reg, false) // its connection ended, the results not read
}
