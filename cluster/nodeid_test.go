package cluster

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/timeid"
)

// TestNodeIDs: three nodes take node ids 0, 1 and 2, all there are (a
// layout of two node bits, ids 0..2 offered): a fourth finds none free. Each
// issues time-ordered ids on its id; the holder of id 0 loses its lease,
// stops issuing, and can no longer move the id's mark; a new node takes
// id 0 on a clock a second behind, and its ids start above every id the
// first holder issued (invariants 1 and 2 of nodeid.go).
func TestNodeIDs(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	prefix := freshPrefix()
	ctx := context.Background()
	layout := timeid.Layout{TimeBits: 41, NodeBits: 2, CounterBits: 12}
	type holder struct {
		l  *Lease
		id *NodeID
		x  *timeid.Generator
	}
	take := func(name string, skew time.Duration) (*holder, error) {
		l, err := Grant(ctx, cli, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		id, err := AcquireNodeID(ctx, cli, prefix, name, 2, l)
		if err != nil {
			return nil, err
		}
		x, err := timeid.NewGenerator(timeid.Config{Layout: layout, Node: id.ID}, func() time.Time { return time.Now().Add(-skew) }, id, id.Mark())
		if err != nil {
			t.Fatal(err)
		}
		x.Guard(id.Check)
		t.Cleanup(x.Close)
		return &holder{l: l, id: id, x: x}, nil
	}
	var hs []*holder
	for i := range 3 {
		h, err := take(fmt.Sprintf("node%d", i), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.id.ID != int64(i) || h.id.Mark() != -1 {
			t.Fatalf("node%d took id %d (mark %d), want %d (none)", i, h.id.ID, h.id.Mark(), i)
		}
		hs = append(hs, h)
	}
	if _, err := take("node3", 0); !errors.Is(err, ErrNoNodeID) {
		t.Fatalf("a fourth node of three ids: %v", err)
	}
	seen := map[int64]string{}
	issue := func(name string, x *timeid.Generator, n int) (last int64) {
		for range n {
			id, _, err := x.Take(ctx, 1)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if prev, ok := seen[id]; ok {
				t.Fatalf("id %d issued by %s and by %s", id, prev, name)
			}
			seen[id] = name
			last = id
		}
		return last
	}
	for i, h := range hs {
		issue(fmt.Sprintf("node%d", i), h.x, 5000)
	}
	firstLast := issue("node0", hs[0].x, 1)

	// node0's lease ends (revoked: as etcd expires a lease that lapsed).
	if err := hs[0].l.Revoke(ctx); err != nil {
		t.Fatal(err)
	}
	hs[0].l.expiry.Store(0) // and by its own clock, as a lapse is seen
	if _, _, err := hs[0].x.Take(ctx, 1); !errors.Is(err, ErrNodeIDLost) {
		t.Fatalf("node0 after its lease ended: %v", err)
	}
	if err := hs[0].id.Save(ctx, 1<<40); !errors.Is(err, ErrNodeIDLost) {
		t.Fatalf("node0 saving the id's mark after its lease ended: %v", err)
	}
	h, err := take("node4", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if h.id.ID != 0 || h.id.Mark() < 0 {
		t.Fatalf("node4 took id %d with mark %d, want id 0 and node0's mark", h.id.ID, h.id.Mark())
	}
	if first := issue("node4", h.x, 1); first <= firstLast {
		t.Fatalf("node4's first id %d is not above node0's last, %d", first, firstLast)
	}
	issue("node4", h.x, 5000)

	// A save below the mark leaves it as it is.
	_, markKey := nodeIDKeys(prefix, 0)
	before, err := cli.Get(ctx, markKey)
	if err != nil || len(before.Kvs) != 1 {
		t.Fatalf("id 0's mark: %v %v", before, err)
	}
	if err := h.id.Save(ctx, 5); err != nil {
		t.Fatal(err)
	}
	after, err := cli.Get(ctx, markKey)
	if err != nil || len(after.Kvs) != 1 || string(after.Kvs[0].Value) != string(before.Kvs[0].Value) {
		t.Fatalf("a save of 5 moved id 0's mark from %x: %v %v", before.Kvs[0].Value, after, err)
	}
}
