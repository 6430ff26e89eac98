// A transaction's locks: on committed sequences, on names being created,
// on schemas; waiting for them, with lock_timeout and deadlock detection.

package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrDeadlock: two transactions waited for each other.
var ErrDeadlock = errors.New("seqd: deadlock detected")

// ErrLockTimeout is the kind of a wait for a lock that outlasted the
// caller's lock timeout (WithLockTimeout).
var ErrLockTimeout = errors.New("seqd: lock timeout")

// ErrTooManyLocks is the kind of a lock one transaction would take past
// Config.MaxTxnLocks.
var ErrTooManyLocks = errors.New("seqd: too many locks in one transaction")

// DefaultMaxTxnLocks is Config.MaxTxnLocks's default: of the order at
// which PostgreSQL's shared lock table refuses a block of CREATE
// SEQUENCE (22,937 on the test suite's, max_connections 200), twice the
// block cluster mode is measured to commit in about a second
// (docs/cluster.md), and well short of a commit the leader's writer
// could not apply within its timeout.
const DefaultMaxTxnLocks = 20_000

// lockRoom fails when t holds all the locks it may.
func (t *Txn) lockRoom() error {
	if n := t.e.maxLocks; n > 0 && len(t.locked)+len(t.names) >= n {
		return &Error{Kind: ErrTooManyLocks, Msg: fmt.Sprintf("a transaction may lock at most %d sequences and names", n),
			Hint: "Commit in smaller blocks, or raise the server's -max-transaction-locks."}
	}
	return nil
}

// WaitState is what a session is waiting for, as PostgreSQL's
// pg_stat_activity names it (wait_event_type Lock): the caller gives it
// with WithWaitState, the engine sets it while the session waits for
// another transaction's lock. Safe for concurrent reading.
type WaitState struct {
	event  atomic.Pointer[string]
	holder atomic.Pointer[Txn]
	rel    atomic.Pointer[LockInfo] // what it waits for, as Locks would show it
}

// The lock waits, in pg_stat_activity's words: for a sequence another
// transaction holds (PostgreSQL waits for the relation's lock), and for a
// name or schema another transaction is creating or dropping (PostgreSQL
// waits for that transaction to end).
const (
	WaitRelation      = "relation"
	WaitTransactionID = "transactionid"
)

// waitRelation and waitTransactionID are what WaitState points to.
var waitRelation, waitTransactionID = WaitRelation, WaitTransactionID

// Event is the lock the session waits for (WaitRelation or
// WaitTransactionID), "" when it waits for none.
func (w *WaitState) Event() string {
	if p := w.event.Load(); p != nil {
		return *p
	}
	return ""
}

// Holder is the owner (BeginOwned) of the transaction whose lock the
// session waits for, 0 when it waits for none or the owner is unknown.
func (w *WaitState) Holder() uint32 {
	if t := w.holder.Load(); t != nil {
		return t.owner
	}
	return 0
}

// Waiting is the lock the session waits for, as pg_locks shows a lock
// not granted: on a sequence (Seq and ID set) or on the holder's
// transaction (Txn); false when it waits for none.
func (w *WaitState) Waiting() (LockInfo, bool) {
	if l := w.rel.Load(); l != nil {
		return *l, true
	}
	return LockInfo{}, false
}

// LockInfo is a lock as pg_locks shows it: on a committed sequence (Seq
// and ID), or on a transaction (Txn, its number, when Seq is zero: the
// one every transaction holding a lock holds on itself, and what a
// creator of a name waits for).
type LockInfo struct {
	Owner uint32 // the session holding or waiting for it (BeginOwned)
	Seq   Name
	ID    uint64 // the sequence's
	Txn   uint64
	// Mode is PostgreSQL's name for it: a transaction's DDL holds
	// ExclusiveLock on a sequence (every nextval, setval and DDL waits;
	// reads do not), nextval and setval wait with RowExclusiveLock, and a
	// wait for a transaction is ShareLock on it, as PostgreSQL's.
	Mode    string
	Granted bool
	Since   time.Time // when the wait began (not granted)
}

// Locks are the locks transactions hold: each sequence lock, and each
// holding transaction's lock on itself.
func (e *Engine) Locks() []LockInfo {
	e.heldMu.Lock()
	seqs := make(map[*seq]*Txn, len(e.held))
	for s, t := range e.held {
		seqs[s] = t
	}
	e.heldMu.Unlock()
	var out []LockInfo
	txns := map[*Txn]bool{}
	for s, t := range seqs {
		s.mu.Lock()
		n, _ := nameFromKey(s.key)
		l := LockInfo{Owner: t.owner, Seq: n, ID: s.id, Txn: t.num, Mode: "ExclusiveLock", Granted: true}
		held := s.lockedBy == t
		s.mu.Unlock()
		if held {
			out = append(out, l)
			txns[t] = true
		}
	}
	e.catMu.RLock()
	for _, t := range e.nameLocks {
		txns[t] = true
	}
	e.catMu.RUnlock()
	for t := range txns {
		out = append(out, LockInfo{Owner: t.owner, Txn: t.num, Mode: "ExclusiveLock", Granted: true})
	}
	return out
}

