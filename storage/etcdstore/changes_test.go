package etcdstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/storage"
)

// watchUpTo collects the changes to the records under s's data prefix
// after revision after up to revision rev, as a watch delivers them
// (deletes with a nil value), once etcd confirms it delivered every one.
func watchUpTo(t *testing.T, cli *clientv3.Client, s *Store, after, rev int64) []storage.KV {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// From after itself, its events passed over: etcd confirms progress
	// only to a watch that has caught up, which one from a revision
	// still to come has not.
	ch := cli.Watch(ctx, s.DataPrefix(), clientv3.WithPrefix(), clientv3.WithRev(after))
	ask := time.NewTicker(50 * time.Millisecond)
	defer ask.Stop()
	var out []storage.KV
	for {
		select {
		case r, ok := <-ch:
			if !ok || r.Err() != nil {
				t.Fatalf("the watch ended: %v", r.Err())
			}
			for _, ev := range r.Events {
				if ev.Kv.ModRevision <= after || ev.Kv.ModRevision > rev {
					continue
				}
				kv := storage.KV{Key: strings.TrimPrefix(string(ev.Kv.Key), s.DataPrefix()), Rev: storage.Rev(ev.Kv.ModRevision)}
				if ev.Type == clientv3.EventTypePut {
					kv.Value = ev.Kv.Value
				}
				out = append(out, kv)
			}
			if r.IsProgressNotify() && r.Header.Revision >= rev {
				return out
			}
		case <-ask.C:
			if err := cli.RequestProgress(ctx); err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatal("etcd confirmed no progress")
		}
	}
}

// view is a reader's records: key -> value and revision.
type view map[string]storage.KV

func loadView(t *testing.T, s *Store) view {
	t.Helper()
	v := view{}
	if err := s.Load(context.Background(), func(kv storage.KV) error {
		kv.Value = slices.Clone(kv.Value)
		v[kv.Key] = kv
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return v
}

// apply makes a change as a follower's engine does: a record newer than
// the change (one it took as it came) stays.
func (v view) apply(kv storage.KV) {
	if kv.Value == nil {
		delete(v, kv.Key)
		return
	}
	if old, ok := v[kv.Key]; ok && old.Rev > kv.Rev {
		return
	}
	v[kv.Key] = kv
}

func (v view) String() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(v)) {
		fmt.Fprintf(&b, "%s=%.12s@%d ", k, v[k].Value, v[k].Rev)
	}
	return b.String()
}

// TestChangesAt: a reader that read the store at one revision and
// applies what a watch delivered since, through ChangesAt, sees the
// store exactly as a read at a later revision does (each record's
// value and revision), wherever the writer of a large commit stopped:
// before it was made (nothing), once it was made with none, some or
// all of its records written (all of it, at the revision it was made
// for the records still to be written), and after it finished. So does
// one that took the first changes as they came (a follower's marks),
// and one that read the store after the commit was made, before or
// after the next owner finished applying it.
func TestChangesAt(t *testing.T) {
	ctx := context.Background()
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	const n = 600
	for _, tc := range []struct {
		step    string // where the writer stops; "": it does not
		at      int
		inPlace int  // the first changes the reader takes as they come
		late    bool // the reader reads after the writer stopped
	}{
		{"stage", 1, 0, false},
		{"decide", 1, 0, false},
		{"apply", 1, 0, false},
		{"apply", 3, 0, false},
		{"apply", 3, 40, false},
		{"apply", 5, 0, false}, // every record written, the pending key not yet deleted
		{"", 0, 0, false},
		{"", 0, 130, false},
		{"apply", 2, 0, true},
	} {
		t.Run(fmt.Sprintf("%s%d-%d-%v", tc.step, tc.at, tc.inPlace, tc.late), func(t *testing.T) {
			open := opener(t, cli)
			a, reader := open("a"), open("reader")
			tok, err := a.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Records the large commit writes over and deletes.
			var before []storage.Op
			for i := range 100 {
				before = append(before, storage.Op{Key: fmt.Sprintf("s%05d", i*3), Value: []byte("u")})
			}
			before = append(before, storage.Op{Key: "gone", Value: []byte("g")}, storage.Op{Key: "kept", Value: []byte("k")})
			if _, err := a.Commit(ctx, tok, before); err != nil {
				t.Fatal(err)
			}
			revs := map[string]storage.Rev{}
			for k, kv := range loadView(t, a) {
				revs[k] = kv.Rev
			}
			ops := append(bigCommit(n, "v"), storage.Op{Key: "gone", Expect: revs["gone"]})
			for i := range ops {
				if ops[i].Expect == 0 {
					ops[i].Expect = revs[ops[i].Key]
				}
			}
			base := loadView(t, reader)
			after := reader.Loaded()
			stopAt(a, tc.step, tc.at)
			if _, err := a.Commit(ctx, tok, ops); (err != nil) != (tc.step != "") {
				t.Fatalf("the large commit: %v", err)
			}
			if tc.late {
				base, after = loadView(t, reader), reader.Loaded()
			}
			check := func(when string) {
				t.Helper()
				g, err := cli.Get(ctx, "/elsewhere")
				if err != nil {
					t.Fatal(err)
				}
				rev := g.Header.Revision
				got := maps.Clone(base)
				var kept []storage.KV
				taken := 0
				for _, kv := range watchUpTo(t, cli, reader, after, rev) {
					if len(kept) == 0 && taken < tc.inPlace {
						taken++
						got.apply(kv)
						continue
					}
					kept = append(kept, kv)
				}
				changes, err := reader.ChangesAt(ctx, kept, after, rev)
				if err != nil {
					t.Fatal(err)
				}
				for _, kv := range changes {
					got.apply(kv)
				}
				want := loadView(t, open("fresh"))
				if got.String() != want.String() {
					t.Fatalf("%s: through the changes:\n%v\nread at %d:\n%v", when, got, rev, want)
				}
				if made := tc.step == "" || tc.step != "stage"; len(want) != len(before)-1+n-100 && made || len(want) != len(before) && !made {
					t.Fatalf("%s: %d records read (made: %v)", when, len(want), made)
				}
			}
			check("stopped")
			b := open("b")
			if _, err := b.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			check("the next owner finished it")
		})
	}
}
