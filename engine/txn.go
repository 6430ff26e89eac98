package engine

import (
	"context"
	"strconv"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
)

// Transactions make DDL transactional, as PostgreSQL's is: the changes a
// Txn makes are seen through it at once, by nobody else, and reach the
// store at Commit in one atomic write; Rollback (or never committing)
// undoes them. nextval and setval stay non-transactional, as PostgreSQL
// documents, with PostgreSQL's one exception: a sequence created or
// rewritten in the transaction (ALTER SEQUENCE with any option, SET
// LOGGED|UNLOGGED) is served from the transaction's own copy, so what it
// handed out is undone with it.
//
// Locks follow PostgreSQL's: DDL on a committed sequence takes its lock
// until the transaction ends, and every other session's nextval, setval
// and DDL on it waits (catalog reads do not: they see the committed
// state); a name being created, and a schema being created or dropped,
// make other creators wait. A transaction waiting for one that waits for
// it fails with ErrDeadlock.
//
// Concurrency: a Txn belongs to one goroutine at a time (its session's),
// which alone reads and writes its fields, except released and
// waitingFor, which other transactions' deadlock detection reads under
// e.lockMu, and done, closed once when it ends. The files: txn_view.go
// (what it sees), txn_values.go (nextval and the like through it),
// txn_ddl.go (its changes), txn_role.go, txn_lock.go (locks, waits,
// deadlocks), txn_savepoint.go, txn_commit.go.
type Txn struct {
	e *Engine
	// droppedNoOrder: the commit dropped a NOORDER sequence (Commit).
	droppedNoOrder bool
	// shadow holds the sequences created or rewritten in the transaction,
	// each under a key of its own ("t.N"): an engine over an in-memory
	// store, opened at first need.
	shadow   *Engine
	nshadow  int
	entries  map[string]entry   // by the key the transaction sees
	hidden   map[string]bool    // committed keys dropped or renamed away
	comments map[uint64]*string // changed comments by sequence ID (nil: none)
	acls     map[uint64]ACL     // changed ACLs by sequence ID
	schemas  map[string]bool    // schemas created (true) or dropped (false)
	// schemaACLs are the ACLs of the schemas it created or changed the
	// privileges of; dbACL the database's, if it changed them.
	schemaACLs map[string]ACL
	// schemaComments are the comments of the schemas it created (nil:
	// none) or commented on; each has its ACL in schemaACLs, and the
	// record is written with both.
	schemaComments map[string]*string
	dbACL          *ACL
	roles          map[string]*Role       // roles created or changed (nil: dropped)
	roleRevs       map[string]storage.Rev // each changed role's revision when first touched (0: absent)
	renames        []RoleRename           // roles renamed, in order
	locked         []*seq                 // committed sequences whose lock it holds
	names          []string               // name locks it holds
	done           chan struct{}          // closed when it ends
	// released is closed when ROLLBACK TO releases locks, then replaced.
	// REQUIRES: e.lockMu.
	released chan struct{}
	ended    bool
	// waitingFor is the transaction this one waits for (deadlock
	// detection). REQUIRES: e.lockMu.
	waitingFor *Txn
	// owner is who runs it (BeginOwned), for WaitState.Holder; num its
	// number, as Locks shows it.
	owner uint32
	num   uint64
}

// entry is a sequence the transaction created or changed.
type entry struct {
	view   Name   // the name the transaction sees
	id     uint64 // its ID (origin's, or new)
	origin *seq   // the committed sequence it stands for; nil: created
	// shadow names its copy in Txn.shadow, whose values it serves; zero
	// (key ""): its values are the origin's own.
	shadow Name
}

// Begin starts a transaction.
func (e *Engine) Begin() *Txn { return e.BeginOwned(0) }

// BeginOwned starts a transaction run by owner (a session's process ID),
// which a WaitState names to those waiting for its locks.
func (e *Engine) BeginOwned(owner uint32) *Txn {
	return &Txn{
		owner:          owner,
		num:            e.txnSeq.Add(1),
		e:              e,
		entries:        map[string]entry{},
		hidden:         map[string]bool{},
		comments:       map[uint64]*string{},
		acls:           map[uint64]ACL{},
		schemas:        map[string]bool{},
		schemaACLs:     map[string]ACL{},
		schemaComments: map[string]*string{},
		roles:          map[string]*Role{},
		roleRevs:       map[string]storage.Rev{},
		done:           make(chan struct{}),
		released:       make(chan struct{}),
	}
}

// Engine is the engine the transaction runs on.
func (t *Txn) Engine() *Engine { return t.e }

