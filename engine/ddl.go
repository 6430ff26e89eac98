package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
)

// Create makes a sequence durable and returns whether it did: with
// ifNotExists, an existing sequence is left alone and created is false.
func (e *Engine) Create(ctx context.Context, n Name, spec seqmath.Spec, ifNotExists bool) (created bool, err error) {
	return e.CreateWith(ctx, n, spec, CreateOptions{IfNotExists: ifNotExists})
}

// CreateOptions are CREATE SEQUENCE's choices beyond the sequence's
// arithmetic.
type CreateOptions struct {
	IfNotExists bool
	// Unlogged: the sequence goes back to its start after a crash (as
	// PostgreSQL's UNLOGGED sequences do); a clean shutdown keeps it.
	Unlogged bool
	// Owner is the role that owns the new sequence; "" records none.
	Owner string
}

// CreateWith is Create with all of CREATE SEQUENCE's choices.
func (e *Engine) CreateWith(ctx context.Context, n Name, spec seqmath.Spec, co CreateOptions) (created bool, err error) {
	ifNotExists := co.IfNotExists
	e.catMu.Lock()
	if e.closing {
		e.catMu.Unlock()
		return false, closedError()
	}
	if err := e.waitCreatorsLocked(ctx, n); err != nil {
		e.catMu.Unlock()
		return false, err
	}
	if old := e.seqs.get(n.key); old != nil {
		e.catMu.Unlock()
		// One whose creation failed to persist may or may not exist
		// after a restart: say so rather than that it exists.
		old.mu.Lock()
		err := old.err
		old.mu.Unlock()
		if err != nil {
			return false, err
		}
		if ifNotExists {
			return false, nil
		}
		return false, &Error{Kind: ErrExists, Msg: fmt.Sprintf("relation \"%s\" already exists", n.Rel())}
	}
	if err := e.schemaUsableLocked(n.Schema()); err != nil {
		e.catMu.Unlock()
		return false, err
	}
	opts, state, err := seqmath.Create(spec)
	if err != nil {
		e.catMu.Unlock()
		return false, err
	}
	id, err := e.newIDLocked()
	if err != nil {
		e.catMu.Unlock()
		return false, err
	}
	// The new sequence is visible at once but hands out nothing until its
	// record is durable: writing is set and the window is empty.
	s := &seq{key: n.key, id: id, opts: internOptions(opts), cur: state, writing: true, unlogged: co.Unlogged}
	e.setSeqLocked(n.key, s)
	e.catMu.Unlock()

	rec := record{id: id, opts: opts, state: state, unlogged: co.Unlogged}
	var extra []storage.Op
	var acl ACL
	if co.Owner != "" {
		// The owner is durable with the sequence, in the same commit.
		acl = ACL{Owner: co.Owner, Grants: map[string]Privs{}}
		extra = append(extra, storage.Op{Key: aclKey(id), Value: acl.encode()})
	}
	var aclRev storage.Rev
	if err := e.commit(s, storage.Op{Key: n.key, Value: rec.encode()}, func(rev storage.Rev) { s.rev, aclRev = rev, rev }, extra...); err != nil {
		if storage.Refused(err) {
			e.catMu.Lock()
			if e.seqs.get(n.key) == s {
				e.delSeqLocked(n.key)
				e.catalogVersion.Add(1)
			}
			e.catMu.Unlock()
		}
		return false, err
	}
	if co.Owner != "" {
		e.catMu.Lock()
		e.putACLLocked(id, acl.kept(), aclRev)
		e.catMu.Unlock()
	}
	e.catalogVersion.Add(1)
	return true, nil
}

// Alter applies an ALTER SEQUENCE spec. The sequence continues from its
// exact position (or from RESTART's value), with nothing skipped.
func (e *Engine) Alter(ctx context.Context, n Name, spec seqmath.Spec) error {
	resets := func(old *seqmath.Options) bool { return logResets(spec, old) }
	return e.mutateLogged(ctx, n, spec.Restarts(), resets, func(s *seq) (seqmath.Options, seqmath.State, error) {
		return seqmath.Alter(*s.opts, s.cur, spec)
	})
}

