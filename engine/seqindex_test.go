package engine

import (
	"fmt"
	"hash/maphash"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestSeqIndex: the index answers as a map from key to *seq would, with
// its own hash and with one under which keys of a length collide; reuses
// the positions drops free; lists sequences by position; finds relation
// name prefixes in order, through an order kept by every change and one
// built at once (as a load does); and a clone is the same index.
func TestSeqIndex(t *testing.T) {
	t.Run("maphash", func(t *testing.T) { testSeqIndex(t, nil) })
	t.Run("collisions", func(t *testing.T) {
		testSeqIndex(t, func(_ maphash.Seed, key string) uint64 { return uint64(len(key)) })
	})
}

func testSeqIndex(t *testing.T, hash func(maphash.Seed, string) uint64) {
	x := newSeqIndex(0)
	if hash != nil {
		x.hash = hash
	}
	model := map[string]*seq{}
	check := func(when string) {
		t.Helper()
		checkSeqIndex(t, x, model, when)
		checkSeqIndex(t, x.clone(func(s *seq) *seq { return s }), model, when+", a clone")
	}
	add := func(key string) *seq {
		s := &seq{key: key}
		x.set(key, s)
		model[key] = s
		return s
	}
	var order []*seq
	for i := range 100 {
		schema := "public"
		if i%3 == 0 {
			schema = "a"
		}
		order = append(order, add(fmt.Sprintf("%s.s%d", schema, i)))
	}
	check("after 100 sets")
	if got := slices.Collect(x.values()); !slices.Equal(got, order) {
		t.Fatal("values() is not in the order the sequences were added")
	}
	if x.get("public.nothing") != nil || x.get("public.s0") != nil {
		t.Fatal("get of a key never set is not nil")
	}
	// Replacing a key's sequence keeps its position.
	r := &seq{key: "public.s7"}
	x.set(r.key, r)
	model[r.key] = r
	check("after a replace")
	if len(x.seqs) != 100 {
		t.Fatalf("a replace grew the list to %d", len(x.seqs))
	}
	// Deleting inside all(), as in a range over a map.
	for k := range x.all() {
		if k[len(k)-1] == '3' {
			x.del(k)
			delete(model, k)
		}
	}
	x.del("public.nothing")
	check("after deletes in all()")
	// New keys take the freed positions before the list grows.
	for i := range 10 {
		add(fmt.Sprintf("public.n%d", i))
	}
	check("after reuse")
	if len(x.seqs) != 100 || len(x.free) != 0 {
		t.Fatalf("10 new keys after 10 deletes: list %d, free %d; want 100, 0", len(x.seqs), len(x.free))
	}
	add("public.grow")
	add("b.s1") // a relation name in a third schema
	check("after growing")
	x.deferOrder()
	add("b.s2")
	check("with the order deferred")
	x.buildOrder()
	check("after a deferred order")
}

// TestRelOrder: positions inserted and deleted at random, through chunk
// splits and emptied chunks, stay in their keys' order; a search from a
// key starts at the first not before it; a built order and a clone
// answer the same and a clone changes apart.
func TestRelOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var keys []string
	keyOf := func(i uint32) string { return keys[i] }
	for i := range 20000 {
		keys = append(keys, fmt.Sprintf("s%d.r%05d_%d", i%3, rng.IntN(100000), i)) // unique, as keys are
	}
	in := map[uint32]bool{}
	o := &relOrder{}
	check := func(o *relOrder, in map[uint32]bool, when string) {
		t.Helper()
		var got, want []uint32
		for _, ch := range o.chunks {
			if len(ch) == 0 || len(ch) > relChunk {
				t.Fatalf("%s: a chunk of %d", when, len(ch))
			}
			got = append(got, ch...)
		}
		for i := range in {
			want = append(want, i)
		}
		slices.SortFunc(want, func(a, b uint32) int { return relCompare(keys[a], keys[b]) })
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d positions out of order or missing (want %d)", when, len(got), len(want))
		}
		for _, probe := range []string{".r00000", ".r5", "s1.r50000", "s9.r99999", ".zz"} {
			var from []uint32
			for i := range o.from(probe, keyOf) {
				from = append(from, i)
			}
			k := sort.Search(len(want), func(k int) bool { return relCompare(keys[want[k]], probe) >= 0 })
			if !slices.Equal(from, want[k:]) {
				t.Fatalf("%s: from %q gave %d positions, want %d", when, probe, len(from), len(want)-k)
			}
		}
	}
	for round := range 6 {
		for range 3000 {
			i := uint32(rng.IntN(len(keys)))
			if in[i] {
				o.delete(i, keys[i], keyOf)
				delete(in, i)
			} else {
				o.insert(i, keys[i], keyOf)
				in[i] = true
			}
		}
		check(o, in, fmt.Sprintf("round %d", round))
	}
	c, cin := o.clone(), maps.Clone(in)
	for i := range in { // every position gone from the clone, chunk by chunk
		c.delete(i, keys[i], keyOf)
		delete(cin, i)
	}
	check(c, cin, "the clone emptied")
	check(o, in, "the original after its clone emptied")
	sorted := slices.Collect(maps.Keys(in))
	slices.SortFunc(sorted, func(a, b uint32) int { return relCompare(keys[a], keys[b]) })
	b := newRelOrder(sorted)
	check(b, in, "built")
	for i := range uint32(len(keys)) {
		if !in[i] {
			b.insert(i, keys[i], keyOf)
			in[i] = true
		}
	}
	check(b, in, "built, then filled")
	// A delete given a key that is not the position's finds it anyway.
	b.delete(7, "s0.zzz", keyOf)
	delete(in, 7)
	b.delete(7, "s0.zzz", keyOf) // and one of a position not there is nothing
	check(b, in, "after deletes by the wrong key")
}

// checkSeqIndex compares x with model, a map from key to sequence.
func checkSeqIndex(t *testing.T, x *seqIndex, model map[string]*seq, when string) {
	t.Helper()
	if x.len() != len(model) {
		t.Fatalf("%s: len %d, want %d", when, x.len(), len(model))
	}
	for k, s := range model {
		if got := x.get(k); got != s {
			t.Fatalf("%s: get(%q) = %p, want %p", when, k, got, s)
		}
	}
	seen := map[string]bool{}
	for k, s := range x.all() {
		if model[k] != s || seen[k] {
			t.Fatalf("%s: all() gave %q -> %p (model %p, seen %v)", when, k, s, model[k], seen[k])
		}
		seen[k] = true
	}
	n := 0
	for s := range x.values() {
		if model[s.key] != s {
			t.Fatalf("%s: values() gave %q, not in the index", when, s.key)
		}
		n++
	}
	if len(seen) != len(model) || n != len(model) {
		t.Fatalf("%s: all() listed %d, values() %d, want %d", when, len(seen), n, len(model))
	}
	for _, prefix := range []string{"", "s", "s1", "s2", "s9", "n", "g", "s100", "t"} {
		var want, got []string
		for k := range model {
			if _, rel := splitKey(k); strings.HasPrefix(rel, prefix) {
				want = append(want, k)
			}
		}
		slices.SortFunc(want, relCompare)
		x.withRelPrefix(prefix, func(k string, s *seq) bool {
			if model[k] != s {
				t.Fatalf("%s: prefix %q gave %q -> %p (model %p)", when, prefix, k, s, model[k])
			}
			got = append(got, k)
			return true
		})
		if !slices.Equal(got, want) {
			t.Fatalf("%s: prefix %q gave %q, want %q", when, prefix, got, want)
		}
	}
}