// Changed reports whether the transaction has anything to commit.
func (t *Txn) Changed() bool {
	return len(t.entries)+len(t.hidden)+len(t.comments)+len(t.acls)+len(t.schemas)+len(t.schemaACLs)+len(t.roles) > 0 || t.dbACL != nil
}

type txnKey struct{}

// withTxn marks ctx as the transaction's, so that the sequences it has
// locked let it through.
func withTxn(ctx context.Context, t *Txn) context.Context {
	return context.WithValue(ctx, txnKey{}, t)
}

func txnFrom(ctx context.Context) *Txn {
	t, _ := ctx.Value(txnKey{}).(*Txn)
	return t
}

// find resolves a name as the transaction sees it: an entry, or a
// committed sequence.
func (t *Txn) find(n Name) (entry, *seq, error) {
	if ent, ok := t.entries[n.key]; ok {
		return ent, nil, nil
	}
	if t.hidden[n.key] {
		return entry{}, nil, notFound(n)
	}
	s, err := t.e.lookup(n)
	if err == nil && t.e.nameOf(s) != n.key {
		err = notFound(n) // renamed by a commit since the lookup
	}
	return entry{}, s, err
}

func (e *Engine) nameOf(s *seq) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return ""
	}
	return s.key
}

// entryFor finds or makes the entry for n, locking a committed sequence.
func (t *Txn) entryFor(ctx context.Context, n Name) (entry, error) {
	ent, s, err := t.find(n)
	if err != nil || s == nil {
		return ent, err
	}
	if err := t.lockSeq(ctx, s); err != nil {
		return entry{}, err
	}
	return entry{view: n, id: s.id, origin: s}, nil
}

// state is the entry's options, exact position, UNLOGGED and epoch.
func (t *Txn) state(ent entry) (seqmath.Options, seqmath.State, bool, uint64, error) {
	if ent.shadow.key != "" {
		info, err := t.shadow.Info(ent.shadow)
		return info.Options, info.State, info.Unlogged, info.Epoch, err
	}
	s := ent.origin
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drainLocked()
	return *s.opts, s.cur, s.unlogged, s.epoch, nil
}

// logState is the entry's log_cnt and the values left in the cache it
// counts for (logcnt.go).
func (t *Txn) logState(ent entry) (uint8, int64) {
	s := ent.origin
	if ent.shadow.key != "" {
		sh, err := t.shadow.find(ent.shadow)
		if err != nil {
			return 0, 0
		}
		s = sh
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logCountLocked()
}

// setLog sets the log_cnt of the copy named n in the shadow engine.
func (t *Txn) setLog(n Name, cnt uint8, block int64) {
	if s, err := t.shadow.find(n); err == nil {
		s.mu.Lock()
		s.logCnt, s.logBlock = cnt, block
		s.mu.Unlock()
	}
}

// copyOf puts a new copy of a sequence into the shadow engine and returns
// its name there.
func (t *Txn) copyOf(ctx context.Context, id uint64, o seqmath.Options, st seqmath.State, unlogged bool, epoch uint64) (Name, error) {
	if t.shadow == nil {
		sh, err := OpenMemory(ctx)
		if err != nil {
			return Name{}, err
		}
		t.shadow = sh
	}
	t.nshadow++
	n, _ := NewName("t", strconv.Itoa(t.nshadow))
	s := &seq{key: n.key, id: id, opts: internOptions(o), cur: st, writing: true, unlogged: unlogged, epoch: epoch}
	t.shadow.catMu.Lock()
	t.shadow.setSeqLocked(n.key, s)
	t.shadow.catMu.Unlock()
	rec := record{id: id, opts: o, state: st, unlogged: unlogged, epoch: epoch}
	err := t.shadow.commit(s, storage.Op{Key: n.key, Value: rec.encode()}, func(rev storage.Rev) { s.rev = rev })
	return n, err
}

// --- reads ---

// --- values (non-transactional, but for the transaction's own copies) ---

// --- DDL ---

// --- savepoints ---

// --- the end ---

// Rollback ends the transaction, undoing its changes.
func (t *Txn) Rollback() {
	t.end()
}

func (t *Txn) end() {
	if t.ended {
		return
	}
	t.ended = true
	for _, s := range t.locked {
		s.mu.Lock()
		if s.lockedBy == t {
			s.lockedBy = nil
			t.e.unhold(s)
			t.e.refillLocked(s)
		}
		s.broadcastLocked()
		s.mu.Unlock()
	}
	t.e.catMu.Lock()
	for _, k := range t.names {
		if t.e.nameLocks[k] == t {
			delete(t.e.nameLocks, k)
		}
	}
	t.e.catMu.Unlock()
	close(t.done)
	if t.shadow != nil {
		t.shadow.Close()
	}
}
