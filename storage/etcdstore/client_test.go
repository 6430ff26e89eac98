package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/internal/localetcd"
	"github.com/seqd/seqd/storage"
)

// hardened is a client of cl set up as a node's is, each try bounded
// by attempt, closed when the test ends.
func hardened(t *testing.T, cl *localetcd.Cluster, endpoints []string, attempt time.Duration) *clientv3.Client {
	t.Helper()
	cfg, err := cl.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Endpoints = endpoints
	HardenClient(&cfg, attempt)
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func startCluster(t *testing.T, n int, opts localetcd.Options) *localetcd.Cluster {
	t.Helper()
	cl, err := localetcd.StartWith(t.TempDir(), n, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestIsolatedMember: with the etcd leader member cut off from its peers
// (it still accepts requests, and holds them), a store on a hardened
// client of all three members commits on: each commit made once the two
// others have elected a leader completes without waiting for the
// isolated member, and none fails.
func TestIsolatedMember(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	ctx := context.Background()
	cl := startCluster(t, 3, localetcd.Options{PeerProxies: true})
	const attempt = 250 * time.Millisecond
	s, err := Open(Config{Client: hardened(t, cl, cl.Endpoints, attempt), Prefix: fresh(), Timeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rev storage.Rev
	commit := func(i int) time.Duration {
		t.Helper()
		began := time.Now()
		r, err := s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: fmt.Appendf(nil, "%d", i), Expect: rev}})
		if err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		rev = r
		return time.Since(began)
	}
	commit(0)
	lead := cl.Leader()
	cl.Isolate(lead)
	defer cl.Rejoin(lead)
	// The first commits may wait for the others' election.
	deadline := time.Now().Add(30 * time.Second)
	for i := 1; ; i++ {
		commit(i)
		if l := cl.Leader(); l >= 0 && l != lead {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new etcd leader within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Then the isolated member knows it has no leader and refuses at
	// once: no commit waits for it until its Timeout (15 s); the bound
	// is loose for a loaded machine.
	var slowest time.Duration
	for i := 100; i < 130; i++ {
		slowest = max(slowest, commit(i))
	}
	t.Logf("the slowest of 30 commits with the etcd leader member isolated: %v", slowest)
	if slowest >= 3*time.Second {
		t.Fatalf("the slowest of 30 commits took %v (a try times out after %v)", slowest, attempt)
	}
}

// TestRetriedCommit: a commit whose first try was applied, and whose
// reply was lost (held until the try timed out), is tried again; the
// try that answers finds the record written, by the first. The commit
// succeeds, at the revision its record holds, where a conflict would
// make its caller take it for failed.
func TestRetriedCommit(t *testing.T) {
	ctx := context.Background()
	cl := startCluster(t, 1, localetcd.Options{})
	p, err := localetcd.NewProxy(strings.TrimPrefix(cl.Endpoints[0], "https://"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := Open(Config{Client: hardened(t, cl, []string{"https://" + p.Addr()}, 200*time.Millisecond), Prefix: fresh(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		p.CutReplies()
		time.AfterFunc(500*time.Millisecond, p.Heal)
		rev, err := s.Commit(ctx, tok, []storage.Op{{Key: fmt.Sprintf("k%d", i), Value: []byte("v")}})
		if err != nil {
			t.Fatalf("commit %d, held then let through: %v", i, err)
		}
		r, err := s.c.Get(ctx, s.data+fmt.Sprintf("k%d", i))
		if err != nil || len(r.Kvs) != 1 || storage.Rev(r.Kvs[0].ModRevision) != rev {
			t.Fatalf("commit %d returned revision %d; the record: %v %v", i, rev, r, err)
		}
	}
}

// TestTermEnded: a call made in a term cut off from etcd fails when the
// term ends (Config.Ended), with ErrTermOver, not at its Timeout; and
// every call after fails at once.
func TestTermEnded(t *testing.T) {
	ctx := context.Background()
	cl := startCluster(t, 1, localetcd.Options{})
	p, err := localetcd.NewProxy(strings.TrimPrefix(cl.Endpoints[0], "https://"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ended := make(chan struct{})
	s, err := Open(Config{Client: hardened(t, cl, []string{"https://" + p.Addr()}, 200*time.Millisecond), Prefix: fresh(), Timeout: time.Minute,
		Ended: ended})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Cut()
	defer p.Heal()
	end := time.Now().Add(time.Second)
	time.AfterFunc(time.Second, func() { close(ended) })
	_, err = s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: []byte("1")}})
	if !errors.Is(err, ErrTermOver) {
		t.Fatalf("a commit cut off from etcd past the term's end: %v, want ErrTermOver", err)
	}
	if late := time.Since(end); late > 5*time.Second {
		t.Fatalf("the commit failed %v after the term's end", late)
	}
	p.Heal()
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "b", Value: []byte("1")}}); !errors.Is(err, ErrTermOver) {
		t.Fatalf("a commit after the term's end, etcd reachable: %v, want ErrTermOver", err)
	}
}

// TestPausedMember: with a member paused (cut off from its peers, and
// its clients' connections held open and silent, as a stopped process
// holds them), a hardened client sets it aside after the first try that
// timed out on it: the commits after that do not try it again, where
// round robin would send about one try in three to it, each waiting its
// whole deadline.
func TestPausedMember(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	ctx := context.Background()
	cl := startCluster(t, 3, localetcd.Options{PeerProxies: true})
	var ps []*localetcd.Proxy
	var eps []string
	for _, ep := range cl.Endpoints {
		p, err := localetcd.NewProxy(strings.TrimPrefix(ep, "https://"))
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ps, eps = append(ps, p), append(eps, "https://"+p.Addr())
	}
	cfg, err := cl.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Endpoints = eps
	e := HardenClient(&cfg, 500*time.Millisecond)
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	e.Bind(cli)
	s, err := Open(Config{Client: cli, Prefix: fresh(), Timeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(key string) {
		t.Helper()
		if _, err := s.Commit(ctx, tok, []storage.Op{{Key: key, Value: []byte("v")}}); err != nil {
			t.Fatalf("commit %s: %v", key, err)
		}
	}
	commit("k0")
	lead := cl.Leader()
	cl.Isolate(lead)
	ps[lead].Cut()
	defer ps[lead].Heal()
	deadline := time.Now().Add(30 * time.Second)
	for i := 1; !slices.Equal(e.Aside(), eps[lead:lead+1]); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s of commits, set aside: %v; the paused member: %s", e.Aside(), eps[lead])
		}
		commit(fmt.Sprintf("k%d", i))
	}
	if got := cli.Endpoints(); slices.Contains(got, eps[lead]) || len(got) != 2 {
		t.Fatalf("the client's endpoints with %s set aside: %v", eps[lead], got)
	}
	before := e.timeouts.Load()
	for i := range 30 {
		commit(fmt.Sprintf("m%d", i))
	}
	// Round robin over the three would have sent about ten of the 30
	// first tries to the paused member; a try on a loaded machine may
	// still time out elsewhere now and then.
	if n := e.timeouts.Load() - before; n > 3 {
		t.Fatalf("%d tries timed out in 30 commits with the paused member set aside", n)
	}
	// Resumed, it answers its status again, and is given back.
	ps[lead].Heal()
	cl.Rejoin(lead)
	for deadline := time.Now().Add(30 * time.Second); len(e.Aside()) > 0 || len(cli.Endpoints()) != 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the member resumed, set aside: %v, endpoints %v", e.Aside(), cli.Endpoints())
		}
	}
	commit("resumed")
}

// TestReplacedMemberCommits: while the etcd leader member is removed
// from the cluster and replaced, stores on hardened clients of all three
// members commit on without a failure. A commit in flight on the
// removed member is answered "raft: stopped", with its outcome unknown;
// it is tried on another member, whose answer (the records written by
// the first try, or not) settles it.
func TestReplacedMemberCommits(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	ctx := context.Background()
	cl := startCluster(t, 3, localetcd.Options{})
	const writers = 8
	cli := hardened(t, cl, slices.Clone(cl.Endpoints), 500*time.Millisecond)
	s, err := Open(Config{Client: cli, Prefix: fresh(), Timeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	type result struct {
		commits int
		err     error
	}
	results := make(chan result, writers)
	for w := range writers {
		go func() {
			var rev storage.Rev
			n := 0
			for {
				select {
				case <-stop:
					results <- result{n, nil}
					return
				default:
				}
				r, err := s.Commit(ctx, tok, []storage.Op{{Key: fmt.Sprintf("w%d", w), Value: fmt.Appendf(nil, "%d", n), Expect: rev}})
				if err != nil {
					results <- result{n, fmt.Errorf("writer %d, commit %d: %w", w, n, err)}
					return
				}
				rev = r
				n++
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	if err := cl.Replace(cl.Leader()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	close(stop)
	total := 0
	for range writers {
		r := <-results
		if r.err != nil {
			t.Error(r.err)
		}
		total += r.commits
	}
	t.Logf("%d commits by %d writers while the etcd leader member was replaced", total, writers)
	if total == 0 {
		t.Fatal("no commit was made")
	}
}
