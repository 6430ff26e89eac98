package grpcapi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/timeid"
)

// serve starts a server of cfg (its Engine a fresh one unless set) and
// dials it.
func serve(t testing.TB, cfg Config) (seqdv1.SequencesClient, *grpc.ClientConn, *engine.Engine) {
	t.Helper()
	if cfg.Engine == nil && cfg.Node == nil {
		cfg.Engine = testenv.MemEngine(t)
	}
	conn := dial(t, NewServer(cfg))
	return seqdv1.NewSequencesClient(conn), conn, cfg.Engine
}

// dial serves s on a loopback port until the test ends (or it shuts s
// down itself) and connects to it.
func dial(t testing.TB, s *Server) *grpc.ClientConn {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	conn, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func create(t testing.TB, eng *engine.Engine, name string, spec seqmath.Spec) {
	t.Helper()
	n, err := engine.NewName("public", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Create(context.Background(), n, spec, false); err != nil {
		t.Fatal(err)
	}
}

func ptr(v int64) *int64 { return &v }

func seq(name string) *seqdv1.Sequence { return &seqdv1.Sequence{Schema: "public", Name: name} }

// fails checks that err is a status of code carrying sqlstate, in its
// details and in the trailer tr (when given).
func fails(t *testing.T, what string, err error, code codes.Code, sqlstate string, tr metadata.MD) {
	t.Helper()
	st, _ := status.FromError(err)
	var reason string
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Domain == "seqd" {
			reason = info.Reason
		}
	}
	if err == nil || st.Code() != code || reason != sqlstate || st.Message() == "" {
		t.Errorf("%s: %v (details %v), want %s with SQLSTATE %s", what, err, st.Details(), code, sqlstate)
	}
	if tr != nil && (len(tr.Get("seqd-sqlstate")) != 1 || tr.Get("seqd-sqlstate")[0] != sqlstate) {
		t.Errorf("%s: trailer %v, want seqd-sqlstate %s", what, tr, sqlstate)
	}
}

// TestValues: values one by one and by count from concurrent callers,
// all distinct and in order per caller; a range reserved and its tail
// released; ranges over a stream, in order and disjoint; the failures a
// caller acts on, by code and SQLSTATE.
func TestValues(t *testing.T) {
	c, _, eng := serve(t, Config{Config: apicore.Config{MaxBulkRows: 1000}})
	ctx := context.Background()
	create(t, eng, "ids", seqmath.Spec{Start: ptr(10), Increment: ptr(2), Cache: ptr(20)})
	const callers, each = 8, 50
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := int64(0)
			for i := range each {
				count := int64(1 + 2*(i%2))
				r, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("ids"), Count: count})
				if err != nil || int64(len(r.Values)) != count {
					t.Errorf("Next: %v %v", r, err)
					return
				}
				mu.Lock()
				for _, v := range r.Values {
					if seen[v] || v <= last || (v-10)%2 != 0 {
						t.Errorf("value %d: repeated, out of order or off the increment (last %d)", v, last)
					}
					seen[v], last = true, v
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if want := callers * each * 2; len(seen) != want {
		t.Errorf("%d distinct values, want %d", len(seen), want)
	}

	rg, err := c.Reserve(ctx, &seqdv1.ReserveRequest{Sequence: seq("ids"), Count: 100})
	if err != nil || rg.Last-rg.First != 198 || rg.Increment != 2 || rg.Shape != "" {
		t.Fatalf("Reserve: %v %v", rg, err)
	}
	rel, err := c.Release(ctx, &seqdv1.ReleaseRequest{Sequence: seq("ids"), First: rg.First + 20, Last: rg.Last})
	if err != nil || !rel.Released {
		t.Fatalf("Release: %v %v", rel, err)
	}
	if again, err := c.Release(ctx, &seqdv1.ReleaseRequest{Sequence: seq("ids"), First: rg.First + 20, Last: rg.Last}); err != nil || again.Released {
		t.Fatalf("Release again: %v %v", again, err)
	}
	if r, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("ids")}); err != nil || len(r.Values) != 1 || r.Values[0] != rg.First+20 {
		t.Errorf("Next after the release: %v %v, want %d", r, err, rg.First+20)
	}

	// The stream: requests sent ahead of their answers (three in
	// flight), each answered by its range, in order.
	st, err := c.Ranges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{5, 50, 500} {
		if err := st.Send(&seqdv1.ReserveRequest{Sequence: seq("ids"), Count: n}); err != nil {
			t.Fatal(err)
		}
	}
	prev := int64(0)
	for _, n := range []int64{5, 50, 500} {
		r, err := st.Recv()
		if err != nil || (r.Last-r.First)/2+1 != n || r.First <= prev {
			t.Fatalf("range of %d: %v %v (after %d)", n, r, err, prev)
		}
		prev = r.Last
	}
	st.CloseSend()
	if _, err := st.Recv(); err != io.EOF {
		t.Errorf("the stream after CloseSend: %v, want EOF", err)
	}
	// A failing request ends the stream with its status.
	st, _ = c.Ranges(ctx)
	st.Send(&seqdv1.ReserveRequest{Sequence: seq("ids"), Count: 1})
	st.Send(&seqdv1.ReserveRequest{Sequence: seq("nosuch"), Count: 1})
	if _, err := st.Recv(); err != nil {
		t.Fatalf("the stream's first range: %v", err)
	}
	_, err = st.Recv()
	fails(t, "the stream, no such sequence", err, codes.NotFound, "42P01", st.Trailer())

	var tr metadata.MD
	_, err = c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("nosuch")}, grpc.Trailer(&tr))
	fails(t, "no such sequence", err, codes.NotFound, "42P01", tr)
	_, err = c.Next(ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: "nosuch", Name: "s"}})
	fails(t, "no such schema", err, codes.NotFound, "3F000", nil)
	_, err = c.Next(ctx, &seqdv1.NextRequest{})
	fails(t, "no name", err, codes.InvalidArgument, "22023", nil)
	_, err = c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("ids"), Count: 1001})
	fails(t, "count over the limit", err, codes.InvalidArgument, "22023", nil)
	_, err = c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("ids"), Count: -1})
	fails(t, "a negative count", err, codes.InvalidArgument, "22023", nil)
	_, err = c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("a\x00b")})
	fails(t, "a name with NUL", err, codes.InvalidArgument, "22021", nil)
	if r, err := c.Release(ctx, &seqdv1.ReleaseRequest{Sequence: seq("ids"), First: 1, Last: 5}); err != nil || r.Released {
		t.Errorf("a release of what was not the tail: %v %v", r, err)
	}
	create(t, eng, "small", seqmath.Spec{Max: ptr(2)})
	c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("small"), Count: 2})
	_, err = c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("small")})
	fails(t, "a sequence at its limit", err, codes.FailedPrecondition, "2200H", nil)
	// A message past the bound is the library's RESOURCE_EXHAUSTED.
	_, err = c.Next(ctx, &seqdv1.NextRequest{Sequence: seq(string(make([]byte, 70000)))})
	if st, _ := status.FromError(err); st.Code() != codes.ResourceExhausted {
		t.Errorf("a message too large: %v", err)
	}
}

