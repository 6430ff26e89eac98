package apicore

import (
	"context"
	"testing"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/internal/testenv"
)

// FuzzNames: any name CheckName lets through reaches the session as it
// was given: a sequence made under it is the one taken from, described
// and dropped under it, whatever quotes, backslashes, case or SQL it
// holds (no text is made of it).
func FuzzNames(f *testing.F) {
	for _, seed := range []string{"s", `a"b`, `c'd`, `\`, `'\''`, `'); drop sequence s; --`, "", "CASE", "a.b"} {
		f.Add(seed)
	}
	eng := testenv.MemEngine(f)
	c := New(Config{Engine: eng})
	f.Cleanup(c.Close)
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName("name", name) != nil {
			return // refused before any call (the APIs call CheckName first)
		}
		q, err := c.Begin(context.Background(), "", Client{})
		if err != nil {
			t.Fatal(err)
		}
		defer q.End()
		if err := q.CreateSequence("public", name, executor.SequenceOptions{}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if v, err := q.Next("public", name, 1); err != nil || v[0] != 1 {
			t.Fatalf("%q: nextval %v %v", name, v, err)
		}
		if d, err := q.Describe("public", name); err != nil || !d.Called || d.LastValue != 1 {
			t.Fatalf("%q: describe %+v %v", name, d, err)
		}
		if err := q.DropSequence("public", name); err != nil {
			t.Fatalf("%q: drop %v", name, err)
		}
	})
}
