package server

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestTimeIDsClock: a server takes the clock it is given: SNOWFLAKE ids
// carry -node-id and follow the clock, a step back within MaxBehind is
// borrowed and exported as seqd_time_ids_clock_behind_seconds, one past
// it refused with 55000, and ids resume once the clock is back.
func TestTimeIDsClock(t *testing.T) {
	ctx := context.Background()
	var back atomic.Int64 // nanoseconds the clock reads behind the system's
	s, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", HTTP: "127.0.0.1:0", NodeID: 7,
		WallClock: func() time.Time { return time.Now().Add(-time.Duration(back.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	c, err := pgx.Connect(ctx, "postgres://seqd@"+s.Addr().String()+"/seqd")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	next := func() (int64, error) {
		var v int64
		err := c.QueryRow(ctx, "select nextval('ids')").Scan(&v)
		return v, err
	}
	if _, err := c.Exec(ctx, "create sequence ids snowflake"); err != nil {
		t.Fatal(err)
	}
	first, err := next()
	if err != nil || first>>12&1023 != 7 {
		t.Fatalf("first id %d (node %d), %v", first, first>>12&1023, err)
	}
	back.Store(int64(5 * time.Second))
	v, err := next()
	if err != nil || v <= first {
		t.Fatalf("5 s back: %d after %d, %v", v, first, err)
	}
	var behind string
	for _, l := range strings.Split(scrape(t, s), "\n") {
		if v, ok := strings.CutPrefix(l, "seqd_time_ids_clock_behind_seconds "); ok {
			behind = v
		}
	}
	f, _ := strconv.ParseFloat(behind, 64)
	if f < 4.5 || f > 6 {
		t.Fatalf("the exported skew: %q, want about 5 s", behind)
	}
	back.Store(int64(time.Minute))
	var pe *pgconn.PgError
	if _, err := next(); err == nil || !errors.As(err, &pe) || pe.Code != "55000" {
		t.Fatalf("a minute back: %v, want 55000", err)
	}
	back.Store(0)
	if v2, err := next(); err != nil || v2 <= v {
		t.Fatalf("the clock back: %d after %d, %v", v2, v, err)
	}
}