// Setval sets the sequence's position as setval(n, v, called) does.
func (e *Engine) Setval(ctx context.Context, n Name, v int64, called bool) (id uint64, err error) {
	var sid uint64
	err = e.mutate(ctx, n, true, func(s *seq) (seqmath.Options, seqmath.State, error) {
		sid = s.id
		st, err := s.opts.Setval(v, called, s.name().Rel())
		return *s.opts, st, err
	})
	return sid, err
}

// errNotAhead: a SetvalAhead that would move the sequence back.
var errNotAhead = errors.New("seqd: setval would move the sequence back")

// SetvalAhead is MariaDB's SETVAL: Setval only if the next value it
// leaves is not behind the sequence's next value now (for a descending
// sequence, not above it); otherwise nothing changes and moved is false.
// The comparison and the change are one step under the sequence's lock.
func (e *Engine) SetvalAhead(ctx context.Context, n Name, v int64, called bool) (id uint64, moved bool, err error) {
	var sid uint64
	err = e.mutate(ctx, n, true, func(s *seq) (seqmath.Options, seqmath.State, error) {
		sid = s.id
		if !s.opts.Shape.Shaped() && !ahead(s.opts.Increment, s.cur, v, called) {
			return *s.opts, s.cur, errNotAhead
		}
		st, err := s.opts.Setval(v, called, s.name().Rel())
		return *s.opts, st, err
	})
	if errors.Is(err, errNotAhead) {
		return sid, false, nil
	}
	return sid, err == nil, err
}

// ahead reports whether the next value after SETVAL(v, called) is at or
// beyond the next value after cur, in the direction of inc (a value past
// the int64 range is beyond every other).
func ahead(inc int64, cur seqmath.State, v int64, called bool) bool {
	next := func(last int64, called bool) (int64, bool) {
		if !called {
			return last, true
		}
		n := last + inc
		if inc > 0 && n < last || inc < 0 && n > last {
			return 0, false // past the range
		}
		return n, true
	}
	now, inNow := next(cur.Last, cur.Called)
	then, inThen := next(v, called)
	switch {
	case !inThen:
		return true
	case !inNow:
		return false
	case inc > 0:
		return then >= now
	}
	return then <= now
}

// SetLogged is ALTER SEQUENCE ... SET LOGGED|UNLOGGED.
func (e *Engine) SetLogged(ctx context.Context, n Name, logged bool) error {
	s, err := e.lookupIdle(ctx, n)
	if err != nil {
		return err
	}
	if s.unlogged == !logged {
		s.mu.Unlock()
		return nil
	}
	s.writing, s.remaining, s.granted = true, 0, 0
	rec := record{id: s.id, opts: *s.opts, state: s.cur, unlogged: !logged, epoch: s.epoch}
	op := storage.Op{Key: s.key, Value: rec.encode(), Expect: s.rev}
	s.mu.Unlock()
	return e.commit(s, op, func(rev storage.Rev) {
		s.rev, s.unlogged = rev, !logged
		s.window, s.lastRefill = 0, 0
	})
}

// Drop removes the sequence durably. A NOORDER sequence's, in cluster
// mode, returns once no node serves it any more (Ranges.settle).
func (e *Engine) Drop(ctx context.Context, n Name) error {
	noOrder, err := e.drop(ctx, n)
	if err == nil && noOrder {
		e.ranges.settle(ctx)
	}
	return err
}

