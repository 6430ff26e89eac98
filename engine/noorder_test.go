package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/etcdstore"
)

// noorderCluster is a leader's engine and followers' snapshots over one
// etcd, each node with its own client and its own Ranges, as cluster
// mode runs them.
type noorderCluster struct {
	t      *testing.T
	cl     *etcdtest.Cluster
	prefix string
	leader *engine.Engine
}

// ranges is a node's NOORDER ranges. A follower's lease (how long it
// serves on a read of the store) is long here, so that a slow test run
// never outlives it; the leader's (how long a DROP waits) is a second.
func (c *noorderCluster) ranges() *engine.Ranges { return c.rangesLease(time.Minute) }

func (c *noorderCluster) rangesLease(lease time.Duration) *engine.Ranges {
	return c.rangesClock(lease, nil)
}

func (c *noorderCluster) rangesClock(lease time.Duration, clock func() time.Duration) *engine.Ranges {
	st, err := etcdstore.Open(etcdstore.Config{Client: c.cl.Client(c.t), Prefix: c.prefix})
	if err != nil {
		c.t.Fatal(err)
	}
	return engine.NewRanges(st, lease, clock)
}

// snapshot opens a follower's read-only engine with the node's ranges,
// and makes it the node's view, as the node's refresh does.
func (c *noorderCluster) snapshot(r *engine.Ranges) *engine.Engine {
	st, err := etcdstore.Open(etcdstore.Config{Client: c.cl.Client(c.t), Prefix: c.prefix})
	if err != nil {
		c.t.Fatal(err)
	}
	at := r.Now()
	e, err := engine.Open(context.Background(), engine.Config{Store: st, ReadOnly: true, Ranges: r})
	if err != nil {
		c.t.Fatal(err)
	}
	r.Observe(at, e)
	c.t.Cleanup(func() { e.Close() })
	return e
}