// runSQL runs the statements of q in s and returns the first value of
// the last one that returns rows (NULL if none did).
func runSQL(t *testing.T, s *executor.Session, q string) eval.Datum {
	t.Helper()
	stmts, err := pgsql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	v := eval.Null
	for i := range stmts {
		p, err := s.Prepare(&stmts[i], nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		res, err := s.Execute(context.Background(), p, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if res.Rows != nil {
			if row, ok, err := res.Rows.Next(); err != nil {
				t.Fatalf("%s: %v", q, err)
			} else if ok {
				v = row[0]
			}
		}
		s.Release(res)
	}
	return v
}

// basic is an authorization header's value for role and password.
func basic(role, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(role+":"+password))
}

// TestAuthentication: under AuthPassword the role's password (Basic in
// the authorization metadata) against its verifier, UNAUTHENTICATED
// without, with a wrong one, for a role that may not log in; a role
// without the privilege gets PERMISSION_DENIED; a stream authenticates
// once.
func TestAuthentication(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	for _, r := range []struct{ name, pw string }{{"seqd", "root"}, {"app", "app pw"}, {"nologin", "x"}} {
		v, err := auth.NewVerifier(r.pw)
		if err != nil {
			t.Fatal(err)
		}
		if err := eng.PutRole(ctx, engine.Role{Name: r.name, Superuser: r.name == "seqd", Login: r.name != "nologin", Verifier: v}, true); err != nil {
			t.Fatal(err)
		}
	}
	n, _ := engine.NewName("public", "s")
	if _, err := eng.CreateWith(ctx, n, seqmath.Spec{}, engine.CreateOptions{Owner: "seqd"}); err != nil {
		t.Fatal(err)
	}
	c, _, _ := serve(t, Config{Config: apicore.Config{Engine: eng, Auth: AuthPassword}})
	as := func(role, pw string) context.Context {
		return metadata.AppendToOutgoingContext(ctx, "authorization", basic(role, pw))
	}
	next := func(ctx context.Context) error {
		_, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s")})
		return err
	}
	if err := next(as("seqd", "root")); err != nil {
		t.Fatalf("the superuser: %v", err)
	}
	fails(t, "no credentials", next(ctx), codes.Unauthenticated, "28000", nil)
	fails(t, "not Basic nor Bearer", next(metadata.AppendToOutgoingContext(ctx, "authorization", "Digest x")), codes.Unauthenticated, "28000", nil)
	fails(t, "a bearer token not valid", next(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer x")), codes.Unauthenticated, "28P01", nil)
	fails(t, "not base64", next(metadata.AppendToOutgoingContext(ctx, "authorization", "Basic !!")), codes.Unauthenticated, "28000", nil)
	fails(t, "a wrong password", next(as("app", "wrong")), codes.Unauthenticated, "28P01", nil)
	fails(t, "a role that may not log in", next(as("nologin", "x")), codes.Unauthenticated, "28P01", nil)
	fails(t, "no such role", next(as("nobody", "x")), codes.Unauthenticated, "28P01", nil)
	fails(t, "app without USAGE", next(as("app", "app pw")), codes.PermissionDenied, "42501", nil)
	st, err := c.Ranges(as("app", "wrong"))
	if err == nil {
		st.Send(&seqdv1.ReserveRequest{Sequence: seq("s"), Count: 1})
		_, err = st.Recv()
	}
	fails(t, "a stream with a wrong password", err, codes.Unauthenticated, "28P01", nil)
	if err := eng.UpdateACL(ctx, n, func(a *engine.ACL) error {
		a.Grants["app"] = engine.PrivUsage
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := next(as("app", "app pw")); err != nil {
		t.Errorf("app with USAGE: %v", err)
	}
	// A bearer token app made authenticates it, until revoked.
	sess, err := executor.NewSession(executor.Config{Engine: eng, User: "app", Superuser: "seqd", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	token := runSQL(t, sess, "select seqd_create_token('grpc')").S
	withToken := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	if err := next(withToken); err != nil {
		t.Errorf("app's token: %v", err)
	}
	st, err = c.Ranges(withToken)
	if err == nil {
		st.Send(&seqdv1.ReserveRequest{Sequence: seq("s"), Count: 5})
		_, err = st.Recv()
		st.CloseSend()
	}
	if err != nil {
		t.Errorf("a stream with app's token: %v", err)
	}
	runSQL(t, sess, "select seqd_revoke_token(id) from seqd_tokens")
	fails(t, "a revoked token", next(withToken), codes.Unauthenticated, "28P01", nil)
}

// TestStandby: on a standby an ORDER sequence's values are UNAVAILABLE
// with a RetryInfo (25006) and the health service says NOT_SERVING for
// the service; once the node leads, both change.
func TestStandby(t *testing.T) {
	eng := testenv.MemEngine(t)
	create(t, eng, "s", seqmath.Spec{})
	var mu sync.Mutex
	standby := true
	c, conn, _ := serve(t, Config{Config: apicore.Config{Node: func() (*engine.Engine, bool) {
		mu.Lock()
		defer mu.Unlock()
		return eng, standby
	}}})
	ctx := context.Background()
	h := healthpb.NewHealthClient(conn)
	health := func() healthpb.HealthCheckResponse_ServingStatus {
		r, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: ServiceName})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	if s := health(); s != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health on a standby: %v", s)
	}
	_, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s")})
	fails(t, "Next on a standby", err, codes.Unavailable, "25006", nil)
	st, _ := status.FromError(err)
	retry := false
	for _, d := range st.Details() {
		_, ok := d.(*errdetails.RetryInfo)
		retry = retry || ok
	}
	if !retry {
		t.Errorf("no RetryInfo from a standby: %v", st.Details())
	}
	mu.Lock()
	standby = false
	mu.Unlock()
	if _, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s")}); err != nil {
		t.Errorf("Next once the node leads: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for health() != healthpb.HealthCheckResponse_SERVING {
		if time.Now().After(deadline) {
			t.Fatal("health still NOT_SERVING once the node leads")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDeadline: a call waiting for a lock ends with DEADLINE_EXCEEDED at
// its deadline and CANCELLED when its caller cancels it; the session is
// fine afterwards (the next call succeeds once the lock is free).
func TestDeadline(t *testing.T) {
	reg := frontend.NewRegistry(100, 3)
	c, _, eng := serve(t, Config{Config: apicore.Config{Registry: reg}})
	create(t, eng, "s", seqmath.Spec{})
	ctx := context.Background()
	// The holder sees the service's sessions in pg_stat_activity.
	pid, _, _ := reg.Register(func() {})
	holder, err := executor.NewSession(executor.Config{Engine: eng, User: "seqd", Superuser: "seqd", Database: "seqd",
		Activity: reg.Activity(), BackendPID: pid})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	runSQL(t, holder, "begin; alter sequence s restart with 100")
	dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = c.Next(dctx, &seqdv1.NextRequest{Sequence: seq("s")})
	if st, _ := status.FromError(err); st.Code() != codes.DeadlineExceeded {
		t.Errorf("Next past its deadline: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	_, err = c.Next(cctx, &seqdv1.NextRequest{Sequence: seq("s")})
	if st, _ := status.FromError(err); st.Code() != codes.Canceled || !errors.Is(cctx.Err(), context.Canceled) {
		t.Errorf("Next cancelled: %v", err)
	}
	// A cancel reaches the server after the client gives up: wait until
	// no call waits for the lock any more, or one might still take the
	// value once it is free (a value burned, as for any call whose
	// outcome the client did not learn).
	for deadline := time.Now().Add(10 * time.Second); ; {
		n := runSQL(t, holder, "select count(*) from pg_stat_activity where wait_event_type = 'Lock'").I
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls still wait for the lock after their cancel", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runSQL(t, holder, "commit")
	if r, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s")}); err != nil || r.Values[0] != 100 {
		t.Errorf("Next once the lock is free: %v %v", r, err)
	}
}

// TestShutdownEndsStreams: a server shutting down ends an open stream
// between its requests with UNAVAILABLE (57P01) instead of waiting for
// the client to close it, and stops in time.
func TestShutdownEndsStreams(t *testing.T) {
	eng := testenv.MemEngine(t)
	create(t, eng, "s", seqmath.Spec{})
	s := NewServer(Config{Config: apicore.Config{Engine: eng}})
	conn := dial(t, s)
	ctx := context.Background()
	st, err := seqdv1.NewSequencesClient(conn).Ranges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&seqdv1.ReserveRequest{Sequence: seq("s"), Count: 10})
	if _, err := st.Recv(); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.Shutdown(sctx); err != nil {
		t.Errorf("Shutdown with a stream open: %v", err)
	}
	_, err = st.Recv()
	fails(t, "the stream at shutdown", err, codes.Unavailable, "57P01", st.Trailer())
}

// TestForward: a standby makes on the leader the calls it refuses (an
// ORDER sequence's Next, Reserve, Release) with the caller's
// credentials, relays a stream's ranges from the leader once it refuses
// one, and never forwards a forwarded call again.
func TestForward(t *testing.T) {
	eng := testenv.MemEngine(t)
	create(t, eng, "s", seqmath.Spec{})
	ctx := context.Background()
	var last *Server
	start := func(standby bool, forward func() (string, bool)) (seqdv1.SequencesClient, string) {
		s := NewServer(Config{Config: apicore.Config{Node: func() (*engine.Engine, bool) { return eng, standby }}, Forward: forward})
		conn := dial(t, s)
		last = s
		return seqdv1.NewSequencesClient(conn), conn.Target()
	}
	leader, leaderAddr := start(false, nil)
	follower, _ := start(true, func() (string, bool) { return leaderAddr, true })
	r, err := follower.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s"), Count: 2})
	if err != nil || len(r.Values) != 2 || r.Values[0] != 1 {
		t.Fatalf("Next through a standby: %v %v", r, err)
	}
	rg, err := follower.Reserve(ctx, &seqdv1.ReserveRequest{Sequence: seq("s"), Count: 10})
	if err != nil || rg.First != 3 || rg.Last != 12 {
		t.Fatalf("Reserve through a standby: %v %v", rg, err)
	}
	if rel, err := follower.Release(ctx, &seqdv1.ReleaseRequest{Sequence: seq("s"), First: 8, Last: 12}); err != nil || !rel.Released {
		t.Fatalf("Release through a standby: %v %v", rel, err)
	}
	_, err = follower.Next(ctx, &seqdv1.NextRequest{Sequence: seq("nosuch")})
	fails(t, "the leader's NOT_FOUND, through a standby", err, codes.NotFound, "42P01", nil)
	// A stream: its requests, sent ahead, answered in order by the
	// leader once the standby refuses the first.
	st, err := follower.Ranges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		st.Send(&seqdv1.ReserveRequest{Sequence: seq("s"), Count: 5})
	}
	prev := int64(7)
	for i := range 3 {
		r, err := st.Recv()
		if err != nil || r.First != prev+1 || r.Last != prev+5 {
			t.Fatalf("range %d through a standby's stream: %v %v (after %d)", i, r, err, prev)
		}
		prev = r.Last
	}
	st.CloseSend()
	if _, err := st.Recv(); err != io.EOF {
		t.Errorf("the relayed stream after CloseSend: %v", err)
	}
	// The standby shutting down with a relayed stream open: the stream
	// ends UNAVAILABLE (57P01), and the shutdown does not wait for it.
	f2, _ := start(true, func() (string, bool) { return leaderAddr, true })
	st, err = f2.Ranges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&seqdv1.ReserveRequest{Sequence: seq("s"), Count: 1})
	if _, err := st.Recv(); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := last.Shutdown(sctx); err != nil {
		t.Errorf("shutting down with a relayed stream: %v", err)
	}
	_, err = st.Recv()
	fails(t, "a relayed stream at shutdown", err, codes.Unavailable, "57P01", nil)
	// Two standbys taking each other for the leader: the refusal.
	var aAddr, bAddr string
	a, aListen := start(true, func() (string, bool) { return bAddr, true })
	_, bAddr = start(true, func() (string, bool) { return aAddr, true })
	aAddr = aListen
	_, err = a.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s")})
	fails(t, "a standby forwarding to a standby", err, codes.Unavailable, "25006", nil)
	if r, err := leader.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s")}); err != nil || r.Values[0] != 24 {
		t.Errorf("the leader after: %v %v", r, err)
	}
}

// TestShutdownStuckStream: a stream whose client sends and never reads
// its answers (the server stuck sending) does not hold a shutdown until
// its deadline: its connection is closed after the grace period.
func TestShutdownStuckStream(t *testing.T) {
	eng := testenv.MemEngine(t)
	create(t, eng, "s", seqmath.Spec{})
	s := NewServer(Config{Config: apicore.Config{Engine: eng}})
	s.streamGrace = 200 * time.Millisecond
	conn := dial(t, s)
	ctx := context.Background()
	st, err := seqdv1.NewSequencesClient(conn).Ranges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Requests until the flow control stops them: the server's answers
	// fill the window the client never reads from.
	sent := make(chan int, 1)
	go func() {
		n := 0
		for ; n < 1_000_000 && st.Send(&seqdv1.ReserveRequest{Sequence: seq("s"), Count: 1}) == nil; n++ {
		}
		sent <- n
	}()
	// Stuck: the sequence stops moving while the client still sends.
	testenv.WaitStuck(t, eng)
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := s.Shutdown(sctx); err != nil {
		t.Fatalf("shutdown with a stream stuck sending: %v", err)
	}
	<-sent
}

// TestHeaderBound: a call whose metadata exceeds the bound is refused
// and the connection's next call is served.
func TestHeaderBound(t *testing.T) {
	c, _, eng := serve(t, Config{})
	create(t, eng, "s", seqmath.Spec{})
	ctx := context.Background()
	big := metadata.AppendToOutgoingContext(ctx, "x-padding", strings.Repeat("x", 64<<10))
	if _, err := c.Next(big, &seqdv1.NextRequest{Sequence: seq("s")}); err == nil {
		t.Fatal("64 KiB of metadata accepted")
	}
	if r, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq("s")}); err != nil || r.Values[0] != 1 {
		t.Fatalf("the next call: %v %v", r, err)
	}
}

// TestStatusRetryInfo: a failure that sending again may cure, shortly
// (a standby: 25006) or once time has passed (a SNOWFLAKE sequence's ids
// ahead of the clock: 55000), carries a RetryInfo; one that it cannot (a
// sequence at its limit: 2200H) carries none.
func TestStatusRetryInfo(t *testing.T) {
	for _, tc := range []struct {
		err   error
		code  codes.Code
		state string
		retry bool
	}{
		{fmt.Errorf("nextval: %w", timeid.ErrClockBehind), codes.FailedPrecondition, "55000", true},
		{engine.ErrDeposed, codes.Unavailable, "25006", true},
		{seqmath.ErrLimitReached, codes.FailedPrecondition, "2200H", false},
	} {
		st := statusOf(apicore.ErrorOf(tc.err), tc.err)
		retry := false
		for _, d := range st.Details() {
			if ri, ok := d.(*errdetails.RetryInfo); ok && ri.RetryDelay.AsDuration() > 0 {
				retry = true
			}
		}
		if st.Code() != tc.code || retry != tc.retry {
			t.Errorf("%v: %v with RetryInfo %v, want %v with RetryInfo %v", tc.err, st.Code(), retry, tc.code, tc.retry)
		}
		fails(t, tc.err.Error(), st.Err(), tc.code, tc.state, nil)
	}
}
