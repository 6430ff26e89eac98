package bench

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// ClusterIdleReport is what the cluster-idle workload measured: a
// three-node cluster holding N sequences, with no traffic.
type ClusterIdleReport struct {
	Sequences int
	Create    time.Duration // creating them, in blocks, through the leader
	Idle      time.Duration // the measured stretch
	// EtcdCPU is the three etcd members' CPU (they run in this process)
	// per second of the idle stretch; NodeCPU each seqd node's, leader
	// first.
	EtcdCPU time.Duration
	NodeCPU []time.Duration
	// Snapshots are the full reads of the store the followers made in
	// the idle stretch (seqd_cluster_snapshots_total).
	Snapshots float64
	// RSS is each node's resident memory after the idle stretch, leader
	// first, in bytes.
	RSS []int64
	// Scrape is the CPU a scrape of each node's /metrics took after the
	// stretch (the mean of five), leader first: a scraper's cost. (The
	// first scrape of a node's engine, made before the stretch, passes
	// over every sequence for the ones nearest their limit; these look
	// at the ones written since.)
	Scrape []time.Duration
	// Settle is how long after the followers listed the sequences every
	// node had collected the listing's garbage (and ClusterBenchConfig's
	// IdleSettle/8 more for the runtime to hand it back): the stretch
	// began then (0: it did not wait).
	Settle time.Duration
	// Failover is the leader's kill -9 to the next value a new
	// multi-host connection took, after the idle stretch.
	Failover time.Duration
	// Compaction is how long etcd took to compact the creation's history
	// (physically, on every member), before the idle stretch.
	Compaction time.Duration
	// DDL is what the DDL stretch measured (ClusterBenchConfig.IdleDDL),
	// nil without one.
	DDL *ClusterDDLReport
}

// ClusterDDLReport is what cluster-idle's DDL stretch measured: the
// cluster of the idle stretch, with one CREATE SEQUENCE every ddlEvery
// through the leader.
type ClusterDDLReport struct {
	Stretch    time.Duration
	Statements int
	// EtcdCPU and NodeCPU (leader first) are per second of the stretch,
	// as in the idle one.
	EtcdCPU time.Duration
	NodeCPU []time.Duration
	// Snapshots are the followers' full reads of the store in the
	// stretch, Derived the snapshots they derived from changes instead
	// (seqd_cluster_snapshots_derived_total).
	Snapshots, Derived float64
	// RSS is each node's resident memory at the end of the stretch, and
	// RSSLater Rest later, at rest (leader first).
	RSS, RSSLater []int64
	Rest          time.Duration
}

// ddlEvery is how often the DDL stretch creates a sequence: every
// follower's check then finds one.
const ddlEvery = 2 * time.Second

func (r *ClusterDDLReport) String() string {
	return fmt.Sprintf("one CREATE SEQUENCE every %v for %v (%d statements): etcd members %.1f ms CPU/s, nodes (leader first) %s; followers' full reads of the store: %.0f, snapshots derived: %.0f; RSS %s, %v later %s\n",
		ddlEvery, r.Stretch, r.Statements, float64(r.EtcdCPU.Microseconds())/1000, perSecond(r.NodeCPU), r.Snapshots, r.Derived, mib(r.RSS), r.Rest, mib(r.RSSLater))
}

func perSecond(ds []time.Duration) string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%.1f ms/s", float64(d.Microseconds())/1000))
	}
	return strings.Join(out, ", ")
}

func mib(bs []int64) string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)))
	}
	return strings.Join(out, ", ")
}

// compact compacts the store's history up to its current revision: the
// member asked answers once it has (physically), and the others, which
// compact at the same time on the same cores, are given as long again.
func (cb *clusterBench) compact(ctx context.Context) (time.Duration, error) {
	cfg, err := cb.etcd.ClientConfig()
	if err != nil {
		return 0, err
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	r, err := cli.Get(ctx, "compact")
	if err != nil {
		return 0, err
	}
	began := time.Now()
	if _, err := cli.Compact(ctx, r.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		return 0, err
	}
	took := time.Since(began)
	time.Sleep(max(took, time.Second))
	return took, nil
}

func (r *ClusterIdleReport) String() string {
	var scrape []string
	for _, d := range r.Scrape {
		scrape = append(scrape, fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000))
	}
	ddl := ""
	if r.DDL != nil {
		ddl = "; then " + r.DDL.String()
	}
	return fmt.Sprintf("%d sequences (created in %v; their history compacted in %v; the listing's garbage collected %v after it); idle %v: etcd members %.1f ms CPU/s, nodes (leader first) %s; followers' full reads of the store: %.0f; RSS %s; a /metrics scrape %s of CPU%s; leader kill -9 to the next value %v\n",
		r.Sequences, r.Create.Round(time.Millisecond), r.Compaction.Round(time.Millisecond), r.Settle.Round(time.Second), r.Idle, float64(r.EtcdCPU.Microseconds())/1000, perSecond(r.NodeCPU), r.Snapshots,
		mib(r.RSS), strings.Join(scrape, ", "), strings.TrimSuffix(ddl, "\n"), r.Failover.Round(time.Millisecond))
}

