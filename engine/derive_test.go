package engine

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/memstore"
)

// TestDerive: a read-only engine kept current as a cluster follower
// keeps its snapshot (Follow takes what it can in place; from the first
// change it does not take, the changes wait, and Derive applies them to
// a copy) serves what a read-only engine reading the same store afresh
// would, after every kind of change to the catalog; and promoted at the
// end, what an owner opening the store would.
func TestDerive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 29))
	st := memstore.New()
	lead := func() bool { return true }
	a, err := Open(ctx, Config{Store: st, Leadership: lead})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { a.Close() }()
	if _, err := a.CreateSchema(ctx, "app", "", false); err != nil {
		t.Fatal(err)
	}
	name := func(i int) Name {
		schema := "public"
		if i%4 == 3 {
			schema = "app"
		}
		n, err := NewName(schema, fmt.Sprintf("s%d", i))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	live := map[int]bool{}
	for i := range 20 {
		if _, err := a.Create(ctx, name(i), seqmath.Spec{Cache: i64(int64(1 + 10*(i%3)))}, false); err != nil {
			t.Fatal(err)
		}
		live[i] = true
	}
	quiesce(a)
	revs := map[string]storage.Rev{}
	load := func() {
		clear(revs)
		if err := st.Load(ctx, func(kv storage.KV) error { revs[kv.Key] = kv.Rev; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	load()
	snap, err := Open(ctx, Config{Store: st, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	// changes: those snap did not take in place, in the order a watch
	// delivers them (by revision; deletes, whose revisions a listing
	// does not show, first: no key is both deleted and written in one
	// round, as the store ends up).
	var changes []storage.KV
	followed, derived := 0, 0
	watch := func() {
		before := maps.Clone(revs)
		load()
		var round []storage.KV
		for k := range before {
			if _, ok := revs[k]; !ok {
				round = append(round, storage.KV{Key: k})
			}
		}
		var puts []storage.KV
		if err := st.Load(ctx, func(kv storage.KV) error {
			if before[kv.Key] != kv.Rev {
				puts = append(puts, storage.KV{Key: kv.Key, Value: slices.Clone(kv.Value), Rev: kv.Rev})
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(puts, func(x, y storage.KV) int { return int(x.Rev - y.Rev) })
		for _, kv := range append(round, puts...) {
			if len(changes) == 0 && snap.Follow(kv) {
				followed++
				continue
			}
			changes = append(changes, kv)
		}
	}
	fresh := func() *Engine {
		f, err := Open(ctx, Config{Store: st, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	use := func() { // nextval moves marks: Follow's
		for i := range live {
			for range 1 + rng.IntN(15) {
				next(t, a, name(i))
			}
		}
	}
	ops := []func(){use, use, use, use,
		func() {
			i := 20 + rng.IntN(40)
			if _, err := a.Create(ctx, name(i), seqmath.Spec{Cache: i64(int64(1 + rng.IntN(20)))}, true); err != nil {
				t.Fatal(err)
			}
			live[i] = true
		},
		func() {
			for i := range live {
				if err := a.Drop(ctx, name(i)); err != nil {
					t.Fatal(err)
				}
				delete(live, i)
				return
			}
		},
		func() {
			for i := range live {
				if err := a.Alter(ctx, name(i), seqmath.Spec{Increment: i64(int64(1 + rng.IntN(5)))}); err != nil {
					t.Fatal(err)
				}
				return
			}
		},
		func() {
			for i := range live {
				j := 100 + rng.IntN(1000)
				if live[j] || (i%4 == 3) != (j%4 == 3) {
					return
				}
				if err := a.Rename(ctx, name(i), name(j)); err != nil {
					t.Fatal(err)
				}
				delete(live, i)
				live[j] = true
				return
			}
		},
		func() {
			for i := range live {
				if _, err := a.Setval(ctx, name(i), int64(1000+rng.IntN(1000)), rng.IntN(2) == 0); err != nil {
					t.Fatal(err)
				}
				return
			}
		},
		func() {
			for i := range live {
				text := ""
				if rng.IntN(2) == 0 {
					text = fmt.Sprintf("comment %d", rng.IntN(100))
				}
				if err := a.SetComment(ctx, name(i), text); err != nil {
					t.Fatal(err)
				}
				return
			}
		},
		func() {
			for i := range live {
				if err := a.UpdateACL(ctx, name(i), func(acl *ACL) error {
					switch rng.IntN(3) {
					case 0:
						acl.Grants = map[string]Privs{"app": PrivUsage}
					case 1:
						acl.Grants = nil
					default:
						acl.Owner = fmt.Sprintf("owner%d", rng.IntN(3))
						acl.Grants = nil
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				return
			}
		},
		func() {
			r := fmt.Sprintf("role%d", rng.IntN(4))
			if _, ok := a.Role(r); ok {
				if err := a.DropRole(ctx, r); err != nil {
					t.Fatal(err)
				}
			} else if err := a.PutRole(ctx, Role{Name: r, Login: rng.IntN(2) == 0}, true); err != nil {
				t.Fatal(err)
			}
		},
		func() {
			s := fmt.Sprintf("extra%d", rng.IntN(3))
			if a.SchemaExists(s) {
				if _, err := a.DropSchema(ctx, s, false); err != nil {
					t.Fatal(err)
				}
			} else if _, err := a.CreateSchema(ctx, s, "", false); err != nil {
				t.Fatal(err)
			}
		},
		func() {
			if err := a.SetSchemaComment(ctx, "app", fmt.Sprintf("app %d", rng.IntN(100))); err != nil {
				t.Fatal(err)
			}
		},
		func() {
			if err := a.UpdateDatabaseACL(ctx, func(acl *ACL) error {
				acl.Grants = map[string]Privs{fmt.Sprintf("role%d", rng.IntN(4)): PrivCreate}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		},
	}
	for round := range 600 {
		for range 1 + rng.IntN(3) {
			ops[rng.IntN(len(ops))]()
		}
		quiesce(a)
		watch()
		if len(changes) == 0 || rng.IntN(3) > 0 {
			continue
		}
		before := dumpEngine(t, snap)
		d, err := snap.Derive(ctx, Config{Store: st, ReadOnly: true}, changes)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		f := fresh()
		if got, want := dumpEngine(t, d), dumpEngine(t, f); got != want {
			t.Fatalf("round %d: derived from %d changes:\n%s\nread afresh:\n%s", round, len(changes), got, want)
		}
		if got, want := dumpKept(d), dumpKept(f); got != want {
			t.Fatalf("round %d: derived from %d changes, it keeps %s; read afresh, %s", round, len(changes), got, want)
		}
		f.Close()
		if dumpEngine(t, snap) != before {
			t.Fatalf("round %d: the engine derived from changed", round)
		}
		snap.Close()
		snap, changes = d, nil
		derived++
	}
	if followed < 100 || derived < 50 {
		t.Fatalf("followed %d changes in place and derived %d engines: too few to tell", followed, derived)
	}
	// The owner dies; the last derived engine, with the changes since,
	// promoted is what an owner reading the store afresh is.
	if len(changes) > 0 {
		d, err := snap.Derive(ctx, Config{Store: st, ReadOnly: true}, changes)
		if err != nil {
			t.Fatal(err)
		}
		snap = d
	}
	f, err := Open(ctx, Config{Store: st.Clone(), Leadership: lead})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Promote(ctx, Config{Store: st, Leadership: lead}, snap, func(context.Context) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got, want := dumpEngine(t, p), dumpEngine(t, f); got != want {
		t.Fatalf("promoted:\n%s\nopened afresh:\n%s", got, want)
	}
	if p.Stats().Burned != f.Stats().Burned || p.Stats().Burned.Failover == 0 {
		t.Fatalf("burned: promoted %+v, opened afresh %+v", p.Stats().Burned, f.Stats().Burned)
	}
	for i := range live {
		if v, w := next(t, p, name(i)), next(t, f, name(i)); v != w {
			t.Fatalf("%s: promoted %d, opened afresh %d", name(i).Rel(), v, w)
		}
	}
}

// dumpKept is what a read-only engine keeps that dumpEngine does not
// show: records of sequences gone would be kept for nothing, positions
// below marks matter to a promotion.
func dumpKept(e *Engine) string {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	owners := slices.Sorted(maps.Keys(e.ownerIdx))
	known := map[string]seqmath.State{}
	for s, k := range e.known {
		known[s.key] = k
	}
	return fmt.Sprintf("%d sequences, %d comments, %d ACLs, %d owner-only ACLs of %v, %d roles, %d schemas, known %v, catalog %d, running %d, epoch %d at %d",
		e.seqs.len(), len(e.comments), len(e.acls), len(e.ownerOnly), owners, len(e.roles), len(e.schemas), known, e.catalogRev, e.runningRev, e.epoch, e.epochRev)
}

// TestDeriveOlderChange: a change older than the record a follower took
// in place since (a large commit's op, put in at the revision the
// commit was made, for a record its writer wrote again as it applied
// it) leaves the newer record as it is; a sequence the engine does not
// hold is still made.
func TestDeriveOlderChange(t *testing.T) {
	st := memstore.New()
	a, err := Open(ctx, Config{Store: st, Leadership: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := NewName("public", "s")
	if _, err := a.Create(ctx, s, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	quiesce(a)
	records := func() map[string]storage.KV {
		m := map[string]storage.KV{}
		if err := st.Load(ctx, func(kv storage.KV) error {
			kv.Value = slices.Clone(kv.Value)
			m[kv.Key] = kv
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	old := records()
	snap, err := Open(ctx, Config{Store: st, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for range 5 {
		next(t, a, s)
	}
	quiesce(a)
	key := s.key
	if !snap.Follow(records()[key]) {
		t.Fatal("the follower did not take the mark's move")
	}
	u, _ := NewName("public", "u")
	if _, err := a.Create(ctx, u, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	quiesce(a)
	newer := records()
	var changes []storage.KV
	for k, kv := range newer {
		if _, ok := old[k]; !ok {
			changes = append(changes, kv)
		}
	}
	changes = append(changes, old[key])
	d, err := snap.Derive(ctx, Config{Store: st, ReadOnly: true}, changes)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	info, err := d.Info(s)
	if err != nil || info.State.Last != 5 {
		t.Fatalf("s after an older change: %+v, %v (want its last value 5)", info.State, err)
	}
	if _, err := d.Info(u); err != nil {
		t.Fatalf("u: %v", err)
	}
}
