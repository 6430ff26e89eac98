package executor

import (
	"fmt"
	"testing"

	"github.com/seqd/seqd/engine"
)

// TestOIDRegistry: the catalog's sequences and a temporary engine's get
// OIDs of their own that stay theirs; an OID names its sequence's current
// name through renames, and nothing once the sequence is forgotten; the
// names' arena stays within about twice what is in use after many
// renames and drops; naming a sequence by OID allocates its key alone.
func TestOIDRegistry(t *testing.T) {
	r := newOIDRegistry()
	name := func(schema, rel string) engine.Name {
		n, err := engine.NewName(schema, rel)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := func(oid uint32, n engine.Name, id uint64) {
		t.Helper()
		got, gotID, ok := r.sequence(oid)
		if !ok || got != n || gotID != id {
			t.Fatalf("sequence(%d) = %v, %d, %v; want %v, %d", oid, got, gotID, ok, n, id)
		}
	}
	temp := &engine.Engine{} // a key only: never used as an engine
	oids := map[uint32]bool{}
	for id := uint64(1); id <= 100; id++ {
		n := name("public", fmt.Sprintf("s%d", id))
		oid := r.forSequence(nil, engine.Info{ID: id, Name: n})
		if oid < firstUserOID || oids[oid] {
			t.Fatalf("sequence %d got OID %d (taken: %v)", id, oid, oids[oid])
		}
		oids[oid] = true
		if again := r.forSequence(nil, engine.Info{ID: id, Name: n}); again != oid {
			t.Fatalf("sequence %d: OID %d, then %d", id, oid, again)
		}
		want(oid, n, id)
	}
	// A temporary sequence with a catalog sequence's ID is another one.
	tn := name("pg_temp_3", "s1")
	toid := r.forSequence(temp, engine.Info{ID: 1, Name: tn})
	if oids[toid] {
		t.Fatalf("the temporary sequence got OID %d, a catalog sequence's", toid)
	}
	want(toid, tn, 1)
	schema := r.forSchema("a")
	if oids[schema] || schema == toid {
		t.Fatalf("schema a got OID %d, a sequence's", schema)
	}

	oid7 := r.forSequence(nil, engine.Info{ID: 7})
	for i := range 20000 { // renames leave their old names' bytes behind
		r.renamed(nil, 7, name("b", fmt.Sprintf("renamed_%d", i)))
	}
	want(oid7, name("b", "renamed_19999"), 7)
	if n := testing.AllocsPerRun(100, func() { r.sequence(oid7) }); n > 1 {
		t.Fatalf("naming a sequence by its OID allocates %v times, want its key alone", n)
	}
	for id := uint64(1); id <= 100; id++ {
		if id != 7 {
			want(r.forSequence(nil, engine.Info{ID: id}), name("public", fmt.Sprintf("s%d", id)), id)
		}
	}
	if n := len(r.names.b); n > 2*r.names.live+64<<10 {
		t.Fatalf("the arena holds %d bytes for %d in use", n, r.names.live)
	}
	r.renamed(temp, 1, name("pg_temp_3", "t1"))
	want(toid, name("pg_temp_3", "t1"), 1)

	r.forget(nil, 7)
	if _, _, ok := r.sequence(oid7); ok {
		t.Fatal("a forgotten sequence's OID still names it")
	}
	if oid := r.forSequence(nil, engine.Info{ID: 7, Name: name("public", "s7")}); oid == oid7 {
		t.Fatal("a forgotten sequence's OID was given again")
	}
	r.forget(temp, 0)
	if _, _, ok := r.sequence(toid); ok {
		t.Fatal("a temporary engine's sequence outlived the engine's forget")
	}
	want(r.forSequence(nil, engine.Info{ID: 1}), name("public", "s1"), 1)
	for id := uint64(1); id <= 100; id++ {
		r.forget(nil, id)
	}
	if len(r.seqs) != 0 || len(r.byID) != 0 || r.names.live != 0 || len(r.names.b) > 64<<10 {
		t.Fatalf("after forgetting every sequence: %d by OID, %d by ID, arena %d bytes (%d in use)", len(r.seqs), len(r.byID), len(r.names.b), r.names.live)
	}
}
