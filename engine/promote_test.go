package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/memstore"
)

// dumpEngine is what an engine serves, for comparing two: every
// sequence's definition, position, window and values burned, comments and
// privileges, schemas with theirs, roles and the database's privileges.
func dumpEngine(t *testing.T, e *Engine) string {
	t.Helper()
	out := ""
	for _, i := range e.List() {
		c, err := e.Comment(i.Name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := e.ACL(i.Name)
		if err != nil {
			t.Fatal(err)
		}
		out += fmt.Sprintf("%s %+v %q %v\n", i.Name.key, i, c, a)
	}
	for _, s := range e.Schemas() {
		a, err := e.SchemaACL(s)
		if err != nil {
			t.Fatal(err)
		}
		out += fmt.Sprintf("schema %s %v\n", s, a)
	}
	for _, r := range e.Roles() {
		out += fmt.Sprintf("role %+v\n", r)
	}
	return out + fmt.Sprintf("database %v\n", e.DatabaseACL())
}

// TestPromote: a read-only engine kept current by Follow (as a cluster
// follower's snapshot is by its watch) promoted to the store's owner
// serves what an owner opening the same store afresh would: the same
// catalog, positions past every value the last owner handed out, the
// same values burned by the failover (none after a clean close); it
// writes, and the last owner is fenced off. A snapshot not known current
// is refused (ErrStale).
func TestPromote(t *testing.T) {
	for _, clean := range []bool{false, true} {
		t.Run(fmt.Sprintf("clean=%v", clean), func(t *testing.T) { testPromote(t, clean) })
	}
}

func testPromote(t *testing.T, clean bool) {
	st := memstore.New()
	lead := func() bool { return true }
	a, names := openPromoteOwner(t, st, lead)
	last := map[Name]int64{}
	takeValues(t, a, names, last, 3)
	revs := storeRevs(t, st)
	snap, err := Open(ctx, Config{Store: st, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	// The owner goes on; the snapshot follows its marks.
	takeValues(t, a, names, last, 25)
	if clean {
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		st.Reopen()
	}
	followStore(t, st, snap, revs)
	// The owner dies without closing; a copy of the store is what a
	// full read would see.
	fresh, err := Open(ctx, Config{Store: st.Clone(), Leadership: lead})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()

	p := promoteAsFresh(t, Config{Store: st, Leadership: lead}, snap, fresh, clean)
	defer p.Close()
	for _, n := range names {
		v, w := next(t, p, n), next(t, fresh, n)
		if v != w || v <= last[n] {
			t.Fatalf("%s: the last owner handed out %d; promoted %d, opened afresh %d", n.Rel(), last[n], v, w)
		}
	}
	checkPromotedWrites(t, p, snap, a, names)
	if !clean {
		a.Close()
	}
	if !reflect.DeepEqual(p.Schemas(), fresh.Schemas()) {
		t.Fatal("schemas differ")
	}
}

// openPromoteOwner opens the store's owner with sequences s0..s29, a
// schema app, a comment on s1, a grant on s2 and a role app.
func openPromoteOwner(t *testing.T, st storage.Store, lead func() bool) (*Engine, []Name) {
	t.Helper()
	a, err := Open(ctx, Config{Store: st, Leadership: lead})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]Name, 30)
	for i := range names {
		names[i] = mustName(t, fmt.Sprintf("s%d", i))
		if _, err := a.Create(ctx, names[i], seqmath.Spec{Cache: i64(int64(1 + 10*(i%3)))}, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.CreateSchema(ctx, "app", "", false); err != nil {
		t.Fatal(err)
	}
	if err := a.SetComment(ctx, names[1], "one"); err != nil {
		t.Fatal(err)
	}
	if err := a.UpdateACL(ctx, names[2], func(acl *ACL) error {
		acl.Grants = map[string]Privs{"app": PrivUsage}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := a.PutRole(ctx, Role{Name: "app", Login: true}, true); err != nil {
		t.Fatal(err)
	}
	return a, names
}

// takeValues takes k values of every sequence from a, noting the last
// of each in last, and waits for a's marks to be written.
func takeValues(t *testing.T, a *Engine, names []Name, last map[Name]int64, k int) {
	t.Helper()
	for _, n := range names {
		for range k {
			last[n] = next(t, a, n)
		}
	}
	quiesce(a)
}

// storeRevs is every key's revision in st.
func storeRevs(t *testing.T, st storage.Store) map[string]storage.Rev {
	t.Helper()
	revs := map[string]storage.Rev{}
	if err := st.Load(ctx, func(kv storage.KV) error { revs[kv.Key] = kv.Rev; return nil }); err != nil {
		t.Fatal(err)
	}
	return revs
}

// followStore hands snap, by Follow, every record of st written and
// every key deleted since revs, failing if it does not take one or if
// there was none.
func followStore(t *testing.T, st storage.Store, snap *Engine, revs map[string]storage.Rev) {
	t.Helper()
	followed := 0
	now := map[string]bool{}
	if err := st.Load(ctx, func(kv storage.KV) error {
		now[kv.Key] = true
		if kv.Rev == revs[kv.Key] {
			return nil
		}
		if !snap.Follow(kv) {
			return fmt.Errorf("the snapshot did not take %s", kv.Key)
		}
		followed++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for k := range revs {
		if !now[k] && !snap.Follow(storage.KV{Key: k}) {
			t.Fatalf("the snapshot did not take the delete of %s", k)
		}
	}
	if followed == 0 {
		t.Fatal("the owner moved no mark")
	}
}

// promoteAsFresh promotes snap, checking that it is refused while not
// known current, and that promoted it serves what fresh does and burns
// what fresh burned: values by the failover unless the last owner
// closed clean.
func promoteAsFresh(t *testing.T, cfg Config, snap, fresh *Engine, clean bool) *Engine {
	t.Helper()
	if _, err := Promote(ctx, cfg, snap, func(context.Context) bool { return false }); !errors.Is(err, ErrStale) {
		t.Fatalf("promoting a snapshot not known current: %v", err)
	}
	p, err := Promote(ctx, cfg, snap, func(context.Context) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dumpEngine(t, p), dumpEngine(t, fresh); got != want {
		p.Close()
		t.Fatalf("promoted:\n%s\nopened afresh:\n%s", got, want)
	}
	if p.Stats().Burned != fresh.Stats().Burned || clean != (p.Stats().Burned.Failover == 0) {
		p.Close()
		t.Fatalf("burned: promoted %+v, opened afresh %+v", p.Stats().Burned, fresh.Stats().Burned)
	}
	return p
}

// checkPromotedWrites: the promoted engine p writes over the records it
// took from the snapshot, and the snapshot is as it was; the last owner
// a is fenced off.
func checkPromotedWrites(t *testing.T, p, snap, a *Engine, names []Name) {
	t.Helper()
	if err := p.Alter(ctx, names[0], seqmath.Spec{Increment: i64(5)}); err != nil {
		t.Fatalf("ALTER on the promoted engine: %v", err)
	}
	if _, err := p.Create(ctx, mustName(t, "later"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	if i, err := snap.Info(names[0]); err != nil || i.Options.Increment != 1 {
		t.Fatalf("the snapshot after the promoted engine's ALTER: %+v, %v", i.Options, err)
	}
	if _, err := snap.Info(mustName(t, "later")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the snapshot shows a sequence created after: %v", err)
	}
	if _, err := a.Setval(ctx, names[3], 1000, true); err == nil {
		t.Fatal("the last owner still writes")
	}
}
