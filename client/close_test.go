package client_test

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/seqd/seqd/client"
)

// TestCloseGivesBackTheTail: a generator closed while its range is the
// sequence's tail gives the unused values back, and the next caller gets
// them; one whose range is no longer the tail burns them and says so.
func TestCloseGivesBackTheTail(t *testing.T) {
	for _, kind := range []string{"seqd", "seqd-http", "postgres-table", "mysql-table"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			src := source(t, kind, 1)
			name := created(t, src)
			g := client.NewBatch(src, name, client.BatchOptions{Size: 100})
			for want := int64(1); want <= 10; want++ {
				if v, err := g.Next(ctx); err != nil || v != want {
					t.Fatalf("Next = %d, %v; want %d", v, err, want)
				}
			}
			if err := g.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if st := g.Stats(); st.Released != 90 || st.Burned != 0 {
				t.Fatalf("closing the tail: %+v, want 90 released, none burned", st)
			}
			r, err := src.Reserve(ctx, name, 1)
			if err != nil || r.First != 11 {
				t.Fatalf("after the release the next value is %d (%v), want 11", r.First, err)
			}

			// a's range stops being the tail when b reserves after it.
			a := client.NewBatch(src, name, client.BatchOptions{Size: 100})
			b := client.NewBatch(src, name, client.BatchOptions{Size: 100})
			va, _ := a.Next(ctx)
			vb, err := b.Next(ctx)
			if err != nil || va != 12 || vb != 112 {
				t.Fatalf("a, b got %d, %d (%v); want 12, 112", va, vb, err)
			}
			if err := a.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if st := a.Stats(); st.Released != 0 || st.Burned != 99 {
				t.Fatalf("closing a range that is not the tail: %+v, want 99 burned", st)
			}
			if err := b.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if st := b.Stats(); st.Released != 99 || st.Burned != 0 {
				t.Fatalf("closing the tail after another closed: %+v, want 99 released", st)
			}
			if r, err := src.Reserve(ctx, name, 1); err != nil || r.First != 113 {
				t.Fatalf("next value %d (%v), want 113", r.First, err)
			}
		})
	}
}

// TestCloseWithPrefetchedRange: an AsyncBatch that holds a range
// reserved ahead gives that one (the tail) back and burns what is left of
// the current one.
func TestCloseWithPrefetchedRange(t *testing.T) {
	ctx := context.Background()
	src := source(t, "seqd", 1)
	name := created(t, src)
	g := client.NewAsyncBatch(src, name, client.BatchOptions{Size: 10, LowWatermark: 5})
	for range 6 { // 4 left: below the watermark, the next range is on its way
		if _, err := g.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st := g.Stats()
	if st.Reserved != 20 || st.Issued != 6 || st.Released != 10 || st.Burned != 4 {
		t.Fatalf("stats %+v; want 20 reserved, 6 issued, 10 released, 4 burned", st)
	}
	if r, err := src.Reserve(ctx, name, 1); err != nil || r.First != 11 {
		t.Fatalf("next value %d (%v), want 11", r.First, err)
	}
}

// TestErrors: every source classifies a missing sequence, an exhausted
// one and bad arguments with errors.Is, and keeps the driver's error.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			src := source(t, kind, 1)
			created(t, src) // tables exist; the sequence below does not
			_, err := src.Reserve(ctx, "no_such_sequence", 1)
			if !errors.Is(err, client.ErrNotFound) {
				t.Fatalf("missing sequence: %v, want ErrNotFound", err)
			}
			g := client.NewAsync(src, "no_such_sequence")
			if _, err := g.Next(ctx); !errors.Is(err, client.ErrNotFound) {
				t.Fatalf("Next of a missing sequence: %v, want ErrNotFound", err)
			}
			name := freshName()
			if err := src.Create(ctx, name, math.MaxInt64-1); err != nil {
				t.Fatal(err)
			}
			var last error
			for range 3 {
				if _, last = src.Reserve(ctx, name, 1); last != nil {
					break
				}
			}
			if !errors.Is(last, client.ErrLimitReached) {
				t.Fatalf("past the maximum: %v, want ErrLimitReached", last)
			}
		})
	}
	t.Run("invalid", func(t *testing.T) {
		if _, err := client.NewPostgresTable(nil, client.TableOptions{Table: "seq; drop table x"}); !errors.Is(err, client.ErrInvalid) {
			t.Fatalf("bad table name: %v, want ErrInvalid", err)
		}
		src := source(t, "seqd", 1)
		if _, err := src.Reserve(ctx, created(t, src), 0); !errors.Is(err, client.ErrInvalid) {
			t.Fatalf("reserve 0: %v, want ErrInvalid", err)
		}
		native := source(t, "postgres-native", 1)
		if _, err := native.Reserve(ctx, created(t, native), 10); !errors.Is(err, client.ErrUnsupported) {
			t.Fatalf("10 values of an INCREMENT 1 native sequence: %v, want ErrUnsupported", err)
		}
	})
}

// TestConflictsRetried: under SERIALIZABLE, concurrent reservations of
// one row fail with serialization errors. Without retries they surface
// as ErrConflict; with the default retries every reservation succeeds and
// no value repeats.
func TestConflictsRetried(t *testing.T) {
	dsn := postgresDSNWith(t, "default_transaction_isolation=serializable")
	db := openDB(t, "pgx", dsn)
	ctx := context.Background()
	once, err := client.NewPostgresTable(db, client.TableOptions{Table: testTable, Retry: client.Retry{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	name := created(t, once)
	sawConflict := false
	for round := 0; round < 20 && !sawConflict; round++ {
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				var err error
				for range 20 {
					if _, err = once.Reserve(ctx, name, 1); err != nil {
						break
					}
				}
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				if !errors.Is(err, client.ErrConflict) {
					t.Fatalf("unexpected error: %v", err)
				}
				sawConflict = true
			}
		}
	}
	if !sawConflict {
		t.Fatal("8 writers of one row under SERIALIZABLE never conflicted")
	}
	retried, err := client.NewPostgresTable(db, client.TableOptions{Table: testTable, Retry: client.Retry{Attempts: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	g := client.NewAsync(retried, name)
	requireUnique(t, drain(t, 8, 40, g.Next))

	// Sync inside SERIALIZABLE transactions: RunTx runs them again.
	s := client.NewSync(retried, name)
	drain(t, 8, 20, func(ctx context.Context) (v int64, err error) {
		err = client.RunTx(ctx, db, nil, client.Retry{Attempts: 1000}, func(tx *sql.Tx) error {
			v, err = s.Next(ctx, tx)
			return err
		})
		return v, err
	})
}

func postgresDSNWith(t *testing.T, param string) string {
	dsn := postgresDSN(t)
	if strings.Contains(dsn, "?") {
		return dsn + "&" + param
	}
	return dsn + "?" + param
}
