package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/seqd/seqd/internal/localetcd"
	"github.com/seqd/seqd/internal/loopback"
)

// The cluster workload measures cluster mode against one node, in the
// same run on the same machine: a three-node cluster (seqd processes on
// three etcd members run in this process) and a single node on its
// embedded store, both from ClusterBenchConfig.Binary.
//
//  1. nextval throughput and latency at each thread count, the cluster
//     through a multi-host connection string (target_session_attrs=
//     read-write), on an ORDER sequence with the configured CACHE; and
//     on a NOORDER one, each session connected to one node in turn
//     (seqd-cluster3-noorder: every node serves from its own blocks);
//  2. coordination cost: the store transactions each served per million
//     values (etcd transactions for the cluster, synced group commits
//     for the single node), from their seqd_group_commits_total and
//     seqd_noorder_store_transactions_total;
//  3. failovers: the leader killed -9 Failovers times under a light load,
//     each measured from the kill to the first nextval a new multi-host
//     connection gets, and the values the next leader burned taking over
//     (its seqd_burned_values_total{reason="failover"}); meanwhile a
//     client on each node takes values of a NOORDER sequence, and each
//     failover's longest wait between two values on the nodes not
//     killed is reported.
//
// On one small machine the four processes share the CPUs: the cluster's
// throughput there is a cost, not a scale-out figure.

// ClusterBenchConfig is the cluster workload's own configuration.
type ClusterBenchConfig struct {
	Binary    string        // the seqd binary
	Dir       string        // scratch (the stores, the logs)
	Failovers int           // leader kills; 0 means 10
	LeaseTTL  time.Duration // 0 means 2 s
	Cache     int64         // the sequence's CACHE; 0 means 1000
	// IdleProfile, for cluster-idle, is a file to write a CPU profile of
	// this process (the etcd members) over the idle stretch to.
	IdleProfile string
	// IdleSettle, for cluster-idle, is the most it waits after the
	// followers listed the sequences for every node to collect the
	// listing's garbage, then an eighth of it more for the memory to be
	// handed back, before the stretch (0: it begins at once).
	IdleSettle time.Duration
	// IdleDDL, for cluster-idle, is a stretch after the idle one in which
	// one CREATE SEQUENCE every ddlEvery goes through the leader (0:
	// none): what a tenant's sign-up costs the followers and etcd.
	IdleDDL time.Duration
	// IdleDDLRest is how long after the DDL stretch the nodes' memory is
	// measured again; 0 means 70 s (a node hands the memory of closed
	// snapshots back at most once a minute).
	IdleDDLRest time.Duration
}

// ClusterBenchReport is what the cluster workload measured besides the
// nextval grid.
type ClusterBenchReport struct {
	Results []Result
	// TxnsPerMillion are the store transactions per million values served
	// during the grid, by target name.
	TxnsPerMillion map[string]float64
	Unavailable    []time.Duration // per failover
	Burned         []int64         // per failover, the values the next leader burned
	// NoOrderWait is, per failover, the longest a node not killed went
	// between two values of the NOORDER sequence.
	NoOrderWait []time.Duration
}

func (r *ClusterBenchReport) String() string {
	var b strings.Builder
	names := make([]string, 0, len(r.TxnsPerMillion))
	for n := range r.TxnsPerMillion {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %.0f store transactions per million values\n", n, r.TxnsPerMillion[n])
	}
	if len(r.Unavailable) > 0 {
		u := append([]time.Duration(nil), r.Unavailable...)
		sort.Slice(u, func(i, j int) bool { return u[i] < u[j] })
		bu := append([]int64(nil), r.Burned...)
		sort.Slice(bu, func(i, j int) bool { return bu[i] < bu[j] })
		fmt.Fprintf(&b, "%d failovers (leader kill -9): unavailable p50 %v, p99 %v, max %v; burned per failover p50 %d, max %d\n",
			len(u), u[len(u)/2].Round(time.Millisecond), u[len(u)*99/100].Round(time.Millisecond), u[len(u)-1].Round(time.Millisecond),
			bu[len(bu)/2], bu[len(bu)-1])
	}
	if w := r.NoOrderWait; len(w) > 0 {
		w = append([]time.Duration(nil), w...)
		sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
		fmt.Fprintf(&b, "NOORDER during the failovers, the longest wait between two values on a node not killed: p50 %v, p99 %v, max %v\n",
			w[len(w)/2].Round(time.Millisecond), w[len(w)*99/100].Round(time.Millisecond), w[len(w)-1].Round(time.Millisecond))
	}
	return b.String()
}