// RunClusterIdle starts a three-node cluster, creates n sequences
// through the leader (1,000 to a transaction block), waits until every
// follower lists them, and measures the CPU the etcd members and each
// node spend over idle with no traffic: what a cluster at rest costs with
// n sequences. Then it kills the leader (-9) and measures the time to the
// next value through a multi-host connection.
func RunClusterIdle(ctx context.Context, cc ClusterBenchConfig, n int, idle time.Duration) (*ClusterIdleReport, error) {
	if cc.LeaseTTL <= 0 {
		cc.LeaseTTL = 2 * time.Second
	}
	cb := &clusterBench{cc: cc}
	defer cb.close()
	if err := cb.start(ctx); err != nil {
		return nil, err
	}
	rep := &ClusterIdleReport{Sequences: n, Idle: idle}
	c, err := pgx.Connect(ctx, cb.clusterT.DSN)
	if err != nil {
		return nil, err
	}
	rep.Create, err = createMany(ctx, c, n, 1000)
	if err == nil {
		_, err = c.Exec(ctx, "create sequence seqbench_s") // the failover's
	}
	c.Close(ctx)
	if err != nil {
		return nil, err
	}
	leader := cb.leader()
	for i, m := range cb.members {
		if i == leader {
			continue
		}
		if err := waitListed(ctx, m, n+1, time.Minute); err != nil {
			return nil, err
		}
	}
	listed := time.Now()
	cycles := make([]float64, len(cb.members))
	for i, m := range cb.members {
		cycles[i] = m.gcCycles()
	}
	// Let the followers settle (a watch each, a last full read).
	time.Sleep(2 * time.Second)
	// The creation's history compacted first, as etcd's periodic
	// compaction would within its period: at rest there is nothing more
	// to compact, and compacting walks every key of each member's index.
	if rep.Compaction, err = cb.compact(ctx); err != nil {
		return nil, err
	}
	// The listing leaves each follower a catalog scan's garbage (at a
	// million sequences, hundreds of MB), which the runtime collects at
	// its next cycle (at rest its forced one, up to two minutes later)
	// and hands back to the system over the seconds after: the stretch
	// begins once every node has, so that it measures the cluster at
	// rest rather than the benchmark's own listing.
	if cc.IdleSettle > 0 {
		if err := waitCollected(ctx, cb.members, cycles, cc.IdleSettle); err != nil {
			return nil, err
		}
		time.Sleep(cc.IdleSettle / 8)
		rep.Settle = time.Since(listed)
	}
	order := []*node{cb.members[leader]}
	for i, m := range cb.members {
		if i != leader {
			order = append(order, m)
		}
	}
	if err := idleStretch(ctx, cc, order, idle, rep); err != nil {
		return nil, err
	}
	if err := restFigures(order, rep); err != nil {
		return nil, err
	}
	if cc.IdleDDL > 0 {
		rest := cc.IdleDDLRest
		if rest <= 0 {
			rest = 70 * time.Second
		}
		if rep.DDL, err = ddlStretch(ctx, cb, order, cc.IdleDDL, rest); err != nil {
			return nil, err
		}
	}
	began := time.Now()
	order[0].kill()
	if err := waitValue(ctx, cb.clusterT, 60*time.Second); err != nil {
		return nil, fmt.Errorf("after the leader's kill: %w", err)
	}
	rep.Failover = time.Since(began)
	return rep, nil
}

