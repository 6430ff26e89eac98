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
	r := newDeriveRun(t)
	ops := r.ops()
	for round := range 600 {
		for range 1 + r.rng.IntN(3) {
			ops[r.rng.IntN(len(ops))]()
		}
		quiesce(r.a)
		r.watch()
		if len(r.changes) == 0 || r.rng.IntN(3) > 0 {
			continue
		}
		r.deriveAndCompare(round)
	}
	if r.followed < 100 || r.derived < 50 {
		t.Fatalf("followed %d changes in place and derived %d engines: too few to tell", r.followed, r.derived)
	}
	r.promoteAndCompare()
}

// deriveRun is one run of TestDerive: an owner a changing the catalog at
// random, and a follower's snapshot snap with the changes it has not
// taken in place. Not safe for concurrent use.
type deriveRun struct {
	t    *testing.T
	rng  *rand.Rand
	st   *memstore.Store
	lead func() bool
	a    *Engine
	// live holds the numbers of the sequences that exist (see name).
	live map[int]bool
	// revs is each key's revision in the store as the last load saw it.
	revs map[string]storage.Rev
	snap *Engine
	// changes: those snap did not take in place, in the order a watch
	// delivers them (by revision; deletes, whose revisions a listing
	// does not show, first: no key is both deleted and written in one
	// round, as the store ends up).
	changes           []storage.KV
	followed, derived int
}

