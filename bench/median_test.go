package bench

import (
	"bytes"
	"strings"
	"testing"
)

// TestMedians: each point's figures are the medians of the runs', and
// each ratio the median of the ratios each run measured (not the ratio
// of the medians).
func TestMedians(t *testing.T) {
	run := func(seqd, pg float64) []Result {
		return []Result{
			{Workload: "nextval", Target: "seqd", Threads: 16, Ops: int64(seqd), Values: int64(seqd), ValsPerS: seqd, ServerCPUUs: 1000 / seqd},
			{Workload: "nextval", Target: "postgres", Threads: 16, Ops: int64(pg), Values: int64(pg), ValsPerS: pg, ServerCPUUs: 1000 / pg},
		}
	}
	runs := [][]Result{run(100, 100), run(300, 100), run(200, 400)}
	med := MedianResults(runs)
	if len(med) != 2 || med[0].Target != "seqd" || med[0].ValsPerS != 200 || med[1].ValsPerS != 100 || med[0].ServerCPUUs != 5 {
		t.Fatalf("medians %+v", med)
	}
	// values/s ratios 1, 3, 0.5: median 1 (the medians' ratio would be 2).
	var x []float64
	for _, q := range MedianRatios(runs) {
		if q.This == "seqd" && q.Against == "postgres" && q.Of == "values/s" {
			x = append(x, q.X)
		}
	}
	if len(x) != 1 || x[0] != 1 {
		t.Fatalf("median ratio %v, want [1]", x)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Fatalf("median of 1..4 = %v", m)
	}
	var b bytes.Buffer
	if err := WriteMedianTable(&b, runs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "medians of 3 runs") || !strings.Contains(b.String(), "1.00x") {
		t.Fatalf("table:\n%s", b.String())
	}
}
