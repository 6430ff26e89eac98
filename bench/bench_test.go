package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// targets are an in-process seqd (cached and NO CACHE), the test
// PostgreSQL and MariaDB.
func targets(t *testing.T) []Target {
	t.Helper()
	srv := seqdtest.Start(t, server.Config{MaxBulkRows: 1 << 20})
	ts, err := ParseTargets("seqd,seqd-nocache,postgres,postgres-nocache,mariadb", map[string]string{
		Seqd:     seqdtest.DSN(srv, "bench", "bench"),
		Postgres: testenv.PostgresDSN(t),
		MariaDB:  testenv.MariaDBDSN(t),
	}, 100)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestWorkloads runs every workload briefly against every target and
// checks what came back: the workloads themselves fail on a repeated
// value or a count that does not add up; here the points are checked to
// be all there, with the values their operations imply. Nothing is timed.
func TestWorkloads(t *testing.T) {
	ts := targets(t)
	ctx := context.Background()
	short := 150 * time.Millisecond
	for _, tc := range []struct {
		cfg    Config
		points int                  // expected number of results
		values func(r Result) int64 // values implied by r.Ops
	}{
		{Config{Workload: "nextval", Threads: []int{1, 3}, Duration: short}, 2 * 5, func(r Result) int64 { return r.Ops }},
		{Config{Workload: "nextval", Threads: []int{2}, Duration: short, Rate: 500}, 5, func(r Result) int64 { return r.Ops }},
		{Config{Workload: "ceiling", Threads: []int{2}, Duration: short}, 6, func(r Result) int64 { return r.Ops }},
		{Config{Workload: "bulk", Threads: []int{2}, Duration: short, BulkSize: 500}, 11, func(r Result) int64 { return r.Ops * 500 }},
		{Config{Workload: "multi", Threads: []int{4}, Duration: short, Sequences: 3}, 10, func(r Result) int64 { return r.Ops }},
		// 4 modes: sync over the 3 table targets, the rest over all 5.
		{Config{Workload: "spanner", Threads: []int{3}, Iterations: 30, BatchSize: 7, LowWatermark: 3, TxnTime: time.Millisecond}, 3 + 3*5, func(r Result) int64 { return 30 }},
		// postgres: sequence, identity, ids from seqd; postgres-nocache:
		// sequence; mariadb: sequence, auto_increment, ids from seqd;
		// each at 2 sizes.
		{Config{Workload: "insert", Threads: []int{2}, Rows: []int{20, 45}, Reps: 2, RowsPerTx: 10}, 7 * 2, func(r Result) int64 { return int64(2 * r.Size) }},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.cfg.Workload, len(tc.cfg.Threads)), func(t *testing.T) {
			cfg := tc.cfg
			cfg.Targets = ts
			rs, err := Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != tc.points {
				t.Fatalf("%d results, want %d: %+v", len(rs), tc.points, rs)
			}
			for _, r := range rs {
				if r.Ops == 0 || r.Values != tc.values(r) {
					t.Fatalf("%s: %d ops and %d values, want %d values", r.Label(), r.Ops, r.Values, tc.values(r))
				}
				if r.P50Ms <= 0 || r.P99Ms < r.P50Ms || r.MaxMs < r.P99Ms {
					t.Fatalf("%s: percentiles out of order: %+v", r.Label(), r)
				}
			}
			var b bytes.Buffer
			if err := WritePNG(&b, rs, cfg.Workload); err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(&b); err != nil {
				t.Fatalf("chart is not a PNG: %v", err)
			}
		})
	}
}

