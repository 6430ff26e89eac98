package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/internal/localetcd"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/sqlerr"
)

// The faults of one etcd member, and of one node's way to etcd, on three
// seqd nodes: ORDER sequences stay available but for at most the lease
// plus 2 s (docs/cluster.md, "Availability"), and a leader cut off from
// etcd refuses, rather than holds, what it can no longer serve.

// faultLease is the nodes' lease in these tests.
const faultLease = 2 * time.Second

// proxies puts a localetcd.Proxy in front of each of cl's members'
// client URLs, and returns them with the endpoints that go through them.
func proxies(t *testing.T, cl *localetcd.Cluster) ([]*localetcd.Proxy, []string) {
	t.Helper()
	var ps []*localetcd.Proxy
	var eps []string
	for _, ep := range cl.Endpoints {
		p, err := localetcd.NewProxy(strings.TrimPrefix(ep, "https://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		ps = append(ps, p)
		eps = append(eps, "https://"+p.Addr())
	}
	return ps, eps
}

// startFaultCluster starts three nodes on cl, node i reaching etcd at
// endpoints(i), with the lease faultLease.
func startFaultCluster(t *testing.T, cl *localetcd.Cluster, endpoints func(i int) []string) *failoverCluster {
	fc := &failoverCluster{t: t, ctx: context.Background(), cl: cl, down: make([]bool, 3),
		seen: map[int64]bool{}, useen: map[int64]int{}, utop: map[int]int64{}}
	fc.prefix = fmt.Sprintf("/cluster%d/", clusterPrefixes.Add(1))
	for i := range 3 {
		cfg := Config{Listen: "127.0.0.1:0", Etcd: endpoints(i), EtcdPrefix: fc.prefix, LeaseTTL: faultLease,
			EtcdSecurity: EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey},
			APIListen:    "127.0.0.1:0", Logger: log.New(faultLog, fmt.Sprintf("node%d ", i), log.Lmicroseconds)}
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

// orderProbe takes values of an ORDER sequence through the multi-host
// connection string, one after another, as a client would: each above
// the last (the sequence is ordered across the cluster), and it notes
// when each came.
type orderProbe struct {
	fc   *failoverCluster
	seq  string
	stop chan struct{}
	done chan struct{}

	mu    sync.Mutex
	times []time.Time
	last  int64
	bad   error // a value out of order, or a request held past its deadline
}

func (fc *failoverCluster) probeOrder(seq string) *orderProbe {
	p := &orderProbe{fc: fc, seq: seq, stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *orderProbe) run() {
	defer close(p.done)
	var c *pgx.Conn
	defer func() {
		if c != nil {
			c.Close(context.Background())
		}
	}()
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		if c == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var err error
			c, err = pgx.Connect(ctx, p.fc.dsn)
			cancel()
			if err != nil {
				c = nil
				time.Sleep(50 * time.Millisecond)
				continue
			}
		}
		// A request held for longer than this would be the fault this
		// file is about: a node that can no longer serve holds it.
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		var v int64
		err := c.QueryRow(ctx, "select nextval('"+p.seq+"')").Scan(&v)
		cancel()
		p.mu.Lock()
		switch {
		case err == nil && v <= p.last:
			p.bad = fmt.Errorf("nextval('%s') = %d after %d", p.seq, v, p.last)
		case err == nil:
			p.last = v
			p.times = append(p.times, time.Now())
		case errors.Is(err, context.DeadlineExceeded):
			p.bad = fmt.Errorf("nextval('%s') was held for 15 s: %v", p.seq, err)
		}
		p.mu.Unlock()
		if err != nil {
			c.Close(context.Background())
			c = nil
		}
	}
}

// end stops the probe and returns the longest time within [from, to]
// in which no value came.
func (p *orderProbe) end(from, to time.Time) time.Duration {
	p.fc.t.Helper()
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bad != nil {
		p.fc.t.Fatal(p.bad)
	}
	gap, prev := time.Duration(0), from
	for _, at := range p.times {
		if at.Before(from) {
			continue
		}
		if at.After(to) {
			at = to
		}
		gap = max(gap, at.Sub(prev))
		prev = at
		if at.Equal(to) {
			return gap
		}
	}
	return max(gap, to.Sub(prev))
}

// TestEtcdMemberFaults: under each fault of the etcd leader member (cut
// off from its peers while its clients still reach it; paused, as by
// SIGSTOP: every connection to it held; its process stopped by SIGSTOP,
// its timers with it; stopped), ORDER sequences on three nodes go
// without a value for at most the lease plus 2 s, and their values stay
// in order.
func TestEtcdMemberFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes, under faults")
	}
	bound := faultLease + 2*time.Second
	faults := []struct {
		name        string
		limit       time.Duration
		make, clear func(cl *localetcd.Cluster, clients []*localetcd.Proxy, i int)
		process     bool // the leader member runs as a process
	}{
		{"isolated", bound, func(cl *localetcd.Cluster, _ []*localetcd.Proxy, i int) { cl.Isolate(i) },
			func(cl *localetcd.Cluster, _ []*localetcd.Proxy, i int) { cl.Rejoin(i) }, false},
		// Paused: the member's connections stay open and silent; the
		// nodes' clients set it aside after one try timed out on it
		// (etcdstore.Endpoints).
		{"paused", bound, func(cl *localetcd.Cluster, ps []*localetcd.Proxy, i int) { cl.Isolate(i); ps[i].Cut() },
			func(cl *localetcd.Cluster, ps []*localetcd.Proxy, i int) { ps[i].Heal(); cl.Rejoin(i) }, false},
		{"SIGSTOP", bound, func(cl *localetcd.Cluster, _ []*localetcd.Proxy, i int) {
			if err := cl.Pause(i); err != nil {
				t.Error(err)
			}
		}, func(cl *localetcd.Cluster, _ []*localetcd.Proxy, i int) {
			if err := cl.Resume(i); err != nil {
				t.Error(err)
			}
		}, true},
		{"stopped", bound, func(cl *localetcd.Cluster, _ []*localetcd.Proxy, i int) { cl.Stop(i) },
			func(cl *localetcd.Cluster, _ []*localetcd.Proxy, i int) {
				if err := cl.Restart(i); err != nil {
					t.Error(err)
				}
			}, false},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			cl, err := localetcd.StartWith(t.TempDir(), 3, localetcd.Options{PeerProxies: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cl.Close)
			if f.process {
				leaderAsProcess(t, cl)
			}
			clients, eps := proxies(t, cl)
			fc := startFaultCluster(t, cl, func(int) []string { return eps })
			c, _ := fc.leader()
			if _, err := c.Exec(fc.ctx, "create sequence s cache 1"); err != nil {
				t.Fatal(err)
			}
			c.Close(fc.ctx)
			p := fc.probeOrder("s")
			time.Sleep(2 * time.Second)
			member := cl.Leader()
			from := time.Now()
			f.make(cl, clients, member)
			time.Sleep(10 * time.Second)
			f.clear(cl, clients, member)
			time.Sleep(3 * time.Second)
			gap := p.end(from, time.Now())
			t.Logf("etcd leader member %s: the longest time without an ORDER value: %v", f.name, gap.Round(time.Millisecond))
			if gap > f.limit {
				t.Fatalf("ORDER sequences had no value for %v with the etcd leader member %s; the limit is %v", gap, f.name, f.limit)
			}
		})
	}
}

