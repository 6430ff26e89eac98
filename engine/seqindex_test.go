package engine

import (
	"fmt"
	"slices"
	"testing"
)

// TestSeqIndex: the index answers as a map from key to *seq would, reuses
// the positions drops free, and lists sequences by position.
func TestSeqIndex(t *testing.T) {
	x := newSeqIndex(0)
	model := map[string]*seq{}
	check := func(when string) {
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
	}
	var order []*seq
	for i := range 100 {
		s := &seq{key: fmt.Sprintf("public.s%d", i)}
		x.set(s.key, s)
		model[s.key] = s
		order = append(order, s)
	}
	check("after 100 sets")
	if got := slices.Collect(x.values()); !slices.Equal(got, order) {
		t.Fatal("values() is not in the order the sequences were added")
	}
	if x.get("public.nothing") != nil {
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
		s := &seq{key: fmt.Sprintf("public.n%d", i)}
		x.set(s.key, s)
		model[s.key] = s
	}
	check("after reuse")
	if len(x.seqs) != 100 || len(x.free) != 0 {
		t.Fatalf("10 new keys after 10 deletes: list %d, free %d; want 100, 0", len(x.seqs), len(x.free))
	}
	s := &seq{key: "public.grow"}
	x.set(s.key, s)
	model[s.key] = s
	check("after growing")
}
