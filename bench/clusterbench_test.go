package bench

import (
	"context"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
)

// TestCluster runs the cluster workload briefly: both targets measured,
// the transactions counted, one leader kill measured with its burned
// values. No timing is asserted.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and four seqd processes")
	}
	rep, err := RunClusterBench(context.Background(), Config{Workload: "cluster", Threads: []int{2}, Duration: 500 * time.Millisecond},
		ClusterBenchConfig{Binary: testenv.SeqdBinary(t), Dir: t.TempDir(), Failovers: 1, Cache: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	if len(rep.Results) != 3 || rep.Results[0].Target != "seqd-cluster3" || rep.Results[1].Target != "seqd-cluster3-noorder" || rep.Results[2].Target != "seqd-single" {
		t.Fatalf("results: %+v", rep.Results)
	}
	for _, r := range rep.Results {
		if r.Values == 0 {
			t.Errorf("%s served nothing", r.Target)
		}
		if rep.TxnsPerMillion[r.Target] <= 0 {
			t.Errorf("%s: no store transactions counted", r.Target)
		}
	}
	if len(rep.Unavailable) != 1 || len(rep.Burned) != 1 || len(rep.NoOrderWait) != 1 || rep.NoOrderWait[0] <= 0 {
		t.Fatalf("failovers: %v %v %v", rep.Unavailable, rep.Burned, rep.NoOrderWait)
	}
	// Under load with CACHE 100, the killed leader held a window: the next
	// leader counts it burned, within the CACHE.
	if b := rep.Burned[0]; b < 0 || b > 100 {
		t.Errorf("burned at the failover: %d", b)
	}
}
