package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/cluster"
)

// TestClusterNodeIDs: in a cluster each leader takes the node part of
// its SNOWFLAKE ids from etcd, under its term's lease: the lowest id no
// live holder has (not one another holder keeps), given back when the
// term ends; the next leader's ids go on increasing above the last
// one's, under the node id it took. -node-id is refused with -etcd.
func TestClusterNodeIDs(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes")
	}
	var other *cluster.NodeID // node id 0, held by a holder outside the cluster
	fc := startFailoverCluster(t, func(cfg *Config) {
		if other != nil {
			return
		}
		cli, _, err := etcdClient(cfg.Etcd, cfg.EtcdSecurity, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cli.Close() })
		ctx := context.Background()
		l, err := cluster.Grant(ctx, cli, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if other, err = cluster.AcquireNodeID(ctx, cli, cfg.EtcdPrefix, "elsewhere", MaxNodeID, l); err != nil || other.ID != 0 {
			t.Fatalf("the outside holder: %v %v", other, err)
		}
	})
	ctx := fc.ctx
	c, first := fc.leader()
	if _, err := c.Exec(ctx, "create sequence ids snowflake node_bits 10"); err != nil {
		t.Fatal(err)
	}
	last := fc.takeIDs(c, 1)
	// The outside holder gives id 0 back; the leader hands over: the
	// next leader takes 0, the lowest free.
	if err := other.Release(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	if err := fc.nodes[first].Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	fc.down[first] = true
	c2, _ := fc.leader()
	defer c2.Close(ctx)
	if next := fc.takeIDs(c2, 0); next <= last {
		t.Errorf("the next leader's id %d is not above the last leader's %d", next, last)
	}

	cfg := Config{Etcd: fc.cl.Endpoints, NodeID: 3}
	var le *LimitError
	if err := cfg.Validate(); !errors.As(err, &le) || le.Flag != "node-id" {
		t.Errorf("-node-id 3 with -etcd: %v", err)
	}
}

// takeIDs takes ten ids of SNOWFLAKE sequence ids on c, each above the
// one before and each of node part node, and gives the last.
func (fc *failoverCluster) takeIDs(c *pgx.Conn, node int32) int64 {
	t := fc.t
	t.Helper()
	var last int64
	for range 10 {
		var v int64
		var got int32
		if err := c.QueryRow(fc.ctx, "select v, (select node from seqd_decode('ids', v)) from nextval('ids') v").Scan(&v, &got); err != nil {
			t.Fatal(err)
		}
		if v <= last || got != node {
			t.Fatalf("id %d (node part %d) after %d, want node part %d", v, got, last, node)
		}
		last = v
	}
	return last
}
