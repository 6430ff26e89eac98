package torture

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/loopback"
	"github.com/seqd/seqd/internal/testenv"
)

// TestRunawayStatements runs the real binary (without the race detector)
// and sends it statements that would run for hours or take every byte of
// the machine: a count over a 10M x 10M cross join, a sort of 10M rows, a
// cross join stopped by statement_timeout and one stopped by a
// CancelRequest, with aggregates over 10M rows that need only their
// state. Each ends as it must (an error with its SQLSTATE, or the right
// result); the process's resident memory, sampled throughout, stays
// within a generous bound; another session takes values all along.
func TestRunawayStatements(t *testing.T) {
	if testing.Short() {
		t.Skip("runaway statements on the real binary")
	}
	addr, err := loopback.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	p, err := startProc(testenv.SeqdPlainBinary(t), filepath.Join(t.TempDir(), "data"), addr, false, 0, nil, testWriter{t}, "-idle-timeout", "0")
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	ctx := context.Background()
	other, err := connect(ctx, dsnFor(addr, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if _, err := other.Exec(ctx, "create sequence r"); err != nil {
		t.Fatal(err)
	}
	base, err := p.rss()
	if err != nil {
		t.Fatal(err)
	}
	// Sample the resident memory, and take values from another session,
	// until the statements are done.
	w := watch(ctx, p, other)
	c, err := connect(ctx, dsnFor(addr, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, tc := range []runaway{
		{q: "select count(*) from generate_series(1, 10000000) a, generate_series(1, 10000000) b", want: "53200"},
		{q: "select g from generate_series(1, 10000000) g order by g desc limit 1", want: "53200"},
		{q: "select count(*) from generate_series(1, 1000000) a, generate_series(1, 1000000) b", want: "57014", setup: "set statement_timeout = '1s'"},
		{q: "select count(*) from generate_series(1, 1000000) a, generate_series(1, 1000000) b", want: "57014", cancel: true, setup: "reset statement_timeout"},
	} {
		tc.run(t, ctx, c)
	}
	// Aggregates that keep only their state: 10M rows, the right answer.
	var n, sum, hi int64
	if err := c.QueryRow(ctx, "select count(*), sum(g), max(g) from generate_series(1, 10000000) g").Scan(&n, &sum, &hi); err != nil {
		t.Fatal(err)
	}
	if n != 10_000_000 || sum != 50_000_005_000_000 || hi != 10_000_000 {
		t.Fatalf("aggregates over 10M rows: %d %d %d", n, sum, hi)
	}
	peak, values := w.stop(t)
	grew := peak - base
	t.Logf("resident: %d MiB at start, at most %d MiB during the runaway statements; %d values taken meanwhile",
		base/mib, peak/mib, values)
	// The statement budget is 256 MiB of estimated memory; the Go heap
	// around it (and its garbage) may double it. Before the budget, the
	// first statement alone grew seqd by 250-400 MB a second without end.
	if grew > 1024*mib {
		t.Errorf("resident memory grew by %d MiB", grew/mib)
	}
}

// runaway is a statement that must end as want says (a SQLSTATE), after
// setup, cancelled half a second in when cancel is set.
type runaway struct {
	q, want string
	setup   string
	cancel  bool
}

func (tc runaway) run(t *testing.T, ctx context.Context, c *pgx.Conn) {
	t.Helper()
	if tc.setup != "" {
		if _, err := c.Exec(ctx, tc.setup); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(ctx, tc.q, pgx.QueryExecModeSimpleProtocol)
		done <- err
	}()
	var err error
	for waiting := true; waiting; {
		select {
		case err = <-done:
			waiting = false
		case <-time.After(500 * time.Millisecond):
			if tc.cancel {
				c.PgConn().CancelRequest(ctx)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: still running after a minute", tc.q)
		}
	}
	got := fmt.Sprint(err)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		got = pe.Code
	}
	if got != tc.want {
		t.Fatalf("%s: %v, want %s", tc.q, err, tc.want)
	}
	t.Logf("%s: %s after %v", tc.q, tc.want, time.Since(began).Round(time.Millisecond))
}

// watcher samples a process's resident memory, and takes values in
// another session (each above the last), until stopped.
type watcher struct {
	peak, values          atomic.Int64
	done                  chan struct{}
	wg                    sync.WaitGroup
	sampleErr, nextvalErr error
}

func watch(ctx context.Context, p *proc, other *pgx.Conn) *watcher {
	w := &watcher{done: make(chan struct{})}
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		for {
			select {
			case <-w.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			r, err := p.rss()
			if err != nil {
				w.sampleErr = err
				return
			}
			if r > w.peak.Load() {
				w.peak.Store(r)
			}
		}
	}()
	go func() {
		defer w.wg.Done()
		var last int64
		for {
			select {
			case <-w.done:
				return
			default:
			}
			var v int64
			if err := other.QueryRow(ctx, "select nextval('r')").Scan(&v); err != nil || v <= last {
				w.nextvalErr = errors.Join(err, errors.New("nextval went backwards"))
				return
			}
			last = v
			w.values.Add(1)
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return w
}

// stop stops the watcher, failing t if either side failed or the other
// session took fewer than 10 values: the peak resident memory and the
// values taken.
func (w *watcher) stop(t *testing.T) (peak, values int64) {
	t.Helper()
	close(w.done)
	w.wg.Wait()
	if w.sampleErr != nil {
		t.Fatalf("reading the resident memory: %v", w.sampleErr)
	}
	if w.nextvalErr != nil {
		t.Fatalf("the other session: %v", w.nextvalErr)
	}
	if w.values.Load() < 10 {
		t.Fatalf("the other session took only %d values meanwhile", w.values.Load())
	}
	return w.peak.Load(), w.values.Load()
}
