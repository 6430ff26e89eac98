package client_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
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
	gens := map[string]client.Generator{}
	for mode, make := range map[string]func(string) client.Generator{
		"async": func(n string) client.Generator { return client.NewAsync(src, n) },
		"batch": func(n string) client.Generator { return client.NewBatch(src, n, client.BatchOptions{Size: 10}) },
		"async-batch": func(n string) client.Generator {
			return client.NewAsyncBatch(src, n, client.BatchOptions{Size: 10, LowWatermark: 3})
		},
	} {
		if err := src.Create(ctx, mode, 1); err != nil {
			t.Fatal(err)
		}
		gens[mode] = make(mode)
	}
	var mu sync.Mutex
	seen := map[string]map[int64]bool{}
	take := func(mode string, n int) {
		for range n {
			v, err := gens[mode].Next(ctx)
			if err != nil {
				t.Errorf("%s: %v", mode, err)
				return
			}
			mu.Lock()
			if seen[mode] == nil {
				seen[mode] = map[int64]bool{}
			}
			if seen[mode][v] {
				t.Errorf("%s: %d twice", mode, v)
			}
			seen[mode][v] = true
			mu.Unlock()
		}
	}
	for mode := range gens {
		take(mode, 25)
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
	var wg sync.WaitGroup
	for mode := range gens {
		wg.Add(1)
		go func() { defer wg.Done(); take(mode, 100) }()
	}
	wg.Wait()
	for mode, vs := range seen {
		if len(vs) != 125 {
			t.Errorf("%s: %d distinct values, want 125", mode, len(vs))
		}
	}
}
