package bench

import (
	"context"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestScale runs the scale workload small: every lookup answered on both
// seqd and PostgreSQL with the same rows, the node's memory read, its
// restart after a kill -9 serving the sequences it held. No timing is
// asserted.
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("a seqd process and PostgreSQL")
	}
	const n = 3000
	rep, err := RunScale(context.Background(), ScaleConfig{Binary: testenv.SeqdBinary(t), Dir: t.TempDir(), N: n,
		Postgres: testenv.PostgresDSN(t), PGN: n, Reps: 5, Block: 500})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	if rep.N != n || rep.PGN != n || rep.Create <= 0 || rep.Use <= 0 || rep.Restart <= 0 || rep.RSS < 1<<20 || len(rep.Lookups) != len(scaleLookups) {
		t.Fatalf("report: %+v", rep)
	}
	for _, l := range rep.Lookups {
		// s_1500 is one sequence; \ds s_1500* lists s_1500 alone at 3,000.
		if l.Rows != 1 || l.PGRows != 1 || l.Seqd <= 0 || l.PG <= 0 {
			t.Errorf("%s: %d rows from seqd, %d from PostgreSQL", l.Name, l.Rows, l.PGRows)
		}
	}
}
