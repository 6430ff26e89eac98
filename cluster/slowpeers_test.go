package cluster

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/internal/localetcd"
	"github.com/seqd/seqd/storage/etcdstore"
)

// TestRenewSlowLeaderPeerLinks: a renewal made through a follower is
// forwarded to the etcd leader member, over the follower's link to it: a
// round trip on that link. With the leader member's links to its peers
// slow (300 ms each way), that is 0.6 s, over a try's deadline for a 2 s
// lease (AttemptTimeout, 500 ms): with every try given up at its
// deadline, no renewal through a follower ever succeeds and the term
// lapses within a lease (it did, before renewals were hedged: without
// the store's requests to raise the client's deadline first, as here,
// three tries of 0.5, 0.5 and 1 s ended past the lease). A renewal's
// try not answered within its deadline now stays out beside the next
// (Lease.renew), and an answer that came late raises the first try's
// deadline for the renewals after it (Config.Tries). The term then lasts
// the whole fault.
//
// The node's client is given the followers alone, as in etcdstore's
// TestSlowLeaderPeerLinks, so that no renewal reaches the leader member
// directly.
func TestRenewSlowLeaderPeerLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	const lease = 2 * time.Second
	ctx := context.Background()
	cl, err := localetcd.StartWith(t.TempDir(), 3, localetcd.Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	lead := cl.Leader()
	if lead < 0 {
		t.Fatal("no etcd leader")
	}
	cfg, err := cl.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Endpoints = nil
	for i, ep := range cl.Endpoints {
		if i != lead {
			cfg.Endpoints = append(cfg.Endpoints, ep)
		}
	}
	e := etcdstore.HardenClient(&cfg, etcdstore.AttemptTimeout(lease))
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	e.Bind(cli)
	term, err := Campaign(ctx, Config{Client: cli, Prefix: freshPrefix(), Name: "a", TTL: lease, Tries: e})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Resign(ctx)

	slow := localetcd.Impairment{Delay: 300 * time.Millisecond}
	for i := range cl.Endpoints {
		if i != lead {
			cl.ImpairLink(lead, i, slow)
		}
	}
	// Renewals a follower forwards name no sender: they come over the
	// same slow links.
	cl.ImpairUnnamed(lead, slow)
	defer cl.HealAll()

	const hold = 5 * lease
	began := time.Now()
	least := lease
	for time.Since(began) < hold {
		select {
		case <-term.Done():
			t.Fatalf("the term ended %v into the fault: %v (first try's deadline now %v)",
				time.Since(began).Round(time.Millisecond), term.Err(), e.TryDeadline())
		case <-time.After(50 * time.Millisecond):
		}
		least = min(least, term.lease.Remaining())
	}
	if l := cl.Leader(); l != lead {
		t.Logf("etcd's leader moved from member %d to %d during the fault", lead, l)
	}
	t.Logf("the term held through %v of slow peer links; the least lease left seen %v; a first try's deadline now %v",
		hold, least.Round(time.Millisecond), e.TryDeadline())
}
