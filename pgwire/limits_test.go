package pgwire

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

func pgCode(err error) (string, string) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code, pe.Message
	}
	return "", ""
}

// mustConnect connects to dsn, closed at the test's end, and runs setup.
func mustConnect(t *testing.T, dsn string, setup ...string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	for _, q := range setup {
		if _, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return c
}

func mustNextval(t *testing.T, c *pgx.Conn, seq string) int64 {
	t.Helper()
	var v int64
	if err := c.QueryRow(context.Background(), "select nextval($1)", seq).Scan(&v); err != nil {
		t.Fatalf("nextval(%s): %v", seq, err)
	}
	return v
}

// TestMaxConns: the connection beyond the limit gets 53300, the ones in
// keep working, and a place freed is taken again.
func TestMaxConns(t *testing.T) {
	dsn, _ := startServerWith(t, Config{MaxConns: 3})
	ctx := context.Background()
	var in []*pgx.Conn
	for range 3 {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		in = append(in, c)
	}
	if _, err := in[0].Exec(ctx, "create sequence s"); err != nil {
		t.Fatal(err)
	}
	_, err := pgx.Connect(ctx, dsn)
	if code, msg := pgCode(err); code != "53300" || msg != "sorry, too many clients already" {
		t.Fatalf("fourth connection: %v, want 53300", err)
	}
	for _, c := range in {
		mustNextval(t, c, "s")
	}
	in[2].Close(ctx)
	// The server notices the close asynchronously.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := pgx.Connect(ctx, dsn)
		if err == nil {
			mustNextval(t, c, "s")
			c.Close(ctx)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a freed place was not taken again: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStatementTooLong: a statement beyond the message limit ends its
// connection with 54000 and leaves the others alone.
func TestStatementTooLong(t *testing.T) {
	dsn, _ := startServerWith(t, Config{MaxMessage: 1000})
	ctx := context.Background()
	other := mustConnect(t, dsn, "create sequence s")
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "select nextval('s') /*"+strings.Repeat("x", 5000)+"*/", pgx.QueryExecModeSimpleProtocol)
	if code, msg := pgCode(err); code != "54000" || !strings.Contains(msg, "exceeds the limit of 1000") {
		t.Fatalf("long statement: %v, want 54000", err)
	}
	if !c.IsClosed() {
		t.Error("the connection outlived its fatal error")
	}
	mustNextval(t, other, "s")
}

// TestIdleTimeout: a connection that sends nothing, or half a message, for
// the idle timeout gets 57P05; one that stops reading a long result is
// dropped; meanwhile others, on the same sequence, go on.
func TestIdleTimeout(t *testing.T) {
	// A timeout long against a statement's time under the race detector
	// on two busy cores, so that the busy connection's pauses (50 ms
	// apart) never come near it.
	dsn, _ := startServerWith(t, Config{IdleTimeout: 2 * time.Second})
	other := mustConnect(t, dsn, "create sequence s")
	fatal := func(c *rawClient) string {
		code, msg := firstError(c)
		return code + " " + msg
	}
	idle := dialRaw(t, dsn)
	half := dialRaw(t, dsn)
	msg, _ := (&pgproto3.Query{String: "select nextval('s')"}).Encode(nil)
	half.nc.Write(msg[:5])
	// Busy connections are not idle: keep one working past the timeout.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		mustNextval(t, other, "s")
		time.Sleep(50 * time.Millisecond)
	}
	want := "57P05 terminating connection due to idle-session timeout"
	if got := fatal(idle); got != want {
		t.Errorf("idle connection: %s", got)
	}
	if got := fatal(half); got != want {
		t.Errorf("half a message: %s", got)
	}

	// A client that asks for a million rows and reads none: the server
	// blocks on it alone, then drops it.
	stall := dialRaw(t, dsn)
	stall.send(&pgproto3.Query{String: "select nextval('s') from generate_series(1, 1000000)"})
	prev := mustNextval(t, other, "s")
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); { // past the timeout
		v := mustNextval(t, other, "s")
		if v <= prev {
			t.Fatalf("nextval went from %d to %d", prev, v)
		}
		prev = v
		time.Sleep(50 * time.Millisecond)
	}
	stall.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var rows int
	for {
		m, err := stall.fe.Receive()
		if err != nil {
			break
		}
		if _, ok := m.(*pgproto3.CommandComplete); ok {
			t.Fatal("the stalled client got its whole result")
		}
		rows++
	}
	if rows >= 1_000_000 {
		t.Fatalf("%d rows reached the stalled client", rows)
	}
	// The server still serves (on a new connection: other has been idle
	// while the stalled client's rows were read, and may be gone too).
	if v := mustNextval(t, mustConnect(t, dsn), "s"); v <= prev {
		t.Fatalf("nextval went from %d to %d", prev, v)
	}
}

// TestShutdownDeadline: a client still reading a long stream when the
// shutdown's deadline passes gets the rows already sent and then 57P01,
// and Shutdown returns nil once it has read them.
func TestShutdownDeadline(t *testing.T) {
	dsn, srv := startServerWith(t, Config{MaxBulkRows: 10_000_000})
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create sequence s cache 1000"); err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(ctx, "select nextval('s') from generate_series(1, 5000000)", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	rows.Next() // the stream is under way
	shutdown := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		shutdown <- srv.Shutdown(sctx)
	}()
	n := 1
	for rows.Next() {
		n++
		if n%100_000 == 0 {
			time.Sleep(20 * time.Millisecond) // a slow reader
		}
	}
	var pe *pgconn.PgError
	if !errors.As(rows.Err(), &pe) || pe.Code != "57P01" || pe.Severity != "FATAL" {
		t.Fatalf("after %d rows: %v, want FATAL 57P01", n, rows.Err())
	}
	if n >= 5_000_000 {
		t.Fatalf("the whole stream arrived (%d rows): the deadline stopped nothing", n)
	}
	if err := <-shutdown; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}