// drop is Drop without the wait; noOrder says whether it dropped a
// NOORDER sequence in cluster mode.
func (e *Engine) drop(ctx context.Context, n Name) (noOrder bool, err error) {
	missing := &Error{Kind: ErrNotFound, Msg: fmt.Sprintf("sequence \"%s\" does not exist", n.Rel())}
	s, err := e.lookupIdle(ctx, n)
	if errors.Is(err, ErrNotFound) {
		return false, missing
	}
	if err != nil {
		return false, err
	}
	s.writing, s.remaining, s.granted = true, 0, 0
	noOrder = e.ranges != nil && s.opts.NoOrder
	s.mu.Unlock()
	var extra []storage.Op
	e.commentMu.Lock() // invariant 9: the comment's and ACL's deletes
	defer e.commentMu.Unlock()
	e.catMu.RLock()
	if c, ok := e.comments[s.id]; ok {
		extra = append(extra, storage.Op{Key: commentKey(s.id), Expect: c.rev})
	}
	if a, ok := e.aclRecLocked(s.id); ok {
		extra = append(extra, storage.Op{Key: aclKey(s.id), Expect: a.rev})
	}
	e.catMu.RUnlock()
	err = e.commit(s, storage.Op{Key: s.key, Expect: s.rev}, func(storage.Rev) { s.gone = true }, extra...)
	if err != nil {
		return false, err
	}
	e.catMu.Lock()
	if e.seqs.get(s.key) == s {
		e.delSeqLocked(s.key)
	}
	delete(e.comments, s.id)
	e.dropACLLocked(s.id)
	e.catMu.Unlock()
	e.catalogVersion.Add(1)
	return noOrder, nil
}

// mutate runs DDL on an existing sequence: once no write is in flight, f
// computes the new options and exact state from the current ones; the
// window is given up (its values were never handed out) and the new record
// is made durable before mutate returns. restart says that f sets the
// position (a NOORDER sequence's next epoch begins).
//
// A NOORDER sequence in cluster mode changes from where the nodes have
// reserved its values up to (unless f sets the position). Made ORDER, it
// is first frozen, so that no node reserves another block; the write
// that makes it ORDER checks that the blocks did not move all the same
// (a conflict fails it with 40001, nothing written).
func (e *Engine) mutate(ctx context.Context, n Name, restart bool, f func(*seq) (seqmath.Options, seqmath.State, error)) error {
	return e.mutateLogged(ctx, n, restart, func(*seqmath.Options) bool { return restart }, f)
}

// mutateLogged is mutate, where resetsLog says, from the options before,
// whether the change sets log_cnt to 0 (logcnt.go); any change empties
// the cache log_cnt counts for, as PostgreSQL's ALTER and setval empty
// their session's.
func (e *Engine) mutateLogged(ctx context.Context, n Name, restart bool, resetsLog func(*seqmath.Options) bool, f func(*seq) (seqmath.Options, seqmath.State, error)) error {
	s, err := e.lookupIdle(ctx, n)
	if err != nil {
		return err
	}
	var rangeOp storage.Op
	ranged := e.ranges != nil && s.opts.NoOrder && !restart
	if ranged {
		// Made ORDER: first freeze the sequence, so that no node reserves
		// another block, then read where the blocks end.
		if opts, _, err := f(s); err == nil && !opts.NoOrder {
			if s, err = e.freeze(ctx, s, n); err != nil {
				return err
			}
		}
		pos, op, err := e.ranges.position(ctx, s.key, s.id, s.epoch, s.cur)
		if err != nil {
			s.mu.Unlock()
			return &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not read the reserved values of sequence \"%s\": %v", s.name().Rel(), err)}
		}
		s.cur, rangeOp = pos, op
	}
	logCnt := s.logCnt
	if resetsLog(s.opts) {
		logCnt = 0
	}
	opts, state, err := f(s)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	s.writing, s.remaining, s.granted = true, 0, 0
	epoch := nextEpoch(*s.opts, opts, s.epoch, restart)
	rec := record{id: s.id, opts: opts, state: state, unlogged: s.unlogged, epoch: epoch}
	op := storage.Op{Key: s.key, Value: rec.encode(), Expect: s.rev}
	s.mu.Unlock()
	apply := func(rev storage.Rev) {
		s.opts, s.cur, s.rev, s.epoch = internOptions(opts), state, rev, epoch
		s.window, s.lastRefill = 0, 0
		s.logCnt, s.logBlock = logCnt, 0
	}
	if ranged && !opts.NoOrder {
		return e.commitAlone(s, op, apply, rangeOp)
	}
	return e.commit(s, op, apply)
}

