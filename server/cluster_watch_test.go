package server

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/seqd/seqd/cluster"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/storage"
)

// metricValue is a counter's value in a server's /metrics.
func metricValue(t *testing.T, s *Server, name string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\d+)$`).FindStringSubmatch(scrape(t, s))
	if m == nil {
		t.Fatalf("no %s in the metrics", name)
	}
	v, _ := strconv.Atoi(m[1])
	return v
}

// waitKept waits, at most within, until follower s has kept n more
// intervals without a full read (seqd_cluster_follower_checks_total)
// than when called; it fails the test with what if not.
func waitKept(t *testing.T, s *Server, n int, within time.Duration, what string) {
	t.Helper()
	checks := metricValue(t, s, "seqd_cluster_follower_checks_total")
	for deadline := time.Now().Add(within); metricValue(t, s, "seqd_cluster_follower_checks_total") < checks+n; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
	}
}

// TestFollowerWatch: a follower of a cluster at rest keeps its snapshot
// without reading the store again: its watch on the records shows them
// unchanged interval after interval (seqd_cluster_follower_checks_total
// grows, seqd_cluster_snapshots_total does not), and each such check
// renews its NOORDER view, so that it still serves a NOORDER sequence
// after longer than the view's lease without a full read. A sequence
// created on the leader then reaches the follower through a snapshot
// derived from its last one, again without a full read.
func TestFollowerWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes")
	}
	fc := startFailoverCluster(t)
	ctx := fc.ctx
	c, first := fc.leader()
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create sequence u cache 20 noorder"); err != nil {
		t.Fatal(err)
	}
	f := (first + 1) % 3
	lists := func(name string) bool {
		fcn := fc.connect(f)
		defer fcn.Close(ctx)
		var n int
		err := fcn.QueryRow(ctx, "select count(*) from pg_sequences where sequencename = $1", name).Scan(&n)
		return err == nil && n == 1
	}
	for deadline := time.Now().Add(30 * time.Second); !lists("u"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the follower does not list u")
		}
	}
	reads := metricValue(t, fc.nodes[f], "seqd_cluster_snapshots_total")
	// Three checks: longer than the NOORDER view's lease (two intervals
	// and a second) since the last full read.
	waitKept(t, fc.nodes[f], 3, 60*time.Second, "the follower's watch showed no unchanged intervals")
	if now := metricValue(t, fc.nodes[f], "seqd_cluster_snapshots_total"); now != reads {
		t.Fatalf("an idle follower read the store %d times", now-reads)
	}
	fcn := fc.connect(f)
	fc.takeU(fcn, f, 3)
	var oid uint32
	if err := fcn.QueryRow(ctx, "select 'u'::regclass::oid").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	fcn.Close(ctx)

	if _, err := c.Exec(ctx, "create sequence later"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !lists("later"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the follower does not list a sequence created since its last full read")
		}
	}
	if now := metricValue(t, fc.nodes[f], "seqd_cluster_snapshots_total"); now != reads {
		t.Fatalf("the follower read the store %d times for a new sequence", now-reads)
	}
	if metricValue(t, fc.nodes[f], "seqd_cluster_snapshots_derived_total") == 0 {
		t.Fatal("the follower listed a new sequence without a new snapshot")
	}
	// The new snapshot shows u under the OID the old one did, as
	// PostgreSQL's standby would.
	fcn = fc.connect(f)
	var again, other uint32
	if err := fcn.QueryRow(ctx, "select 'later'::regclass::oid, 'u'::regclass::oid").Scan(&other, &again); err != nil || again != oid || other == oid {
		t.Fatalf("u's OID on the follower: %d after its snapshot was read again, %d before (%v)", again, oid, err)
	}
	fcn.Close(ctx)

	// Under traffic on the leader, the follower takes the leader's marks
	// in place: a session open since before sees the sequence move, and
	// the follower reads the store no more.
	held := fc.connect(f)
	defer held.Close(ctx)
	last := func() int64 {
		t.Helper()
		var v int64
		if err := held.QueryRow(ctx, "select coalesce(last_value, 0) from pg_sequences where sequencename = 'later'").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Wait for the watch to start from the read that found later.
	waitKept(t, fc.nodes[f], 1, 30*time.Second, "no interval kept after the full read")
	reads = metricValue(t, fc.nodes[f], "seqd_cluster_snapshots_total")
	applied := metricValue(t, fc.nodes[f], "seqd_cluster_follower_applied_total")
	before := last()
	var v int64
	for range 2000 {
		if err := c.QueryRow(ctx, "select nextval('later')").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); last() <= before || metricValue(t, fc.nodes[f], "seqd_cluster_follower_applied_total") == applied; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the follower's open session shows later at %d after the leader handed out %d", last(), v)
		}
	}
	if got := last(); got < v-1000 || got > v+1000 {
		t.Fatalf("the follower shows later at %d, the leader handed out %d", got, v)
	}
	if now := metricValue(t, fc.nodes[f], "seqd_cluster_snapshots_total"); now != reads {
		t.Fatalf("the follower read the store %d times under traffic", now-reads)
	}
}

// TestStoreWatch: a follower's watch on the records says the store is
// unchanged after its snapshot's revision, up to a later revision, once
// etcd confirms every event up to it was delivered: also when the
// revision moved for keys elsewhere, or a record changed in a way the
// snapshot applied; not once a record changed in a way it did not.
func TestStoreWatch(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	cli, err := EtcdClient(cl.Endpoints, EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	if _, err := cli.Put(ctx, "/w/data/a", "1"); err != nil {
		t.Fatal(err)
	}
	r, err := cli.Get(ctx, "/w/leader")
	if err != nil {
		t.Fatal(err)
	}
	var applied []storage.KV
	w := watchStore(cli, "/w/data/", r.Header.Revision, func(kv storage.KV) bool {
		applied = append(applied, kv)
		return strings.HasPrefix(kv.Key, "m") && kv.Value != nil
	})
	defer w.stop()
	unchanged := func(rev int64) bool {
		changes, ok := w.upTo(cli, rev, 10*time.Second)
		return ok && changes == nil
	}
	if !unchanged(r.Header.Revision) {
		t.Fatal("unchanged at the snapshot's own revision: false (the event at it counted, or no progress)")
	}
	if _, err := cli.Put(ctx, "/w/leader", "n1"); err != nil {
		t.Fatal(err)
	}
	p, err := cli.Put(ctx, "/elsewhere", "x")
	if err != nil {
		t.Fatal(err)
	}
	if !unchanged(p.Header.Revision) {
		t.Fatal("unchanged after writes outside the records: false")
	}
	if p, err = cli.Put(ctx, "/w/data/m1", "3"); err != nil {
		t.Fatal(err)
	}
	if !unchanged(p.Header.Revision) {
		t.Fatal("unchanged after a change the snapshot applied: false")
	}
	w.mu.Lock()
	got := fmt.Sprint(applied)
	w.mu.Unlock()
	if want := fmt.Sprintf("[{m1 [51] %d}]", p.Header.Revision); got != want || w.takeApplied() != 1 || w.takeApplied() != 0 {
		t.Fatalf("applied %s, want %s", got, want)
	}
	if _, err := cli.Delete(ctx, "/w/data/m1"); err != nil {
		t.Fatal(err)
	}
	r, err = cli.Get(ctx, "/w/leader")
	if err != nil {
		t.Fatal(err)
	}
	if unchanged(r.Header.Revision) {
		t.Fatal("unchanged after a record changed: true")
	}
	// What it did not take, and every change after it, it keeps for a
	// derived snapshot, up to the revision etcd confirmed.
	if _, err := cli.Put(ctx, "/w/data/m2", "4"); err != nil {
		t.Fatal(err)
	}
	p, err = cli.Put(ctx, "/w/data/b", "5")
	if err != nil {
		t.Fatal(err)
	}
	changes, ok := w.upTo(cli, p.Header.Revision, 10*time.Second)
	if want := fmt.Sprintf("[{m1 [] %d} {m2 [52] %d} {b [53] %d}]", r.Header.Revision, p.Header.Revision-1, p.Header.Revision); !ok || fmt.Sprint(changes) != want {
		t.Fatalf("changes up to %d: %v (%v), want %s", p.Header.Revision, changes, ok, want)
	}
	// Up to an earlier revision: the changes after it are left out,
	// though the watch delivered them.
	changes, ok = w.upTo(cli, p.Header.Revision-1, 10*time.Second)
	if want := fmt.Sprintf("[{m1 [] %d} {m2 [52] %d}]", r.Header.Revision, p.Header.Revision-1); !ok || fmt.Sprint(changes) != want {
		t.Fatalf("changes up to %d: %v (%v), want %s", p.Header.Revision-1, changes, ok, want)
	}
	if w.takeApplied() != 0 {
		t.Fatal("a change kept for a derived snapshot was also applied")
	}

	// A watch that would keep more changes than its limit is lost: a
	// full read then costs less.
	lw := watchStoreLimited(cli, "/w/data/", p.Header.Revision, func(storage.KV) bool { return false }, 3, 1<<20)
	defer lw.stop()
	for i := range 3 {
		if p, err = cli.Put(ctx, fmt.Sprintf("/w/data/n%d", i), "x"); err != nil {
			t.Fatal(err)
		}
	}
	if changes, ok := lw.upTo(cli, p.Header.Revision, 10*time.Second); !ok || len(changes) != 3 {
		t.Fatalf("3 changes within the limit: %v, %v", changes, ok)
	}
	if p, err = cli.Put(ctx, "/w/data/n3", "x"); err != nil {
		t.Fatal(err)
	}
	if _, ok := lw.upTo(cli, p.Header.Revision, 10*time.Second); ok {
		t.Fatal("a watch past its limit of changes still offers them")
	}
}

// TestFollowerSessionsMove: a session open on a follower moves to the
// node's newest snapshot between transactions, seeing a sequence made
// on the leader since it connected without reconnecting; one inside a
// transaction block keeps the view it began with until the block ends;
// the snapshot they left is closed, the store at rest.
func TestFollowerSessionsMove(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes")
	}
	fc := startFailoverCluster(t)
	ctx := fc.ctx
	c, first := fc.leader()
	defer c.Close(ctx)
	f := (first + 1) % 3
	held, block := fc.connect(f), fc.connect(f)
	defer held.Close(ctx)
	defer block.Close(ctx)
	count := func(c *pgx.Conn) int {
		t.Helper()
		var n int
		if err := c.QueryRow(ctx, "select count(*) from pg_sequences where sequencename = 'fresh'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := block.Exec(ctx, "begin"); err != nil {
		t.Fatal(err)
	}
	if count(held) != 0 || count(block) != 0 {
		t.Fatal("fresh exists before it was made")
	}
	if _, err := c.Exec(ctx, "create sequence fresh"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); count(held) != 1; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a session open on the follower never saw a sequence made since it connected")
		}
	}
	if count(block) != 0 {
		t.Fatal("a transaction block on the follower saw the catalog change under it")
	}
	if _, err := block.Exec(ctx, "commit"); err != nil {
		t.Fatal(err)
	}
	if count(block) != 1 {
		t.Fatal("after its block, the session did not move to the newest snapshot")
	}
	var a, b uint32
	if err := held.QueryRow(ctx, "select 'fresh'::regclass::oid").Scan(&a); err != nil {
		t.Fatal(err)
	}
	if err := block.QueryRow(ctx, "select 'fresh'::regclass::oid").Scan(&b); err != nil || a != b {
		t.Fatalf("fresh's OID: %d in one session, %d in the other (%v)", a, b, err)
	}
	// The snapshot the sessions used when the follower replaced it is
	// closed once they have moved, with the store at rest since (no
	// further full read): a follower at a million sequences does not go
	// on holding two snapshots' worth.
	waitRetiredClosed(t, fc.nodes[f].node, "the follower, at rest,")
}

// waitRetiredClosed waits until node nd holds no replaced engine: who
// says what nd is in the failure.
func waitRetiredClosed(t *testing.T, nd *node, who string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		nd.mu.Lock()
		held := len(nd.retired)
		nd.mu.Unlock()
		if held == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still holds %d replaced engines its sessions left", who, held)
		}
	}
}

// TestTakeoverFromSnapshot: a leader that loses its term without closing
// the store (its leader key gone, as when its lease lapses) is replaced
// by a follower that takes over from its own snapshot, which its watch
// kept current, without reading the store (engine TestPromote compares
// such an engine with one that read it), also when DDL came just
// before (it derives its snapshot from the changes its watch holds
// first): seqd_cluster_promotions_total counts it, it serves every
// sequence with its comment, and its values go on past every one the
// last leader handed out.
func TestTakeoverFromSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes")
	}
	fc := startFailoverCluster(t)
	ctx := fc.ctx
	c, first := fc.leader()
	var b strings.Builder
	b.WriteString("begin; create sequence s cache 10;")
	for i := range 200 {
		fmt.Fprintf(&b, "create sequence t_%d;", i)
	}
	b.WriteString("comment on sequence t_7 is 'seven'; commit")
	if _, err := c.Exec(ctx, b.String(), pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	fc.take(c, 30)
	// Both followers keep an interval after the read that found them.
	for i := range 3 {
		if i == first {
			continue
		}
		waitKept(t, fc.nodes[i], 2, 30*time.Second, fmt.Sprintf("follower %d kept no interval", i))
	}
	fc.take(c, 30) // marks the followers take in place
	var v int64
	if err := c.QueryRow(ctx, "select nextval('t_199')").Scan(&v); err != nil || v != 1 {
		t.Fatalf("t_199: %d, %v", v, err)
	}
	// DDL just before the leader goes: the new leader derives its
	// snapshot from the changes its watch holds, then takes over from it.
	if _, err := c.Exec(ctx, "create sequence late; comment on sequence late is 'late'; drop sequence t_198"); err != nil {
		t.Fatal(err)
	}
	cli := fc.cl.Client(t)
	if _, err := cli.Delete(ctx, cluster.LeaderKey(fc.prefix)); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	var c2 *pgx.Conn
	second := first
	for deadline := time.Now().Add(30 * time.Second); second == first; {
		if c2 != nil {
			c2.Close(ctx)
			time.Sleep(100 * time.Millisecond)
		}
		if time.Now().After(deadline) {
			t.Fatal("no other node took over")
		}
		c2, second = fc.leader()
	}
	defer c2.Close(ctx)
	if got := metricValue(t, fc.nodes[second], "seqd_cluster_promotions_total"); got != 1 {
		t.Fatalf("the new leader began %d terms from its snapshot, want 1", got)
	}
	// The snapshot it began from is closed once its sessions are gone,
	// not held for the term.
	waitRetiredClosed(t, fc.nodes[second].node, "the new leader")
	fc.take(c2, 30)
	var k int
	var comment string
	if err := c2.QueryRow(ctx, "select count(*), obj_description('t_7'::regclass) from pg_sequences where sequencename like 't\\_%'").Scan(&k, &comment); err != nil || k != 199 || comment != "seven" {
		t.Fatalf("the new leader: %d sequences, t_7's comment %q, %v", k, comment, err)
	}
	if err := c2.QueryRow(ctx, "select obj_description('late'::regclass)").Scan(&comment); err != nil || comment != "late" {
		t.Fatalf("the new leader: late's comment %q, %v", comment, err)
	}
	if err := c2.QueryRow(ctx, "select nextval('t_199')").Scan(&v); err != nil || v <= 1 {
		t.Fatalf("t_199 on the new leader: %d after 1, %v", v, err)
	}
	if _, err := c2.Exec(ctx, "alter sequence t_3 increment 5; drop sequence t_4; create sequence after_takeover"); err != nil {
		t.Fatalf("DDL on the new leader: %v", err)
	}
}

// TestStoreWatchUnreachable: with etcd out of reach, starting a watch
// returns at once (keepUp starts one under the node's lock, which
// /readyz and Shutdown take: the watch's first call to etcd blocked, with
// the lock held, until etcd came back), and stop ends it.
func TestStoreWatchUnreachable(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	cli, err := EtcdClient(cl.Endpoints, EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	r, err := cli.Put(context.Background(), "/u/data/a", "1")
	if err != nil {
		t.Fatal(err)
	}
	cl.Stop(0)
	started := make(chan *storeWatch, 1)
	go func() {
		started <- watchStore(cli, "/u/data/", r.Header.Revision, func(storage.KV) bool { return true })
	}()
	var w *storeWatch
	select {
	case w = <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("watchStore waited for an etcd out of reach")
	}
	if _, ok := w.upTo(cli, r.Header.Revision, 200*time.Millisecond); ok {
		t.Fatal("a watch on an etcd out of reach confirmed its revision")
	}
	w.stop()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		w.mu.Lock()
		lost := w.lost
		w.mu.Unlock()
		if lost {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watch did not end when stopped")
		}
	}
}