// newDeriveRun opens the owner with schema app and sequences s0..s19,
// and the follower's snapshot of them.
func newDeriveRun(t *testing.T) *deriveRun {
	r := &deriveRun{
		t:    t,
		rng:  rand.New(rand.NewPCG(7, 29)),
		st:   memstore.New(),
		lead: func() bool { return true },
		live: map[int]bool{},
		revs: map[string]storage.Rev{},
	}
	a, err := Open(ctx, Config{Store: r.st, Leadership: r.lead})
	if err != nil {
		t.Fatal(err)
	}
	r.a = a
	t.Cleanup(func() { a.Close() })
	if _, err := a.CreateSchema(ctx, "app", "", false); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := a.Create(ctx, r.name(i), seqmath.Spec{Cache: i64(int64(1 + 10*(i%3)))}, false); err != nil {
			t.Fatal(err)
		}
		r.live[i] = true
	}
	quiesce(a)
	r.load()
	if r.snap, err = Open(ctx, Config{Store: r.st, ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	return r
}

// name is sequence i's name: in schema app for every fourth, in public
// for the rest.
func (r *deriveRun) name(i int) Name {
	schema := "public"
	if i%4 == 3 {
		schema = "app"
	}
	n, err := NewName(schema, fmt.Sprintf("s%d", i))
	if err != nil {
		r.t.Fatal(err)
	}
	return n
}

// load reads every key's revision in the store into revs.
func (r *deriveRun) load() {
	clear(r.revs)
	if err := r.st.Load(ctx, func(kv storage.KV) error { r.revs[kv.Key] = kv.Rev; return nil }); err != nil {
		r.t.Fatal(err)
	}
}

// watch delivers what changed in the store since the last load as a
// watch would: to snap's Follow until it takes one not, then to changes.
func (r *deriveRun) watch() {
	before := maps.Clone(r.revs)
	r.load()
	var round []storage.KV
	for k := range before {
		if _, ok := r.revs[k]; !ok {
			round = append(round, storage.KV{Key: k})
		}
	}
	var puts []storage.KV
	if err := r.st.Load(ctx, func(kv storage.KV) error {
		if before[kv.Key] != kv.Rev {
			puts = append(puts, storage.KV{Key: kv.Key, Value: slices.Clone(kv.Value), Rev: kv.Rev})
		}
		return nil
	}); err != nil {
		r.t.Fatal(err)
	}
	slices.SortFunc(puts, func(x, y storage.KV) int { return int(x.Rev - y.Rev) })
	for _, kv := range append(round, puts...) {
		if len(r.changes) == 0 && r.snap.Follow(kv) {
			r.followed++
			continue
		}
		r.changes = append(r.changes, kv)
	}
}

// fresh is a read-only engine reading the store afresh.
func (r *deriveRun) fresh() *Engine {
	f, err := Open(ctx, Config{Store: r.st, ReadOnly: true})
	if err != nil {
		r.t.Fatal(err)
	}
	return f
}

// deriveAndCompare derives an engine from snap and the changes, checks
// it against one read afresh and snap against what it was, and makes it
// the new snap.
func (r *deriveRun) deriveAndCompare(round int) {
	t := r.t
	before := dumpEngine(t, r.snap)
	d, err := r.snap.Derive(ctx, Config{Store: r.st, ReadOnly: true}, r.changes)
	if err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	f := r.fresh()
	if got, want := dumpEngine(t, d), dumpEngine(t, f); got != want {
		t.Fatalf("round %d: derived from %d changes:\n%s\nread afresh:\n%s", round, len(r.changes), got, want)
	}
	if got, want := dumpKept(d), dumpKept(f); got != want {
		t.Fatalf("round %d: derived from %d changes, it keeps %s; read afresh, %s", round, len(r.changes), got, want)
	}
	f.Close()
	if dumpEngine(t, r.snap) != before {
		t.Fatalf("round %d: the engine derived from changed", round)
	}
	r.snap.Close()
	r.snap, r.changes = d, nil
	r.derived++
}

// promoteAndCompare: the owner dies; the last derived engine, with the
// changes since, promoted is what an owner reading the store afresh is.
func (r *deriveRun) promoteAndCompare() {
	t := r.t
	// A sequence holding cached values no one took, whatever the rounds
	// left: the promotion has values to count as burned.
	const held = 60
	if _, err := r.a.Create(ctx, r.name(held), seqmath.Spec{Cache: i64(10)}, false); err != nil {
		t.Fatal(err)
	}
	r.live[held] = true
	next(t, r.a, r.name(held))
	quiesce(r.a)
	r.watch()
	if len(r.changes) > 0 {
		d, err := r.snap.Derive(ctx, Config{Store: r.st, ReadOnly: true}, r.changes)
		if err != nil {
			t.Fatal(err)
		}
		r.snap = d
	}
	f, err := Open(ctx, Config{Store: r.st.Clone(), Leadership: r.lead})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	p, err := Promote(ctx, Config{Store: r.st, Leadership: r.lead}, r.snap, func(context.Context) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if got, want := dumpEngine(t, p), dumpEngine(t, f); got != want {
		t.Fatalf("promoted:\n%s\nopened afresh:\n%s", got, want)
	}
	if p.Stats().Burned != f.Stats().Burned || p.Stats().Burned.Failover == 0 {
		t.Fatalf("burned: promoted %+v, opened afresh %+v", p.Stats().Burned, f.Stats().Burned)
	}
	for i := range r.live {
		if v, w := next(t, p, r.name(i)), next(t, f, r.name(i)); v != w {
			t.Fatalf("%s: promoted %d, opened afresh %d", r.name(i).Rel(), v, w)
		}
	}
}

// ops are the owner's operations a round picks from, use four times as
// often as the rest.
func (r *deriveRun) ops() []func() {
	return []func(){r.use, r.use, r.use, r.use,
		r.create, r.drop, r.alter, r.rename, r.setval, r.comment, r.updateACL,
		r.putOrDropRole, r.createOrDropSchema, r.commentSchema, r.updateDatabaseACL}
}

// pick is one live sequence the run's generator chooses; false if there
// is none.
func (r *deriveRun) pick() (int, bool) {
	live := r.sorted()
	if len(live) == 0 {
		return 0, false
	}
	return live[r.rng.IntN(len(live))], true
}

// sorted is the live sequences' numbers in order: a run depends on its
// seed alone, never on a map's order.
func (r *deriveRun) sorted() []int {
	return slices.Sorted(maps.Keys(r.live))
}

// use takes values of every live sequence: nextval moves marks, Follow's
// part.
func (r *deriveRun) use() {
	for _, i := range r.sorted() {
		for range 1 + r.rng.IntN(15) {
			next(r.t, r.a, r.name(i))
		}
	}
}

func (r *deriveRun) create() {
	i := 20 + r.rng.IntN(40)
	if _, err := r.a.Create(ctx, r.name(i), seqmath.Spec{Cache: i64(int64(1 + r.rng.IntN(20)))}, true); err != nil {
		r.t.Fatal(err)
	}
	r.live[i] = true
}

func (r *deriveRun) drop() {
	i, ok := r.pick()
	if !ok {
		return
	}
	if err := r.a.Drop(ctx, r.name(i)); err != nil {
		r.t.Fatal(err)
	}
	delete(r.live, i)
}

func (r *deriveRun) alter() {
	i, ok := r.pick()
	if !ok {
		return
	}
	if err := r.a.Alter(ctx, r.name(i), seqmath.Spec{Increment: i64(int64(1 + r.rng.IntN(5)))}); err != nil {
		r.t.Fatal(err)
	}
}

// rename renames a live sequence to an unused number in the same schema,
// or does nothing if the number drawn does not fit.
func (r *deriveRun) rename() {
	i, ok := r.pick()
	if !ok {
		return
	}
	j := 100 + r.rng.IntN(1000)
	if r.live[j] || (i%4 == 3) != (j%4 == 3) {
		return
	}
	if err := r.a.Rename(ctx, r.name(i), r.name(j)); err != nil {
		r.t.Fatal(err)
	}
	delete(r.live, i)
	r.live[j] = true
}

func (r *deriveRun) setval() {
	i, ok := r.pick()
	if !ok {
		return
	}
	if _, err := r.a.Setval(ctx, r.name(i), int64(1000+r.rng.IntN(1000)), r.rng.IntN(2) == 0); err != nil {
		r.t.Fatal(err)
	}
}

// comment sets a live sequence's comment or, one time in two, clears it.
func (r *deriveRun) comment() {
	i, ok := r.pick()
	if !ok {
		return
	}
	text := ""
	if r.rng.IntN(2) == 0 {
		text = fmt.Sprintf("comment %d", r.rng.IntN(100))
	}
	if err := r.a.SetComment(ctx, r.name(i), text); err != nil {
		r.t.Fatal(err)
	}
}

// updateACL grants usage on a live sequence, revokes its grants, or
// gives it another owner.
func (r *deriveRun) updateACL() {
	i, ok := r.pick()
	if !ok {
		return
	}
	if err := r.a.UpdateACL(ctx, r.name(i), func(acl *ACL) error {
		switch r.rng.IntN(3) {
		case 0:
			acl.Grants = map[string]Privs{"app": PrivUsage}
		case 1:
			acl.Grants = nil
		default:
			acl.Owner = fmt.Sprintf("owner%d", r.rng.IntN(3))
			acl.Grants = nil
		}
		return nil
	}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *deriveRun) putOrDropRole() {
	role := fmt.Sprintf("role%d", r.rng.IntN(4))
	if _, ok := r.a.Role(role); ok {
		if err := r.a.DropRole(ctx, role); err != nil {
			r.t.Fatal(err)
		}
	} else if err := r.a.PutRole(ctx, Role{Name: role, Login: r.rng.IntN(2) == 0}, true); err != nil {
		r.t.Fatal(err)
	}
}

func (r *deriveRun) createOrDropSchema() {
	s := fmt.Sprintf("extra%d", r.rng.IntN(3))
	if r.a.SchemaExists(s) {
		if _, err := r.a.DropSchema(ctx, s, false); err != nil {
			r.t.Fatal(err)
		}
	} else if _, err := r.a.CreateSchema(ctx, s, "", false); err != nil {
		r.t.Fatal(err)
	}
}

func (r *deriveRun) commentSchema() {
	if err := r.a.SetSchemaComment(ctx, "app", fmt.Sprintf("app %d", r.rng.IntN(100))); err != nil {
		r.t.Fatal(err)
	}
}

func (r *deriveRun) updateDatabaseACL() {
	if err := r.a.UpdateDatabaseACL(ctx, func(acl *ACL) error {
		acl.Grants = map[string]Privs{fmt.Sprintf("role%d", r.rng.IntN(4)): PrivCreate}
		return nil
	}); err != nil {
		r.t.Fatal(err)
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
