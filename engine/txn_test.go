package engine

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/embedded"
)

// catalogState is what a test expects the store to hold: each sequence's
// increment and comment, by name.
type catalogState map[string]string

func (c catalogState) String() string {
	keys := slices.Sorted(maps.Keys(c))
	out := ""
	for _, k := range keys {
		out += k + "=" + c[k] + " "
	}
	return out
}

// observe reads an engine's catalog as a catalogState.
func observe(t testing.TB, e *Engine) catalogState {
	t.Helper()
	out := catalogState{}
	for _, i := range e.List() {
		c, err := e.Comment(i.Name)
		if err != nil {
			t.Fatal(err)
		}
		out[i.Name.key] = fmt.Sprintf("%d/%s", i.Options.Increment, c)
	}
	return out
}

// TestTxnModel runs random DDL blocks (create, alter, drop, rename,
// comment, with nextval in between), commits or rolls back each, and
// takes crash clones between blocks and while a commit is in flight.
// After recovery the store holds exactly the acknowledged commits, and an
// unacknowledged one wholly or not at all; no value is handed out twice.
func TestTxnModel(t *testing.T) {
	blocks := 300
	if testing.Short() {
		blocks = 80
	}
	rng := rand.New(rand.NewPCG(21, 22))
	fs := vfs.NewCrashableMem()
	e := openFS(t, fs)
	model := catalogState{}
	h := newHistory()
	pool := []string{"a", "b", "c", "d", "e", "f"}
	crashes, inflight := 0, 0
	for b := range blocks {
		tx := e.Begin()
		view := maps.Clone(model)
		randomBlock(t, rng, tx, view, pool, b, h)
		if got := observeTxn(t, tx); got.String() != view.String() {
			t.Fatalf("block %d: the block sees %v, want %v", b, got, view)
		}
		if got := observe(t, e); got.String() != model.String() {
			t.Fatalf("block %d: others see %v before COMMIT, want %v", b, got, model)
		}
		switch r := rng.IntN(10); {
		case r < 3:
			tx.Rollback()
		case r < 5:
			// A crash while the commit is in flight: all or nothing.
			done := make(chan error, 1)
			go func() { done <- tx.Commit(ctx) }()
			for range rng.IntN(50) {
				runtime.Gosched()
			}
			clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(uint64(b), 3))})
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			e.Close()
			fs = clone
			e = openFS(t, fs)
			got := observe(t, e)
			switch got.String() {
			case view.String():
				model = view
			case model.String():
			default:
				t.Fatalf("block %d: after a crash mid-commit the store holds %v: neither %v nor %v", b, got, model, view)
			}
			inflight++
			continue
		default:
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			model = view
		}
		if got := observe(t, e); got.String() != model.String() {
			t.Fatalf("block %d: after the block the store holds %v, want %v", b, got, model)
		}
		if rng.IntN(5) == 0 {
			clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(uint64(b), 4))})
			e.Close()
			fs = clone
			e = openFS(t, fs)
			crashes++
			if got := observe(t, e); got.String() != model.String() {
				t.Fatalf("block %d: after a crash the store holds %v, want the acknowledged %v", b, got, model)
			}
		}
	}
	e.Close()
	t.Logf("%d blocks, %d crashes between blocks, %d during a commit", blocks, crashes, inflight)
}

