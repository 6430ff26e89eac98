package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/embedded"
	"github.com/seqd/seqd/storage/memstore"
)

func TestSchemas(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	if got := e.Schemas(); !reflect.DeepEqual(got, []string{"public"}) {
		t.Fatalf("a new store's schemas: %v", got)
	}
	other, _ := NewName("other", "s")
	if _, err := e.Create(ctx, other, seqmath.Spec{}, false); !errors.Is(err, ErrNoSchema) {
		t.Fatalf("create in a missing schema: %v", err)
	}
	if created, err := e.CreateSchema(ctx, "other", "", false); err != nil || !created {
		t.Fatal(created, err)
	}
	if created, err := e.CreateSchema(ctx, "other", "", true); err != nil || created {
		t.Fatalf("if not exists: %v %v", created, err)
	}
	if _, err := e.CreateSchema(ctx, "other", "", false); !errors.Is(err, ErrSchemaExists) {
		t.Fatalf("again: %v", err)
	}
	v0 := e.CatalogVersion()
	if _, err := e.Create(ctx, other, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	if e.CatalogVersion() == v0 {
		t.Fatal("catalog version unchanged by CREATE SEQUENCE")
	}
	next(t, e, other)
	deps, err := e.DropSchema(ctx, "other", false)
	if !errors.Is(err, ErrDependents) || len(deps) != 1 || deps[0] != other {
		t.Fatalf("restrict: %v %v", deps, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Schemas are durable, and a restrict refusal changed nothing.
	e = openFS(t, fs)
	if got := e.Schemas(); !reflect.DeepEqual(got, []string{"other", "public"}) {
		t.Fatalf("after restart: %v", got)
	}
	if v := next(t, e, other); v != 2 {
		t.Fatalf("other.s after restart: %d", v)
	}
	dropped, err := e.DropSchema(ctx, "other", true)
	if err != nil || len(dropped) != 1 {
		t.Fatalf("cascade: %v %v", dropped, err)
	}
	if _, err := e.Info(other); !errors.Is(err, ErrNotFound) {
		t.Fatalf("sequence after cascade: %v", err)
	}
	if _, err := e.DropSchema(ctx, "other", false); !errors.Is(err, ErrNoSchema) {
		t.Fatalf("drop again: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openFS(t, fs)
	defer e.Close()
	if got := e.Schemas(); !reflect.DeepEqual(got, []string{"public"}) {
		t.Fatalf("after dropping: %v", got)
	}
}

// TestSchemaMigration opens a store written before schemas were records:
// public and every schema holding a sequence become schemas.
func TestSchemaMigration(t *testing.T) {
	fs := vfs.NewMem()
	writeRaw(t, fs, "tenant.s", 1<<32|1)
	e := openFS(t, fs)
	defer e.Close()
	if got := e.Schemas(); !reflect.DeepEqual(got, []string{"public", "tenant"}) {
		t.Fatalf("migrated schemas: %v", got)
	}
	n, _ := NewName("tenant", "s")
	if v := next(t, e, n); v != 1 {
		t.Fatalf("tenant.s: %d", v)
	}
}

func TestRenameAndComment(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	a, b := mustName(t, "a"), mustName(t, "b")
	if _, err := e.Create(ctx, a, seqmath.Spec{Cache: i64(10)}, false); err != nil {
		t.Fatal(err)
	}
	next(t, e, a)
	next(t, e, a)
	if err := e.SetComment(ctx, a, "orders"); err != nil {
		t.Fatal(err)
	}
	if err := e.Rename(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Info(a); !errors.Is(err, ErrNotFound) {
		t.Fatalf("old name after rename: %v", err)
	}
	if v := next(t, e, b); v != 3 {
		t.Fatalf("renamed sequence continues at %d, want 3", v)
	}
	if c, _ := e.Comment(b); c != "orders" {
		t.Fatalf("comment after rename: %q", c)
	}
	other, _ := NewName("other", "b")
	if err := e.Rename(ctx, b, other); !errors.Is(err, ErrNoSchema) {
		t.Fatalf("rename into a missing schema: %v", err)
	}
	if _, err := e.Create(ctx, a, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Rename(ctx, a, b); !errors.Is(err, ErrExists) {
		t.Fatalf("rename onto an existing name: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Both survive a restart: the new name at its position, the comment.
	e = openFS(t, fs)
	if v := next(t, e, b); v != 4 {
		t.Fatalf("after restart: %d, want 4", v)
	}
	if c, _ := e.Comment(b); c != "orders" {
		t.Fatalf("comment after restart: %q", c)
	}
	if err := e.Drop(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openFS(t, fs)
	defer e.Close()
	if len(e.comments) != 0 {
		t.Fatalf("a dropped sequence's comment stays: %v", e.comments)
	}
}

// TestUnlogged: an unlogged sequence keeps its position over a clean
// shutdown and goes back to its start after a crash; a logged one never
// does.
func TestUnlogged(t *testing.T) {
	mem := vfs.NewCrashableMem()
	e := openFS(t, mem)
	u, l := mustName(t, "u"), mustName(t, "l")
	if _, err := e.CreateWith(ctx, u, seqmath.Spec{Start: i64(10)}, CreateOptions{Unlogged: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(ctx, l, seqmath.Spec{Start: i64(10)}, false); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		next(t, e, u)
		next(t, e, l)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openFS(t, mem)
	if vu, vl := next(t, e, u), next(t, e, l); vu != 13 || vl != 13 {
		t.Fatalf("after a clean shutdown: unlogged %d, logged %d; want 13, 13", vu, vl)
	}
	quiesce(e)
	crashed := openFS(t, mem.CrashClone(vfs.CrashCloneCfg{}))
	defer crashed.Close()
	if info, _ := crashed.Info(u); !info.Unlogged {
		t.Fatal("unlogged flag lost")
	}
	if vu, vl := next(t, crashed, u), next(t, crashed, l); vu != 10 || vl <= 13 {
		t.Fatalf("after a crash: unlogged %d (want its start, 10), logged %d (want beyond 13)", vu, vl)
	}
	e.Close()
}

// TestConcurrentDDL: DDL on one sequence from many callers is serialized
// by the engine (each waits for the write before it), so every change
// lands on top of the others: no lost update.
func TestConcurrentDDL(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	n := mustName(t, "s")
	if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	const callers = 8
	errs := make(chan error, callers)
	for i := range callers {
		go func() {
			// Each caller sets an option of its own: CACHE, INCREMENT,
			// MAXVALUE, MINVALUE, ... and all must be there in the end.
			var sp seqmath.Spec
			switch i % 4 {
			case 0:
				sp.Cache = i64(int64(10 + i))
			case 1:
				sp.Increment = i64(int64(2 + i))
			case 2:
				sp.Max = i64(int64(1_000_000 + i))
			case 3:
				sp.Cycle = new(bool)
				*sp.Cycle = true
			}
			errs <- e.Alter(ctx, n, sp)
		}()
	}
	for range callers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	info, err := e.Info(n)
	if err != nil {
		t.Fatal(err)
	}
	o := info.Options
	if o.Cache < 10 || o.Increment < 3 || o.Max < 1_000_000 || o.Max > 1_000_007 || !o.Cycle {
		t.Fatalf("an ALTER was lost: %+v", o)
	}
}

// TestDeposed: two engines over one store, the second acquiring it after
// the first. The first's next write is fenced off, and from then on none
// of its sequences hands out a value, not only the one whose write
// failed; the new owner serves every sequence from above the old one's
// marks, so no value is handed out twice.
func TestDeposed(t *testing.T) {
	st := memstore.New()
	a, err := Open(ctx, Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s1, s2 := mustName(t, "s1"), mustName(t, "s2")
	for _, n := range []Name{s1, s2} {
		if _, err := a.Create(ctx, n, seqmath.Spec{Cache: i64(100)}, false); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[Name]int64{}
	for _, n := range []Name{s1, s2} {
		seen[n] = next(t, a, n)
	}
	quiesce(a)
	b, err := Open(ctx, Config{Store: st}) // the store's new owner
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// a meets the fence at its next write: DDL on s1.
	if err := a.Alter(ctx, s1, seqmath.Spec{Cache: i64(50)}); !errors.Is(err, ErrDeposed) {
		t.Fatalf("a's write after b took over: %v", err)
	}
	// s2 still has values in its window, yet a refuses it too.
	if _, _, err := a.Nextval(ctx, s2); !errors.Is(err, ErrDeposed) {
		t.Fatalf("a's nextval on another sequence: %v", err)
	}
	if h := a.Healthy(); h == nil {
		t.Fatal("a deposed engine reports healthy")
	}
	for _, n := range []Name{s1, s2} {
		if v := next(t, b, n); v <= seen[n] {
			t.Fatalf("%s: the new owner handed out %d, not beyond %d", n, v, seen[n])
		}
	}
}

// bigTokens is a store whose ownership tokens are past 32 bits, as an
// etcd revision becomes in a long-lived cluster.
type bigTokens struct{ storage.Store }

func (b bigTokens) Acquire(ctx context.Context) (storage.Token, error) {
	tok, err := b.Store.Acquire(ctx)
	return tok + 1<<40, err
}

func (b bigTokens) Commit(ctx context.Context, tok storage.Token, ops []storage.Op) (storage.Rev, error) {
	return b.Store.Commit(ctx, tok-1<<40, ops)
}

// TestSequenceIDEpochs: sequence IDs carry the store's open count, not its
// ownership token: a store with tokens past 32 bits opens, and no ID is
// made twice across opens, crashes included. A store written when IDs
// carried tokens continues above all of them.
func TestSequenceIDEpochs(t *testing.T) {
	fs := vfs.NewCrashableMem()
	// A record from before epochs: its ID carries token 7.
	const oldID = 7<<32 | 3
	writeRaw(t, fs, "public.old", oldID)
	ids := map[uint64]string{oldID: "public.old"}
	for round := range 4 {
		st, err := embedded.Open("db", embedded.Options{FS: fs})
		if err != nil {
			t.Fatal(err)
		}
		e, err := Open(ctx, Config{Store: bigTokens{st}})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for i := range 3 {
			n := mustName(t, fmt.Sprintf("s%d_%d", round, i))
			if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
				t.Fatal(err)
			}
			info, err := e.Info(n)
			if err != nil {
				t.Fatal(err)
			}
			if prev, dup := ids[info.ID]; dup {
				t.Fatalf("round %d: %s has ID %#x, as %s had", round, n, info.ID, prev)
			}
			if info.ID>>32 <= 7 {
				t.Fatalf("round %d: ID %#x is not above the old store's tokens", round, info.ID)
			}
			ids[info.ID] = n.key
		}
		if round%2 == 0 {
			e.Close()
			continue
		}
		// A crash: the next open must not reuse this one's epoch.
		crashed := fs.CrashClone(vfs.CrashCloneCfg{})
		e.Close()
		fs = crashed
	}
}

// TestReadOnlySnapshot: a ReadOnly engine reads what the store holds, takes
// no ownership (the owner goes on writing) and fails every write.
func TestReadOnlySnapshot(t *testing.T) {
	st := memstore.New()
	e, err := Open(ctx, Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n := mustName(t, "s")
	if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	next(t, e, n)
	ro, err := Open(ctx, Config{Store: st, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if i, err := ro.Info(n); err != nil || i.Name.key != n.key {
		t.Fatalf("the snapshot's %s: %+v %v", n, i, err)
	}
	if _, _, err := ro.Nextval(ctx, n); err == nil {
		t.Fatal("a snapshot handed out a value")
	}
	if _, err := ro.Create(ctx, mustName(t, "t"), seqmath.Spec{}, false); err == nil {
		t.Fatal("a snapshot created a sequence")
	}
	ro.Close()
	if v := next(t, e, n); v != 2 {
		t.Fatalf("the owner after the snapshot: %d", v)
	}
}

// writeRaw writes one sequence record under key, with ID id, straight
// into the store on fs, as an older seqd would have left it (no catalog
// records).
func writeRaw(t *testing.T, fs vfs.FS, key string, id uint64) {
	t.Helper()
	opts, state, _ := seqmath.Create(seqmath.Spec{})
	rec := record{id: id, opts: opts, state: state}
	writeRawKV(t, fs, key, rec.encode())
}

// writeRawKV writes one record straight into the store on fs.
func writeRawKV(t *testing.T, fs vfs.FS, key string, value []byte) {
	t.Helper()
	st, err := embedded.Open("db", embedded.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, err := st.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(ctx, tok, []storage.Op{{Key: key, Value: value}}); err != nil {
		t.Fatal(err)
	}
}

// TestSecret: a store's secret is made at its first open and is the same
// at every later one (a crash included); another store has another.
func TestSecret(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	first := append([]byte(nil), e.Secret()...)
	if len(first) != 32 {
		t.Fatalf("secret of %d bytes", len(first))
	}
	e.Close()
	e = openFS(t, fs)
	if !bytes.Equal(e.Secret(), first) {
		t.Fatal("the secret changed across a clean restart")
	}
	crashed := vfs.NewCrashableMem()
	e = openFS(t, crashed)
	first = append([]byte(nil), e.Secret()...)
	e = openFS(t, crashed.CrashClone(vfs.CrashCloneCfg{}))
	if !bytes.Equal(e.Secret(), first) {
		t.Fatal("the secret changed across a crash")
	}
	if bytes.Equal(openFS(t, vfs.NewMem()).Secret(), first) {
		t.Fatal("two stores have one secret")
	}
}

// TestSchemaComment: COMMENT ON SCHEMA is durable with the schema's
// record (ACL kept), transactional (a rollback or a ROLLBACK TO undoes
// it), "" removes it but stays set (public's initial comment does not
// come back), a schema dropped and made again has none, and a record of
// each version reads back.
func TestSchemaComment(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	comment := func(name string) (string, bool) {
		t.Helper()
		c, ok, err := e.SchemaComment(name)
		if err != nil {
			t.Fatal(err)
		}
		return c, ok
	}
	if _, ok := comment("public"); ok {
		t.Fatal("public has a comment before any was made")
	}
	if _, err := e.CreateSchema(ctx, "app", "alice", false); err != nil {
		t.Fatal(err)
	}
	if err := e.SetSchemaComment(ctx, "app", "the application's"); err != nil {
		t.Fatal(err)
	}
	if err := e.SetSchemaComment(ctx, "public", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.SetSchemaComment(ctx, "nosuch", "x"); !errors.Is(err, ErrNoSchema) {
		t.Fatalf("a missing schema: %v", err)
	}
	// A block's comment goes with its rollback, and with ROLLBACK TO.
	tx := e.Begin()
	if err := tx.SetSchemaComment(ctx, "app", "rolled back"); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := tx.SchemaComment("app"); c != "rolled back" {
		t.Fatalf("the block sees %q", c)
	}
	if c, _ := comment("app"); c != "the application's" {
		t.Fatalf("others see %q before the commit", c)
	}
	tx.Rollback()
	tx = e.Begin()
	sp := tx.Savepoint()
	if err := tx.SetSchemaComment(ctx, "app", "undone"); err != nil {
		t.Fatal(err)
	}
	tx.RollbackTo(sp)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openFS(t, fs)
	if c, ok := comment("app"); c != "the application's" || !ok {
		t.Fatalf("app after restart: %q %v", c, ok)
	}
	if c, ok := comment("public"); c != "" || !ok {
		t.Fatalf("public after its comment was removed: %q %v", c, ok)
	}
	if a, err := e.SchemaACL("app"); err != nil || a.Owner != "alice" {
		t.Fatalf("app's owner kept with its comment: %+v %v", a, err)
	}
	// Dropped and made again in one block: no comment.
	tx = e.Begin()
	if _, err := tx.DropSchema(ctx, "app", false); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CreateSchema(ctx, "app", "bob", false); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if c, ok := comment("app"); ok || c != "" {
		t.Fatalf("app made again: %q %v", c, ok)
	}
	e.Close()

	for _, c := range []struct {
		rec     []byte
		comment *string
	}{{[]byte{schemaVersion}, nil}, {encodeSchema(ACL{Owner: "o"}, nil), nil}, {encodeSchema(ACL{Owner: "o"}, ptr("x")), ptr("x")},
		{encodeSchema(ACL{Owner: "o"}, ptr("")), ptr("")}} {
		_, got, err := decodeSchema(c.rec)
		if err != nil || (got == nil) != (c.comment == nil) || got != nil && *got != *c.comment {
			t.Errorf("decode %x: %v %v", c.rec, got, err)
		}
	}
	for _, bad := range [][]byte{{schemaCommentVersion}, {schemaCommentVersion, 200}, {schemaCommentVersion, 0xff, 0xff, 0xff}} {
		if _, _, err := decodeSchema(bad); err == nil {
			t.Errorf("decode %x: no error", bad)
		}
	}
}
