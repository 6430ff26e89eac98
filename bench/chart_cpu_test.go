package bench

import (
	"bytes"
	"image/png"
	"testing"
)

// TestCPUPNG: the CPU chart draws a PNG for results with and without a
// measured server CPU.
func TestCPUPNG(t *testing.T) {
	rs := []Result{
		{Workload: "nextval", Target: "seqd", Threads: 16, Ops: 10, Values: 10, ValsPerS: 300, ServerCPUUs: 10},
		{Workload: "nextval", Target: RedisEverysec, Threads: 16, Ops: 10, Values: 10, ValsPerS: 200, ServerCPUUs: 8},
		{Workload: "nextval", Target: "seqd", Threads: 64, Ops: 10, Values: 10, ValsPerS: 350},
	}
	var b bytes.Buffer
	if err := WriteCPUPNG(&b, rs, "nextval"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil || img.Bounds().Dx() < 100 {
		t.Fatalf("not a chart: %v", err)
	}
	if err := WriteCPUPNG(&b, nil, "none"); err == nil {
		t.Fatal("a chart of nothing")
	}
}
