package server

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/etcdtest"
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

// TestFollowerWatch: a follower of a cluster at rest keeps its snapshot
// without reading the store again: its watch on the records shows them
// unchanged interval after interval (seqd_cluster_follower_checks_total
// grows, seqd_cluster_snapshots_total does not), and each such check
// renews its NOORDER view, so that it still serves a NOORDER sequence
// after longer than the view's lease without a full read. A sequence
// created on the leader then reaches the follower through a full read.
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
	checks := metricValue(t, fc.nodes[f], "seqd_cluster_follower_checks_total")
	// Three checks: longer than the NOORDER view's lease (two intervals
	// and a second) since the last full read.
	for deadline := time.Now().Add(60 * time.Second); metricValue(t, fc.nodes[f], "seqd_cluster_follower_checks_total") < checks+3; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the follower's watch showed no unchanged intervals")
		}
	}
	if now := metricValue(t, fc.nodes[f], "seqd_cluster_snapshots_total"); now != reads {
		t.Fatalf("an idle follower read the store %d times", now-reads)
	}
	fcn := fc.connect(f)
	fc.takeU(fcn, f, 3)
	fcn.Close(ctx)

	if _, err := c.Exec(ctx, "create sequence later"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !lists("later"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the follower does not list a sequence created since its last full read")
		}
	}
	if now := metricValue(t, fc.nodes[f], "seqd_cluster_snapshots_total"); now <= reads {
		t.Fatal("the follower listed a new sequence without reading the store")
	}
}

// TestStoreWatch: a follower's watch on the records says the store is
// unchanged after its snapshot's revision, up to a later revision, once
// etcd confirms every event up to it was delivered: also when the
// revision moved for keys elsewhere; not once a record changed.
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
	w := watchStore(cli, "/w/data/", r.Header.Revision)
	defer w.stop()
	if !w.unchangedUpTo(cli, r.Header.Revision, 10*time.Second) {
		t.Fatal("unchanged at the snapshot's own revision: false (the event at it counted, or no progress)")
	}
	if _, err := cli.Put(ctx, "/w/leader", "n1"); err != nil {
		t.Fatal(err)
	}
	p, err := cli.Put(ctx, "/elsewhere", "x")
	if err != nil {
		t.Fatal(err)
	}
	if !w.unchangedUpTo(cli, p.Header.Revision, 10*time.Second) {
		t.Fatal("unchanged after writes outside the records: false")
	}
	if _, err := cli.Put(ctx, "/w/data/b", "2"); err != nil {
		t.Fatal(err)
	}
	r, err = cli.Get(ctx, "/w/leader")
	if err != nil {
		t.Fatal(err)
	}
	if w.unchangedUpTo(cli, r.Header.Revision, 10*time.Second) {
		t.Fatal("unchanged after a record changed: true")
	}
}
