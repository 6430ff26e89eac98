package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
)

// TestTimeIDs runs the timeids workload briefly: every generator issues
// ids; after a restart into a clock 100 ms behind (within the 500 ms the
// first life ran), the libraries issue ids they had issued and seqd's
// (in process, and its SNOWFLAKE sequences over the wire) none, and
// after one of a minute (past MaxBehind) seqd's refuse rather than
// repeat; PostgreSQL's sequence does not see the clock.
func TestTimeIDs(t *testing.T) {
	res, err := RunTimeIDs(TimeIDsConfig{Dir: t.TempDir(), Threads: []int{2}, Duration: 500 * time.Millisecond,
		Steps: []time.Duration{100 * time.Millisecond, time.Minute}, Postgres: testenv.PostgresDSN(t)})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteTimeIDs(&out, res); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, s := range res.Speed {
		if s.IDs < 1000 {
			t.Errorf("%s issued %d ids in 500 ms", s.Generator, s.IDs)
		}
	}
	seqd := map[string]bool{"seqd timeid": true, "seqd SNOWFLAKE nextval": true, "seqd SNOWFLAKE batch": true}
	for _, r := range res.Restarts {
		if r.Generator == "PostgreSQL sequence nextval" {
			if r.Duplicates != 0 || r.Errors != 0 || r.After < 100 {
				t.Errorf("PostgreSQL's sequence, reconnected: %d ids twice, %d errors, %d ids", r.Duplicates, r.Errors, r.After)
			}
			continue
		}
		if !seqd[r.Generator] {
			if r.Step < 500*time.Millisecond && r.Duplicates == 0 {
				t.Errorf("%s, restarted %v behind within its first life: no id twice; the experiment did not reach the ids it had issued", r.Generator, r.Step)
			}
			continue
		}
		if r.Duplicates != 0 {
			t.Errorf("seqd's generator, restarted %v behind: %d ids twice", r.Step, r.Duplicates)
		}
		switch r.Step {
		case 100 * time.Millisecond:
			if r.Errors != 0 || r.After < 100 {
				t.Errorf("%s, a step of 100 ms (within MaxBehind): %d errors, %d ids", r.Generator, r.Errors, r.After)
			}
		case time.Minute:
			if r.After != 0 || r.Errors == 0 || !strings.Contains(r.FirstError, "clock is behind") && !strings.Contains(r.FirstError, "55000") {
				t.Errorf("%s, a step of 1 min (past MaxBehind): %d ids, %d errors (%s)", r.Generator, r.After, r.Errors, r.FirstError)
			}
		}
	}
}
