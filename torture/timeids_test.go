package torture

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
)

var timeCycles = flag.Int("torture.time-cycles", 8, "server runs of TestTimeIDsTorture, each with clock faults and ended by a fault")

// TestTimeIDsTorture is the bounded clock torture CI runs: the real
// binary (race detector, fault injection), its clock stepped and slewed
// by the harness, every checker.
func TestTimeIDsTorture(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rep, err := RunTimeIDs(TimeConfig{
		Binary:   testenv.SeqdBinary(t),
		Dir:      testDir(t),
		Cycles:   *timeCycles,
		Clients:  4,
		Load:     800 * time.Millisecond,
		Seed:     seed,
		Progress: func(s string) { t.Log(s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	if len(rep.Violations) > 0 {
		t.Fatalf("%d violations:\n%s", len(rep.Violations), strings.Join(rep.Violations, "\n"))
	}
	// The run must have done what it claims, or the checks prove nothing.
	if rep.IDs < 1000 {
		t.Fatalf("too little happened: %s", rep)
	}
	for _, kind := range []string{"clock step back within MaxBehind", "clock step back past MaxBehind", "clock step forward", "clock slew"} {
		if rep.Faults[kind] == 0 {
			t.Errorf("no %s in %d cycles", kind, *timeCycles)
		}
	}
}

// The checkers find what they look for.
func TestTimeChecks(t *testing.T) {
	ops := []timeOp{{first: 10, count: 5, call: 1, ret: 2}, {first: 14, count: 1, call: 3, ret: 4}}
	if v := checkTimeUnique("g", ops); len(v) != 1 {
		t.Errorf("a repeated id: %v", v)
	}
	if v := checkTimeOrder("g", ops); len(v) != 1 {
		t.Errorf("an id not above one returned before its call: %v", v)
	}
	ops[1].first = 15
	if v := append(checkTimeUnique("g", ops), checkTimeOrder("g", ops)...); len(v) != 0 {
		t.Errorf("a good history: %v", v)
	}
	ops[1].call = 1 // concurrent: either order is fine
	ops[1].first = 9
	if v := checkTimeOrder("g", ops); len(v) != 0 {
		t.Errorf("concurrent calls: %v", v)
	}
	r := &timeRun{start: time.Now()}
	rep := &TimeReport{}
	if v := r.checkRefusal(timeGens[0], timeOp{err: "55000 behind", lead: time.Second}, rep); len(v) != 1 {
		t.Errorf("a refusal with the ids a second ahead: %v", v)
	}
	if v := r.checkRefusal(timeGens[0], timeOp{err: "55000 behind", lead: 20 * time.Second}, rep); len(v) != 0 {
		t.Errorf("a refusal with the ids 20 s ahead: %v", v)
	}
	if v := r.checkTime(timeGens[2], timeOp{first: 1 << 18, count: 1}); len(v) != 1 {
		t.Errorf("a TSO of 1970: %v", v)
	}
}