// unhold forgets s's lock in held (invariant 14). REQUIRES: s.mu.
func (e *Engine) unhold(s *seq) {
	e.heldMu.Lock()
	delete(e.held, s)
	e.heldMu.Unlock()
}

type waitStateKey struct{}

// WithWaitState has the engine record in w each wait for another
// transaction's lock under ctx.
func WithWaitState(ctx context.Context, w *WaitState) context.Context {
	return context.WithValue(ctx, waitStateKey{}, w)
}

// releasedOf is the channel holder's next release of locks (ROLLBACK TO)
// closes. A waiter takes it while holder still holds the lock it waits
// for (under that lock's mutex): taken after, it could be the channel
// made by the release that freed the lock, and never close (invariant
// 13).
func (e *Engine) releasedOf(holder *Txn) <-chan struct{} {
	e.lockMu.Lock()
	defer e.lockMu.Unlock()
	return holder.released
}

// waitTxn waits until holder ends or releases locks (released, taken
// with releasedOf); me (nil outside a
// transaction) is the waiter, event what it waits for (WaitState). A wait
// that would close a cycle fails with ErrDeadlock at once.
func (e *Engine) waitTxn(ctx context.Context, me, holder *Txn, released <-chan struct{}, event *string, what LockInfo) error {
	if me != nil {
		e.lockMu.Lock()
		for u := holder; u != nil; u = u.waitingFor {
			if u == me {
				e.lockMu.Unlock()
				return &Error{Kind: ErrDeadlock, Msg: "deadlock detected"}
			}
		}
		me.waitingFor = holder
		e.lockMu.Unlock()
		defer func() {
			e.lockMu.Lock()
			me.waitingFor = nil
			e.lockMu.Unlock()
		}()
	}
	var expired <-chan time.Time
	if d, ok := ctx.Value(lockTimeoutKey{}).(time.Duration); ok && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
	}
	if w, ok := ctx.Value(waitStateKey{}).(*WaitState); ok {
		what.Since = time.Now()
		if what.Seq == (Name{}) {
			what.Txn, what.Mode = holder.num, "ShareLock"
		}
		w.holder.Store(holder)
		w.event.Store(event)
		w.rel.Store(&what)
		defer func() {
			w.event.Store(nil)
			w.holder.Store(nil)
			w.rel.Store(nil)
		}()
	}
	select {
	case <-holder.done:
		return nil
	case <-released: // the caller looks again
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-expired:
		return &Error{Kind: ErrLockTimeout, Msg: "canceling statement due to lock timeout"}
	}
}

type lockTimeoutKey struct{}

// WithLockTimeout bounds each wait for another transaction's lock under
// ctx (PostgreSQL's lock_timeout): a wait longer than d fails with
// ErrLockTimeout.
func WithLockTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, lockTimeoutKey{}, d)
}

// waitLockLocked waits while another transaction holds s's lock, to
// take it in mode (LockInfo.Mode); it reports whether it waited (s may
// have changed). REQUIRES: s.mu held.
func (e *Engine) waitLockLocked(ctx context.Context, s *seq, mode string) (bool, error) {
	me := txnFrom(ctx)
	waited := false
	for s.lockedBy != nil && s.lockedBy != me {
		holder := s.lockedBy
		released := e.releasedOf(holder) // while it still holds s's lock
		n, _ := nameFromKey(s.key)
		s.mu.Unlock()
		err := e.waitTxn(ctx, me, holder, released, &waitRelation, LockInfo{Seq: n, ID: s.id, Mode: mode})
		s.mu.Lock()
		if err != nil {
			return true, err
		}
		waited = true
	}
	return waited, nil
}

// waitNameLocked waits while another transaction holds a name lock on
// key; false: nobody held it (catMu was not released). REQUIRES: catMu
// held for writing; it is held again on return.
func (e *Engine) waitNameLocked(ctx context.Context, key string) (bool, error) {
	me := txnFrom(ctx)
	holder := e.nameLocks[key]
	if holder == nil || holder == me {
		return false, nil
	}
	released := e.releasedOf(holder) // while it still holds the name lock
	e.catMu.Unlock()
	err := e.waitTxn(ctx, me, holder, released, &waitTransactionID, LockInfo{})
	e.catMu.Lock()
	return true, err
}

