// The clean shutdown: every sequence's exact position written back
// (invariant 5).

package engine

import (
	"context"
	"errors"

	"github.com/seqd/seqd/storage"
)

// Close stops handing out values, writes every sequence's exact position
// (the clean-shutdown record), stops the writer and closes the store.
// Calls blocked on a sequence return ErrClosed.
func (e *Engine) Close() error {
	e.catMu.Lock()
	if e.closing {
		e.catMu.Unlock()
		return nil
	}
	e.closing = true
	seqs := make([]*seq, 0, e.seqs.len())
	for s := range e.seqs.values() {
		seqs = append(seqs, s)
	}
	e.catMu.Unlock()

	e.closeTimeGens()
	var pending []chan error
	owner := !e.readOnly && (e.leadership == nil || e.leadership())
	if !owner {
		// Not the owner any more: nothing is written back, not even
		// where it would be fenced off.
		seqs = nil
		e.deposed.Store(true)
	}
	for _, s := range seqs {
		if done := e.closeSeq(s); done != nil {
			pending = append(pending, done)
		}
	}
	var errs []error
	for _, done := range pending {
		if err := <-done; err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && owner {
		// Every position is exact: the run ends cleanly.
		if _, err := e.writeCatalog(storage.Op{Key: runningKey, Expect: e.runningRev}); err != nil {
			errs = append(errs, err)
		}
	}
	e.w.stop()
	errs = append(errs, e.store.Close())
	return errors.Join(errs...)
}

// closeSeq fences s off and, if its durable record is a mark ahead of the
// exact position, submits the exact position. It returns the write's
// completion, or nil when nothing needs writing.
func (e *Engine) closeSeq(s *seq) chan error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waitIdleLocked(context.Background())
	s.drainLocked() // invariant 5: the exact position, untaken values back
	if s.gone || s.err != nil {
		return nil
	}
	s.err = closedError()
	defer s.broadcastLocked()
	if s.remaining == 0 {
		return nil // the record already holds the exact position
	}
	rec := record{id: s.id, opts: *s.opts, state: s.cur, unlogged: s.unlogged, epoch: s.epoch}
	done := make(chan error, 1)
	s.writing = true
	e.w.submit(&write{op: storage.Op{Key: s.key, Value: rec.encode(), Expect: s.rev}, done: func(rev storage.Rev, err error) {
		s.mu.Lock()
		s.writing = false
		s.broadcastLocked()
		s.mu.Unlock()
		done <- err
	}})
	return done
}