// lookupIdle finds a usable sequence and returns it locked, with no write
// in flight. On error nothing is locked.
func (e *Engine) lookupIdle(ctx context.Context, n Name) (*seq, error) {
	if e.deposed.Load() || e.leadership != nil && !e.leadership() {
		return nil, deposedError() // no DDL, NOORDER sequences' neither
	}
	s, err := e.lookup(n)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for {
		if err := s.waitIdleLocked(ctx); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		waited, err := e.waitLockLocked(ctx, s, "ExclusiveLock")
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if !waited {
			break
		}
	}
	s.drainLocked() // DDL sees the exact position (invariant 4)
	if err := s.usableLocked(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if s.key != n.key {
		s.mu.Unlock()
		return nil, notFound(n) // renamed by the transaction it waited for
	}
	return s, nil
}

// commit writes op for s, whose writing flag the caller has set, and waits
// until it is durable. On success apply runs under s.mu; on failure s is
// failed for good. Either way blocked callers are woken.
func (e *Engine) commit(s *seq, op storage.Op, apply func(storage.Rev), extra ...storage.Op) error {
	return e.commitWrite(s, op, apply, false, extra)
}

// commitAlone is commit for a write that compares a NOORDER sequence's
// range record (extra): committed alone, and a conflict (a node reserved
// values meanwhile) changes nothing and fails only this write, with
// ErrSerialization wrapping storage.ErrConflict.
func (e *Engine) commitAlone(s *seq, op storage.Op, apply func(storage.Rev), extra ...storage.Op) error {
	return e.commitWrite(s, op, apply, true, extra)
}

func (e *Engine) commitWrite(s *seq, op storage.Op, apply func(storage.Rev), alone bool, extra []storage.Op) error {
	done := make(chan error, 1)
	e.w.submit(&write{op: op, extra: extra, alone: alone, done: func(rev storage.Rev, err error) {
		s.mu.Lock()
		s.writing = false
		if alone && errors.Is(err, storage.ErrConflict) {
			err = concurrentUpdate(s.name(), err) // a node's reservation overtook it: nothing written
		} else if storage.Refused(err) {
			// Refused before anything was written: the sequence is as it
			// was, and one being created does not exist (CreateWith
			// takes it out of the catalog).
			s.gone = s.rev == 0
			err = storageError(s, err)
		} else if err != nil {
			s.err = storageError(s, err)
			s.drainLocked()
			err = s.err
		} else {
			apply(rev)
			e.refillLocked(s)
		}
		s.broadcastLocked()
		s.mu.Unlock()
		done <- err
	}})
	return <-done
}

// nextEpoch is a NOORDER sequence's epoch after a change from old to new
// options: the next one when the change sets its position (restart) or
// makes it NOORDER, so that the nodes start from the record's position.
func nextEpoch(old, new seqmath.Options, epoch uint64, restart bool) uint64 {
	if restart || new.NoOrder && !old.NoOrder {
		return epoch + 1
	}
	return epoch
}

// freeze writes s's record frozen (record.frozen: no node reserves a
// block of it), and returns it locked and idle again. REQUIRES: s locked
// and idle (lookupIdle); on error nothing is locked.
func (e *Engine) freeze(ctx context.Context, s *seq, n Name) (*seq, error) {
	s.writing, s.remaining, s.granted = true, 0, 0
	rec := record{id: s.id, opts: *s.opts, state: s.cur, unlogged: s.unlogged, epoch: s.epoch, frozen: true}
	op := storage.Op{Key: s.key, Value: rec.encode(), Expect: s.rev}
	s.mu.Unlock()
	if err := e.commit(s, op, func(rev storage.Rev) { s.rev = rev }); err != nil {
		return nil, err
	}
	return e.lookupIdle(ctx, n)
}
