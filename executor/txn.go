package executor

import (
	"context"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sqlerr"
)

// txState is the transaction block: the state ReadyForQuery reports, the
// savepoints, and what ROLLBACK restores. DDL in a block goes through an
// engine transaction (Session.txn, begun at the first DDL) that COMMIT
// makes durable in one write and ROLLBACK drops. Sequence values are
// non-transactional (in PostgreSQL too) but for sequences created or
// rewritten in the block; settings are restored on rollback as
// PostgreSQL restores them.
type txState struct {
	open, aborted bool
	readOnly      bool // READ ONLY: nothing may change
	queried       bool // a query ran: READ WRITE can no longer be set
	savepoints    []savepoint
	saved         map[string]string // settings at BEGIN
	cursors       uint64            // Session.cursorSeq at BEGIN
	// onCommit is what COMMIT does in the session once the DDL is
	// durable (OID bookkeeping of renamed and dropped sequences).
	onCommit []func()
}

type savepoint struct {
	name     string
	settings map[string]string
	// txn and tempTxn are the DDL transactions' state (nil: none begun
	// yet); onCommit the length of txState.onCommit.
	txn, tempTxn *engine.Savepoint
	onCommit     int
	cursors      uint64 // Session.cursorSeq at the savepoint
}

// rewindDDL undoes the block's DDL since sp and releases the locks taken
// since.
func (s *Session) rewindDDL(sp savepoint) {
	for _, x := range []struct {
		t  *engine.Txn
		sp *engine.Savepoint
	}{{s.txn, sp.txn}, {s.tempTxn, sp.tempTxn}} {
		if x.t == nil {
			continue
		}
		if x.sp != nil {
			x.t.RollbackTo(*x.sp)
		} else {
			x.t.RollbackTo(engine.Savepoint{}) // begun after the savepoint
		}
		s.ddlChanged()
	}
	s.tx.onCommit = s.tx.onCommit[:sp.onCommit]
}

// inBlock reports whether statements run in a transaction: a block, or
// a multi-statement Query's implicit transaction.
func (s *Session) inBlock() bool { return s.tx.open || s.implicit }

// atCommit runs f now outside a transaction, at its COMMIT inside one.
func (s *Session) atCommit(f func()) {
	if s.inBlock() {
		s.tx.onCommit = append(s.tx.onCommit, f)
		return
	}
	f()
}

// endDDL commits or rolls back the block's DDL transactions. A failed
// commit rolls back what is left (the server's DDL commits first; the
// temporary engine's then cannot fail but for a closed engine).
func (s *Session) endDDL(ctx context.Context, commit bool) error {
	var err error
	for _, t := range []**engine.Txn{&s.txn, &s.tempTxn} {
		if *t == nil {
			continue
		}
		if commit && err == nil {
			err = (*t).Commit(ctx)
		} else {
			(*t).Rollback()
		}
		*t = nil
		s.ddlChanged()
	}
	if err == nil && commit {
		for _, f := range s.tx.onCommit {
			f()
		}
	}
	s.tx.onCommit = nil
	return err
}

func (t *txState) status() byte {
	switch {
	case t.aborted:
		return 'E'
	case t.open:
		return 'T'
	}
	return 'I'
}

func (t *txState) failed() bool { return t.aborted }

func (t *txState) abort() {
	if t.open {
		t.aborted = true
	}
}

// begin opens a block; readOnly, when given, overrides
// default_transaction_read_only.
func (s *Session) begin(tag string, readOnly *bool) (*Result, error) {
	if s.tx.open {
		return commandResult(tag, warning(sqlerr.ActiveTransaction, "there is already a transaction in progress")), nil
	}
	ro := s.readOnly()
	if readOnly != nil {
		if err := s.checkReadWrite(!*readOnly); err != nil {
			return nil, err
		}
		ro = *readOnly || s.cfg.Standby
	}
	// BEGIN in a Query's implicit transaction makes it a block, with
	// what the statements before it did.
	s.tx = txState{open: true, readOnly: ro, saved: s.settings.snapshot(), onCommit: s.tx.onCommit, cursors: s.cursorSeq}
	return commandResult(tag), nil
}

// checkReadWrite refuses read-write mode on a standby, as PostgreSQL
// does during recovery.
func (s *Session) checkReadWrite(readWrite bool) error {
	if readWrite && s.cfg.Standby {
		return sqlerr.Errorf(sqlerr.FeatureNotSupported, "cannot set transaction read-write mode during recovery")
	}
	return nil
}

// readOnly reports whether the current transaction is read-only: the
// block's mode, or default_transaction_read_only for a statement outside
// one.
func (s *Session) readOnly() bool {
	if s.cfg.Standby {
		return true
	}
	if s.tx.open {
		return s.tx.readOnly
	}
	if s.roVersion != s.pathVersion+1 {
		s.roDefault = s.settings.get("default_transaction_read_only") == "on"
		s.roVersion = s.pathVersion + 1
	}
	return s.roDefault
}

// setTxReadOnly is SET TRANSACTION READ ONLY|READ WRITE inside a block.
func (s *Session) setTxReadOnly(ro bool) error {
	if err := s.checkReadWrite(!ro); err != nil {
		return err
	}
	if !ro && s.tx.readOnly && s.tx.queried {
		return sqlerr.Errorf(sqlerr.ActiveTransaction, "transaction read-write mode must be set before any query")
	}
	s.tx.readOnly = ro
	return nil
}

