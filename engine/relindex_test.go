package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
)

// TestInfosWithPrefix: a prefix lookup finds exactly the sequences whose
// relation name begins with the prefix, in every schema, after creates,
// renames, drops, a block's commit and rollback, and a restart (its index
// is rebuilt from the store).
func TestInfosWithPrefix(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	for _, schema := range []string{"a", "!bang", "-dash"} { // the last two sort before "."
		if _, err := e.CreateSchema(ctx, schema, "", false); err != nil {
			t.Fatal(err)
		}
	}
	name := func(schema, rel string) Name {
		n, err := NewName(schema, rel)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, n := range []Name{name("a", "s_1"), name("a", "s_10"), name("public", "s_2"), name("public", "t_1"), name("public", "s"),
		name("public", "s_é"), name("a", "r"), name("public", "s_1"), name("!bang", "s_1"), name("-dash", "s_"), name("-dash", "t")} {
		if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Rename(ctx, name("public", "t_1"), name("public", "s_3")); err != nil {
		t.Fatal(err)
	}
	if err := e.Drop(ctx, name("a", "s_10")); err != nil {
		t.Fatal(err)
	}
	tx := e.Begin()
	if _, err := tx.CreateWith(ctx, name("a", "s_4"), seqmath.Spec{}, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tx = e.Begin()
	if _, err := tx.CreateWith(ctx, name("a", "s_5"), seqmath.Spec{}, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	check := func(e *Engine, when string) {
		t.Helper()
		for _, prefix := range []string{"", "s", "s_", "s_1", "s_é", "t", "r", "zz", "s_10"} {
			var want, got []string
			for _, i := range e.List() {
				if strings.HasPrefix(i.Name.Rel(), prefix) {
					want = append(want, i.Name.String())
				}
			}
			for _, i := range e.InfosWithPrefix(prefix) {
				got = append(got, i.Name.String())
			}
			slices.Sort(want)
			if !slices.Equal(want, got) {
				t.Errorf("%s: prefix %q: %v, want %v", when, prefix, got, want)
			}
		}
		if got := len(e.InfosWithPrefix("s_")); got != 8 {
			t.Errorf("%s: %d names begin with s_, want 8", when, got)
		}
	}
	check(e, "running")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	check(openFS(t, fs), "after a restart")
}
