package torture

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
)

var cycles = flag.Int("torture.cycles", 50, "server runs of TestTorture, each ended by a fault")

// TestTorture is the bounded torture run CI does: the real binary (built
// with the race detector), every fault kind, every checker. The soak
// command runs the same with thousands of cycles.
func TestTorture(t *testing.T) {
	n := *cycles
	if testing.Short() {
		n = 10
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (scripts/soak %d -seed %d -segment %d draws the same faults; timing differs)", seed, n, seed, n)
	rep, err := Run(Config{
		Binary:   testenv.SeqdBinary(t),
		Dir:      testDir(t),
		Cycles:   n,
		Clients:  8,
		Load:     400 * time.Millisecond,
		Seed:     seed,
		Progress: func(s string) { t.Log(s) },
		// As an operator deploys it: SCRAM-SHA-256 and TLS, for every
		// client including the misbehaving ones.
		Secure: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	if len(rep.Violations) > 0 {
		t.Fatalf("%d violations:\n%s", len(rep.Violations), strings.Join(rep.Violations, "\n"))
	}
	// The run must have done what it claims, or the checks prove nothing.
	if rep.Outcomes["ok"] < 1000 || rep.Porcupine < 1000 || rep.DDL == 0 || rep.Commits == 0 {
		t.Fatalf("too little happened: %s", rep)
	}
	for _, f := range []Fault{Kill, PowerLoss, Clean, DiskFull} {
		if n >= 50 && rep.Faults[string(f)] == 0 {
			t.Errorf("no %s in %d cycles", f, n)
		}
	}
	if rep.Faults[string(DiskFull)] > 0 && rep.DiskFull == 0 {
		t.Errorf("%d disk-full cycles, and no request was refused", rep.Faults[string(DiskFull)])
	}
}

// testDir is the run's scratch directory: $TORTURE_DIR when set (emptied
// first, and kept afterwards with the server's log and, after a violation,
// the history), else a temporary one.
func testDir(t *testing.T) string {
	if d := os.Getenv("TORTURE_DIR"); d != "" {
		os.RemoveAll(d)
		os.MkdirAll(d, 0o755)
		return d
	}
	return t.TempDir()
}
