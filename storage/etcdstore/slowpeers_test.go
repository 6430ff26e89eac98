package etcdstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/internal/localetcd"
	"github.com/seqd/seqd/storage"
)

// TestSlowLeaderPeerLinks: with the etcd leader member's links to its
// peers slow (200 ms each way), every linearizable read or write made
// through a follower takes four such trips, 0.8 s, more than a try's
// deadline for a 2 s lease (AttemptTimeout, 500 ms): every member times
// out alike. The soak found ORDER sequences stopped so for 30 s
// (docs/cluster.md, "Nemeses"): every call timed out on every try until
// its Timeout (the lease), the leader's commits failed, and each
// takeover after failed the same way. A hardened client lengthens its
// tries' deadline instead (pace): the leader's commits go on, none
// failing (ORDER values stop for no longer than one commit takes, well
// inside the lease + 2 s), tries stop timing out once the deadline has
// grown, and a takeover (acquire, load, commit) completes.
//
// The client is given the followers alone, so that no try reaches the
// leader member, which answers within one round trip (0.4 s): on the
// soak's five members, four of them followers, a request's tries land
// on followers alone often enough, and here the outcome is not a matter
// of round robin. Without pace every commit fails (the first already:
// three tries of 500 ms time out, the fourth has 450 ms left).
func TestSlowLeaderPeerLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	const lease = 2 * time.Second
	ctx := context.Background()
	cl := startCluster(t, 3, localetcd.Options{PeerProxies: true})
	lead := cl.Leader()
	if lead < 0 {
		t.Fatal("no etcd leader")
	}
	var followers []string
	for i, ep := range cl.Endpoints {
		if i != lead {
			followers = append(followers, ep)
		}
	}
	cfg, err := cl.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Endpoints = followers
	e := HardenClient(&cfg, AttemptTimeout(lease))
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	e.Bind(cli)
	prefix := fresh()
	// As a node opens its store: each call bounded by the lease.
	open := func() (*Store, storage.Token, storage.Rev) {
		t.Helper()
		s, err := Open(Config{Client: cli, Prefix: prefix, Timeout: lease})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		tok, err := s.Acquire(ctx)
		if err != nil {
			t.Fatalf("acquire: %v (tries timed out: %d)", err, e.timeouts.Load())
		}
		var rev storage.Rev
		if err := s.Load(ctx, func(kv storage.KV) error {
			rev = kv.Rev
			return nil
		}); err != nil {
			t.Fatalf("load: %v (tries timed out: %d)", err, e.timeouts.Load())
		}
		return s, tok, rev
	}
	s, tok, rev := open()
	commit := func(s *Store, tok storage.Token, v string) time.Duration {
		t.Helper()
		began := time.Now()
		r, err := s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: []byte(v), Expect: rev}})
		if err != nil {
			t.Fatalf("commit %s with the etcd leader member's peer links slow: %v (tries timed out: %d)", v, err, e.timeouts.Load())
		}
		rev = r
		return time.Since(began)
	}
	commit(s, tok, "clean")

	slow := localetcd.Impairment{Delay: 200 * time.Millisecond}
	for i := range cl.Endpoints {
		if i != lead {
			cl.ImpairLink(lead, i, slow)
		}
	}
	defer cl.HealAll()
	var slowest time.Duration
	for i := range 3 {
		slowest = max(slowest, commit(s, tok, fmt.Sprintf("slow%d", i)))
	}
	timedOut := e.timeouts.Load()
	for i := 3; i < 15; i++ {
		slowest = max(slowest, commit(s, tok, fmt.Sprintf("slow%d", i)))
	}
	t.Logf("15 commits with the etcd leader member's peer links slow: the slowest %v; tries timed out: %d in the first 3, %d after",
		slowest.Round(time.Millisecond), timedOut, e.timeouts.Load()-timedOut)
	if bound := lease + 2*time.Second; slowest > bound {
		t.Fatalf("the slowest commit took %v, over the lease + 2 s", slowest)
	}
	if n := e.timeouts.Load() - timedOut; n > 2 {
		t.Fatalf("%d tries timed out in the 12 commits after the first 3: the deadline did not grow to what etcd needs", n)
	}
	if l := cl.Leader(); l != lead {
		t.Logf("etcd's leader moved from member %d to %d", lead, l)
	}

	// A takeover, made of such requests one after another.
	began := time.Now()
	s2, tok2, _ := open()
	commit(s2, tok2, "taken over")
	t.Logf("a takeover (acquire, load, a commit): %v", time.Since(began).Round(time.Millisecond))
}