// idleStretch measures the cluster at rest for idle: the CPU of each
// node (order: the leader first) and of the etcd members (this process),
// and the followers' snapshots, into rep; with cc.IdleProfile, a CPU
// profile of the etcd members over the stretch.
func idleStretch(ctx context.Context, cc ClusterBenchConfig, order []*node, idle time.Duration, rep *ClusterIdleReport) error {
	var err error
	snaps := func() float64 {
		var s float64
		for _, m := range order[1:] {
			s += m.metric("seqd_cluster_snapshots_total", nil)
		}
		return s
	}
	// The snapshot counter is read before the stretch begins and after
	// it ends: a scrape of a node's metrics passes over every sequence
	// (the ones nearest their limit), which is the scraper's cost, not
	// the cluster's at rest.
	snapsBefore := snaps()
	before := make([]time.Duration, len(order))
	for i, m := range order {
		if before[i], err = (&cpuProbe{pid: m.cmd.Process.Pid}).read(); err != nil {
			return err
		}
	}
	if cc.IdleProfile != "" {
		f, err := os.Create(cc.IdleProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	selfBefore := selfCPU()
	select {
	case <-time.After(idle):
	case <-ctx.Done():
		pprof.StopCPUProfile()
		return ctx.Err()
	}
	pprof.StopCPUProfile() // nothing when none was started
	per := func(d time.Duration) time.Duration { return time.Duration(float64(d) / idle.Seconds()) }
	rep.EtcdCPU = per(selfCPU() - selfBefore)
	for i, m := range order {
		after, err := (&cpuProbe{pid: m.cmd.Process.Pid}).read()
		if err != nil {
			return err
		}
		rep.NodeCPU = append(rep.NodeCPU, per(after-before[i]))
	}
	rep.Snapshots = snaps() - snapsBefore
	return nil
}

// restFigures adds each node's RSS after the stretch, and the CPU a
// scrape of its metrics costs, to rep.
func restFigures(order []*node, rep *ClusterIdleReport) error {
	for _, m := range order {
		b, err := rss(m.cmd.Process.Pid)
		if err != nil {
			return err
		}
		rep.RSS = append(rep.RSS, b)
	}
	for _, m := range order {
		probe := &cpuProbe{pid: m.cmd.Process.Pid}
		c0, err := probe.read()
		if err != nil {
			return err
		}
		const scrapes = 5 // the kernel counts CPU in ticks of 10 ms
		for range scrapes {
			m.metric("seqd_sequences", nil)
		}
		c1, err := probe.read()
		if err != nil {
			return err
		}
		rep.Scrape = append(rep.Scrape, (c1-c0)/scrapes)
	}
	return nil
}

// waitCollected waits until each of nodes has run a garbage collection
// cycle more than cycles says it had.
func waitCollected(ctx context.Context, nodes []*node, cycles []float64, within time.Duration) error {
	deadline := time.Now().Add(within)
	for i, m := range nodes {
		for m.gcCycles() <= cycles[i] {
			if time.Now().After(deadline) {
				return fmt.Errorf("node %s ran no collection in %v", m.pg, within)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Second):
			}
		}
	}
	return nil
}

// waitListed waits until node m lists n sequences.
func waitListed(ctx context.Context, m *node, n int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://seqbench@%s/seqbench?sslmode=disable", m.pg))
		got := -1
		if err == nil {
			err = c.QueryRow(ctx, "select count(*) from pg_sequences").Scan(&got)
			c.Close(ctx)
		}
		if got == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %s lists %d sequences of %d: %v", m.pg, got, n, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// selfCPU is this process's CPU time (user and system), its children's
// not counted.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ddlStretch creates a sequence through the leader every ddlEvery for
// stretch, measuring what the cluster (order: the leader first) spends,
// then waits rest and measures memory again.
func ddlStretch(ctx context.Context, cb *clusterBench, order []*node, stretch, rest time.Duration) (*ClusterDDLReport, error) {
	rep := &ClusterDDLReport{Stretch: stretch, Rest: rest}
	counts := func(name string) float64 {
		var s float64
		for _, m := range order[1:] {
			s += m.metric(name, nil)
		}
		return s
	}
	snaps, derived := counts("seqd_cluster_snapshots_total"), counts("seqd_cluster_snapshots_derived_total")
	c, err := pgx.Connect(ctx, cb.clusterT.DSN)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	before := make([]time.Duration, len(order))
	for i, m := range order {
		if before[i], err = (&cpuProbe{pid: m.cmd.Process.Pid}).read(); err != nil {
			return nil, err
		}
	}
	selfBefore := selfCPU()
	began := time.Now()
	tick := time.NewTicker(ddlEvery)
	defer tick.Stop()
	for time.Since(began) < stretch {
		if _, err := c.Exec(ctx, fmt.Sprintf("create sequence seqbench_ddl_%d", rep.Statements)); err != nil {
			return nil, err
		}
		rep.Statements++
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	took := time.Since(began)
	per := func(d time.Duration) time.Duration { return time.Duration(float64(d) / took.Seconds()) }
	rep.EtcdCPU = per(selfCPU() - selfBefore)
	for i, m := range order {
		after, err := (&cpuProbe{pid: m.cmd.Process.Pid}).read()
		if err != nil {
			return nil, err
		}
		rep.NodeCPU = append(rep.NodeCPU, per(after-before[i]))
	}
	rep.Snapshots = counts("seqd_cluster_snapshots_total") - snaps
	rep.Derived = counts("seqd_cluster_snapshots_derived_total") - derived
	for _, m := range order {
		b, err := rss(m.cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		rep.RSS = append(rep.RSS, b)
	}
	select {
	case <-time.After(rest):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for _, m := range order {
		b, err := rss(m.cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		rep.RSSLater = append(rep.RSSLater, b)
	}
	return rep, nil
}
