package executor

import "github.com/seqd/seqd/sql"

// txState is the transaction block: the state ReadyForQuery reports, the
// savepoints, and what ROLLBACK restores. Sequence values are
// non-transactional (in PostgreSQL too); settings are restored on
// rollback as PostgreSQL restores them.
type txState struct {
	open, aborted bool
	readOnly      bool // READ ONLY: nothing may change
	queried       bool // a query ran: READ WRITE can no longer be set
	savepoints    []savepoint
	saved         map[string]string // settings at BEGIN
}

type savepoint struct {
	name     string
	settings map[string]string
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
func (s *Session) begin(tag string, readOnly *bool) *Result {
	if s.tx.open {
		return commandResult(tag, warning(sql.ActiveTransaction, "there is already a transaction in progress"))
	}
	ro := s.readOnly()
	if readOnly != nil {
		ro = *readOnly
	}
	s.tx = txState{open: true, readOnly: ro, saved: s.settings.snapshot()}
	return commandResult(tag)
}

// readOnly reports whether the current transaction is read-only: the
// block's mode, or default_transaction_read_only for a statement outside
// one.
func (s *Session) readOnly() bool {
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
	if !ro && s.tx.readOnly && s.tx.queried {
		return sql.Errorf(sql.ActiveTransaction, "transaction read-write mode must be set before any query")
	}
	s.tx.readOnly = ro
	return nil
}

// checkWritable refuses a command that changes something in a read-only
// transaction, naming it as PostgreSQL does ("nextval()", "CREATE
// SEQUENCE").
func (s *Session) checkWritable(command string) error {
	if s.readOnly() {
		return sql.Errorf(sql.ReadOnlyTransaction, "cannot execute %s in a read-only transaction", command)
	}
	return nil
}

// end closes the block: commit keeps settings, rollback restores them;
// either drops SET LOCAL values and cursors without HOLD.
func (s *Session) end(tag string, commit bool) *Result {
	if !s.tx.open {
		return commandResult(tag, warning(sql.NoActiveTransaction, "there is no transaction in progress"))
	}
	if s.tx.aborted && commit {
		tag = "ROLLBACK"
		commit = false
	}
	if !commit {
		s.restoreSettings(s.tx.saved)
	}
	s.endLocal()
	s.tx = txState{}
	for name, c := range s.cursors {
		if !c.hold {
			delete(s.cursors, name)
		}
	}
	return commandResult(tag)
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
		return nil, sql.Errorf(sql.NoActiveTransaction, "SAVEPOINT can only be used in transaction blocks")
	}
	s.tx.savepoints = append(s.tx.savepoints, savepoint{name: name, settings: s.settings.snapshot()})
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
		return nil, sql.Errorf(sql.NoActiveTransaction, "RELEASE SAVEPOINT can only be used in transaction blocks")
	}
	i := s.findSavepoint(name)
	if i < 0 {
		return nil, sql.Errorf(sql.InvalidSavepoint, "savepoint \"%s\" does not exist", name)
	}
	s.tx.savepoints = s.tx.savepoints[:i]
	return commandResult("RELEASE"), nil
}

func (s *Session) rollbackTo(name string) (*Result, error) {
	if !s.tx.open {
		return nil, sql.Errorf(sql.NoActiveTransaction, "ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
	}
	i := s.findSavepoint(name)
	if i < 0 {
		return nil, sql.Errorf(sql.InvalidSavepoint, "savepoint \"%s\" does not exist", name)
	}
	s.restoreSettings(s.tx.savepoints[i].settings)
	s.tx.savepoints = s.tx.savepoints[:i+1]
	s.tx.aborted = false
	return commandResult("ROLLBACK"), nil
}