// randomBlock runs one to six random statements of block b in tx (create,
// alter, drop, rename, comment, nextval) on the sequences named in pool,
// keeping view, what the block should see, and recording in h the values
// a rollback cannot undo.
func randomBlock(t *testing.T, rng *rand.Rand, tx *Txn, view catalogState, pool []string, b int, h *history) {
	var undone []Name // sequences whose in-block values a rollback undoes
	for range 1 + rng.IntN(6) {
		rel := pool[rng.IntN(len(pool))]
		n := mustName(t, rel)
		_, exists := view[n.key]
		switch op := rng.IntN(6); {
		case op == 0 && !exists:
			inc := int64(1 + rng.IntN(5))
			if _, err := tx.CreateWith(ctx, n, seqmath.Spec{Increment: &inc, Cache: i64(int64(1 + rng.IntN(20)))}, CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			view[n.key] = fmt.Sprintf("%d/", inc)
			undone = append(undone, n)
		case op == 1 && exists:
			inc := int64(1 + rng.IntN(5))
			if err := tx.Alter(ctx, n, seqmath.Spec{Increment: &inc}); err != nil {
				t.Fatal(err)
			}
			_, c, _ := cut(view[n.key])
			view[n.key] = fmt.Sprintf("%d/%s", inc, c)
			undone = append(undone, n)
		case op == 2 && exists:
			if err := tx.Drop(ctx, n); err != nil {
				t.Fatal(err)
			}
			delete(view, n.key)
		case op == 3 && exists:
			to := mustName(t, pool[rng.IntN(len(pool))])
			err := tx.Rename(ctx, n, to)
			if _, taken := view[to.key]; taken {
				if !errors.Is(err, ErrExists) {
					t.Fatalf("rename onto %s: %v", to, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			view[to.key] = view[n.key]
			delete(view, n.key)
		case op == 4 && exists:
			text := fmt.Sprintf("c%d", b)
			if err := tx.SetComment(ctx, n, text); err != nil {
				t.Fatal(err)
			}
			inc, _, _ := cut(view[n.key])
			view[n.key] = inc + "/" + text
		case exists:
			_, v, err := tx.Nextval(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			// Values of a copy made in the block may come again after
			// a rollback, as in PostgreSQL; the others may not.
			if !slices.Contains(undone, n) {
				h.add(t, "id:"+fmt.Sprint(mustID(t, tx, n)), seqmath.Range{First: v, Count: 1, Increment: 1})
			}
		}
	}
}

func cut(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func mustID(t testing.TB, tx *Txn, n Name) uint64 {
	t.Helper()
	i, err := tx.Info(n)
	if err != nil {
		t.Fatal(err)
	}
	return i.ID
}

func observeTxn(t testing.TB, tx *Txn) catalogState {
	t.Helper()
	out := catalogState{}
	for _, i := range tx.List() {
		c, err := tx.Comment(i.Name)
		if err != nil {
			t.Fatal(err)
		}
		out[i.Name.key] = fmt.Sprintf("%d/%s", i.Options.Increment, c)
	}
	return out
}

// TestTxnLocks: DDL in a block makes others' nextval and DDL on the
// sequence wait until the block ends; others' creators of the same name
// wait and then fail; a wait that closes a cycle is a deadlock.
func TestTxnLocks(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	a, b := mustName(t, "a"), mustName(t, "b")
	for _, n := range []Name{a, b} {
		if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	next(t, e, a)

	tx := e.Begin()
	if err := tx.Alter(ctx, a, seqmath.Spec{RestartWith: i64(50)}); err != nil {
		t.Fatal(err)
	}
	got := make(chan int64, 1)
	go func() {
		_, v, err := e.Nextval(ctx, a)
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	// Others still see the committed sequence in the catalog.
	if i, err := e.Info(a); err != nil || i.State.Last != 1 {
		t.Fatalf("committed view: %+v %v", i, err)
	}
	if _, v, err := tx.Nextval(ctx, a); err != nil || v != 50 {
		t.Fatalf("in the block: %d %v", v, err)
	}
	select {
	case v := <-got:
		t.Fatalf("nextval did not wait for the block: %d", v)
	case <-time.After(50 * time.Millisecond):
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if v := <-got; v != 51 {
		t.Fatalf("after COMMIT nextval gave %d, want 51", v)
	}

	// A name being created: another creator waits, then finds it.
	tx = e.Begin()
	c := mustName(t, "c")
	if _, err := tx.CreateWith(ctx, c, seqmath.Spec{}, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Info(c); !errors.Is(err, ErrNotFound) {
		t.Fatalf("others see an uncommitted CREATE: %v", err)
	}
	created := make(chan error, 1)
	go func() { _, err := e.Create(ctx, c, seqmath.Spec{}, false); created <- err }()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-created; !errors.Is(err, ErrExists) {
		t.Fatalf("a second CREATE after the first committed: %v", err)
	}

	// Deadlock: each block holds one sequence and wants the other's.
	t1, t2 := e.Begin(), e.Begin()
	if err := t1.Alter(ctx, a, seqmath.Spec{Cache: i64(2)}); err != nil {
		t.Fatal(err)
	}
	if err := t2.Alter(ctx, b, seqmath.Spec{Cache: i64(2)}); err != nil {
		t.Fatal(err)
	}
	// Each waits for the other; whichever closes the cycle gets
	// ErrDeadlock and rolls back (as the executor does at once), which
	// lets the other proceed.
	errs := make(chan error, 2)
	for _, x := range []struct {
		t    *Txn
		step func() error
	}{
		{t1, func() error { return t1.Alter(ctx, b, seqmath.Spec{Cache: i64(3)}) }},
		{t2, func() error { return t2.Drop(ctx, a) }},
	} {
		go func() {
			err := x.step()
			if err != nil {
				x.t.Rollback()
			}
			errs <- err
		}()
	}
	err1, err2 := <-errs, <-errs
	if (err1 == nil) == (err2 == nil) || !errors.Is(cmp.Or(err1, err2), ErrDeadlock) {
		t.Fatalf("want one deadlock and one success: %v, %v", err1, err2)
	}
	t1.Rollback()
	t2.Rollback()
	// Both rolled back: nothing changed, nothing stays locked.
	if i, err := e.Info(a); err != nil || i.Options.Cache != 1 {
		t.Fatalf("after the rollbacks: %+v %v", i, err)
	}
	if v := next(t, e, a); v != 52 {
		t.Fatalf("a continues at %d, want 52", v)
	}
	next(t, e, b)
}

// TestTxnDropSchema: a block dropping a schema makes creators in it wait;
// after its commit they find no schema.
func TestTxnDropSchema(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	if _, err := e.CreateSchema(ctx, "x", "", false); err != nil {
		t.Fatal(err)
	}
	n, _ := NewName("x", "s")
	if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	tx := e.Begin()
	dropped, err := tx.DropSchema(ctx, "x", true)
	if err != nil || len(dropped) != 1 {
		t.Fatalf("drop schema: %v %v", dropped, err)
	}
	if !e.SchemaExists("x") || tx.SchemaExists("x") {
		t.Fatal("the drop is seen outside the block, or not in it")
	}
	other, _ := NewName("x", "t")
	created := make(chan error, 1)
	go func() { _, err := e.Create(ctx, other, seqmath.Spec{}, false); created <- err }()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-created; !errors.Is(err, ErrNoSchema) {
		t.Fatalf("CREATE in a schema dropped meanwhile: %v", err)
	}
	if names := e.Schemas(); slices.Contains(names, "x") {
		t.Fatalf("schemas after commit: %v", names)
	}
	keys := []string{}
	for _, i := range e.List() {
		keys = append(keys, i.Name.key)
	}
	sort.Strings(keys)
	if len(keys) != 0 {
		t.Fatalf("sequences left: %v", keys)
	}
}

// TestTxnRoles: a block's roles are its own until COMMIT, gone after
// ROLLBACK, and a COMMIT that would overwrite another session's change
// of the same role fails, writing nothing.
func TestTxnRoles(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openFS(t, fs)
	tx := e.Begin()
	if err := tx.PutRole(ctx, Role{Name: "r", Login: true}, true); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Role("r"); ok {
		t.Fatal("an uncommitted role is seen outside its block")
	}
	if r, ok := tx.Role("r"); !ok || !r.Login {
		t.Fatalf("the block does not see its role: %+v %v", r, ok)
	}
	if err := tx.PutRole(ctx, Role{Name: "r"}, true); !errors.Is(err, ErrRoleExists) {
		t.Fatalf("creating it again in the block: %v", err)
	}
	tx.Rollback()
	if _, ok := e.Role("r"); ok {
		t.Fatal("a rolled-back role exists")
	}

	tx = e.Begin()
	tx.PutRole(ctx, Role{Name: "r"}, true)
	tx.PutRole(ctx, Role{Name: "gone"}, true)
	if err := tx.DropRole(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if names := roleNames(e.Roles()); !slices.Equal(names, []string{"r"}) {
		t.Fatalf("roles after commit: %v", names)
	}

	// Another session changes r while a block alters it: the block's
	// COMMIT fails and writes nothing, not even its other changes.
	tx = e.Begin()
	if err := tx.PutRole(ctx, Role{Name: "r", Superuser: true}, false); err != nil {
		t.Fatal(err)
	}
	tx.PutRole(ctx, Role{Name: "other"}, true)
	if err := e.PutRole(ctx, Role{Name: "r", Login: true}, false); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); !errors.Is(err, ErrSerialization) {
		t.Fatalf("a commit over another's change: %v", err)
	}
	if r, _ := e.Role("r"); r.Superuser || !r.Login {
		t.Fatalf("r after the failed commit: %+v", r)
	}
	if _, ok := e.Role("other"); ok {
		t.Fatal("a failed commit wrote part of its block")
	}

	// Durable: what a crash leaves is what was committed.
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e2 := openFS(t, crashed)
	defer e2.Close()
	if names := roleNames(e2.Roles()); !slices.Equal(names, []string{"r"}) {
		t.Fatalf("roles after a crash: %v", names)
	}
	if r, _ := e2.Role("r"); !r.Login || r.Superuser {
		t.Fatalf("r after a crash: %+v", r)
	}
}

func roleNames(rs []Role) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// TestTxnRollbackToReleases: ROLLBACK TO releases the locks taken since
// the savepoint, as PostgreSQL releases a subtransaction's, and keeps the
// ones taken before: a nextval waiting for the first goes on while the
// block is still open; one on the second still waits.
func TestTxnRollbackToReleases(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	a, b, c := mustName(t, "a"), mustName(t, "b"), mustName(t, "c")
	for _, n := range []Name{a, b} {
		if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	tx := e.Begin()
	if err := tx.Alter(ctx, a, seqmath.Spec{Cache: i64(2)}); err != nil {
		t.Fatal(err)
	}
	sp := tx.Savepoint()
	if err := tx.Alter(ctx, b, seqmath.Spec{Increment: i64(10)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CreateWith(ctx, c, seqmath.Spec{}, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	onB := make(chan int64, 1)
	go func() { _, v, _ := e.Nextval(ctx, b); onB <- v }()
	onA := make(chan int64, 1)
	go func() { _, v, _ := e.Nextval(ctx, a); onA <- v }()
	created := make(chan error, 1)
	go func() { _, err := e.Create(ctx, c, seqmath.Spec{}, false); created <- err }()
	runtime.Gosched()
	tx.RollbackTo(sp)
	if v := <-onB; v != 1 {
		t.Fatalf("nextval on b after ROLLBACK TO: %d, want 1 (the ALTER undone)", v)
	}
	if err := <-created; err != nil {
		t.Fatalf("CREATE of a name the block created after its savepoint: %v", err)
	}
	select {
	case v := <-onA:
		t.Fatalf("nextval on a, locked before the savepoint, went on: %d", v)
	case <-time.After(50 * time.Millisecond):
	}
	tx.Rollback()
	if v := <-onA; v != 1 {
		t.Fatalf("nextval on a after ROLLBACK: %d", v)
	}
}

// TestTxnLockLimit: a transaction locks at most Config.MaxTxnLocks
// sequences and names; the next CREATE or ALTER fails with
// ErrTooManyLocks, the transaction still rolls back whole, and the
// next one starts afresh. Locks it already holds are taken again freely.
func TestTxnLockLimit(t *testing.T) {
	st, err := embedded.Open("db", embedded.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, Config{Store: st, MaxTxnLocks: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a, b := mustName(t, "a"), mustName(t, "b")
	for _, n := range []Name{a, b} {
		if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	tx := e.Begin()
	for _, n := range []Name{a, b} {
		if err := tx.Alter(ctx, n, seqmath.Spec{Increment: i64(2)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if _, err := tx.CreateWith(ctx, mustName(t, fmt.Sprintf("c%d", i)), seqmath.Spec{}, CreateOptions{}); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	if err := tx.Alter(ctx, a, seqmath.Spec{Increment: i64(3)}); err != nil {
		t.Fatalf("altering a sequence it holds the lock of: %v", err)
	}
	_, err = tx.CreateWith(ctx, mustName(t, "c2"), seqmath.Spec{}, CreateOptions{})
	var ee *Error
	if !errors.Is(err, ErrTooManyLocks) || !errors.As(err, &ee) || ee.Hint == "" {
		t.Fatalf("a fifth lock: %v", err)
	}
	tx.Rollback()
	if i, err := e.Info(a); err != nil || i.Options.Increment != 1 {
		t.Fatalf("after the rollback a is %+v, %v", i.Options, err)
	}
	if _, err := e.Info(mustName(t, "c0")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after the rollback c0: %v", err)
	}
	tx = e.Begin()
	for i := range 4 {
		if _, err := tx.CreateWith(ctx, mustName(t, fmt.Sprintf("d%d", i)), seqmath.Spec{}, CreateOptions{}); err != nil {
			t.Fatalf("the next transaction's create %d: %v", i, err)
		}
	}
	if err := tx.Alter(ctx, b, seqmath.Spec{Increment: i64(5)}); !errors.Is(err, ErrTooManyLocks) {
		t.Fatalf("an ALTER past the limit: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("committing the four creates: %v", err)
	}
	if _, err := e.Info(mustName(t, "d3")); err != nil {
		t.Fatal(err)
	}
}
