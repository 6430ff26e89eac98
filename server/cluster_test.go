package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/internal/etcdtest"
)

var clusterPrefixes atomic.Int64

// TestClusterFailover runs three seqd nodes on a three-member etcd, as
// `seqd -etcd` does. A pgx client with a multi-host connection string
// and target_session_attrs=read-write finds the leader; the followers
// answer as hot standbys; when the leader shuts down, another node leads
// and serves above every value handed out before, with no value twice.
func TestClusterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes")
	}
	fc := startFailoverCluster(t)
	ctx := fc.ctx
	c, first := fc.leader()
	if _, err := c.Exec(ctx, "create sequence s cache 10"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "create sequence u cache 20 noorder; create sequence w cache 20 noorder"); err != nil {
		t.Fatal(err)
	}
	fc.take(c, 50)
	fc.checkLeaderShown(first)
	f := (first + 1) % 3
	follower := fc.checkStandby(f)
	fc.checkNoOrder(c, follower, first, f)
	fc.checkAPI(first, f)

	// The leader shuts down (a clean handover): another node leads, and
	// the client's next connection finds it.
	c.Close(ctx)
	if err := fc.nodes[first].Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	fc.down[first] = true
	// The follower's session serves the NOORDER sequence on, with no
	// leader yet, unless its node is the one that takes over (which ends
	// its standby sessions): then a new session there goes on, in order
	// after what the node handed out before.
	if err := fc.tryU(follower, f, 30); err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57P01" {
			t.Fatalf("the follower's session after the leader left: %v", err)
		}
		follower = fc.connect(f)
		fc.takeU(follower, f, 30)
	}
	follower.Close(ctx)
	c2, second := fc.leader()
	defer c2.Close(ctx)
	if second == first {
		t.Fatal("the node that shut down still leads")
	}
	fc.take(c2, 50)
	if len(fc.seen) != 112 { // 50 + 50 by SQL, 3 + 3 by HTTP, 3 + 3 by gRPC (a follower's forwarded)
		t.Fatalf("%d distinct values", len(fc.seen))
	}

	// With etcd gone, the follower left is not ready once its view is
	// older than two refreshes and a lease.
	other := 3 - first - second
	for i := range 3 {
		fc.cl.Stop(i)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := get(t, fc.nodes[other], "/readyz")
		if code == 503 && strings.Contains(body, "etcd unreachable") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a follower cut off from etcd: /readyz %d %q", code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// failoverCluster is TestClusterFailover's etcd and three nodes, and the
// values its story has seen: of the ORDER sequence s (no value twice,
// each above the last) and of the NOORDER u (no value twice, increasing
// per node).
type failoverCluster struct {
	t            *testing.T
	ctx          context.Context
	cl           *etcdtest.Cluster
	nodes        []*Server
	hosts, ports []string
	down         []bool
	dsn          string // multi-host, target_session_attrs=read-write
	prefix       string // the nodes' etcd prefix

	seen  map[int64]bool
	top   int64
	useen map[int64]int // value of u: the node that gave it
	utop  map[int]int64 // node: the last value of u it gave
}

func startFailoverCluster(t *testing.T, opts ...func(*Config)) *failoverCluster {
	fc := &failoverCluster{t: t, ctx: context.Background(), cl: etcdtest.Start(t, 3), down: make([]bool, 3),
		seen: map[int64]bool{}, useen: map[int64]int{}, utop: map[int]int64{}}
	prefix := fmt.Sprintf("/cluster%d/", clusterPrefixes.Add(1))
	fc.prefix = prefix
	for range 3 {
		cfg := Config{Listen: "127.0.0.1:0", Etcd: fc.cl.Endpoints, EtcdPrefix: prefix, LeaseTTL: 2 * time.Second,
			EtcdSecurity: EtcdSecurity{CA: fc.cl.TLS.CA, Cert: fc.cl.TLS.ClientCert, Key: fc.cl.TLS.ClientKey},
			HTTP:         "127.0.0.1:0", APIListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0", Logger: log.New(io.Discard, "", 0)}
		for _, o := range opts {
			o(&cfg)
		}
		s, err := Start(fc.ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		fc.nodes = append(fc.nodes, s)
		h, p, _ := net.SplitHostPort(s.Addr().String())
		fc.hosts, fc.ports = append(fc.hosts, h), append(fc.ports, p)
	}
	t.Cleanup(func() {
		for i, s := range fc.nodes {
			if !fc.down[i] {
				s.Shutdown(fc.ctx)
			}
		}
	})
	fc.dsn = fmt.Sprintf("host=%s port=%s user=app dbname=app target_session_attrs=read-write connect_timeout=2",
		strings.Join(fc.hosts, ","), strings.Join(fc.ports, ","))
	return fc
}

// leader connects through the multi-host string: to the leader, once
// there is one.
func (fc *failoverCluster) leader() (*pgx.Conn, int) {
	t := fc.t
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := pgx.Connect(fc.ctx, fc.dsn)
		if err == nil {
			_, port, _ := net.SplitHostPort(c.PgConn().Conn().RemoteAddr().String())
			for i, p := range fc.ports {
				if p == port {
					return c, i
				}
			}
			t.Fatalf("connected to %s, not a node", port)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leader within 30s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// connect connects to node i.
func (fc *failoverCluster) connect(i int) *pgx.Conn {
	fc.t.Helper()
	c, err := pgx.Connect(fc.ctx, fmt.Sprintf("host=%s port=%s user=app dbname=app", fc.hosts[i], fc.ports[i]))
	if err != nil {
		fc.t.Fatal(err)
	}
	return c
}

// take takes n values of s on c.
func (fc *failoverCluster) take(c *pgx.Conn, n int) {
	t := fc.t
	t.Helper()
	for range n {
		var v int64
		if err := c.QueryRow(fc.ctx, "select nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		if fc.seen[v] || v <= fc.top {
			t.Fatalf("nextval gave %d after %d (seen before: %v)", v, fc.top, fc.seen[v])
		}
		fc.seen[v], fc.top = true, v
	}
}

// tryU takes n values of u on c, a session on node.
func (fc *failoverCluster) tryU(c *pgx.Conn, node, n int) error {
	t := fc.t
	t.Helper()
	for range n {
		var v int64
		if err := c.QueryRow(fc.ctx, "select nextval('u')").Scan(&v); err != nil {
			return err
		}
		if prev, ok := fc.useen[v]; ok || v <= fc.utop[node] {
			t.Fatalf("node %d: nextval('u') = %d after %d (node %d gave it before: %v)", node, v, fc.utop[node], prev, ok)
		}
		fc.useen[v], fc.utop[node] = node, v
	}
	return nil
}

func (fc *failoverCluster) takeU(c *pgx.Conn, node, n int) {
	fc.t.Helper()
	if err := fc.tryU(c, node, n); err != nil {
		fc.t.Fatalf("node %d: nextval('u'): %v", node, err)
	}
}

// checkAPI: every node serves the HTTP API and the gRPC service. The
// leader's hand out the ORDER sequence's values in order after the SQL
// ones; a follower's forward it to the leader's (its values continue
// the order), and serve the NOORDER sequence from their own blocks.
func (fc *failoverCluster) checkAPI(leader, follower int) {
	t := fc.t
	t.Helper()
	take := func(node int, seq string) (int, string, []string) {
		resp, err := http.Post("http://"+fc.nodes[node].APIAddr().String()+"/v1/sequences/public/"+seq+"/nextval", "application/json",
			strings.NewReader(`{"count": "3"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Values   []string
			SQLState string `json:"sqlstate"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
			t.Errorf("node %d: 503 without Retry-After", node)
		}
		return resp.StatusCode, body.SQLState, body.Values
	}
	status, _, values := take(leader, "s")
	if status != http.StatusOK || len(values) != 3 {
		t.Fatalf("the leader's API, nextval of s: %d %v", status, values)
	}
	for _, v := range values {
		n, _ := strconv.ParseInt(v, 10, 64)
		if fc.seen[n] || n <= fc.top {
			t.Fatalf("the leader's API gave %d after %d", n, fc.top)
		}
		fc.seen[n], fc.top = true, n
	}
	// A follower forwards the ORDER sequence's request to the leader:
	// its values continue the leader's, in order.
	status, _, values = take(follower, "s")
	if status != http.StatusOK || len(values) != 3 {
		t.Fatalf("a follower's API, nextval of the ORDER s (forwarded): %d %v", status, values)
	}
	for _, v := range values {
		n, _ := strconv.ParseInt(v, 10, 64)
		if fc.seen[n] || n <= fc.top {
			t.Fatalf("the follower's API (forwarded) gave %d after %d", n, fc.top)
		}
		fc.seen[n], fc.top = true, n
	}
	status, _, values = take(follower, "u")
	if status != http.StatusOK || len(values) != 3 {
		t.Fatalf("a follower's API, nextval of the NOORDER u: %d %v", status, values)
	}
	for _, v := range values {
		n, _ := strconv.ParseInt(v, 10, 64)
		if prev, ok := fc.useen[n]; ok || n <= fc.utop[follower] {
			t.Fatalf("node %d's API: nextval('u') = %d after %d (node %d gave it before: %v)", follower, n, fc.utop[follower], prev, ok)
		}
		fc.useen[n], fc.utop[follower] = follower, n
	}
	grpcTake := func(node int, seq string) ([]int64, error) {
		conn, err := grpc.NewClient(fc.nodes[node].GRPCAddr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		r, err := seqdv1.NewSequencesClient(conn).Next(fc.ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: seq}, Count: 3})
		return r.GetValues(), err
	}
	gvalues, err := grpcTake(leader, "s")
	if err != nil || len(gvalues) != 3 {
		t.Fatalf("the leader's gRPC Next of s: %v %v", gvalues, err)
	}
	for _, n := range gvalues {
		if fc.seen[n] || n <= fc.top {
			t.Fatalf("the leader's gRPC service gave %d after %d", n, fc.top)
		}
		fc.seen[n], fc.top = true, n
	}
	gvalues, err = grpcTake(follower, "s")
	if err != nil || len(gvalues) != 3 {
		t.Fatalf("a follower's gRPC Next of the ORDER s (forwarded): %v %v", gvalues, err)
	}
	for _, n := range gvalues {
		if fc.seen[n] || n <= fc.top {
			t.Fatalf("the follower's gRPC service (forwarded) gave %d after %d", n, fc.top)
		}
		fc.seen[n], fc.top = true, n
	}
	gvalues, err = grpcTake(follower, "u")
	if err != nil || len(gvalues) != 3 {
		t.Fatalf("a follower's gRPC Next of the NOORDER u: %v %v", gvalues, err)
	}
	for _, n := range gvalues {
		if prev, ok := fc.useen[n]; ok || n <= fc.utop[follower] {
			t.Fatalf("node %d's gRPC service: nextval('u') = %d after %d (node %d gave it before: %v)", follower, n, fc.utop[follower], prev, ok)
		}
		fc.useen[n], fc.utop[follower] = follower, n
	}
}

// checkLeaderShown: the metrics say who leads, and /readyz: the leader
// says it leads; followers name it once their view of the store
// (refreshed every 2 s) shows it.
func (fc *failoverCluster) checkLeaderShown(first int) {
	t := fc.t
	for i, s := range fc.nodes {
		m := scrape(t, s)
		want := "seqd_cluster_leader 0"
		if i == first {
			want = "seqd_cluster_leader 1"
		}
		if !strings.Contains(m, want+"\n") {
			t.Errorf("node %d's metrics lack %q", i, want)
		}
		if i == first && !strings.Contains(m, "seqd_cluster_terms_total 1\n") {
			t.Errorf("the leader's metrics lack its term:\n%s", m)
		}
	}
	leaderName := fc.nodes[first].Addr().String()
	readyz := func(i int, want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			code, body := get(t, fc.nodes[i], "/readyz")
			if code == 200 && body == want+"\n" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %d's /readyz: %d %q, want 200 %q", i, code, body, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for i := range fc.nodes {
		if i == first {
			readyz(i, "leader "+leaderName)
		} else {
			readyz(i, "standby; leader "+leaderName)
		}
	}
}

// checkStandby: follower f is a hot standby: it says so, lists the
// sequence once its snapshot is refreshed, and refuses nextval with
// 25006. It returns a session on f.
func (fc *failoverCluster) checkStandby(f int) *pgx.Conn {
	t, ctx := fc.t, fc.ctx
	c := fc.connect(f)
	if v := c.PgConn().ParameterStatus("in_hot_standby"); v != "on" {
		t.Fatalf("a follower's in_hot_standby = %q", v)
	}
	c.Close(ctx)
	// A follower reads a snapshot of the store, refreshed every 2 s: as a
	// standby lags its primary, it lists the sequence a moment later.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c := fc.connect(f)
		var n int
		err := c.QueryRow(ctx, "select count(*) from pg_sequences where sequencename = 's'").Scan(&n)
		c.Close(ctx)
		if err == nil && n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the follower does not list the sequence after 10s: %d %v", n, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c = fc.connect(f)
	_, err := c.Exec(ctx, "select nextval('s')")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "25006" {
		t.Fatalf("nextval on a follower: %v", err)
	}
	return c
}

// checkNoOrder: the NOORDER sequence u is served by every node, from its
// own blocks, in increasing order per node, no value twice; w's
// last_value shows how far the nodes reserved, and made ORDER it goes on
// above every node's block. c is on the leader (first), fc on follower f.
func (fc *failoverCluster) checkNoOrder(c, follower *pgx.Conn, first, f int) {
	t, ctx := fc.t, fc.ctx
	fc.takeU(follower, f, 30)
	fc.takeU(c, first, 30)
	fc.takeU(follower, f, 30)
	// A range from a follower's block; given back, it is not taken back
	// (the block is the node's), and nothing is refused.
	var rf, rl int64
	var released bool
	if err := follower.QueryRow(ctx, "select first, last from seqd_reserve('u', 5)").Scan(&rf, &rl); err != nil || rl-rf != 4 || rf <= fc.utop[f] {
		t.Fatalf("seqd_reserve('u', 5) on a follower: %d..%d, %v (after %d)", rf, rl, err, fc.utop[f])
	}
	for v := rf; v <= rl; v++ {
		fc.useen[v] = f
	}
	fc.utop[f] = rl
	if err := follower.QueryRow(ctx, "select seqd_release('u', $1, $2)", rl-1, rl).Scan(&released); err != nil || released {
		t.Fatalf("seqd_release on a follower: %v, %v", released, err)
	}
	if fc.utop[f] < 45 || len(fc.useen) != 95 {
		t.Fatalf("the follower's values end at %d; %d distinct", fc.utop[f], len(fc.useen))
	}
	// 65 values in blocks of 20: four blocks (the fourth reserved ahead
	// while the third was half used; 15 of it left, no fifth), each a
	// read and a swap, and a read and a swap again for each time another
	// node's reservation came between them (a block reserved ahead runs
	// beside the other node's requests).
	m := scrape(t, fc.nodes[f])
	txns := metricValue(t, fc.nodes[f], "seqd_noorder_store_transactions_total")
	if !strings.Contains(m, "seqd_noorder_blocks_total 4\n") || txns < 8 || txns%2 != 0 {
		t.Errorf("the follower's NOORDER metrics:\n%s", grepLines(m, "seqd_noorder"))
	}
	var fw int64
	if err := follower.QueryRow(ctx, "select nextval('w')").Scan(&fw); err != nil {
		t.Fatal(err)
	}
	var last int64
	if err := c.QueryRow(ctx, "select last_value from w").Scan(&last); err != nil || last != 20 {
		t.Fatalf("last_value of w after the follower's block: %d, %v; want 20", last, err)
	}
	if err := c.QueryRow(ctx, "select last_value from pg_sequences where sequencename = 'w'").Scan(&last); err != nil || last != 20 {
		t.Fatalf("pg_sequences.last_value of w: %d, %v; want 20", last, err)
	}
	if _, err := c.Exec(ctx, "alter sequence w order"); err != nil {
		t.Fatal(err)
	}
	var lw int64
	if err := c.QueryRow(ctx, "select nextval('w')").Scan(&lw); err != nil || fw != 1 || lw != 21 {
		t.Fatalf("w: the follower's %d, then made ORDER the leader's %d (%v); want 1 and 21", fw, lw, err)
	}
}

// scrape reads a server's /metrics.
func scrape(t *testing.T, s *Server) string {
	t.Helper()
	resp, err := http.Get("http://" + s.HTTPAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// grepLines are the lines of text that contain substr.
func grepLines(text, substr string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// leaderNode starts a node of the cluster on cl under prefix and returns
// it, with a connection to it, once it leads (the caller shuts it down).
func leaderNode(t *testing.T, cl *etcdtest.Cluster, prefix string) (*Server, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	s, err := Start(ctx, Config{Listen: "127.0.0.1:0", Etcd: cl.Endpoints, EtcdPrefix: prefix, LeaseTTL: 2 * time.Second,
		EtcdSecurity: EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey}, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	dsn := fmt.Sprintf("postgres://app@%s/app?target_session_attrs=read-write&connect_timeout=2", s.Addr())
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		c, err := pgx.Connect(ctx, dsn)
		if err == nil {
			return s, c
		}
		if time.Now().After(deadline) {
			s.Shutdown(ctx)
			t.Fatalf("the node did not lead within 30 s: %v", err)
		}
	}
}