// checkWritable refuses a command that changes something in a read-only
// transaction, naming it as PostgreSQL does ("nextval()", "CREATE
// SEQUENCE").
func (s *Session) checkWritable(command string) error {
	if s.readOnly() {
		return sqlerr.Errorf(sqlerr.ReadOnlyTransaction, "cannot execute %s in a read-only transaction", command)
	}
	return nil
}

// checkTakes is checkWritable for a function that takes or gives back
// values of n (nextval(), seqd_reserve(), seqd_release()): a standby
// serves a NOORDER sequence's from its own blocks, as the leader does
// (and takes none back).
func (s *Session) checkTakes(n engine.Name, command string) error {
	if s.cfg.Standby && s.eng.Unordered(n) {
		return nil
	}
	return s.checkWritable(command)
}

// end closes the block: commit keeps settings, rollback restores them;
// either drops SET LOCAL values and cursors without HOLD.
func (s *Session) end(ctx context.Context, tag string, commit bool) (*Result, error) {
	if !s.tx.open {
		// In a Query's implicit transaction PostgreSQL commits or rolls
		// back what came before, with the same warning.
		if err := s.endDDL(ctx, commit); err != nil {
			return nil, err
		}
		return commandResult(tag, warning(sqlerr.NoActiveTransaction, "there is no transaction in progress")), nil
	}
	if s.tx.aborted && commit {
		tag = "ROLLBACK"
		commit = false
	}
	err := s.endDDL(ctx, commit)
	s.xactFailed = s.xactFailed || !commit || err != nil
	if !commit || err != nil {
		s.restoreSettings(s.tx.saved)
	}
	s.endLocal()
	begun := s.tx.cursors
	s.tx = txState{}
	// Cursors without HOLD end with the block; a rollback ends those
	// with HOLD it declared too, as in PostgreSQL.
	for name, c := range s.cursors {
		if !c.hold || (!commit || err != nil) && c.seq > begun {
			s.dropCursor(name)
		}
	}
	if err != nil {
		return nil, err // the block is over, rolled back
	}
	return commandResult(tag), nil
}

func (s *Session) endLocal() {
	s.pathVersion++
	for k := range s.settings.local {
		delete(s.settings.local, k)
		s.changed(k)
	}
}

func (s *Session) restoreSettings(saved map[string]string) {
	changed := map[string]bool{}
	for k, v := range s.settings.values {
		if w, ok := saved[k]; !ok || w != v {
			changed[k] = true
		}
	}
	for k, v := range saved {
		if s.settings.values[k] != v {
			changed[k] = true
		}
	}
	s.settings.values = saved
	s.pathVersion++
	for k := range changed {
		s.changed(k)
	}
}

func (s *Session) savepoint(name string) (*Result, error) {
	if !s.tx.open {
		return nil, sqlerr.Errorf(sqlerr.NoActiveTransaction, "SAVEPOINT can only be used in transaction blocks")
	}
	sp := savepoint{name: name, settings: s.settings.snapshot(), onCommit: len(s.tx.onCommit), cursors: s.cursorSeq}
	if s.txn != nil {
		t := s.txn.Savepoint()
		sp.txn = &t
	}
	if s.tempTxn != nil {
		t := s.tempTxn.Savepoint()
		sp.tempTxn = &t
	}
	s.tx.savepoints = append(s.tx.savepoints, sp)
	return commandResult("SAVEPOINT"), nil
}

// findSavepoint is the index of the newest savepoint of that name.
func (s *Session) findSavepoint(name string) int {
	for i := len(s.tx.savepoints) - 1; i >= 0; i-- {
		if s.tx.savepoints[i].name == name {
			return i
		}
	}
	return -1
}

func (s *Session) release(name string) (*Result, error) {
	if !s.tx.open {
		return nil, sqlerr.Errorf(sqlerr.NoActiveTransaction, "RELEASE SAVEPOINT can only be used in transaction blocks")
	}
	i := s.findSavepoint(name)
	if i < 0 {
		return nil, sqlerr.Errorf(sqlerr.InvalidSavepoint, "savepoint \"%s\" does not exist", name)
	}
	s.tx.savepoints = s.tx.savepoints[:i]
	return commandResult("RELEASE"), nil
}

func (s *Session) rollbackTo(name string) (*Result, error) {
	if !s.tx.open {
		return nil, sqlerr.Errorf(sqlerr.NoActiveTransaction, "ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
	}
	i := s.findSavepoint(name)
	if i < 0 {
		return nil, sqlerr.Errorf(sqlerr.InvalidSavepoint, "savepoint \"%s\" does not exist", name)
	}
	sp := s.tx.savepoints[i]
	s.restoreSettings(sp.settings)
	s.rewindDDL(sp)
	for name, c := range s.cursors { // those declared since, as in PostgreSQL
		if c.seq > sp.cursors {
			s.dropCursor(name)
		}
	}
	s.tx.savepoints = s.tx.savepoints[:i+1]
	s.tx.aborted = false
	return commandResult("ROLLBACK"), nil
}
