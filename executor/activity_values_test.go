package executor

import (
	"context"
	"fmt"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestActivityValues: Activity.Values counts the values each session
// took, by its protocol, a call of n values as n (nextval in SQL, the
// typed nextval, a batch, a reserve), a failed call none, and keeps a
// session's count after it closes.
func TestActivityValues(t *testing.T) {
	ctx := context.Background()
	eng := testenv.MemEngine(t)
	act := NewActivity()
	open := func(protocol string) *Session {
		s, err := NewSession(Config{Engine: eng, MaxBulkRows: 1000, Activity: act, Protocol: protocol})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	pg, api := open("pgwire"), open("http")
	defer api.Close()
	if err := pg.CreateSequence(ctx, "public", "s", SequenceOptions{}); err != nil {
		t.Fatal(err)
	}
	pg.Idle()
	for _, q := range []string{"select nextval('s')", "select last from seqd_reserve('s', 100)"} {
		if _, err := value(t, pg, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := value(t, pg, "select nextval('missing')"); err == nil {
		t.Fatal("nextval of a missing sequence succeeded")
	}
	if _, err := api.Nextval(ctx, "public", "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := api.NextvalN(ctx, nil, "public", "s", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Reserve(ctx, "public", "s", 7); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Reserve(ctx, "public", "missing", 7); err == nil {
		t.Fatal("a reserve of a missing sequence succeeded")
	}
	want := "map[http:18 pgwire:101]"
	if got := fmt.Sprint(act.Values()); got != want {
		t.Fatalf("Values: %s, want %s", got, want)
	}
	pg.Close()
	if got := fmt.Sprint(act.Values()); got != want {
		t.Errorf("Values after the pgwire session closed: %s, want %s", got, want)
	}
}
