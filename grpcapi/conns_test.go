package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/seqmath"
)

// serveBudget serves the service over a fresh engine holding sequence
// public.s, its connections counted in reg, under method with role app
// (password "app pw"), and returns its address.
func serveBudget(t *testing.T, reg *frontend.Registry, method string, authTimeout time.Duration) string {
	t.Helper()
	eng := testenv.MemEngine(t)
	create(t, eng, "s", seqmath.Spec{})
	v, err := auth.NewVerifier("app pw")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.PutRole(context.Background(), engine.Role{Name: "app", Login: true, Superuser: true, Verifier: v}, true); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Registry: reg, Auth: method, AuthTimeout: authTimeout}})
	go s.Serve(l)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return l.Addr().String()
}

// client is a connection of its own to addr.
func client(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// asApp is ctx with app's credentials.
func asApp(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", basic("app", "app pw"))
}

// next takes a value of public.s over conn.
func next(ctx context.Context, conn *grpc.ClientConn) error {
	_, err := seqdv1.NewSequencesClient(conn).Next(asApp(ctx), &seqdv1.NextRequest{Sequence: seq("s")})
	return err
}

// openRanges opens a Ranges stream as app on c and takes a range over
// it: an authenticated call under way until ctx ends.
func openRanges(t *testing.T, ctx context.Context, c seqdv1.SequencesClient) grpc.BidiStreamingClient[seqdv1.ReserveRequest, seqdv1.Range] {
	t.Helper()
	st, err := c.Ranges(asApp(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&seqdv1.ReserveRequest{Sequence: seq("s"), Count: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil {
		t.Fatal(err)
	}
	return st
}

// waitAdmitted waits until reg counts n connections.
func waitAdmitted(t *testing.T, reg *frontend.Registry, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); reg.Admitted() != n; {
		if time.Now().After(deadline) {
			t.Fatalf("the budget counts %d connections, want %d", reg.Admitted(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lost reports whether conn left READY within d (its connection closed
// by the server).
func lost(conn *grpc.ClientConn, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for conn.GetState() == connectivity.Ready {
		if !conn.WaitForStateChange(ctx, connectivity.Ready) {
			return false
		}
	}
	return true
}

// closedRaw reports whether the server closed c within d (what it sent
// before, its HTTP/2 settings, read and dropped).
func closedRaw(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestIdleConnsEvicted: each connection is counted in the shared budget
// from accept; with the budget full of connections with no call under
// way (after authenticated calls, or only health checks without
// credentials), each new client is served in the place of one of them.
func TestIdleConnsEvicted(t *testing.T) {
	for _, tc := range []struct {
		what string
		call func(context.Context, *grpc.ClientConn) error
	}{
		{"after a call", next},
		{"after a health check", func(ctx context.Context, conn *grpc.ClientConn) error {
			_, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: ServiceName})
			return err
		}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			const n = 3
			ctx := context.Background()
			reg := frontend.NewRegistry(n, 0)
			addr := serveBudget(t, reg, AuthPassword, 300*time.Millisecond)
			var idle []*grpc.ClientConn
			for range n {
				conn := client(t, addr)
				if err := tc.call(ctx, conn); err != nil {
					t.Fatal(err)
				}
				idle = append(idle, conn)
			}
			waitAdmitted(t, reg, n)
			time.Sleep(500 * time.Millisecond) // past AuthTimeout: they made a call, they stay
			gone := map[int]bool{}
			for k := 1; k <= n; k++ {
				if err := next(ctx, client(t, addr)); err != nil {
					t.Fatalf("new client %d with the budget full of idle connections: %v", k, err)
				}
				for i, conn := range idle {
					if !gone[i] && lost(conn, 200*time.Millisecond) {
						gone[i] = true
					}
				}
				if len(gone) != k {
					t.Fatalf("after new client %d, %d idle connections closed, want %d", k, len(gone), k)
				}
				if reg.Admitted() != n {
					t.Fatalf("the budget counts %d connections, want %d", reg.Admitted(), n)
				}
			}
		})
	}
}

// TestSilentClosedAtAuthTimeout: connections that send nothing, and
// connections that finish the HTTP/2 handshake but make no call, are
// counted from accept and closed at AuthTimeout.
func TestSilentClosedAtAuthTimeout(t *testing.T) {
	const n = 4
	reg := frontend.NewRegistry(n, 0)
	addr := serveBudget(t, reg, AuthTrust, 300*time.Millisecond)
	var silent []net.Conn
	for range n - 1 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		silent = append(silent, c)
	}
	handshaken := client(t, addr)
	handshaken.Connect()
	waitAdmitted(t, reg, n)
	for i, c := range silent {
		if !closedRaw(c, 5*time.Second) {
			t.Fatalf("silent connection %d outlived AuthTimeout", i)
		}
	}
	if !lost(handshaken, 5*time.Second) {
		t.Fatal("a connection that made no call outlived AuthTimeout")
	}
	waitAdmitted(t, reg, 0)
}

// TestBusyRefused: with the budget full of connections with an
// authenticated call under way (an open stream), a new connection is
// closed at once (a new client's call: UNAVAILABLE); the places come
// back as the streams end.
func TestBusyRefused(t *testing.T) {
	const n = 3
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := frontend.NewRegistry(n, 0)
	addr := serveBudget(t, reg, AuthPassword, time.Minute)
	var streams []grpc.BidiStreamingClient[seqdv1.ReserveRequest, seqdv1.Range]
	for range n {
		streams = append(streams, openRanges(t, ctx, seqdv1.NewSequencesClient(client(t, addr))))
	}
	waitAdmitted(t, reg, n)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !closedRaw(c, 2*time.Second) {
		t.Fatal("a connection past the budget of busy ones was left open")
	}
	tctx, tcancel := context.WithTimeout(ctx, 2*time.Second)
	defer tcancel()
	if err := next(tctx, client(t, addr)); status.Code(err) != codes.Unavailable && status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("a new client's call, the budget full of busy connections: %v", err)
	}
	if reg.Admitted() != n {
		t.Fatalf("the budget counts %d connections, want %d", reg.Admitted(), n)
	}
	for _, st := range streams {
		st.CloseSend()
		st.Recv() // the stream's end
	}
	time.Sleep(50 * time.Millisecond)
	if err := next(ctx, client(t, addr)); err != nil {
		t.Fatalf("a new client once the streams ended: %v", err)
	}
}

// TestBudgetShared: the service's connections and another front end's
// are counted in one budget.
func TestBudgetShared(t *testing.T) {
	const n = 3
	reg := frontend.NewRegistry(n, 0)
	addr := serveBudget(t, reg, AuthTrust, time.Minute)
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ol := frontend.Listen(other, frontend.ListenerConfig{Registry: reg, AuthTimeout: -1})
	for range n {
		c, err := net.Dial("tcp", other.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fc, err := ol.Accept()
		if err != nil {
			t.Fatal(err)
		}
		fc.(*frontend.Conn).Authenticated() // busy: not evictable
		defer fc.Close()
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !closedRaw(c, 2*time.Second) {
		t.Fatal("a connection past the shared budget was left open")
	}
}

// TestAnswerRoom: the room a connection's answers take is given back as
// they are written: many calls for the most values a call takes, at once
// and one after another on one connection, all end (each waits for room
// the others give back), and so do those of a second round.
func TestAnswerRoom(t *testing.T) {
	addr := serveBudget(t, frontend.NewRegistry(10, 0), "scram-sha-256", time.Minute)
	c := seqdv1.NewSequencesClient(client(t, addr))
	ctx, cancel := context.WithTimeout(asApp(context.Background()), time.Minute)
	defer cancel()
	for round := range 2 {
		errs := make(chan error, 12)
		for range cap(errs) {
			go func() {
				r, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s"), Count: apicore.MaxValues})
				if err == nil && len(r.GetValues()) != apicore.MaxValues {
					err = fmt.Errorf("%d values", len(r.GetValues()))
				}
				errs <- err
			}()
		}
		for range cap(errs) {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: a call for %d values: %v", round, apicore.MaxValues, err)
			}
		}
	}
}

// TestStreamsTakeNoPlaces: the sessions a connection's streams hold take
// no place of their own (the connection holds its one): with one
// connection's 20 Ranges streams open and a budget of 30 (2 reserved),
// ordinary roles' sessions still take all 28 places not reserved.
func TestStreamsTakeNoPlaces(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := frontend.NewRegistry(30, 2)
	addr := serveBudget(t, reg, AuthPassword, time.Minute)
	c := seqdv1.NewSequencesClient(client(t, addr))
	for range 20 {
		openRanges(t, ctx, c)
	}
	for i := range 28 {
		if _, _, ok := reg.Register(func() {}); !ok || !reg.MayUseSlot(false) {
			t.Fatalf("an ordinary role's session %d of the 28 places, beside 20 streams: refused", i+1)
		}
	}
}
