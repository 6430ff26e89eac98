package client_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqd/seqd/client"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/server"
)

// TestClusterFailover: the three generator modes over a pool made from a
// multi-host connection string to a three-node cluster keep handing out
// values, none twice, while the leader shuts down and another takes
// over: the requests made meanwhile are retried until the new leader
// answers.
func TestClusterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes")
	}
	ctx := context.Background()
	cl := etcdtest.Start(t, 3)
	var nodes []*server.Server
	var addrs []string
	for range 3 {
		s, err := server.Start(ctx, server.Config{Listen: "127.0.0.1:0", Etcd: cl.Endpoints, EtcdPrefix: "/client/",
			LeaseTTL: 2 * time.Second, Logger: log.New(io.Discard, "", 0)})
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, s)
		addrs = append(addrs, s.Addr().String())
	}
	down := map[int]bool{}
	defer func() {
		for i, s := range nodes {
			if !down[i] {
				s.Shutdown(ctx)
			}
		}
	}()
	pool, err := pgxpool.New(ctx, fmt.Sprintf("postgres://seqd@%s/seqd?sslmode=disable&target_session_attrs=read-write&pool_max_conns=4&connect_timeout=2",
		strings.Join(addrs, ",")))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	src := client.NewSeqd(pool, client.SeqdOptions{Cache: 100})
	m := newModeRun(t, src)
	for mode := range m.gens {
		m.take(t, mode, 25)
	}
	// The leader is the node the pool's connections reach.
	c, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	leader := c.Conn().PgConn().Conn().RemoteAddr().String()
	c.Release()
	for i, a := range addrs {
		if a == leader {
			if err := nodes[i].Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			down[i] = true
		}
	}
	if len(down) != 1 {
		t.Fatalf("the pool's server %s is no node", leader)
	}
	m.takeAll(t, 100)
	for mode, vs := range m.seen {
		if len(vs) != 125 {
			t.Errorf("%s: %d distinct values, want 125", mode, len(vs))
		}
	}
}
