package pgwire

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/testenv"
)

// startNode serves eng as Config.Node does in cluster mode, as a standby
// or not, and returns its host:port.
func startNode(t *testing.T, eng *engine.Engine, standby bool) (string, *Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(Config{Node: func() (*engine.Engine, bool) { return eng, standby }})
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return ln.Addr().String(), srv
}

// TestStandby: a session served as a standby presents itself as
// PostgreSQL's hot standby does (in_hot_standby at startup, every
// transaction read-only, read-write mode refused, pg_is_in_recovery()),
// reads the catalog, and refuses nextval, setval and DDL with 25006.
func TestStandby(t *testing.T) {
	ctx := context.Background()
	eng := testenv.MemEngine(t)
	primary, _ := startNode(t, eng, false)
	standby, _ := startNode(t, eng, true)
	p, err := pgx.Connect(ctx, "postgres://u@"+primary+"/db")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if _, err := p.Exec(ctx, "create sequence s"); err != nil {
		t.Fatal(err)
	}
	s, err := pgx.Connect(ctx, "postgres://u@"+standby+"/db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if v := s.PgConn().ParameterStatus("in_hot_standby"); v != "on" {
		t.Fatalf("in_hot_standby = %q", v)
	}
	for q, want := range map[string]string{
		"show transaction_read_only":                              "on",
		"select pg_is_in_recovery()::text":                        "true",
		"select count(*)::text from pg_sequences":                 "1",
		"select current_setting('default_transaction_read_only')": "off",
	} {
		var got string
		if err := s.QueryRow(ctx, q).Scan(&got); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", q, got, err, want)
		}
	}
	for q, want := range map[string]string{
		"select nextval('s')":             "25006 cannot execute nextval() in a read-only transaction",
		"select setval('s', 5)":           "25006 cannot execute setval() in a read-only transaction",
		"create sequence t":               "25006 cannot execute CREATE SEQUENCE in a read-only transaction",
		"begin read write":                "0A000 cannot set transaction read-write mode during recovery",
		"set transaction_read_only = off": "0A000 cannot set transaction read-write mode during recovery",
		"start transaction isolation level serializable, read write": "0A000 cannot set transaction read-write mode during recovery",
	} {
		_, err := s.Exec(ctx, q)
		if code, msg := pgCode(err); code+" "+msg != want {
			t.Errorf("%s: %s %s, want %s", q, code, msg, want)
		}
	}
	var v int64
	if err := p.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil || v != 1 {
		t.Fatalf("the primary after the standby's refusals: %d %v", v, err)
	}

	// pgx's multi-host connection string with target_session_attrs
	// skips the standby.
	h1, p1, _ := net.SplitHostPort(standby)
	h2, p2, _ := net.SplitHostPort(primary)
	dsn := fmt.Sprintf("host=%s,%s port=%s,%s user=u dbname=db target_session_attrs=read-write", h1, h2, p1, p2)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if addr := c.PgConn().Conn().RemoteAddr().String(); !strings.HasSuffix(addr, ":"+p2) {
		t.Fatalf("read-write session on %s, want the primary %s", addr, primary)
	}
	if err := c.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil || v != 2 {
		t.Fatalf("nextval through the multi-host string: %d %v", v, err)
	}
}

// TestStopEngine: the connections of one engine end with 57P01, the
// others go on.
func TestStopEngine(t *testing.T) {
	ctx := context.Background()
	a, b := testenv.MemEngine(t), testenv.MemEngine(t)
	addrA, srvA := startNode(t, a, false)
	ca, err := pgx.Connect(ctx, "postgres://u@"+addrA+"/db")
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	srvA.StopEngine(b) // not its engine: nothing happens
	if _, err := ca.Exec(ctx, "select 1"); err != nil {
		t.Fatal(err)
	}
	srvA.StopEngine(a)
	_, err = ca.Exec(ctx, "select 1")
	if code, _ := pgCode(err); code != "57P01" && !ca.IsClosed() {
		t.Fatalf("a connection of a stopped engine: %v", err)
	}
}
