package engine

import (
	"context"
	"fmt"

	"github.com/seqd/seqd/storage"
)

// Rename gives a sequence a new name, in its schema or another (ALTER
// SEQUENCE ... RENAME TO, SET SCHEMA). One durable write deletes the old
// record and writes the new one; the sequence keeps its identity and its
// exact position (the window is given up, as other DDL gives it up).
func (e *Engine) Rename(ctx context.Context, from, to Name) error {
	e.catMu.Lock()
	err := e.waitCreatorsLocked(ctx, to)
	e.catMu.Unlock()
	if err != nil {
		return err
	}
	s, err := e.lookupIdle(ctx, from)
	if err != nil {
		return err
	}
	// The sequence is made busy (writing, its window empty: no value is
	// handed out, no write of it starts) before its mu is released, so
	// that catMu is taken with no seq.mu held (the lock order, Engine's
	// comment: invariants 10 and 11).
	// remaining and granted are kept for a refusal to put back: nothing
	// moves cur while it is busy.
	remaining, granted := s.remaining, s.granted
	s.writing, s.remaining, s.granted = true, 0, 0
	rec := record{id: s.id, opts: *s.opts, state: s.cur, unlogged: s.unlogged, epoch: s.epoch}
	del := storage.Op{Key: s.key, Expect: s.rev}
	s.mu.Unlock()
	e.catMu.Lock()
	switch {
	case e.creatorLocked(ctx, to) != nil:
		// A transaction took the name since: it has it.
		err = &Error{Kind: ErrExists, Msg: fmt.Sprintf("relation \"%s\" already exists in schema \"%s\"", to.Rel(), to.Schema())}
	case e.closing:
		err = closedError()
	case e.seqs.get(to.key) != nil:
		err = &Error{Kind: ErrExists, Msg: fmt.Sprintf("relation \"%s\" already exists in schema \"%s\"", to.Rel(), to.Schema())}
	default:
		err = e.schemaUsableLocked(to.Schema())
	}
	if err != nil {
		e.catMu.Unlock()
		s.mu.Lock()
		s.writing, s.remaining, s.granted = false, remaining, granted
		s.broadcastLocked()
		s.mu.Unlock()
		return err
	}
	e.setSeqLocked(to.key, s)
	e.catMu.Unlock()
	err = e.commit(s, storage.Op{Key: to.key, Value: rec.encode()}, func(rev storage.Rev) {
		s.key, s.rev = to.key, rev
		s.window, s.lastRefill = 0, 0
	}, del)
	e.catMu.Lock()
	defer e.catMu.Unlock()
	if err != nil {
		if e.seqs.get(to.key) == s {
			e.delSeqLocked(to.key)
		}
		return err
	}
	if e.seqs.get(from.key) == s {
		e.delSeqLocked(from.key)
	}
	e.catalogVersion.Add(1)
	return nil
}
