package client_test

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/seqd/seqd/client"
)

const batchSize = 50

// modes builds each generator mode over a source kind.
var modes = []struct {
	name string
	inc  int64 // INCREMENT of a native sequence for this mode
	gen  func(src client.Source, name string) client.Generator
}{
	{"async", 1, func(src client.Source, name string) client.Generator { return client.NewAsync(src, name) }},
	{"batch", batchSize, func(src client.Source, name string) client.Generator {
		return client.NewBatch(src, name, client.BatchOptions{Size: batchSize})
	}},
	{"async-batch", batchSize, func(src client.Source, name string) client.Generator {
		return client.NewAsyncBatch(src, name, client.BatchOptions{Size: batchSize, LowWatermark: 20})
	}},
}

// drain runs goroutines x perG calls of next and returns every value.
func drain(t *testing.T, goroutines, perG int, next func(ctx context.Context) (int64, error)) []int64 {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var all []int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]int64, 0, perG)
			for range perG {
				v, err := next(ctx)
				if err != nil {
					errs <- err
					return
				}
				got = append(got, v)
			}
			mu.Lock()
			all = append(all, got...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(all) != goroutines*perG {
		t.Fatalf("got %d values, want %d", len(all), goroutines*perG)
	}
	return all
}

// requireUnique fails if a value repeats.
func requireUnique(t *testing.T, vs []int64) {
	t.Helper()
	s := slices.Clone(vs)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			t.Fatalf("value %d returned twice", s[i])
		}
	}
}

// TestUnique: N goroutines x M values, every mode over every source, no
// value twice, and the generator's counts add up after Close.
func TestUnique(t *testing.T) {
	for _, kind := range kinds {
		for _, m := range modes {
			t.Run(kind+"/"+m.name, func(t *testing.T) {
				src := source(t, kind, m.inc)
				name := created(t, src)
				g := m.gen(src, name)
				vs := drain(t, 8, 120, g.Next)
				requireUnique(t, vs)
				if err := g.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
				if _, err := g.Next(context.Background()); !errors.Is(err, client.ErrClosed) {
					t.Fatalf("Next after Close: %v, want ErrClosed", err)
				}
				st := g.Stats()
				if st.Issued != int64(len(vs)) || st.Reserved != st.Issued+st.Released+st.Burned {
					t.Fatalf("stats do not add up: %+v for %d values", st, len(vs))
				}
			})
		}
	}
}

// TestSyncUnique: Sync inside committed transactions, N goroutines x M
// values: every value once, and together exactly 1..N*M.
func TestSyncUnique(t *testing.T) {
	for _, kind := range []string{"postgres-table", "mysql-table"} {
		t.Run(kind, func(t *testing.T) {
			src, db := tableSource(t, kind)
			name := created(t, src)
			g := client.NewSync(src, name)
			vs := drain(t, 6, 40, func(ctx context.Context) (v int64, err error) {
				err = client.RunTx(ctx, db, nil, client.Retry{}, func(tx *sql.Tx) error {
					v, err = g.Next(ctx, tx)
					return err
				})
				return v, err
			})
			requireGapless(t, vs, 1)
		})
	}
}

// requireGapless fails unless vs is exactly from, from+1, ..., in some
// order.
func requireGapless(t *testing.T, vs []int64, from int64) {
	t.Helper()
	s := slices.Clone(vs)
	slices.Sort(s)
	for i, v := range s {
		if v != from+int64(i) {
			t.Fatalf("values are not %d..%d without gaps: position %d holds %d", from, from+int64(len(s))-1, i, v)
		}
	}
}

var errRollback = errors.New("the application rolled back")

