package bench

import (
	"bytes"
	"context"
	"image/png"
	"slices"
	"strings"
	"testing"
)

// TestModel checks what the model must show, whatever its parameters:
// monotonic keys put every window's writes on one node, pre-split or not;
// sharded keys over pre-split regions and bit-reversed keys spread them
// over all nodes once the regions have split.
func TestModel(t *testing.T) {
	cfg := ModelConfig{Nodes: 3, SplitKeys: 2000, Writes: 200_000, Window: 200}
	ms := RunModel(cfg)
	if len(ms) != 5 {
		t.Fatalf("%d model results", len(ms))
	}
	by := map[string]ModelResult{}
	for _, m := range ms {
		by[m.Shape] = m
		var sum float64
		for _, s := range m.NodeShare {
			sum += s
		}
		if sum < 0.999 || sum > 1.001 || len(m.Hottest) != 1000 {
			t.Fatalf("%s: shares sum to %v over %d windows", m.Shape, sum, len(m.Hottest))
		}
		if len(m.NodeShareOverTime) != 100 || len(m.NodeShareOverTime[0]) != 3 {
			t.Fatalf("%s: %d samples of node shares", m.Shape, len(m.NodeShareOverTime))
		}
		for i, shares := range m.NodeShareOverTime {
			if top := slices.Max(shares); top != m.Hottest[i*m.ShareEvery] {
				t.Fatalf("%s: sample %d: busiest node %v, hottest %v", m.Shape, i, top, m.Hottest[i*m.ShareEvery])
			}
		}
	}
	for _, name := range []string{"monotonic", "monotonic, 16 pre-split regions"} {
		for i, h := range by[name].Hottest {
			if h != 1 {
				t.Errorf("%s: window %d: the busiest node took %.2f of the writes, not all", name, i, h)
			}
		}
	}
	for _, name := range []string{"sharded S=4, 16 pre-split regions", "bit-reversed"} {
		m := by[name]
		if m.SteadyHottest > 0.45 || m.WriteRate < 2*25000 {
			t.Errorf("%s: steady hottest share %.2f, write rate %.0f: not spread over 3 nodes", name, m.SteadyHottest, m.WriteRate)
		}
		if m.Regions < 200_000/2000 {
			t.Errorf("%s: %d regions", name, m.Regions)
		}
	}
	if m := by["monotonic"]; m.WriteRate != 25000 {
		t.Errorf("monotonic: write rate %.0f, want one node's", m.WriteRate)
	}
	var out bytes.Buffer
	if err := WriteModel(&out, cfg, ms); err != nil || !strings.HasPrefix(out.String(), "MODEL") {
		t.Fatalf("table: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := WriteModelPNG(&out, cfg, ms); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&out); err != nil {
		t.Fatal(err)
	}
}

// TestHotspot runs the measurement briefly against the test PostgreSQL
// and MariaDB with ids from seqd: every point inserted its rows with
// distinct ids (the workload checks) and reports an index size. Nothing
// is timed.
func TestHotspot(t *testing.T) {
	ts := targets(t)
	rs, err := Run(context.Background(), Config{Workload: "hotspot", Targets: ts, Threads: []int{1, 4}, HotRows: 600})
	if err != nil {
		t.Fatal(err)
	}
	// postgres, postgres-nocache and mariadb, 3 shapes, 2 thread counts.
	if len(rs) != 3*3*2 {
		t.Fatalf("%d results", len(rs))
	}
	for _, r := range rs {
		if r.Values != 600 || r.Ops != 600 || r.IndexBytes <= 0 || r.P99Ms <= 0 {
			t.Fatalf("%s at %d threads: %+v", r.Label(), r.Threads, r)
		}
	}
	var out bytes.Buffer
	if err := WriteIndexSizes(&out, rs); err != nil || strings.Count(out.String(), "\n") != 1+len(rs) {
		t.Fatalf("index sizes: %v\n%s", err, out.String())
	}
}
