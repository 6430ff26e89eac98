package server

import (
	"context"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/storage/embedded"
)

// RestoreReport says what Restore did.
type RestoreReport struct {
	Sequences int
	StoreID   string // the new store's identity
	Bound     int64  // how many increments every sequence moved past its mark
	How       string // where Bound came from
}

// Bound is how far a restore moves every sequence past its durable mark
// in the backup. Values, when positive, is the operator's number of
// increments. Otherwise it is derived from the advance rate the backup
// recorded: RateFactor times the most the store's marks advanced in any
// engine.RateWindow while the server was watching, for every window in
// Time, how long the original may have served after the backup (0: from
// the backup until now, which holds if the original has stopped).
type Bound struct {
	Values int64
	Time   time.Duration
}

// RateFactor is the room a derived bound leaves over the recorded rate:
// the original may have gone faster after the backup than before.
const RateFactor = 2

// boundOf resolves a restore's bound against what the backup recorded,
// refusing where the rate is unknown.
func boundOf(b Bound, bk embedded.Backup, now time.Time) (int64, string, error) {
	if b.Values > 0 {
		return b.Values, "given with -bound", nil
	}
	need := "give -bound N (how many values any sequence may have handed out since the backup)"
	var peak int64
	var window, observed time.Duration
	found := false
	for _, n := range bk.Notes {
		var w, o string
		if _, err := fmt.Sscanf(n, "rate %d per %s observed %s", &peak, &w, &o); err == nil {
			var err1, err2 error
			window, err1 = time.ParseDuration(w)
			observed, err2 = time.ParseDuration(o)
			found = err1 == nil && err2 == nil && window > 0
		}
	}
	switch {
	case !found:
		return 0, "", fmt.Errorf("seqd restore: the backup records no advance rate (an older seqd took it): %s", need)
	case observed < window:
		return 0, "", fmt.Errorf("seqd restore: the advance rate is unknown: the server had run for %s when the backup was taken, less than the %s it measures over: %s", observed, window, need)
	case peak == 0:
		return 0, "", fmt.Errorf("seqd restore: the advance rate is unknown: no sequence advanced in the %s the server watched before the backup: %s", observed, need)
	}
	elapsed, since := b.Time, "given with -bound-time"
	if elapsed <= 0 {
		elapsed, since = now.Sub(bk.Taken), "since the backup was taken, "+bk.Taken.Format(time.RFC3339)
	}
	windows := int64(max(elapsed, 0)/window) + 1 // a part window counts whole, and at least one
	bound := int64(math.MaxInt64)
	if peak <= math.MaxInt64/RateFactor/windows {
		bound = RateFactor * peak * windows
	}
	how := fmt.Sprintf("%d x %d values per %s (the fastest the marks advanced in the %s the server watched) x %d windows of %s in %s (%s)",
		RateFactor, peak, window, observed, windows, window, elapsed.Round(time.Second), since)
	return bound, how, nil
}

// Restore makes a new store in dir from a backup (seqd_backup) that can
// never hand out a value the original may have handed out after the
// backup, as far as the bound holds: every sequence is moved the bound's
// increments past its durable mark in the backup (within its limits).
// Restore refuses when no bound can be had (none given and the rate
// unknown), when dir holds anything, and when from is no finished
// backup; the new store has an identity of its own.
func Restore(ctx context.Context, from, dir string, b Bound, logger *log.Logger) (RestoreReport, error) {
	var rep RestoreReport
	bk, err := embedded.ReadBackup(from)
	if err != nil {
		return rep, fmt.Errorf("seqd restore: %w", err)
	}
	bound, how, err := boundOf(b, bk, time.Now())
	if err != nil {
		return rep, err
	}
	rep.Bound, rep.How = bound, how
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return rep, fmt.Errorf("seqd restore: %s is not empty: a restore never writes over a store (live or not)", dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return rep, err
	}
	os.Remove(dir) // empty, if it exists
	if err := embedded.CopyBackup(from, dir); err != nil {
		return rep, err
	}
	st, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		return rep, err
	}
	eng, err := engine.Open(ctx, engine.Config{Store: st})
	if err != nil {
		st.Close()
		return rep, err
	}
	for _, info := range eng.List() {
		o := info.Options
		// The durable mark is where the engine resumes after opening the
		// backup as after a crash: State.Last. Move it bound increments on.
		counter := info.State.Last
		step := o.Increment
		room := (o.Max - counter) / step
		if step < 0 {
			room = (counter - o.Min) / -step
		}
		if room < 0 {
			room = 0
		}
		counter += min(bound, room) * step
		if _, err := eng.Setval(ctx, info.Name, o.Value(counter), true); err != nil {
			eng.Close()
			return rep, fmt.Errorf("seqd restore: %s: %w (the partial store in %s must be removed)", info.Name, err, dir)
		}
		rep.Sequences++
	}
	if err := eng.Close(); err != nil {
		return rep, err
	}
	st2, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		return rep, err
	}
	rep.StoreID = st2.ID()
	if err := st2.Close(); err != nil {
		return rep, err
	}
	logger.Printf("restored %d sequences from %s into %s (store %s), each %d increments past its mark in the backup: %s", rep.Sequences, from, dir, rep.StoreID, bound, how)
	return rep, nil
}
