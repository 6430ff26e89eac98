package pgwire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
	_, err := c.Exec(context.Background(), "select 'boom'", pgx.QueryExecModeSimpleProtocol)
	if code, msg := pgCode(err); code != "XX000" || msg != "internal error: planted" {
		t.Fatalf("got %v, want XX000", err)
	}
	if v := mustNextval(t, c, "s"); v != 1 {
		t.Fatalf("nextval after the panic: %d", v)
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