// TestPipeline: the nextval workload with 5 statements per round trip over
// the PostgreSQL-protocol targets; each operation brings 5 checked values.
// PostgreSQL runs as its own process, so its CPU time is measured.
func TestPipeline(t *testing.T) {
	var ts []Target
	for _, tg := range targets(t) {
		if tg.Kind != MariaDB {
			ts = append(ts, tg)
		}
	}
	rs, err := Run(context.Background(), Config{Workload: "nextval", Targets: ts, Threads: []int{2}, Duration: 300 * time.Millisecond, Pipeline: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Variant != "pipeline 5" || r.Ops == 0 || r.Values != 5*r.Ops {
			t.Fatalf("%s: %d ops, %d values", r.Label(), r.Ops, r.Values)
		}
	}
	if _, err := Run(context.Background(), Config{Workload: "nextval", Targets: []Target{{Name: "m", Kind: MariaDB, DSN: testenv.MariaDBDSN(t)}},
		Threads: []int{1}, Duration: 50 * time.Millisecond, Pipeline: 5}); err == nil {
		t.Fatal("MariaDB pipelined without an error")
	}
}

// TestChecks: the checks the workloads rely on can fail.
func TestChecks(t *testing.T) {
	a, b := &values{}, &values{}
	for v := int64(1); v <= 10; v++ {
		a.add(v)
	}
	b.add(20)
	b.addRange(11, 19)
	if err := checkUnique([]*values{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := checkGapless([]*values{a, b}, 1); err != nil {
		t.Fatal(err)
	}
	if err := checkGapless([]*values{a, b}, 0); err == nil {
		t.Fatal("1..20 passed as gapless from 0")
	}
	b.add(10)
	if err := checkUnique([]*values{a, b}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("a repeated 10 passed: %v", err)
	}
	c := &values{}
	c.add(5)
	c.add(5)
	if err := checkUnique([]*values{c}); err == nil {
		t.Fatal("5 twice in one worker passed")
	}
	d := &values{}
	d.add(1)
	d.add(3)
	if err := checkGapless([]*values{d}, 1); err == nil {
		t.Fatal("1, 3 passed as gapless")
	}
}

// TestOutputs: CSV has a row per result under its header, JSON holds the
// results and the ratios, the table prints the ratios.
func TestOutputs(t *testing.T) {
	rs := []Result{
		{Workload: "nextval", Target: "seqd", Threads: 8, Ops: 100, Values: 100, Seconds: 1, ValsPerS: 300},
		{Workload: "nextval", Target: "postgres", Threads: 8, Ops: 100, Values: 100, Seconds: 1, ValsPerS: 100},
		{Workload: "nextval", Target: "postgres-nocache", Threads: 8, Ops: 100, Values: 100, Seconds: 1, ValsPerS: 50},
		{Workload: "insert", Target: "postgres", Variant: "identity", Threads: 1, Size: 1000, MeanMs: 10},
		{Workload: "insert", Target: "postgres", Variant: "ids from seqd", Threads: 1, Size: 1000, MeanMs: 5},
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, rs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != len(rs)+1 || rows[0][0] != "workload" || rows[1][1] != "seqd" {
		t.Fatalf("csv: %v %v", rows, err)
	}
	b.Reset()
	if err := WriteJSON(&b, rs); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []Result
		Ratios  []Ratio
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// seqd against postgres (not postgres-nocache: another cache class);
	// ids from seqd against identity.
	if len(doc.Results) != 5 || len(doc.Ratios) != 2 || doc.Ratios[0].X != 3 || doc.Ratios[1].X != 0.5 {
		t.Fatalf("json: %+v", doc)
	}
	b.Reset()
	if err := WriteTable(&b, rs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "3.00x") || !strings.Contains(b.String(), "0.50x") {
		t.Fatalf("table without ratios:\n%s", b.String())
	}
	if _, err := ParseTargets("seqd,oracle", map[string]string{Seqd: "x"}, 1); err == nil {
		t.Fatal("unknown target accepted")
	}
	if _, err := ParseTargets("postgres", map[string]string{}, 1); err == nil {
		t.Fatal("target without an address accepted")
	}
}

// TestSeqdMySQL: the nextval workload over seqd's MySQL protocol (the
// seqd-mysql target), beside seqd over PostgreSQL's, on one server; other
// workloads refuse it.
func TestSeqdMySQL(t *testing.T) {
	srv := seqdtest.Start(t, server.Config{MySQLListen: "127.0.0.1:0"})
	ts, err := ParseTargets("seqd,seqd-mysql,seqd-mysql-nocache", map[string]string{
		Seqd:      seqdtest.DSN(srv, "bench", "bench"),
		SeqdMySQL: "bench@tcp(" + srv.MySQLAddr().String() + ")/public",
	}, 100)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Run(context.Background(), Config{Workload: "nextval", Targets: ts, Threads: []int{2}, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("%d results: %+v", len(rs), rs)
	}
	for _, r := range rs {
		if r.Ops == 0 || r.Values != r.Ops {
			t.Fatalf("%s: %d ops, %d values", r.Label(), r.Ops, r.Values)
		}
	}
	if _, err := Run(context.Background(), Config{Workload: "bulk", Targets: ts[1:2], Threads: []int{1}, Duration: 50 * time.Millisecond}); err == nil {
		t.Fatal("the bulk workload ran on seqd-mysql")
	}
}

// TestMySQLWorkloads: seqd-mysql in the ceiling workload (beside the
// in-process no-op MySQL responder it starts), with server-side prepared
// statements, and as the id source of the insert workload into MariaDB,
// timed by the clock; every result's values are checked (the insert's:
// as many distinct ids in the table as rows inserted).
func TestMySQLWorkloads(t *testing.T) {
	srv := seqdtest.Start(t, server.Config{MySQLListen: "127.0.0.1:0"})
	ts, err := ParseTargets("seqd-mysql,mariadb", map[string]string{
		SeqdMySQL: "bench@tcp(" + srv.MySQLAddr().String() + ")/public",
		MariaDB:   testenv.MariaDBDSN(t),
	}, 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		cfg    Config
		labels []string
	}{
		{Config{Workload: "ceiling", Targets: ts[:1], Threads: []int{2}, Duration: 150 * time.Millisecond},
			[]string{"seqd-mysql", "noop", "noop-mysql"}},
		{Config{Workload: "nextval", Targets: ts, Threads: []int{2}, Duration: 150 * time.Millisecond, Prepared: true},
			[]string{"seqd-mysql prepared", "mariadb prepared"}},
		{Config{Workload: "insert", Targets: ts, Threads: []int{2}, InsertTime: 200 * time.Millisecond, Reps: 1},
			[]string{"mariadb sequence CACHE 100", "mariadb auto_increment", "mariadb ids from seqd over MySQL"}},
	} {
		rs, err := Run(ctx, tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.cfg.Workload, err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.Label())
			if r.Ops == 0 || r.Values == 0 {
				t.Errorf("%s %s: %d ops, %d values", tc.cfg.Workload, r.Label(), r.Ops, r.Values)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.labels, ",") {
			t.Errorf("%s: results %q, want %q", tc.cfg.Workload, got, tc.labels)
		}
	}
}

// TestAPIWorkloads: seqd-http and seqd-grpc in the ceiling workload
// beside the in-process no-op HTTP and gRPC ceilings it starts, and
// seqd-grpc pipelined over its stream beside seqd pipelined over
// PostgreSQL's protocol; every value checked distinct by the runner, the
// pipelines' counts whole; the other workloads refuse them.
func TestAPIWorkloads(t *testing.T) {
	srv := seqdtest.Start(t, server.Config{APIListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
	ts, err := ParseTargets("seqd,seqd-http,seqd-grpc", map[string]string{
		Seqd:     seqdtest.DSN(srv, "bench", "bench"),
		SeqdHTTP: "http://" + srv.APIAddr().String(),
		SeqdGRPC: srv.GRPCAddr().String(),
	}, 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		cfg    Config
		labels []string
	}{
		{Config{Workload: "ceiling", Targets: ts[1:], Threads: []int{2}, Duration: 150 * time.Millisecond},
			[]string{"seqd-http", "seqd-grpc", "noop", "noop-http", "noop-grpc"}},
		{Config{Workload: "nextval", Targets: []Target{ts[0], ts[2]}, Threads: []int{2}, Duration: 150 * time.Millisecond, Pipeline: 8},
			[]string{"seqd pipeline 8", "seqd-grpc stream 8"}},
		{Config{Workload: "nextval", Targets: ts[2:], Threads: []int{2}, Duration: 150 * time.Millisecond, Pipeline: 4, StreamRange: 10},
			[]string{"seqd-grpc stream 4 x10"}},
		{Config{Workload: "nextval", Targets: ts[2:], Threads: []int{2}, Duration: 150 * time.Millisecond, Pipeline: 4, StreamRange: 10, StreamBatch: true},
			[]string{"seqd-grpc stream 4 x10 batched"}},
	} {
		rs, err := Run(ctx, tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.cfg.Workload, err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.Label())
			per := int64(tc.cfg.Pipeline) * max(tc.cfg.StreamRange, 1)
			if r.Label() == "seqd pipeline 8" {
				per = 8
			}
			if r.Ops == 0 || r.Values == 0 || (tc.cfg.Pipeline > 1 && r.Values != r.Ops*per) {
				t.Errorf("%s %s: %d ops, %d values", tc.cfg.Workload, r.Label(), r.Ops, r.Values)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.labels, ",") {
			t.Errorf("%s: results %q, want %q", tc.cfg.Workload, got, tc.labels)
		}
	}
	if _, err := Run(ctx, Config{Workload: "bulk", Targets: ts[1:2], Threads: []int{1}, Duration: 50 * time.Millisecond}); err == nil {
		t.Fatal("the bulk workload ran on seqd-http")
	}
	if _, err := Run(ctx, Config{Workload: "nextval", Targets: ts[1:2], Threads: []int{1}, Duration: 50 * time.Millisecond, Pipeline: 4}); err == nil {
		t.Fatal("seqd-http pipelined")
	}
}