// waitSchemaLocked waits while another transaction creates or drops
// schema, or creates a sequence in it. REQUIRES: as waitNameLocked.
func (e *Engine) waitSchemaLocked(ctx context.Context, schema string) (bool, error) {
	me := txnFrom(ctx)
	for key, holder := range e.nameLocks {
		if holder == me {
			continue
		}
		if key == schemaKey+schema || len(key) > len(schema) && key[:len(schema)] == schema && key[len(schema)] == '.' {
			return e.waitNameLocked(ctx, key)
		}
	}
	return false, nil
}

// creatorLocked is the other transaction creating n or its schema, or
// dropping the schema; nil if none. REQUIRES: catMu held.
func (e *Engine) creatorLocked(ctx context.Context, n Name) *Txn {
	me := txnFrom(ctx)
	for _, k := range [2]string{n.key, schemaKey + n.Schema()} {
		if h := e.nameLocks[k]; h != nil && h != me {
			return h
		}
	}
	return nil
}

// waitCreatorsLocked waits until creatorLocked is nil. REQUIRES: as
// waitNameLocked.
func (e *Engine) waitCreatorsLocked(ctx context.Context, n Name) error {
	for {
		w1, err := e.waitNameLocked(ctx, n.key)
		if err != nil {
			return err
		}
		w2, err := e.waitNameLocked(ctx, schemaKey+n.Schema())
		if err != nil || !w1 && !w2 {
			return err
		}
	}
}

// waitUnlocked waits while another transaction holds n's lock.
func (e *Engine) waitUnlocked(ctx context.Context, n Name) error {
	s, err := e.lookup(n)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = e.waitLockLocked(ctx, s, "ExclusiveLock")
	return err
}

// lockName takes a name lock (a key being created, a schema), waiting
// for another transaction's.
func (t *Txn) lockName(ctx context.Context, key string) error {
	e := t.e
	e.catMu.Lock()
	defer e.catMu.Unlock()
	ctx = withTxn(ctx, t)
	for {
		var err error
		if n, ok := nameFromKey(key); ok && key[0] != catalogPrefix[0] {
			err = e.waitCreatorsLocked(ctx, n) // and its schema's
		} else {
			_, err = e.waitNameLocked(ctx, key)
		}
		if err != nil {
			return err
		}
		if e.nameLocks[key] == nil || e.nameLocks[key] == t {
			break
		}
	}
	if e.nameLocks[key] == nil {
		if err := t.lockRoom(); err != nil {
			return err
		}
		e.nameLocks[key] = t
		t.names = append(t.names, key)
	}
	return nil
}

// lockSeq takes the committed sequence's lock, waiting for another
// transaction's and for a write in flight; the sequence's exact position
// is then in s.cur and nothing else moves it.
func (t *Txn) lockSeq(ctx context.Context, s *seq) error {
	ctx = withTxn(ctx, t)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if err := s.usableLocked(); err != nil {
			return err
		}
		if _, err := t.e.waitLockLocked(ctx, s, "ExclusiveLock"); err != nil {
			return err
		}
		if err := s.usableLocked(); err != nil {
			return err // dropped by the transaction it waited for
		}
		if !s.writing {
			break
		}
		if err := s.waitLocked(ctx); err != nil {
			return err
		}
	}
	if s.lockedBy == nil {
		if err := t.lockRoom(); err != nil {
			return err
		}
		s.lockedBy = t
		t.locked = append(t.locked, s)
		t.e.heldMu.Lock() // invariant 14: under s.mu, with lockedBy
		if t.e.held == nil {
			t.e.held = map[*seq]*Txn{}
		}
		t.e.held[s] = t
		t.e.heldMu.Unlock()
	}
	s.drainLocked()
	return nil
}

// releaseSince releases the sequence and name locks after the first
// nLocked and nNames, and wakes whoever waits for this transaction.
func (t *Txn) releaseSince(nLocked, nNames int) {
	if nLocked >= len(t.locked) && nNames >= len(t.names) {
		return
	}
	e := t.e
	for _, s := range t.locked[nLocked:] {
		s.mu.Lock()
		if s.lockedBy == t {
			s.lockedBy = nil
			e.unhold(s)
			e.refillLocked(s)
		}
		s.broadcastLocked()
		s.mu.Unlock()
	}
	t.locked = t.locked[:nLocked]
	e.catMu.Lock()
	for _, k := range t.names[nNames:] {
		if e.nameLocks[k] == t {
			delete(e.nameLocks, k)
		}
	}
	e.catMu.Unlock()
	t.names = t.names[:nNames]
	e.lockMu.Lock() // invariant 13
	close(t.released)
	t.released = make(chan struct{})
	e.lockMu.Unlock()
}
