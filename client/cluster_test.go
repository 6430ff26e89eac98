package client_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqd/seqd/client"
	"github.com/seqd/seqd/internal/clustertest"
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
	cl := clustertest.Start(t, 3, "/client/")
	addrs := cl.Addrs
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
	shut := -1
	for i, a := range addrs {
		if a == leader {
			cl.Shutdown(t, i)
			shut = i
		}
	}
	if shut < 0 {
		t.Fatalf("the pool's server %s is no node", leader)
	}
	m.takeAll(t, 100)
	for mode, vs := range m.seen {
		if len(vs) != 125 {
			t.Errorf("%s: %d distinct values, want 125", mode, len(vs))
		}
	}
}
