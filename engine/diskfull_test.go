package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
)

// fullFS is a file system that says it has no room while full is set.
type fullFS struct {
	vfs.FS
	full *atomic.Bool
}

func (f fullFS) GetDiskUsage(string) (vfs.DiskUsage, error) {
	if f.full.Load() {
		return vfs.DiskUsage{TotalBytes: 1 << 30, UsedBytes: 1 << 30}, nil
	}
	return vfs.DiskUsage{TotalBytes: 1 << 30, AvailBytes: 1 << 30}, nil
}

// TestDiskFull: while the store's file system is below its reserve,
// writes are refused (ErrStorage wrapping storage.ErrDiskFull) with
// nothing written, and every kind of write succeeds again once space is
// back, without a restart: nextval under load at several caches, setval,
// CREATE, a transaction. No value is handed out twice, before or after,
// nor after a crash.
func TestDiskFull(t *testing.T) {
	mem := vfs.NewCrashableMem()
	full := &atomic.Bool{}
	e := openFS(t, fullFS{mem, full})
	h := newHistory()
	var names []Name
	for i, c := range []int64{1, 50, 100000} {
		n := mustName(t, fmt.Sprintf("f%d", i))
		names = append(names, n)
		if _, err := e.Create(ctx, n, seqmath.Spec{Cache: &c}, false); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			h.add(t, n.key, seqmath.Range{First: next(t, e, n), Count: 1, Increment: 1})
		}
	}
	isFull := func(err error) bool { return errors.Is(err, ErrStorage) && errors.Is(err, storage.ErrDiskFull) }

	full.Store(true)
	var wg sync.WaitGroup
	var refused atomic.Int64
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				_, v, err := e.Nextval(ctx, n)
				if err != nil {
					if !isFull(err) {
						t.Errorf("%s: %v, want a full store's error", n, err)
						return
					}
					refused.Add(1)
					continue
				}
				h.add(t, n.key, seqmath.Range{First: v, Count: 1, Increment: 1})
			}
		}()
	}
	wg.Wait()
	if refused.Load() == 0 {
		t.Fatal("no nextval refused on a full store")
	}
	// Not ready while full (/readyz answers 503), ready again after.
	if err := e.Healthy(); err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("Healthy on a full store: %v", err)
	}
	if _, err := e.Setval(ctx, names[0], 5000, true); !isFull(err) {
		t.Fatalf("setval on a full store: %v", err)
	}
	late := mustName(t, "late")
	if _, err := e.Create(ctx, late, seqmath.Spec{}, false); !isFull(err) {
		t.Fatalf("create on a full store: %v", err)
	}
	tx := e.Begin()
	if _, err := tx.CreateWith(ctx, mustName(t, "in_txn"), seqmath.Spec{}, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); !isFull(err) {
		t.Fatalf("commit on a full store: %v", err)
	}
	// Locking a sequence in a transaction writes its mark back first.
	tx = e.Begin()
	if _, err := tx.Setval(ctx, names[1], 1_000_000, true); !isFull(err) {
		t.Fatalf("setval in a transaction on a full store: %v", err)
	}
	tx.Rollback()

	// Space is back: everything goes on, with no restart.
	full.Store(false)
	for _, n := range names {
		for range 500 {
			h.add(t, n.key, seqmath.Range{First: next(t, e, n), Count: 1, Increment: 1})
		}
	}
	if err := e.Healthy(); err != nil {
		t.Fatalf("Healthy once space is back: %v", err)
	}
	if _, err := e.Setval(ctx, names[0], h.max[names[0].key]+1000, true); err != nil {
		t.Fatalf("setval once space is back: %v", err)
	}
	h.add(t, names[0].key, seqmath.Range{First: h.max[names[0].key] + 1000, Count: 1, Increment: 1})
	if _, err := e.Create(ctx, late, seqmath.Spec{}, false); err != nil {
		t.Fatalf("create once space is back (the refused one left nothing behind): %v", err)
	}
	tx = e.Begin()
	if _, err := tx.CreateWith(ctx, mustName(t, "in_txn"), seqmath.Spec{}, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit once space is back: %v", err)
	}
	// And what was handed out stays handed out across a crash.
	quiesce(e)
	e2 := openFS(t, mem.CrashClone(vfs.CrashCloneCfg{}))
	defer e2.Close()
	for _, n := range names {
		if v := next(t, e2, n); v <= h.max[n.key] {
			t.Fatalf("%s: resumed at %d, but %d was handed out", n, v, h.max[n.key])
		}
	}
}
