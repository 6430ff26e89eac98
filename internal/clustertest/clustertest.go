// Package clustertest runs seqd cluster nodes (server.Config.Etcd) in the
// test process, on etcd members run there too (etcdtest), for the tests
// of packages that reach a cluster through drivers.
package clustertest

import (
	"context"
	"io"
	"log"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/server"
)

// Cluster is running nodes.
type Cluster struct {
	Nodes []*server.Server
	Addrs []string // the nodes' PostgreSQL protocol addresses, in order
	// MySQLAddrs are the nodes' MySQL protocol addresses, in order.
	MySQLAddrs []string
	down       []bool
}

// Start runs n nodes (each with a MySQL protocol listener too) with a 2 s lease under prefix on three etcd members;
// the nodes still running shut down when the test ends.
func Start(t testing.TB, n int, prefix string) *Cluster {
	t.Helper()
	ctx := context.Background()
	etcd := etcdtest.Start(t, 3)
	c := &Cluster{}
	t.Cleanup(func() {
		for i, s := range c.Nodes {
			if !c.down[i] {
				s.Shutdown(ctx)
			}
		}
	})
	for range n {
		s, err := server.Start(ctx, server.Config{Listen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0", Etcd: etcd.Endpoints, EtcdPrefix: prefix,
			EtcdSecurity: server.EtcdSecurity{CA: etcd.TLS.CA, Cert: etcd.TLS.ClientCert, Key: etcd.TLS.ClientKey},
			LeaseTTL:     2 * time.Second, Logger: log.New(io.Discard, "", 0)})
		if err != nil {
			t.Fatal(err)
		}
		c.Nodes, c.Addrs, c.down = append(c.Nodes, s), append(c.Addrs, s.Addr().String()), append(c.down, false)
		c.MySQLAddrs = append(c.MySQLAddrs, s.MySQLAddr().String())
	}
	return c
}

// Shutdown shuts node i down (a clean handover).
func (c *Cluster) Shutdown(t testing.TB, i int) {
	t.Helper()
	if err := c.Nodes[i].Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.down[i] = true
}

// Down reports whether node i was shut down.
func (c *Cluster) Down(i int) bool { return c.down[i] }