// leaderAsProcess moves the etcd leader member to a process of its own
// (localetcd RestartProcess: stopped, started again on its data), and
// gives it the lead back (etcd's MoveLeader, asked of the leader).
func leaderAsProcess(t *testing.T, cl *localetcd.Cluster) {
	t.Helper()
	i := cl.Leader()
	cl.Stop(i)
	if err := cl.RestartProcess(i); err != nil {
		t.Fatal(err)
	}
	cfg, err := cl.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); cl.Leader() != i; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("etcd member %d, a process, did not take the lead in 30s", i)
		}
		l := cl.Leader()
		if l < 0 {
			continue
		}
		cfg.Endpoints = []string{cl.Endpoints[l]}
		cli, err := clientv3.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err = cli.MoveLeader(ctx, uint64(cl.MemberID(i)))
		cancel()
		cli.Close()
		t.Logf("moving the lead from etcd member %d to %d: %v", l, i, err)
	}
}

// TestLeaderCutOff: the leader cut off from every etcd member refuses,
// and holds nothing: a request waiting for a write when its term ends is
// refused then, with an error a client retries (its class is
// unavailable), and every request after is refused at once as a
// standby's (25006), while another node leads and serves on, in order.
func TestLeaderCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes, under faults")
	}
	cl, err := localetcd.StartWith(t.TempDir(), 3, localetcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ways := make([][]*localetcd.Proxy, 3)
	fc := startFaultCluster(t, cl, func(i int) []string {
		ps, eps := proxies(t, cl)
		ways[i] = ps
		return eps
	})
	ctx := fc.ctx
	c, lead := fc.leader()
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create sequence s cache 1"); err != nil {
		t.Fatal(err)
	}
	fc.take(c, 5)

	// Cut off: every value of s needs a write, which cannot be made.
	for _, p := range ways[lead] {
		p.Cut()
	}
	defer func() {
		for _, p := range ways[lead] {
			p.Heal()
		}
	}()
	refused := func(c *pgx.Conn) (string, time.Duration) {
		t.Helper()
		rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		began := time.Now()
		var v int64
		err := c.QueryRow(rctx, "select nextval('s')").Scan(&v)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("nextval on the leader cut off from etcd: %d, %v; want a refusal", v, err)
		}
		if k := sqlerr.KindOfCode(pe.Code); !sqlerr.Retryable(k) || sqlerr.ClassOf(k) != sqlerr.ClassUnavailable {
			t.Fatalf("the cut-off leader refused with %s (%s), which a client does not retry", pe.Code, pe.Message)
		}
		return pe.Code, time.Since(began)
	}
	code, held := refused(c)
	t.Logf("the request waiting for a write: refused with %s after %v", code, held.Round(time.Millisecond))
	if held > faultLease+time.Second {
		t.Fatalf("the request was held %v, past the lease (%v)", held, faultLease)
	}
	// The term is over: new sessions are a standby's, and refused at once.
	n := fc.nodes[lead].node
	for deadline := time.Now().Add(10 * time.Second); n.leading(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the node cut off from etcd still leads after 10 s")
		}
	}
	for range 3 {
		s := fc.connect(lead)
		code, took := refused(s)
		s.Close(ctx)
		if code != "25006" {
			t.Fatalf("a new session on the cut-off node: %s; want 25006, a standby's", code)
		}
		t.Logf("a new session's nextval on the cut-off node: refused with 25006 in %v", took.Round(time.Millisecond))
	}
	// Another node leads, and its values follow every value handed out.
	c2, second := fc.leader()
	defer c2.Close(ctx)
	if second == lead {
		t.Fatal("the node cut off from etcd leads again")
	}
	fc.take(c2, 5)
}