// node is one seqd process of the workload.
type node struct {
	args []string
	pg   string // protocol address
	http string
	cmd  *exec.Cmd
	log  io.Writer
}

func (n *node) start(bin string) error {
	n.cmd = exec.Command(bin, append([]string{"-listen", n.pg, "-http", n.http}, n.args...)...)
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	if err := n.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", n.pg); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("seqd on %s did not start", n.pg)
}

func (n *node) kill() {
	if n.cmd != nil && n.cmd.Process != nil {
		n.cmd.Process.Kill()
		n.cmd.Wait()
	}
	n.cmd = nil
}

// get reads an HTTP path of the node ("" on any failure).
func (n *node) get(path string) (int, string) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + n.http + path)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// gcCycles is how many garbage collection cycles the node's runtime has
// completed (go_gc_duration_seconds' count; 0 if it does not answer).
func (n *node) gcCycles() float64 { return n.metric("go_gc_duration_seconds", nil) }

// metric is the value of a counter or gauge the node exports (of a
// summary, its count), summed over the series whose labels include match
// (0 if none).
func (n *node) metric(name string, match map[string]string) float64 {
	code, body := n.get("/metrics")
	if code != 200 {
		return 0
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil || fams[name] == nil {
		return 0
	}
	var sum float64
	for _, m := range fams[name].GetMetric() {
		ok := true
		for k, v := range match {
			found := false
			for _, l := range m.GetLabel() {
				found = found || l.GetName() == k && l.GetValue() == v
			}
			ok = ok && found
		}
		if !ok {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			sum += m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			sum += m.GetGauge().GetValue()
		case m.GetSummary() != nil:
			sum += float64(m.GetSummary().GetSampleCount())
		}
	}
	return sum
}

// RunClusterBench runs the cluster workload; cfg's Threads, Duration and Rate
// shape the nextval grid (its Targets are the workload's own).
func RunClusterBench(ctx context.Context, cfg Config, cc ClusterBenchConfig) (*ClusterBenchReport, error) {
	cfg = cfg.withDefaults()
	if cc.Failovers <= 0 {
		cc.Failovers = 10
	}
	if cc.LeaseTTL <= 0 {
		cc.LeaseTTL = 2 * time.Second
	}
	if cc.Cache <= 0 {
		cc.Cache = 1000
	}
	cb := &clusterBench{cc: cc}
	defer cb.close()
	if err := cb.start(ctx); err != nil {
		return nil, err
	}
	rep := &ClusterBenchReport{TxnsPerMillion: map[string]float64{}}
	if err := cb.grid(ctx, cfg, rep); err != nil {
		return nil, err
	}
	if err := cb.failovers(ctx, cfg, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// clusterBench is a running cluster benchmark: etcd, three clustered
// nodes and a single one, and the targets that reach them.
type clusterBench struct {
	cc      ClusterBenchConfig
	logf    *os.File
	etcd    *localetcd.Cluster
	nodes   []*node // every node started, killed at the end
	members []*node // the clustered ones
	single  *node

	clusterT, noorderT, singleT Target
}

func (cb *clusterBench) close() {
	for _, n := range cb.nodes {
		n.kill()
	}
	if cb.etcd != nil {
		cb.etcd.Close()
	}
	if cb.logf != nil {
		cb.logf.Close()
	}
}

// add starts a node with args.
func (cb *clusterBench) add(args ...string) (*node, error) {
	pg, err := loopback.FreeAddr()
	if err != nil {
		return nil, err
	}
	h, err := loopback.FreeAddr()
	if err != nil {
		return nil, err
	}
	n := &node{args: args, pg: pg, http: h, log: cb.logf}
	cb.nodes = append(cb.nodes, n)
	return n, n.start(cb.cc.Binary)
}

// start starts etcd and the nodes, and waits for a leader.
func (cb *clusterBench) start(ctx context.Context) error {
	cc := cb.cc
	var err error
	if cb.logf, err = os.Create(filepath.Join(cc.Dir, "seqd.log")); err != nil {
		return err
	}
	if cb.etcd, err = localetcd.StartIn(filepath.Join(cc.Dir, "etcd"), 3); err != nil {
		return err
	}
	etcd := cb.etcd
	var hosts, ports []string
	for i := range 3 {
		n, err := cb.add("-etcd", strings.Join(etcd.Endpoints, ","), "-etcd-prefix", "/seqbench/", "-name", fmt.Sprintf("node%d", i),
			"-lease-ttl", cc.LeaseTTL.String(), "-idle-timeout", "0",
			"-etcd-ca", etcd.TLS.CA, "-etcd-cert", etcd.TLS.ClientCert, "-etcd-key", etcd.TLS.ClientKey)
		if err != nil {
			return err
		}
		cb.members = append(cb.members, n)
		h, p, _ := net.SplitHostPort(n.pg)
		hosts, ports = append(hosts, h), append(ports, p)
	}
	if cb.single, err = cb.add("-data", filepath.Join(cc.Dir, "single"), "-idle-timeout", "0"); err != nil {
		return err
	}
	cb.clusterT = Target{Name: "seqd-cluster3", Kind: Seqd, Cache: cc.Cache,
		DSN: fmt.Sprintf("host=%s port=%s user=seqbench dbname=seqbench sslmode=disable target_session_attrs=read-write connect_timeout=2",
			strings.Join(hosts, ","), strings.Join(ports, ","))}
	// NOORDER: each session on one node, in turn; every node serves.
	var spread []string
	for i := range cb.members {
		spread = append(spread, fmt.Sprintf("host=%s port=%s user=seqbench dbname=seqbench sslmode=disable", hosts[i], ports[i]))
	}
	cb.noorderT = Target{Name: "seqd-cluster3-noorder", Kind: Seqd, Cache: cc.Cache, NoOrder: true, DSN: cb.clusterT.DSN, Spread: spread}
	cb.singleT = Target{Name: "seqd-single", Kind: Seqd, Cache: cc.Cache,
		DSN: fmt.Sprintf("postgres://seqbench@%s/seqbench?sslmode=disable", cb.single.pg)}
	return waitLeader(ctx, cb.clusterT, 30*time.Second)
}

// grid runs the nextval grid on each target and counts the store
// transactions it cost (1 and 2).
func (cb *clusterBench) grid(ctx context.Context, cfg Config, rep *ClusterBenchReport) error {
	commits := func(ns []*node) float64 {
		var sum float64
		for _, n := range ns {
			sum += n.metric("seqd_group_commits_total", nil) + n.metric("seqd_noorder_store_transactions_total", nil)
		}
		return sum
	}
	for _, t := range []struct {
		t  Target
		ns []*node
	}{{cb.clusterT, cb.members}, {cb.noorderT, cb.members}, {cb.singleT, []*node{cb.single}}} {
		gc := cfg
		gc.Targets = []Target{t.t}
		before := commits(t.ns)
		rs, err := runNextval(ctx, gc)
		if err != nil {
			return err
		}
		var values int64
		for _, r := range rs {
			values += r.Values
		}
		if values > 0 {
			rep.TxnsPerMillion[t.t.Name] = (commits(t.ns) - before) / float64(values) * 1e6
		}
		rep.Results = append(rep.Results, rs...)
	}
	return nil
}

// failovers kills the leader cc.Failovers times under a light load:
// nextval of the ORDER sequence through the multi-host string, and of a
// NOORDER one on each node (3).
func (cb *clusterBench) failovers(ctx context.Context, cfg Config, rep *ClusterBenchReport) error {
	clusterT, noorderT, members := cb.clusterT, cb.noorderT, cb.members
	d := dialect{clusterT}
	if err := prepare(ctx, clusterT, func(s session) error {
		if err := d.createSequence(ctx, s, "seqbench_s", 1, 1); err != nil {
			return err
		}
		return dialect{noorderT}.createSequence(ctx, s, "seqbench_n", 1, 1)
	}); err != nil {
		return err
	}
	if err := awaitSpread(ctx, noorderT, "SELECT nextval('seqbench_n')"); err != nil {
		return err
	}
	stop := make(chan struct{})
	loadDone := make(chan struct{})
	noorder := newNodeTimes(len(members))
	for i := range members {
		go noorder.take(ctx, noorderT.session(i), i, stop)
	}
	go func() {
		defer close(loadDone)
		lightLoad(ctx, clusterT, "SELECT nextval('seqbench_s')", stop, nil)
	}()
	defer func() {
		close(stop)
		<-loadDone
	}()
	for k := range cb.cc.Failovers {
		time.Sleep(time.Second)
		leader := cb.leader()
		if leader < 0 {
			return fmt.Errorf("failover %d: no node says it leads", k)
		}
		began := time.Now()
		members[leader].kill()
		if err := waitValue(ctx, clusterT, 30*time.Second); err != nil {
			return fmt.Errorf("failover %d: %w", k, err)
		}
		rep.Unavailable = append(rep.Unavailable, time.Since(began))
		time.Sleep(100 * time.Millisecond) // a value on every node after the takeover too
		rep.NoOrderWait = append(rep.NoOrderWait, noorder.longestWait(leader, began, time.Now()))
		var burned int64
		if now := cb.leader(); now >= 0 && now != leader {
			burned = int64(members[now].metric("seqd_sequence_burned_values_total", map[string]string{"reason": "failover", "sequence": "seqbench_s"}))
		}
		rep.Burned = append(rep.Burned, burned)
		if err := members[leader].start(cb.cc.Binary); err != nil {
			return err
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "failover %d: a value after %v, %d burned\n", k, rep.Unavailable[k].Round(time.Millisecond), burned)
		}
	}
	return nil
}

// leader is the index of the member that says it leads, -1 if none does.
func (cb *clusterBench) leader() int {
	leader := -1
	for i, n := range cb.members {
		if code, body := n.get("/readyz"); code == 200 && strings.HasPrefix(body, "leader ") {
			leader = i
		}
	}
	return leader
}

// waitLeader waits until a multi-host connection finds a leader.
func waitLeader(ctx context.Context, t Target, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		s, err := connect(ctx, t)
		if err == nil {
			s.close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no leader within %v: %w", within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitValue waits until a new multi-host connection takes a value.
func waitValue(ctx context.Context, t Target, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		s, err := connect(cctx, t)
		if err == nil {
			_, err = s.value(cctx, "SELECT nextval('seqbench_s')")
			s.close()
		}
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("no value within 30s")
}

// nodeTimes are when each node handed out a value to its client.
type nodeTimes struct {
	mu    sync.Mutex
	times [][]time.Time
}

func newNodeTimes(n int) *nodeTimes { return &nodeTimes{times: make([][]time.Time, n)} }

// take takes values of seqbench_n from node i through t until stop.
func (nt *nodeTimes) take(ctx context.Context, t Target, i int, stop <-chan struct{}) {
	lightLoad(ctx, t, "SELECT nextval('seqbench_n')", stop, func() {
		nt.mu.Lock()
		nt.times[i] = append(nt.times[i], time.Now())
		nt.mu.Unlock()
	})
}

// lightLoad runs q on t about once a millisecond until stop, connecting
// again whenever the connection fails; each, if set, follows every value.
func lightLoad(ctx context.Context, t Target, q string, stop <-chan struct{}, each func()) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		s, err := connect(ctx, t)
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		for {
			select {
			case <-stop:
				s.close()
				return
			default:
			}
			if _, err := s.value(ctx, q); err != nil {
				break
			}
			if each != nil {
				each()
			}
			time.Sleep(time.Millisecond)
		}
		s.close()
	}
}

// longestWait is the longest gap between two values, overlapping from..to,
// on the nodes other than skip.
func (nt *nodeTimes) longestWait(skip int, from, to time.Time) time.Duration {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	var longest time.Duration
	for i, ts := range nt.times {
		if i == skip {
			continue
		}
		for k := 1; k < len(ts); k++ {
			if ts[k].After(from) && ts[k-1].Before(to) {
				longest = max(longest, ts[k].Sub(ts[k-1]))
			}
		}
	}
	return longest
}
