package localetcd

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestProxyCuts: what each member's peer proxy cuts, derived from the
// isolations and the links cut, composes: a member rejoined keeps its
// cut links, and an isolated member's links are cut whatever CutLink
// said.
func TestProxyCuts(t *testing.T) {
	ids := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name     string
		isolated []int
		links    []link
		want     []map[string]bool // per proxy; "*" for every connection
	}{
		{"none", nil, nil, []map[string]bool{{}, {}, {}}},
		{"link 0-1", nil, []link{newLink(1, 0)},
			[]map[string]bool{{"b": true}, {"a": true}, {}}},
		{"ring of three", nil, []link{newLink(0, 1), newLink(1, 2), newLink(2, 0)},
			[]map[string]bool{{"b": true, "c": true}, {"a": true, "c": true}, {"a": true, "b": true}}},
		{"0 isolated", []int{0}, nil,
			[]map[string]bool{{"*": true}, {"a": true}, {"a": true}}},
		{"0 isolated, link 1-2", []int{0}, []link{newLink(1, 2)},
			[]map[string]bool{{"*": true}, {"a": true, "c": true}, {"a": true, "b": true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := cuts{isolated: map[int]bool{}, links: map[link]bool{}}
			for _, i := range tc.isolated {
				k.isolated[i] = true
			}
			for _, l := range tc.links {
				k.links[l] = true
			}
			for j := range ids {
				all, from := k.proxyCuts(j, ids)
				if all {
					from["*"] = true
				}
				if !maps.Equal(from, tc.want[j]) {
					t.Errorf("proxy of %s cuts %v, want %v", ids[j], from, tc.want[j])
				}
			}
		})
	}
}

// memberClient is a client of member i alone.
func memberClient(t *testing.T, c *Cluster, i int) *clientv3.Client {
	t.Helper()
	cfg, err := c.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Endpoints = []string{c.Endpoints[i]}
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// commits puts key=value through cli, trying again while the cluster
// settles, and fails the test if it never commits.
func commits(t *testing.T, cli *clientv3.Client, key, value string) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		ctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(context.Background()), 2*time.Second)
		_, err = cli.Put(ctx, key, value)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("put %s=%s: %v", key, value, err)
}

// reads waits until cli reads key=value.
func reads(t *testing.T, cli *clientv3.Client, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		r, err := cli.Get(ctx, key)
		if err == nil && len(r.Kvs) == 1 && string(r.Kvs[0].Value) == value {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("get %s: %v %v; want %s", key, r, err, value)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCutLink: with the link between the two followers of three members
// cut, each still reaches the leader, and a write through any member
// commits. With the link between the leader and a follower cut, the
// leader and the other follower (a quorum) go on committing; the cut
// follower hears no leader (pre-vote and check-quorum keep it from
// deposing one the third member still hears, so it cannot serve
// requests that need one: a partial partition's cost), and once the
// link heals it has every write.
func TestCutLink(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	c, err := StartWith(t.TempDir(), 3, Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lead := c.Leader()
	if lead < 0 {
		t.Fatal("no etcd leader")
	}
	a, b := (lead+1)%3, (lead+2)%3
	clis := []*clientv3.Client{memberClient(t, c, 0), memberClient(t, c, 1), memberClient(t, c, 2)}
	c.CutLink(a, b)
	for i, cli := range clis {
		commits(t, cli, "k", fmt.Sprint("through ", i))
		for _, other := range clis {
			reads(t, other, "k", fmt.Sprint("through ", i))
		}
	}
	c.HealLink(a, b)

	c.CutLink(lead, a)
	c.Isolate(a) // composes with the cut: Rejoin leaves the link cut
	c.Rejoin(a)
	commits(t, clis[lead], "k", "leader")
	commits(t, clis[b], "k", "follower")
	reads(t, clis[lead], "k", "follower")
	for deadline := time.Now().Add(20 * time.Second); c.Members[a].Server.Leader() != 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("member %d, cut off from the leader %d, still hears leader %v", a, lead, c.Members[a].Server.Leader())
		}
	}
	if l := c.Leader(); l < 0 || l == a {
		t.Fatalf("etcd leader %d with the link %d-%d cut", l, lead, a)
	}
	c.HealLink(lead, a)
	reads(t, clis[a], "k", "follower")
	commits(t, clis[a], "k", "healed")
}

// TestRingOfCuts: five members in a ring, each seeing only its two
// neighbours (Jepsen's majorities ring: every member sees a majority,
// no two the same one), still have a leader, through which and its
// neighbours writes commit; healed, every member has them.
func TestRingOfCuts(t *testing.T) {
	if testing.Short() {
		t.Skip("five etcd members")
	}
	c, err := StartWith(t.TempDir(), 5, Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 5 {
		c.CutLink(i, (i+2)%5) // with 5, cutting every second neighbour leaves the ring
	}
	lead := -1
	for deadline := time.Now().Add(20 * time.Second); lead < 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		lead = c.Leader()
	}
	if lead < 0 {
		t.Fatal("no etcd leader in the ring")
	}
	for _, i := range []int{lead, (lead + 1) % 5, (lead + 4) % 5} {
		commits(t, memberClient(t, c, i), "k", fmt.Sprint("through ", i))
	}
	c.HealAll()
	want := fmt.Sprint("through ", (lead+4)%5)
	for i := range 5 {
		reads(t, memberClient(t, c, i), "k", want)
	}
}
