package bench

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/server"
)

// redisBinary is the redis-server scripts/test-deps.sh installs (or one
// on PATH). Without it the test is skipped, unless SEQD_REQUIRE_DEPS is
// set, when it fails.
func redisBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("SEQD_TEST_REDIS_SERVER")
	if bin == "" {
		bin = "redis-server"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		why := "no redis-server (Debian's redis-server; scripts/test-deps.sh installs it): " + err.Error()
		if os.Getenv("SEQD_REQUIRE_DEPS") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	return p
}

// TestRedisTargets runs the nextval grid, one value per call and
// pipelined, on Redis with appendfsync always and everysec beside an
// in-process seqd, on servers of the test's own; the workload checks
// every value; here every point is checked to be there, the Redis
// servers' CPU to be measurable, and the ratios to pair like with like.
func TestRedisTargets(t *testing.T) {
	bin := redisBinary(t)
	srv := seqdtest.Start(t, server.Config{})
	ts, err := ParseTargets("seqd,seqd-nocache,redis-always,redis-everysec", map[string]string{Seqd: seqdtest.DSN(srv, "bench", "bench")}, 100)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := StartRedisTargets(ts, bin, t.TempDir())
	t.Cleanup(stop)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range ts[2:] {
		if tg.DSN == "" || probeFor(tg) == nil {
			t.Fatalf("%s: server %q not found by its port", tg.Name, tg.DSN)
		}
	}
	ctx := context.Background()
	short := 150 * time.Millisecond
	for _, pipeline := range []int{1, 4} {
		rs, err := Run(ctx, Config{Workload: "nextval", Targets: ts, Threads: []int{1, 3}, Duration: short, Pipeline: pipeline})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 2*len(ts) {
			t.Fatalf("pipeline %d: %d results: %+v", pipeline, len(rs), rs)
		}
		for _, r := range rs {
			if r.Ops == 0 || r.Values != r.Ops*int64(pipeline) {
				t.Fatalf("pipeline %d: %s: %d ops, %d values", pipeline, r.Label(), r.Ops, r.Values)
			}
		}
	}
	if _, err := Run(ctx, Config{Workload: "bulk", Targets: ts[2:3], Threads: []int{1}, Duration: short}); err == nil {
		t.Fatal("the bulk workload ran on redis-always")
	}
	if _, err := ParseTargets("redis-always-nocache", nil, 1); err == nil {
		t.Fatal("redis-always-nocache accepted")
	}
}

// TestRedisRatios: seqd NO CACHE is compared with redis-always, cached
// seqd with redis-everysec, in values/s and in server CPU per value.
func TestRedisRatios(t *testing.T) {
	rs := []Result{
		{Workload: "nextval", Target: "seqd", Threads: 16, Ops: 100, Values: 100, ValsPerS: 200, ServerCPUUs: 10},
		{Workload: "nextval", Target: "seqd-nocache", Threads: 16, Ops: 100, Values: 100, ValsPerS: 50, ServerCPUUs: 30},
		{Workload: "nextval", Target: RedisAlways, Threads: 16, Ops: 100, Values: 100, ValsPerS: 100, ServerCPUUs: 20},
		{Workload: "nextval", Target: RedisEverysec, Threads: 16, Ops: 100, Values: 100, ValsPerS: 400, ServerCPUUs: 5},
	}
	got := map[string]float64{}
	for _, q := range Ratios(rs) {
		got[q.This+"/"+q.Against+" "+q.Of] = q.X
	}
	want := map[string]float64{
		"seqd/redis-everysec values/s":               0.5,
		"seqd/redis-everysec server CPU/value":       2,
		"seqd-nocache/redis-always values/s":         0.5,
		"seqd-nocache/redis-always server CPU/value": 1.5,
	}
	if len(got) != len(want) {
		t.Fatalf("ratios %v, want %v", got, want)
	}
	for k, x := range want {
		if got[k] != x {
			t.Errorf("%s = %v, want %v", k, got[k], x)
		}
	}
}

// TestRedisRestart: a counter survives a kill -9 of a redis-server with
// appendfsync always, which restarts on its AOF and counts on.
func TestRedisRestart(t *testing.T) {
	s, err := StartRedis(redisBinary(t), t.TempDir(), "always")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Kill)
	tg := Target{Name: RedisAlways, Kind: RedisAlways, DSN: s.DSN()}
	ctx := context.Background()
	take := func(n int) int64 {
		t.Helper()
		c, err := connect(ctx, tg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		var v int64
		for range n {
			if v, err = c.value(ctx, "k"); err != nil {
				t.Fatal(err)
			}
		}
		return v
	}
	if v := take(100); v != 100 {
		t.Fatalf("100th INCR returned %d", v)
	}
	s.Kill()
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if v := take(1); v != 101 {
		t.Fatalf("after kill -9 and restart INCR returned %d, want 101", v)
	}
	if _, err := StartRedis(redisBinary(t), t.TempDir(), "no"); err == nil {
		t.Fatal("appendfsync no accepted")
	}
}