func newNoorderCluster(t *testing.T) *noorderCluster {
	c := &noorderCluster{t: t, cl: etcdtest.Start(t, 1), prefix: fresh()}
	st, err := etcdstore.Open(etcdstore.Config{Client: c.cl.Client(t), Prefix: c.prefix})
	if err != nil {
		t.Fatal(err)
	}
	c.leader, err = engine.Open(context.Background(), engine.Config{Store: st, MaxBatch: etcdstore.MaxOps, Ranges: c.rangesLease(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.leader.Close() })
	return c
}

func noorder(t *testing.T, e *engine.Engine, n engine.Name, cache int64, max *int64) {
	t.Helper()
	no := false
	if _, err := e.Create(context.Background(), n, seqmath.Spec{Cache: &cache, Order: &no, Max: max}, false); err != nil {
		t.Fatal(err)
	}
}

// TestNoOrderNodes: three nodes (the leader and two followers' read-only
// snapshots) hand out a NOORDER sequence's values at once, several
// callers each: no value twice, each node's values in increasing order,
// each caller's too, and a node that restarts (new ranges) serves above
// everything reserved before.
func TestNoOrderNodes(t *testing.T) {
	ctx := context.Background()
	c := newNoorderCluster(t)
	n, _ := engine.NewName("public", "ids")
	noorder(t, c.leader, n, 10, nil)
	nodes := []*engine.Engine{c.leader, c.snapshot(c.ranges()), c.snapshot(c.ranges())}

	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for i, e := range nodes {
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				last := int64(0)
				for range 150 {
					_, v, err := e.Nextval(ctx, n)
					if err != nil {
						t.Error(err)
						return
					}
					if v <= last {
						t.Errorf("node %d: %d after %d", i, v, last)
					}
					last = v
					mu.Lock()
					if prev, ok := seen[v]; ok {
						t.Errorf("%d handed out by node %d and node %d", v, prev, i)
					}
					seen[v] = i
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(seen) != 3*3*150 {
		t.Fatalf("%d values", len(seen))
	}
	// One caller per node: the node's order.
	high := int64(0)
	for v := range seen {
		high = max(high, v)
	}
	for i, e := range nodes {
		last := int64(0)
		for range 25 {
			_, v, err := e.Nextval(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if v <= last || seen[v] != 0 && v <= high {
				t.Fatalf("node %d: %d after %d (high %d)", i, v, last, high)
			}
			last = v
		}
	}
	// A restarted node gives up its block and starts above every block.
	var top int64
	for _, e := range nodes {
		_, r, err := e.Reserve(ctx, n, 1)
		if err != nil {
			t.Fatal(err)
		}
		top = max(top, r.First)
	}
	_, v, err := c.snapshot(c.ranges()).Nextval(ctx, n)
	if err != nil || v <= top {
		t.Fatalf("a restarted node: %d, %v; want above %d", v, err, top)
	}
}

// TestNoOrderSetval: setval and RESTART on the leader begin a new epoch:
// a node that sees it (its next snapshot) starts from the new position;
// a range of many values is consecutive; the sequence's limit holds
// across nodes; a dropped sequence is not served from a new block.
func TestNoOrderSetval(t *testing.T) {
	ctx := context.Background()
	c := newNoorderCluster(t)
	n, _ := engine.NewName("public", "ids")
	noorder(t, c.leader, n, 10, nil)
	rf := c.ranges()
	f := c.snapshot(rf)
	for range 15 {
		if _, _, err := f.Nextval(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.leader.Setval(ctx, n, 1000, true); err != nil {
		t.Fatal(err)
	}
	want := int64(1001)
	for _, e := range []*engine.Engine{c.snapshot(rf), c.leader} {
		_, v, err := e.Nextval(ctx, n)
		if err != nil || v != want {
			t.Fatalf("after setval: %d, %v; want %d", v, err, want)
		}
		want += 10 // the next node's block
	}
	if err := c.leader.Alter(ctx, n, seqmath.Spec{RestartWith: ptr(int64(5))}); err != nil {
		t.Fatal(err)
	}
	if _, v, err := c.snapshot(rf).Nextval(ctx, n); err != nil || v != 5 {
		t.Fatalf("after RESTART WITH 5: %d, %v", v, err)
	}
	// A whole range beyond the block: consecutive, from a block of its own.
	_, r, err := c.snapshot(rf).Reserve(ctx, n, 25)
	if err != nil || r.Count != 25 || r.First < 15 {
		t.Fatalf("a range of 25: %+v, %v", r, err)
	}

	// In a transaction block: the copy of a NOORDER sequence altered
	// there serves no value unless the block set its position; then the
	// nodes go on after the values the block took, once it commits.
	tx := c.leader.Begin()
	if err := tx.Alter(ctx, n, seqmath.Spec{Increment: ptr(int64(2))}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tx.Nextval(ctx, n); !errors.Is(err, engine.ErrUnsupported) {
		t.Fatalf("nextval of a NOORDER sequence altered in the block: %v", err)
	}
	if err := tx.Alter(ctx, n, seqmath.Spec{RestartWith: ptr(int64(500))}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int64{500, 502} {
		if _, v, err := tx.Nextval(ctx, n); err != nil || v != want {
			t.Fatalf("nextval in the block after RESTART WITH 500: %d, %v; want %d", v, err, want)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, v, err := c.snapshot(rf).Nextval(ctx, n); err != nil || v != 504 {
		t.Fatalf("after the block: %d, %v; want 504", v, err)
	}

	// The limit, across two nodes.
	m, _ := engine.NewName("public", "small")
	noorder(t, c.leader, m, 4, ptr(int64(10)))
	got := map[int64]bool{}
	nodes := []*engine.Engine{c.leader, c.snapshot(c.ranges())}
	done := map[int]bool{}
	for i := 0; len(done) < 2; i++ {
		if done[i%2] {
			continue
		}
		_, v, err := nodes[i%2].Nextval(ctx, m)
		if errors.Is(err, seqmath.ErrLimitReached) {
			done[i%2] = true // the rest of the other's block remains
			continue
		}
		if err != nil || got[v] || v > 10 {
			t.Fatalf("value %d: %v (seen %v)", v, err, got[v])
		}
		got[v] = true
	}
	if len(got) != 10 {
		t.Fatalf("%d values before the limit, want 10", len(got))
	}

	// Dropped: the DROP returns once the nodes' leases (the leader's, 1 s
	// here) have run out. A node that has not read the store within its
	// lease (3 s here) serves nothing; one that has, not the dropped
	// sequence (40001: the session's view is older than the node's).
	d, _ := engine.NewName("public", "gone")
	noorder(t, c.leader, d, 10, nil)
	rd := c.rangesLease(3 * time.Second)
	stale := c.snapshot(rd)
	if _, _, err := stale.Nextval(ctx, d); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := c.leader.Drop(ctx, d); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(began); waited < time.Second {
		t.Fatalf("DROP of a NOORDER sequence returned after %v, within the nodes' lease", waited)
	}
	time.Sleep(3 * time.Second) // past this node's lease of 3 s
	if _, _, err := stale.Nextval(ctx, d); !errors.Is(err, engine.ErrStorage) || !strings.Contains(err.Error(), "out of date") {
		t.Fatalf("a node whose view outlived its lease: %v", err)
	}
	c.snapshot(rd)
	if _, _, err := stale.Nextval(ctx, d); !errors.Is(err, engine.ErrSerialization) {
		t.Fatalf("a dropped sequence, from a session's older view: %v", err)
	}
}

// TestNoOrderSuspendedNode: a node's view of its NOORDER sequences ages
// by the Ranges' clock, which counts the time the machine was suspended
// (the server gives it CLOCK_BOOTTIME): a node whose clock jumps past
// its lease, as a VM resumed after a pause finds it, serves nothing more
// until it reads the store again, though Go's monotonic clock, which
// stopped, would say its view is fresh.
func TestNoOrderSuspendedNode(t *testing.T) {
	ctx := context.Background()
	c := newNoorderCluster(t)
	n, _ := engine.NewName("public", "ids")
	noorder(t, c.leader, n, 10, nil)
	var clock atomic.Int64
	rd := c.rangesClock(time.Minute, func() time.Duration { return time.Duration(clock.Load()) })
	node := c.snapshot(rd)
	if _, _, err := node.Nextval(ctx, n); err != nil {
		t.Fatal(err)
	}
	clock.Add(int64(time.Minute + time.Second)) // suspended for a minute
	if _, _, err := node.Nextval(ctx, n); !errors.Is(err, engine.ErrStorage) || !strings.Contains(err.Error(), "out of date (last read 1m1s ago)") {
		t.Fatalf("a node resumed past its view's lease: %v", err)
	}
	node = c.snapshot(rd)
	if _, _, err := node.Nextval(ctx, n); err != nil {
		t.Fatalf("after a read of the store: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestNoOrderToOrder: a NOORDER sequence made ORDER while two other nodes
// take its values, once by ALTER alone and once in a transaction block:
// the leader's ORDER values start above every value any node reserved,
// the nodes hand out the rest of their blocks and then no more of it,
// and no value is handed out twice. last_value (Reserved) shows how far
// the nodes reserved.
func TestNoOrderToOrder(t *testing.T) {
	ctx := context.Background()
	c := newNoorderCluster(t)
	n, _ := engine.NewName("public", "ids")
	noorder(t, c.leader, n, 10, nil)
	var mu sync.Mutex
	seen := map[int64]string{}
	record := func(who string, v int64) {
		mu.Lock()
		defer mu.Unlock()
		if prev, ok := seen[v]; ok {
			t.Errorf("%d handed out by %s and by %s", v, prev, who)
		}
		seen[v] = who
	}
	for round, inBlock := range []bool{false, true} {
		nodes := []*engine.Engine{c.snapshot(c.ranges()), c.snapshot(c.ranges())}
		var wg sync.WaitGroup
		var high [2]int64
		started := make(chan struct{}, 2)
		for i, e := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; ; k++ {
					_, v, err := e.Nextval(ctx, n)
					if errors.Is(err, engine.ErrSerialization) {
						return // made ORDER: this node's view is older
					}
					if err != nil {
						t.Error(err)
						return
					}
					record("a node", v)
					high[i] = max(high[i], v)
					if k == 20 {
						started <- struct{}{}
					}
				}
			}()
		}
		<-started
		<-started
		info, err := c.leader.Info(n)
		if err == nil {
			info, err = c.leader.Reserved(ctx, info)
		}
		if err != nil || info.State.Last < 40 || !info.State.Called {
			t.Fatalf("round %d: reserved up to %+v, %v", round, info.State, err)
		}
		if err := makeOrder(ctx, c.leader, n, inBlock); err != nil {
			t.Fatalf("round %d: made ORDER: %v", round, err)
		}
		wg.Wait()
		for range 20 {
			_, v, err := c.leader.Nextval(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if v <= high[0] || v <= high[1] {
				t.Fatalf("round %d: ORDER value %d at or below a node's %v", round, v, high)
			}
			record("the leader", v)
		}
		no := false
		if err := c.leader.Alter(ctx, n, seqmath.Spec{Order: &no}); err != nil {
			t.Fatal(err)
		}
	}
}

// hookSwapper runs after once, after the first Swap that writes nothing
// (a read: where the nodes' blocks end).
type hookSwapper struct {
	storage.Swapper
	after func()
}

func (h *hookSwapper) Swap(ctx context.Context, guard, key string, fn func(guard, cur storage.KV) ([]byte, error)) error {
	err := h.Swapper.Swap(ctx, guard, key, fn)
	if err != nil && h.after != nil {
		after := h.after
		h.after = nil
		after()
	}
	return err
}

// TestNoOrderFreeze: a node asks for a block between the leader's read
// of where the blocks end and its write making the sequence ORDER. The
// leader froze the sequence before reading: the node's reservation waits
// and then fails (40001: the sequence is ORDER now), and the leader's
// ORDER values start right above the blocks reserved before, the rest of
// which their node still hands out.
func TestNoOrderFreeze(t *testing.T) {
	ctx := context.Background()
	for _, inBlock := range []bool{false, true} {
		c := newNoorderCluster(t)
		st, err := etcdstore.Open(etcdstore.Config{Client: c.cl.Client(t), Prefix: c.prefix})
		if err != nil {
			t.Fatal(err)
		}
		hook := &hookSwapper{Swapper: st}
		c.leader.Close()
		lst, _ := etcdstore.Open(etcdstore.Config{Client: c.cl.Client(t), Prefix: c.prefix})
		c.leader, err = engine.Open(ctx, engine.Config{Store: lst, MaxBatch: etcdstore.MaxOps, Ranges: engine.NewRanges(hook, time.Second, nil)})
		if err != nil {
			t.Fatal(err)
		}
		n, _ := engine.NewName("public", "ids")
		noorder(t, c.leader, n, 100, nil)
		holder := c.snapshot(c.ranges()) // holds the block 1..100
		if _, v, err := holder.Nextval(ctx, n); err != nil || v != 1 {
			t.Fatalf("the first node's first value: %d, %v", v, err)
		}
		late := c.snapshot(c.ranges())
		lateErr := make(chan error, 1)
		hook.after = func() {
			go func() {
				_, v, err := late.Nextval(ctx, n)
				if err == nil {
					err = fmt.Errorf("got %d", v)
				}
				lateErr <- err
			}()
			time.Sleep(100 * time.Millisecond) // it asks while the leader is between read and write
		}
		if err := makeOrder(ctx, c.leader, n, inBlock); err != nil {
			t.Fatalf("made ORDER: %v", err)
		}
		if err := <-lateErr; !errors.Is(err, engine.ErrSerialization) {
			t.Fatalf("a block asked for while frozen: %v", err)
		}
		if _, v, err := c.leader.Nextval(ctx, n); err != nil || v != 101 {
			t.Fatalf("the first ORDER value: %d, %v; want 101, above the block reserved before", v, err)
		}
		if _, v, err := holder.Nextval(ctx, n); err != nil || v != 2 {
			t.Fatalf("the first node's next value: %d, %v; want 2, from its block", v, err)
		}
	}
}

// TestNoOrderCleanup: the next leader removes the range records of
// NOORDER sequences dropped before it took over, and keeps the others.
func TestNoOrderCleanup(t *testing.T) {
	ctx := context.Background()
	c := newNoorderCluster(t)
	gone, _ := engine.NewName("public", "gone")
	kept, _ := engine.NewName("public", "kept")
	noorder(t, c.leader, gone, 10, nil)
	noorder(t, c.leader, kept, 10, nil)
	f := c.snapshot(c.ranges())
	var ids []uint64
	for _, n := range []engine.Name{gone, kept} {
		if _, _, err := f.Nextval(ctx, n); err != nil {
			t.Fatal(err)
		}
		info, err := c.leader.Info(n)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	if err := c.leader.Drop(ctx, gone); err != nil {
		t.Fatal(err)
	}
	cli := c.cl.Client(t)
	exists := func(id uint64) bool {
		r, err := cli.Get(ctx, fmt.Sprintf("%sdata/\x00range:%x", c.prefix, id))
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Kvs) == 1
	}
	if !exists(ids[0]) || !exists(ids[1]) {
		t.Fatal("the range records are not where the test looks")
	}
	c.leader.Close()
	st, _ := etcdstore.Open(etcdstore.Config{Client: cli, Prefix: c.prefix})
	next, err := engine.Open(ctx, engine.Config{Store: st, MaxBatch: etcdstore.MaxOps, Ranges: c.ranges()})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if exists(ids[0]) || !exists(ids[1]) {
		t.Fatalf("after the takeover: the dropped sequence's range record %v, the kept one's %v", exists(ids[0]), exists(ids[1]))
	}
}

// makeOrder is ALTER SEQUENCE n ORDER on the leader, alone or in a
// transaction block.
func makeOrder(ctx context.Context, leader *engine.Engine, n engine.Name, inBlock bool) error {
	yes := true
	if !inBlock {
		return leader.Alter(ctx, n, seqmath.Spec{Order: &yes})
	}
	tx := leader.Begin()
	if err := tx.Alter(ctx, n, seqmath.Spec{Order: &yes}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit(ctx)
}

var noorderPrefixes atomic.Int64

// fresh is a key prefix no other test of this run uses.
func fresh() string { return fmt.Sprintf("/seqd-noorder-test-%d/", noorderPrefixes.Add(1)) }

// TestNoOrderAhead: a node reserves its next block in the background once
// its block is half used, and goes on from it when the block runs out
// without reserving again then; the values stay consecutive on one
// node, and a node restarted after that starts above both blocks.
func TestNoOrderAhead(t *testing.T) {
	ctx := context.Background()
	c := newNoorderCluster(t)
	n, _ := engine.NewName("public", "ahead")
	noorder(t, c.leader, n, 10, nil)
	r := c.ranges()
	node := c.snapshot(r)
	take := func(k int, from int64) {
		t.Helper()
		for i := range int64(k) {
			_, v, err := node.Nextval(ctx, n)
			if err != nil || v != from+i {
				t.Fatalf("value %d: %d, %v", from+i, v, err)
			}
		}
	}
	take(5, 1) // half the block: the next one is reserved ahead
	for deadline := time.Now().Add(10 * time.Second); r.Stats().Blocks < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no block reserved ahead")
		}
	}
	take(6, 6) // the first block's rest, then the one reserved ahead
	if b := r.Stats().Blocks; b != 2 {
		t.Fatalf("%d blocks reserved, want 2 (none when the first ran out)", b)
	}
	_, v, err := c.snapshot(c.ranges()).Nextval(ctx, n)
	if err != nil || v <= 20 {
		t.Fatalf("a restarted node: %d, %v; want above 20", v, err)
	}
}
