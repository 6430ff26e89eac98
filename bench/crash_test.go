package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
)

// TestCountReissued: a history with known repeats, across epochs and
// clients' order, is counted exactly, each repeat charged to the epoch
// it came back in.
func TestCountReissued(t *testing.T) {
	hist := []returned{
		{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5},
		// kill 1: 4 and 5 come back, then new values.
		{1, 4}, {1, 5}, {1, 6},
		// kill 2: 6 comes back twice (two clients), 5 a second time.
		{2, 6}, {2, 5}, {2, 6}, {2, 9},
	}
	// Out of order, as clients' histories are concatenated.
	hist[0], hist[7] = hist[7], hist[0]
	distinct, reissued, perEpoch := countReissued(hist, 2)
	if distinct != 7 || reissued != 5 {
		t.Fatalf("distinct %d, reissued %d; want 7 and 5", distinct, reissued)
	}
	if perEpoch[0] != 0 || perEpoch[1] != 2 || perEpoch[2] != 3 {
		t.Fatalf("per epoch %v, want [0 2 3]", perEpoch)
	}
	// Epoch 1 ran 4..6 after epoch 0's 1..5: overlap 2; epoch 2 ran
	// 5..9 after 6: overlap 2.
	if gaps := epochGaps(hist, 2); gaps[1] != -2 || gaps[2] != -2 {
		t.Fatalf("gaps %v", gaps)
	}
	if d, r, _ := countReissued([]returned{{0, 1}, {1, 3}, {2, 7}}, 2); d != 3 || r != 0 {
		t.Fatalf("no repeats: distinct %d, reissued %d", d, r)
	}
	if gaps := epochGaps([]returned{{0, 1}, {1, 3}, {2, 7}}, 2); gaps[1] != 1 || gaps[2] != 3 {
		t.Fatalf("skips: gaps %v", gaps)
	}
}

// TestCrash runs the crash workload small on Redis (appendfsync
// everysec) and on the seqd binary: every value is accounted for, and
// seqd returns none twice and skips at most its CACHE per kill. Redis's
// count is not asserted: a kill -9 loses only what it had not written.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("redis-server and seqd processes killed and restarted")
	}
	redisBin := redisBinary(t)
	ts, err := ParseTargets("redis-everysec,seqd", map[string]string{Seqd: "unused"}, 50)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := RunCrash(context.Background(), CrashConfig{Targets: ts, SeqdBinary: testenv.SeqdBinary(t), RedisBinary: redisBin,
		Dir: t.TempDir(), Threads: 3, Duration: 1500 * time.Millisecond, Kills: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCrash(&b, rs); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	if len(rs) != 2 || !strings.Contains(b.String(), "returned twice") {
		t.Fatalf("results: %+v", rs)
	}
	for _, r := range rs {
		if r.Returned == 0 || r.Distinct+r.Reissued != r.Returned || len(r.Kills) != 2 {
			t.Fatalf("%s: %+v", r.Target, r)
		}
		for i, k := range r.Kills {
			if k.Down <= 0 {
				t.Errorf("%s kill %d: serving again after %v", r.Target, i+1, k.Down)
			}
		}
	}
	seqd := rs[1]
	if seqd.Reissued != 0 {
		t.Fatalf("seqd returned %d values twice", seqd.Reissued)
	}
	for i, k := range seqd.Kills {
		if k.Gap < 0 || k.Gap > 50 {
			t.Errorf("seqd kill %d: gap %d, want 0..CACHE (50)", i+1, k.Gap)
		}
	}
}
