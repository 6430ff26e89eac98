package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/storage/embedded"
)

// RestoreReport says what Restore did.
type RestoreReport struct {
	Sequences int
	StoreID   string // the new store's identity
}

// Restore makes a new store in dir from a backup (seqd_backup) that can
// never hand out a value the original may have handed out after the
// backup: every sequence is moved bound increments past its durable mark
// in the backup (within its limits). The bound is the operator's: at
// least the values any sequence may have handed out since the backup
// (its rate times the time since, with room to spare). Restore refuses
// without a positive bound, when dir holds anything, and when from is no
// finished backup; the new store has an identity of its own.
func Restore(ctx context.Context, from, dir string, bound int64, logger *log.Logger) (RestoreReport, error) {
	var rep RestoreReport
	if bound <= 0 {
		return rep, errors.New("seqd restore: a bound is required (-bound N: how many values any sequence may have handed out since the backup); without one a restore could hand them out again")
	}
	if !embedded.IsBackup(from) {
		return rep, fmt.Errorf("seqd restore: %s is not a finished backup (no BACKUP-SEQD)", from)
	}
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
	logger.Printf("restored %d sequences from %s into %s (store %s), each %d increments past its mark in the backup", rep.Sequences, from, dir, rep.StoreID, bound)
	return rep, nil
}
