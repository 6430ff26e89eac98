package compat

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// TestGRPCAPI: callers with only a gRPC stub reach the same sequences as
// SQL clients, under SCRAM with a role's password: grpcurl through
// reflection (services, calls from four processes at once, a range and
// its release, the health service, NOT_FOUND, PERMISSION_DENIED and
// FAILED_PRECONDITION by code and SQLSTATE),
// Python's grpcio and Node's @grpc/grpc-js with stubs from the
// repository's .proto (concurrent values, a range and its release, the
// stream, 404/403/409-like failures by code and SQLSTATE); and values of
// one ORDER sequence taken at once over PostgreSQL's protocol, the HTTP
// API and a gRPC stream, all distinct and in order per caller.
func TestGRPCAPI(t *testing.T) {
	grpcurl := need(t, "SEQD_TEST_GRPCURL")
	ctx := context.Background()
	srv, err := server.Start(ctx, server.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", APIListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0",
		Auth: "scram-sha-256", Password: "root pw", MaxConns: 100, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(ctx)
	addr := srv.GRPCAddr().String()
	sd, err := pgx.Connect(ctx, rootDSN(srv))
	if err != nil {
		t.Fatal(err)
	}
	defer sd.Close(ctx)
	exec1 := func(q string) {
		t.Helper()
		if _, err := sd.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	for _, q := range []string{"create role app login password 'app pw'", "create sequence shared", "create sequence small minvalue 0 maxvalue 1 start 1",
		"create sequence mixed", "create sequence curled", "create sequence tiny minvalue 0 maxvalue 1 start 1"} {
		exec1(q)
	}
	auth := "authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("seqd:root pw"))

	// grpcurl, as a shell script would, knowing the service only through
	// reflection.
	g := grpcurlRun{t: t, bin: grpcurl, addr: addr, auth: auth}
	g.checkReflectionAndCalls()
	g.checkNextAtOnce()
	g.checkRangeAndRefusals()

	checkStubClients(t, addr, func() { exec1("alter sequence small restart") })
	checkMixedCallers(t, ctx, srv, auth)
}

// rootDSN is the URL the superuser seqd, password "root pw", connects to
// srv's database seqd with.
func rootDSN(srv *server.Server) string {
	return "postgres://seqd:root%20pw@" + srv.Addr().String() + "/seqd?sslmode=disable"
}

// grpcurlRun runs grpcurl against the server at addr, with auth the
// header of the superuser's credentials.
type grpcurlRun struct {
	t         *testing.T
	bin, addr string
	auth      string
}

func (g grpcurlRun) curl(args ...string) (string, error) {
	out, err := exec.Command(g.bin, append([]string{"-plaintext"}, args...)...).CombinedOutput()
	return string(out), err
}

// checkReflectionAndCalls: the services and a method's stream listed by
// reflection, three values, the health service, NOT_FOUND with 42P01 and
// UNAUTHENTICATED without credentials.
func (g grpcurlRun) checkReflectionAndCalls() {
	t, curl, addr, auth := g.t, g.curl, g.addr, g.auth
	if out, err := curl(addr, "list"); err != nil || !strings.Contains(out, "seqd.v1.Sequences\n") || !strings.Contains(out, "grpc.health.v1.Health\n") {
		t.Errorf("grpcurl list: %v\n%s", err, out)
	}
	if out, err := curl(addr, "describe", "seqd.v1.Sequences.Ranges"); err != nil || !strings.Contains(out, "stream .seqd.v1.ReserveRequest") {
		t.Errorf("grpcurl describe: %v\n%s", err, out)
	}
	out, err := curl("-H", auth, "-d", `{"sequence": {"schema": "public", "name": "shared"}, "count": "3"}`, addr, "seqd.v1.Sequences/Next")
	var next struct{ Values []string }
	if err != nil || json.Unmarshal([]byte(out), &next) != nil || strings.Join(next.Values, ",") != "1,2,3" {
		t.Errorf("grpcurl Next: %v\n%s", err, out)
	}
	if out, err := curl("-d", `{"service": "seqd.v1.Sequences"}`, addr, "grpc.health.v1.Health/Check"); err != nil || !strings.Contains(out, `"SERVING"`) {
		t.Errorf("grpcurl health: %v\n%s", err, out)
	}
	if out, err := curl("-H", auth, "-d", `{"sequence": {"name": "nosuch"}}`, addr, "seqd.v1.Sequences/Next"); err == nil ||
		!strings.Contains(out, "Code: NotFound") || !strings.Contains(out, "42P01") {
		t.Errorf("grpcurl on a missing sequence: %v\n%s", err, out)
	}
	if out, err := curl("-d", `{"sequence": {"name": "shared"}}`, addr, "seqd.v1.Sequences/Next"); err == nil || !strings.Contains(out, "Code: Unauthenticated") {
		t.Errorf("grpcurl without credentials: %v\n%s", err, out)
	}
}

// checkNextAtOnce: four grpcurl processes at once, three values each of
// curled: all distinct.
func (g grpcurlRun) checkNextAtOnce() {
	t := g.t
	var gmu sync.Mutex
	got := map[string]bool{}
	var gwg sync.WaitGroup
	for range 4 {
		gwg.Add(1)
		go func() {
			defer gwg.Done()
			out, err := g.curl("-H", g.auth, "-d", `{"sequence": {"name": "curled"}, "count": "3"}`, g.addr, "seqd.v1.Sequences/Next")
			var r struct{ Values []string }
			if err != nil || json.Unmarshal([]byte(out), &r) != nil || len(r.Values) != 3 {
				t.Errorf("grpcurl Next at once: %v\n%s", err, out)
				return
			}
			gmu.Lock()
			defer gmu.Unlock()
			for _, v := range r.Values {
				if got[v] {
					t.Errorf("grpcurl: %s twice", v)
				}
				got[v] = true
			}
		}()
	}
	gwg.Wait()
	if len(got) != 12 {
		t.Errorf("grpcurl at once: %d distinct values, want 12", len(got))
	}
}

// checkRangeAndRefusals: a range of curled (after checkNextAtOnce's 12
// values) and its tail released, then PERMISSION_DENIED for a role
// without USAGE and FAILED_PRECONDITION for a sequence at its limit, each
// with its SQLSTATE.
func (g grpcurlRun) checkRangeAndRefusals() {
	t, curl, addr, auth := g.t, g.curl, g.addr, g.auth
	out, err := curl("-H", auth, "-d", `{"sequence": {"name": "curled"}, "count": "10"}`, addr, "seqd.v1.Sequences/Reserve")
	var rg struct{ First, Last string }
	if err != nil || json.Unmarshal([]byte(out), &rg) != nil || rg.First != "13" || rg.Last != "22" {
		t.Errorf("grpcurl Reserve: %v\n%s", err, out)
	}
	if out, err := curl("-H", auth, "-d", `{"sequence": {"name": "curled"}, "first": "15", "last": "22"}`, addr, "seqd.v1.Sequences/Release"); err != nil ||
		!strings.Contains(out, `"released": true`) {
		t.Errorf("grpcurl Release: %v\n%s", err, out)
	}
	appAuth := "authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("app:app pw"))
	if out, err := curl("-H", appAuth, "-d", `{"sequence": {"name": "curled"}}`, addr, "seqd.v1.Sequences/Next"); err == nil ||
		!strings.Contains(out, "Code: PermissionDenied") || !strings.Contains(out, "42501") {
		t.Errorf("grpcurl as a role without USAGE: %v\n%s", err, out)
	}
	curl("-H", auth, "-d", `{"sequence": {"name": "tiny"}}`, addr, "seqd.v1.Sequences/Next")
	if out, err := curl("-H", auth, "-d", `{"sequence": {"name": "tiny"}}`, addr, "seqd.v1.Sequences/Next"); err == nil ||
		!strings.Contains(out, "Code: FailedPrecondition") || !strings.Contains(out, "2200H") {
		t.Errorf("grpcurl on a sequence at its limit: %v\n%s", err, out)
	}
}

// checkStubClients runs the Python and the Node client, each with stubs
// from the repository's .proto, against the server at addr, calling
// restartSmall between the two.
func checkStubClients(t *testing.T, addr string, restartSmall func()) {
	protoRoot, err := filepath.Abs("../proto")
	if err != nil {
		t.Fatal(err)
	}
	out2, err := exec.Command(testenv.Python(t), "python/grpc_api.py", addr, protoRoot, "seqd", "root pw", "app", "app pw").CombinedOutput()
	if err != nil {
		t.Fatalf("python/grpc_api.py: %v\n%s", err, out2)
	}
	if s := strings.TrimSpace(string(out2)); s != `{"values": 392, "ranges": 3}` {
		t.Errorf("python/grpc_api.py: %s", s)
	}
	restartSmall()
	out2, err = nodeCommand(t, "grpc_api.mjs", addr, protoRoot, "seqd", "root pw", "app", "app pw").CombinedOutput()
	if err != nil {
		t.Fatalf("node/grpc_api.mjs: %v\n%s", err, out2)
	}
	if s := strings.TrimSpace(string(out2)); s != `{"values":392,"ranges":3}` {
		t.Errorf("node/grpc_api.mjs: %s", s)
	}
}

// checkMixedCallers: SQL, HTTP and gRPC stream callers on one ORDER
// sequence, mixed, at once: all distinct, each caller's in order.
func checkMixedCallers(t *testing.T, ctx context.Context, srv *server.Server, auth string) {
	m := &mixedCallers{t: t, ctx: ctx, srv: srv, seen: map[int64]string{}}
	conn, err := grpc.NewClient(srv.GRPCAddr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gctx := metadata.AppendToOutgoingContext(ctx, "authorization", strings.TrimPrefix(auth, "authorization: "))
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(3)
		go func() {
			defer wg.Done()
			m.sql(i)
		}()
		go func() {
			defer wg.Done()
			m.http(i)
		}()
		go func() {
			defer wg.Done()
			m.grpcStream(gctx, conn, i)
		}()
	}
	wg.Wait()
	if want := 3 * (100 + 100 + 100); len(m.seen) != want {
		t.Errorf("%d distinct values, want %d", len(m.seen), want)
	}
}

// mixedCallers are checkMixedCallers' callers, and the values they took.
// Its methods are safe for concurrent use.
type mixedCallers struct {
	t   *testing.T
	ctx context.Context
	srv *server.Server

	mu   sync.Mutex
	seen map[int64]string // value: the caller that took it
}

// record notes vs as taken by by, failing the test for one taken before.
func (m *mixedCallers) record(by string, vs ...int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, v := range vs {
		if prev, dup := m.seen[v]; dup {
			m.t.Errorf("value %d handed out to %s and to %s", v, prev, by)
		}
		m.seen[v] = by
	}
}

// inOrder fails the test unless vs, by's values, rise.
func (m *mixedCallers) inOrder(by string, vs []int64) {
	for i := 1; i < len(vs); i++ {
		if vs[i] <= vs[i-1] {
			m.t.Errorf("%s: %d after %d", by, vs[i], vs[i-1])
		}
	}
}

// sql takes 100 values with nextval over PostgreSQL's protocol.
func (m *mixedCallers) sql(i int) {
	t, ctx := m.t, m.ctx
	c, err := pgx.Connect(ctx, rootDSN(m.srv))
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close(ctx)
	var got []int64
	for range 100 {
		var v int64
		if err := c.QueryRow(ctx, "select nextval('mixed')").Scan(&v); err != nil {
			t.Error(err)
			return
		}
		got = append(got, v)
	}
	m.record(fmt.Sprintf("sql %d", i), got...)
	m.inOrder(fmt.Sprintf("sql %d", i), got)
}

// http takes 100 values, two a request, from the HTTP API.
func (m *mixedCallers) http(i int) {
	t := m.t
	var got []int64
	for range 50 {
		req, _ := http.NewRequest("POST", "http://"+m.srv.APIAddr().String()+"/v1/sequences/public/mixed/nextval", strings.NewReader(`{"count": "2"}`))
		req.SetBasicAuth("seqd", "root pw")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		var r struct{ Values []json.Number }
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || len(r.Values) != 2 {
			t.Errorf("http nextval: %v %v", r, err)
			return
		}
		for _, v := range r.Values {
			n, _ := v.Int64()
			got = append(got, n)
		}
	}
	m.record(fmt.Sprintf("http %d", i), got...)
	m.inOrder(fmt.Sprintf("http %d", i), got)
}

// grpcStream takes 100 values as 25 ranges of 4 on a gRPC stream, two
// requests in flight.
func (m *mixedCallers) grpcStream(gctx context.Context, conn *grpc.ClientConn, i int) {
	t := m.t
	st, err := seqdv1.NewSequencesClient(conn).Ranges(gctx)
	if err != nil {
		t.Error(err)
		return
	}
	req := &seqdv1.ReserveRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: "mixed"}, Count: 4}
	st.Send(req)
	var got []int64
	for k := range 25 {
		if k < 24 {
			st.Send(req)
		}
		r, err := st.Recv()
		if err != nil {
			t.Error(err)
			return
		}
		for v := r.First; v <= r.Last; v += r.Increment {
			got = append(got, v)
		}
	}
	st.CloseSend()
	m.record(fmt.Sprintf("grpc %d", i), got...)
	m.inOrder(fmt.Sprintf("grpc %d", i), got)
}