// faultLog receives the nodes' logs (os.Stderr to follow a run).
var faultLog io.Writer = io.Discard

// TestEtcdMemberReplaced: the etcd leader member is replaced while the
// nodes serve (removed, and a new member added on new ports): ORDER
// sequences go without a value for at most the lease plus 2 s, and every
// node's client comes to name the new member and not the removed one.
func TestEtcdMemberReplaced(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes, under faults")
	}
	cl, err := localetcd.StartWith(t.TempDir(), 3, localetcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	eps := slices.Clone(cl.Endpoints)
	fc := startFaultCluster(t, cl, func(int) []string { return eps })
	c, _ := fc.leader()
	if _, err := c.Exec(fc.ctx, "create sequence s cache 1"); err != nil {
		t.Fatal(err)
	}
	c.Close(fc.ctx)
	p := fc.probeOrder("s")
	time.Sleep(2 * time.Second)
	member := cl.Leader()
	removed := cl.Endpoints[member]
	from := time.Now()
	if err := cl.Replace(member); err != nil {
		t.Fatal(err)
	}
	added := cl.Endpoints[member]
	time.Sleep(3 * time.Second)
	gap := p.end(from, time.Now())
	t.Logf("etcd leader member replaced: the longest time without an ORDER value: %v", gap.Round(time.Millisecond))
	if limit := faultLease + 2*time.Second; gap > limit {
		t.Fatalf("ORDER sequences had no value for %v while the etcd leader member was replaced; the bound is %v", gap, limit)
	}
	for i, s := range fc.nodes {
		deadline := time.Now().Add(4*endpointsInterval + 10*time.Second)
		for {
			got := s.node.cli.Endpoints()
			if slices.Contains(got, added) && !slices.Contains(got, removed) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %d's etcd endpoints %v; want %s in place of %s", i, got, added, removed)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// A node started while etcd does not answer yet (members starting or
// electing, as when a deployment starts everything at once) waits for
// it, saying so, rather than exiting on its first read's deadline; one
// whose etcd refuses its certificate fails at once.
func TestNodeStartWaitsForEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd")
	}
	cl, err := localetcd.StartWith(t.TempDir(), 1, localetcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ps, eps := proxies(t, cl)
	ps[0].Cut()
	var logged testenv.LogBuffer
	cfg := Config{Listen: "127.0.0.1:0", Etcd: eps, EtcdPrefix: fmt.Sprintf("/cluster%d/", clusterPrefixes.Add(1)), LeaseTTL: time.Second,
		EtcdSecurity: EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey}, Logger: log.New(&logged, "", 0)}
	type started struct {
		s   *Server
		err error
	}
	done := make(chan started, 1)
	go func() {
		s, err := Start(context.Background(), cfg)
		done <- started{s, err}
	}()
	time.Sleep(4 * cfg.LeaseTTL) // the first read's deadline is the lease
	select {
	case r := <-done:
		t.Fatalf("Start returned while etcd did not answer: %v", r.err)
	default:
	}
	if !strings.Contains(logged.String(), "etcd did not answer the first read of the store") {
		t.Errorf("the node did not say what it waits for; its log:\n%s", logged.String())
	}
	ps[0].Heal()
	r := <-done
	if r.err != nil {
		t.Fatalf("Start after etcd answered: %v", r.err)
	}
	defer r.s.Shutdown(context.Background())
	c, err := pgx.Connect(context.Background(), fmt.Sprintf("postgres://app@%s/app?sslmode=disable", r.s.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var v int64
	if err := c.QueryRow(context.Background(), "SELECT 1").Scan(&v); err != nil || v != 1 {
		t.Fatalf("SELECT 1 = %d, %v", v, err)
	}

	bad := cfg
	bad.Etcd, bad.EtcdSecurity = cl.Endpoints, EtcdSecurity{CA: cl.TLS.CA} // no client certificate
	at := time.Now()
	if s, err := Start(context.Background(), bad); err == nil {
		s.Shutdown(context.Background())
		t.Fatal("a node without the client certificate etcd requires started")
	} else if took := time.Since(at); took > startWait/2 {
		t.Errorf("a refused certificate took %v to report (%v)", took, err)
	}
}

// TestNoOrderCreatedInTerm: a NOORDER sequence created in the leader's
// term, then the leader resigning because its store refuses writes
// (etcd's NOSPACE alarm): its sessions' nextval of the sequence, as the
// term ends, are refused as a standby's or a store's failure, never as a
// concurrent change of the sequence (40001), which it was not. The node's
// view of its NOORDER sequences was made when it took over, before the
// sequence existed; serve makes it again from the leader's catalog.
func TestNoOrderCreatedInTerm(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes")
	}
	cl, err := localetcd.StartWith(t.TempDir(), 1, localetcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	fc := startFaultCluster(t, cl, func(int) []string { return cl.Endpoints })
	c, leader := fc.leader()
	// n's blocks outlast the test, so its nextval needs no store write
	// and is served until the term ends; o's every value is a commit,
	// which the alarm fails: the leader then resigns.
	if _, err := c.Exec(fc.ctx, "create sequence n cache 100000 noorder; create sequence o cache 1"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	codes := map[string]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		seq := "n"
		if i == 0 {
			seq = "o"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cc, err := pgx.Connect(fc.ctx, fmt.Sprintf("postgres://app@%s:%s/app?sslmode=disable&connect_timeout=2", fc.hosts[leader], fc.ports[leader]))
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				for err == nil {
					_, err = cc.Exec(fc.ctx, "select nextval($1)", seq)
				}
				cc.Close(fc.ctx)
				var pe *pgconn.PgError
				mu.Lock()
				if errors.As(err, &pe) {
					codes[seq+" "+pe.Code]++
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	cli := cl.Client(t)
	ctx, cancel := context.WithTimeout(fc.ctx, 10*time.Second)
	defer cancel()
	id := uint64(cl.Members[0].Server.MemberID())
	if _, err := pb.NewMaintenanceClient(cli.ActiveConnection()).Alarm(ctx, &pb.AlarmRequest{Action: pb.AlarmRequest_ACTIVATE, MemberID: id, Alarm: pb.AlarmType_NOSPACE}); err != nil {
		t.Fatal(err)
	}
	defer pb.NewMaintenanceClient(cli.ActiveConnection()).Alarm(ctx, &pb.AlarmRequest{Action: pb.AlarmRequest_DEACTIVATE, MemberID: id, Alarm: pb.AlarmType_NOSPACE})
	time.Sleep(3 * time.Second)
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("errors by SQLSTATE while the leader resigned: %v", codes)
	if n := codes["n "+sqlerr.SQLState(sqlerr.SerializationFailure)]; n > 0 {
		t.Fatalf("nextval of a NOORDER sequence created in the term got 40001 %d times as the term ended", n)
	}
	if codes["o "+sqlerr.SQLState(sqlerr.ReadOnlyTransaction)] == 0 {
		t.Fatalf("no nextval of o was refused as a standby's: the leader did not resign (%v)", codes)
	}
}
