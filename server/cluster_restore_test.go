package server

import (
	"context"
	"io"
	"log"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/etcdtest"
)

// TestClusterRestore: a cluster's etcd brought back from a snapshot
// (etcd's own save and restore) rewinds every sequence to where the
// snapshot left it; a node started on it hands out again what the
// cluster handed out after the snapshot (the hazard, shown). RestoreCluster
// refuses while a node leads, and without a bound; run between etcd's
// restore and the nodes' start, it moves every sequence, ordered and
// NOORDER, past everything handed out, before and after the snapshot.
func TestClusterRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and nodes")
	}
	ctx := context.Background()
	quiet := log.New(io.Discard, "", 0)
	cl := etcdtest.Start(t, 1)
	sec := func(cl *etcdtest.Cluster) EtcdSecurity {
		return EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey}
	}
	const prefix = "/restore/"
	node := func(cl *etcdtest.Cluster) (*Server, *pgx.Conn) { return leaderNode(t, cl, prefix) }
	seqs := []string{"ordered", "noorder"}
	top := map[string]int64{}
	take := func(c *pgx.Conn, n int, seqs ...string) {
		t.Helper()
		for _, s := range seqs {
			for range n {
				var v int64
				if err := c.QueryRow(ctx, "select nextval($1)", s).Scan(&v); err != nil {
					t.Fatal(err)
				}
				top[s] = max(top[s], v)
			}
		}
	}
	s, c := node(cl)
	if _, err := c.Exec(ctx, "create sequence ordered cache 10; create sequence noorder cache 50 noorder"); err != nil {
		t.Fatal(err)
	}
	// NOORDER's blocks move its range record, not its own record: 2000
	// values put the blocks far beyond where its record says it starts,
	// beyond the bound, so that a restore from the record alone would
	// hand them out again.
	take(c, 300, "ordered")
	take(c, 2000, "noorder")
	snap := filepath.Join(t.TempDir(), "etcd.snap")
	if err := cl.Snapshot(snap); err != nil {
		t.Fatal(err)
	}
	take(c, 300, seqs...) // after the snapshot: what a restore must not hand out again
	c.Close(ctx)
	s.Shutdown(ctx)
	cl.Close()

	// The hazard: a node on the restored data, without seqd restore.
	bare := etcdtest.StartFromSnapshot(t, snap)
	s1, c1 := node(bare)
	var again int64
	if err := c1.QueryRow(ctx, "select nextval('ordered')").Scan(&again); err != nil {
		t.Fatal(err)
	}
	if again > top["ordered"] {
		t.Fatalf("a node on the restored snapshot gave %d, beyond %d: the snapshot did not rewind, so this test shows nothing", again, top["ordered"])
	}
	// And a cluster a node leads is refused.
	tgt := func(cl *etcdtest.Cluster) EtcdTarget {
		return EtcdTarget{Endpoints: cl.Endpoints, Prefix: prefix, Security: sec(cl)}
	}
	live := tgt(bare)
	live.Wait = 3 * time.Second // the node renews its lease: it would wait in vain
	if _, err := RestoreCluster(ctx, live, 1000, quiet); err == nil || !strings.Contains(err.Error(), "leads the cluster") {
		t.Fatalf("restoring a cluster a node leads: %v", err)
	}
	c1.Close(ctx)
	s1.Shutdown(ctx)

	restored := etcdtest.StartFromSnapshot(t, snap)
	if _, err := RestoreCluster(ctx, tgt(restored), 0, quiet); err == nil || !strings.Contains(err.Error(), "needs -bound") {
		t.Fatalf("a cluster restore without a bound: %v", err)
	}
	rep, err := RestoreCluster(ctx, tgt(restored), 1000, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sequences != 2 {
		t.Fatalf("restore: %+v", rep)
	}
	s2, c2 := node(restored)
	defer s2.Shutdown(ctx)
	defer c2.Close(ctx)
	for _, seq := range seqs {
		var v int64
		if err := c2.QueryRow(ctx, "select nextval($1)", seq).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v <= top[seq] {
			t.Fatalf("%s: the restored cluster gave %d, but %d had been handed out", seq, v, top[seq])
		}
	}
}
