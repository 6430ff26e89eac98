package catalog

import (
	"fmt"
	"testing"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/seqmath"
)

// TestMariaDBSequenceRow: a sequence's row as MariaDB's read of it as a
// table shows it: next_not_cached_value is where it starts (or was
// restarted) before a value was taken, the last value's successor after;
// NOCACHE (CACHE 1) shows as 0; and a spent sequence's successor that
// would overflow shows the last value.
func TestMariaDBSequenceRow(t *testing.T) {
	top := int64(1<<63 - 1)
	for _, c := range []struct {
		o    seqmath.Options
		st   seqmath.State
		want string
	}{
		{seqmath.Options{Start: 5, Increment: 2, Min: 1, Max: 100, Cache: 1}, seqmath.State{Last: 5}, "[5 1 100 5 2 0 0 0]"},
		{seqmath.Options{Start: 5, Increment: 2, Min: 1, Max: 100, Cache: 1}, seqmath.State{Last: 7, Called: true}, "[9 1 100 5 2 0 0 0]"},
		{seqmath.Options{Start: 1, Increment: 1, Min: 1, Max: 10, Cache: 1000, Cycle: true}, seqmath.State{Last: 7}, "[7 1 10 1 1 1000 1 0]"},
		{seqmath.Options{Start: -1, Increment: -3, Min: -50, Max: -1, Cache: 20}, seqmath.State{Last: -4, Called: true}, "[-7 -50 -1 -1 -3 20 0 0]"},
		{seqmath.Options{Start: 1, Increment: 1, Min: 1, Max: top, Cache: 1}, seqmath.State{Last: top, Called: true}, fmt.Sprintf("[%d 1 %d 1 1 0 0 0]", top, top)},
	} {
		row := MariaDBSequenceRow(engine.Info{Options: c.o, State: c.st})
		if len(row) != len(MariaDBSequenceColumns) {
			t.Fatalf("%d values for %d columns", len(row), len(MariaDBSequenceColumns))
		}
		var got []string
		for i, d := range row {
			v, _ := eval.Output(MariaDBSequenceColumns[i].Type, d)
			got = append(got, v)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%+v %+v: %v, want %s", c.o, c.st, got, c.want)
		}
	}
}