// TestSyncGaplessUnderRollbacks: transactions take one to three values
// each and a third of them roll back; the values of the committed ones
// are exactly 1..n, and the row's next value is n+1.
func TestSyncGaplessUnderRollbacks(t *testing.T) {
	for _, kind := range []string{"postgres-table", "mysql-table"} {
		t.Run(kind, func(t *testing.T) {
			src, db := tableSource(t, kind)
			name := created(t, src)
			g := client.NewSync(src, name)
			ctx := context.Background()
			var mu sync.Mutex
			var committed []int64
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for w := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(w), 7))
					for range 40 {
						var got []int64
						err := client.RunTx(ctx, db, nil, client.Retry{}, func(tx *sql.Tx) error {
							got = got[:0]
							for range 1 + rng.IntN(3) {
								v, err := g.Next(ctx, tx)
								if err != nil {
									return err
								}
								got = append(got, v)
							}
							if rng.IntN(3) == 0 {
								return errRollback
							}
							return nil
						})
						switch {
						case errors.Is(err, errRollback):
						case err != nil:
							errs <- err
							return
						default:
							mu.Lock()
							committed = append(committed, got...)
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if len(committed) == 0 {
				t.Fatal("nothing committed")
			}
			requireGapless(t, committed, 1)
			r, err := src.Reserve(ctx, name, 1)
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(len(committed)) + 1; r.First != want {
				t.Fatalf("after %d committed values the next is %d, want %d", len(committed), r.First, want)
			}
		})
	}
}

// call is one Next: when it started and ended, and what it returned.
type call struct {
	start, end time.Time
	v          int64
}

// requireRealTimeOrder fails if a call that started after another ended
// got a smaller value: sorted by end, the largest value of every call
// that ended before a call started must be below that call's value.
func requireRealTimeOrder(t *testing.T, calls []call) {
	t.Helper()
	byEnd := slices.Clone(calls)
	sort.Slice(byEnd, func(i, j int) bool { return byEnd[i].end.Before(byEnd[j].end) })
	byStart := slices.Clone(calls)
	sort.Slice(byStart, func(i, j int) bool { return byStart[i].start.Before(byStart[j].start) })
	j, best, have := 0, int64(0), false
	for _, c := range byStart {
		for j < len(byEnd) && byEnd[j].end.Before(c.start) {
			if !have || byEnd[j].v > best {
				best, have = byEnd[j].v, true
			}
			j++
		}
		if have && c.v <= best {
			t.Fatalf("a Next that started after another returned %d got %d", best, c.v)
		}
	}
}

// TestAsyncOrdered: a Next that starts after another returned gets a
// larger value, on every source.
func TestAsyncOrdered(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			src := source(t, kind, 1)
			g := client.NewAsync(src, created(t, src))
			var mu sync.Mutex
			var calls []call
			drain(t, 6, 60, func(ctx context.Context) (int64, error) {
				start := time.Now()
				v, err := g.Next(ctx)
				end := time.Now()
				mu.Lock()
				calls = append(calls, call{start, end, v})
				mu.Unlock()
				return v, err
			})
			requireRealTimeOrder(t, calls)
		})
	}
}

// TestAsyncBatchDoesNotWait: with the low watermark above what the
// application takes during one reservation, only the very first Next
// waits. The application's work between values (a sleep, like the
// Spanner tool's simulated transaction) paces it; waits are counted, not
// timed.
func TestAsyncBatchDoesNotWait(t *testing.T) {
	src := source(t, "seqd", 1)
	name := created(t, src)
	g := client.NewAsyncBatch(src, name, client.BatchOptions{Size: 1000, LowWatermark: 500})
	ctx := context.Background()
	if _, err := g.Next(ctx); err != nil {
		t.Fatal(err)
	}
	first := g.Stats().Waits
	vs := drain(t, 8, 500, func(ctx context.Context) (int64, error) {
		time.Sleep(200 * time.Microsecond)
		return g.Next(ctx)
	})
	requireUnique(t, vs)
	st := g.Stats()
	if st.Waits != first || st.Fetches < 4 {
		t.Fatalf("after the first value, %d Next calls waited over %d reservations; want 0 over at least 4", st.Waits-first, st.Fetches)
	}
	// The same load with no watermark to speak of must wait: the count
	// can fail.
	h := client.NewAsyncBatch(src, name, client.BatchOptions{Size: 1000, LowWatermark: 1})
	drain(t, 8, 500, func(ctx context.Context) (int64, error) {
		time.Sleep(200 * time.Microsecond)
		return h.Next(ctx)
	})
	if h.Stats().Waits <= 1 {
		t.Fatalf("a watermark of 1 never waited: %+v", h.Stats())
	}
	g.Close(ctx)
	h.Close(ctx)
}
