package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqd/seqd/client"
	"github.com/seqd/seqd/server"
)

// TestRetryAcrossRestart: the seqd source sends a request again while the
// server is unreachable (here it restarts on the same address, as a
// failover looks to a client); generators in every mode go on through the
// outage with no value twice, and beyond every value before it.
func TestRetryAcrossRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv, err := server.Start(ctx, server.Config{DataDir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr().String()
	pool, err := pgxpool.New(ctx, fmt.Sprintf("postgres://seqd@%s/seqd?sslmode=disable&pool_max_conns=4", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	src := client.NewSeqd(pool, client.SeqdOptions{Cache: 100})
	m := newModeRun(t, src)
	gens, seen := m.gens, m.seen
	for mode := range gens {
		m.take(t, mode, 25)
	}
	before := map[string]int64{}
	for mode, vs := range seen {
		for v := range vs {
			before[mode] = max(before[mode], v)
		}
	}
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	// Down for a while: the requests made meanwhile wait and retry.
	restarted := make(chan *server.Server, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		s, err := server.Start(ctx, server.Config{DataDir: dir, Listen: addr})
		if err != nil {
			t.Error(err)
		}
		restarted <- s
	}()
	m.takeAll(t, 100)
	s2 := <-restarted
	if s2 == nil {
		t.FailNow()
	}
	for mode, g := range gens {
		if err := g.Close(ctx); err != nil {
			t.Errorf("%s: close: %v", mode, err)
		}
		if len(seen[mode]) != 125 {
			t.Errorf("%s: %d values", mode, len(seen[mode]))
		}
		below := 0
		for v := range seen[mode] {
			if v <= before[mode] {
				below++
			}
		}
		if below != 25 { // only the 25 taken before the outage
			t.Errorf("%s: %d values at or below the last one before the outage", mode, below)
		}
	}
	// With retrying off, the outage is reported as ErrUnavailable.
	s2.Shutdown(ctx)
	once := client.NewSeqd(pool, client.SeqdOptions{Retry: client.Retry{Attempts: 1}})
	if _, err := once.Reserve(ctx, "async", 1); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("a request to a stopped server without retries: %v, want ErrUnavailable", err)
	}
}

// modeRun is the three generator modes over one source, a sequence each,
// and every value each has handed out.
type modeRun struct {
	gens map[string]client.Generator
	mu   sync.Mutex
	seen map[string]map[int64]bool
}

func newModeRun(t *testing.T, src *client.Seqd) *modeRun {
	t.Helper()
	m := &modeRun{gens: map[string]client.Generator{}, seen: map[string]map[int64]bool{}}
	for mode, make := range map[string]func(string) client.Generator{
		"async": func(n string) client.Generator { return client.NewAsync(src, n) },
		"batch": func(n string) client.Generator { return client.NewBatch(src, n, client.BatchOptions{Size: 10}) },
		"async-batch": func(n string) client.Generator {
			return client.NewAsyncBatch(src, n, client.BatchOptions{Size: 10, LowWatermark: 3})
		},
	} {
		if err := src.Create(context.Background(), mode, 1); err != nil {
			t.Fatal(err)
		}
		m.gens[mode], m.seen[mode] = make(mode), map[int64]bool{}
	}
	return m
}

// take draws n values from mode, failing the test on an error or a value
// handed out twice.
func (m *modeRun) take(t *testing.T, mode string, n int) {
	for range n {
		v, err := m.gens[mode].Next(context.Background())
		if err != nil {
			t.Errorf("%s: %v", mode, err)
			return
		}
		m.mu.Lock()
		if m.seen[mode][v] {
			t.Errorf("%s: %d twice", mode, v)
		}
		m.seen[mode][v] = true
		m.mu.Unlock()
	}
}

// takeAll draws n values from every mode at once.
func (m *modeRun) takeAll(t *testing.T, n int) {
	var wg sync.WaitGroup
	for mode := range m.gens {
		wg.Add(1)
		go func() { defer wg.Done(); m.take(t, mode, n) }()
	}
	wg.Wait()
}
