package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seqd/seqd/alloc"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/memstore"
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
	dbACL      *ACL
	roles      map[string]*Role       // roles created or changed (nil: dropped)
	roleRevs   map[string]storage.Rev // each changed role's revision when first touched (0: absent)
	renames    []RoleRename           // roles renamed, in order
	locked     []*seq                 // committed sequences whose lock it holds
	names      []string               // name locks it holds
	done       chan struct{}          // closed when it ends
	// released is closed when ROLLBACK TO releases locks, then replaced.
	// REQUIRES: e.lockMu.
	released chan struct{}
	ended    bool
	// waitingFor is the transaction this one waits for (deadlock
	// detection). REQUIRES: e.lockMu.
	waitingFor *Txn
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

// ErrDeadlock: two transactions waited for each other.
var ErrDeadlock = errors.New("seqd: deadlock detected")

// ErrLockTimeout is the kind of a wait for a lock that outlasted the
// caller's lock timeout (WithLockTimeout).
var ErrLockTimeout = errors.New("seqd: lock timeout")

// ErrSerialization: a transaction's commit found what it changed changed
// by another meanwhile (roles, which are not locked while a block holds
// them).
var ErrSerialization = errors.New("seqd: could not serialize access")

// Begin starts a transaction.
func (e *Engine) Begin() *Txn {
	return &Txn{
		e:          e,
		entries:    map[string]entry{},
		hidden:     map[string]bool{},
		comments:   map[uint64]*string{},
		acls:       map[uint64]ACL{},
		schemas:    map[string]bool{},
		schemaACLs: map[string]ACL{},
		roles:      map[string]*Role{},
		roleRevs:   map[string]storage.Rev{},
		done:       make(chan struct{}),
		released:   make(chan struct{}),
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

// waitTxn waits until holder ends or releases locks; me (nil outside a
// transaction) is the waiter. A wait that would close a cycle fails with ErrDeadlock at once.
func (e *Engine) waitTxn(ctx context.Context, me, holder *Txn) error {
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
	e.lockMu.Lock()
	released := holder.released
	e.lockMu.Unlock()
	var expired <-chan time.Time
	if d, ok := ctx.Value(lockTimeoutKey{}).(time.Duration); ok && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
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

// waitLockLocked waits while another transaction holds s's lock; it
// reports whether it waited (s may have changed). REQUIRES: s.mu held.
func (e *Engine) waitLockLocked(ctx context.Context, s *seq) (bool, error) {
	me := txnFrom(ctx)
	waited := false
	for s.lockedBy != nil && s.lockedBy != me {
		holder := s.lockedBy
		s.mu.Unlock()
		err := e.waitTxn(ctx, me, holder)
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
	e.catMu.Unlock()
	err := e.waitTxn(ctx, me, holder)
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
	_, err = e.waitLockLocked(ctx, s)
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
		if _, err := t.e.waitLockLocked(ctx, s); err != nil {
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
		s.lockedBy = t
		t.locked = append(t.locked, s)
	}
	s.drainLocked()
	return nil
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
func (t *Txn) state(ent entry) (alloc.Options, alloc.State, bool, uint64, error) {
	if ent.shadow.key != "" {
		info, err := t.shadow.Info(ent.shadow)
		return info.Options, info.State, info.Unlogged, info.Epoch, err
	}
	s := ent.origin
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drainLocked()
	return s.opts, s.cur, s.unlogged, s.epoch, nil
}

// copyOf puts a new copy of a sequence into the shadow engine and returns
// its name there.
func (t *Txn) copyOf(ctx context.Context, id uint64, o alloc.Options, st alloc.State, unlogged bool, epoch uint64) (Name, error) {
	if t.shadow == nil {
		sh, err := Open(ctx, Config{Store: memstore.New()})
		if err != nil {
			return Name{}, err
		}
		t.shadow = sh
	}
	t.nshadow++
	n, _ := NewName("t", strconv.Itoa(t.nshadow))
	s := &seq{key: n.key, id: id, opts: o, cur: st, writing: true, unlogged: unlogged, epoch: epoch}
	t.shadow.catMu.Lock()
	t.shadow.setSeqLocked(n.key, s)
	t.shadow.catMu.Unlock()
	rec := record{id: id, opts: o, state: st, unlogged: unlogged, epoch: epoch}
	err := t.shadow.commit(s, storage.Op{Key: n.key, Value: rec.encode()}, func(rev storage.Rev) { s.rev = rev })
	return n, err
}

// schemaExists is whether the schema exists as the transaction sees it.
func (t *Txn) schemaExists(name string) bool {
	if v, ok := t.schemas[name]; ok {
		return v
	}
	return t.e.SchemaExists(name)
}

// --- reads ---

// Info describes the named sequence as the transaction sees it.
func (t *Txn) Info(n Name) (Info, error) {
	ent, s, err := t.find(n)
	if err != nil {
		return Info{}, err
	}
	if s != nil {
		return t.e.Info(n)
	}
	return t.entryInfo(ent)
}

func (t *Txn) entryInfo(ent entry) (Info, error) {
	var info Info
	if ent.shadow.key != "" {
		i, err := t.shadow.Info(ent.shadow)
		if err != nil {
			return Info{}, err
		}
		info = i
	} else {
		s := ent.origin
		s.mu.Lock()
		info = s.infoLocked()
		s.mu.Unlock()
	}
	info.Name, info.ID = ent.view, ent.id
	return info, nil
}

// List describes every sequence the transaction sees, sorted by name.
func (t *Txn) List() []Info {
	var out []Info
	for _, i := range t.e.List() {
		if _, ok := t.entries[i.Name.key]; ok || t.hidden[i.Name.key] {
			continue
		}
		out = append(out, i)
	}
	for _, ent := range t.entries {
		if i, err := t.entryInfo(ent); err == nil {
			out = append(out, i)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name.key < out[j].Name.key })
	return out
}

// SchemaExists reports whether the schema exists as the transaction sees it.
func (t *Txn) SchemaExists(name string) bool { return t.schemaExists(name) }

// Schemas lists the schemas the transaction sees, sorted.
func (t *Txn) Schemas() []string {
	var out []string
	for _, name := range t.e.Schemas() {
		if v, ok := t.schemas[name]; !ok || v {
			out = append(out, name)
		}
	}
	for name, v := range t.schemas {
		if v && !t.e.SchemaExists(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// SchemaSequences lists a schema's sequences in the order they were
// created, as the transaction sees them.
func (t *Txn) SchemaSequences(name string) []Name {
	type idName struct {
		id uint64
		n  Name
	}
	var all []idName
	for _, i := range t.List() {
		if i.Name.Schema() == name {
			all = append(all, idName{i.ID, i.Name})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	out := make([]Name, len(all))
	for i, x := range all {
		out[i] = x.n
	}
	return out
}

// CatalogVersion is the engine's (the session counts its own changes).
func (t *Txn) CatalogVersion() uint64 { return t.e.CatalogVersion() }

// AuthVersion is the engine's (the session counts its own changes).
func (t *Txn) AuthVersion() uint64 { return t.e.AuthVersion() }

func (t *Txn) aclOf(id uint64) ACL {
	if a, ok := t.acls[id]; ok {
		return a.clone()
	}
	t.e.catMu.RLock()
	defer t.e.catMu.RUnlock()
	return t.e.aclOfLocked(id).acl.clone()
}

// ACL is the sequence's owner and grants as the transaction sees them.
func (t *Txn) ACL(n Name) (ACL, error) {
	info, err := t.Info(n)
	if err != nil {
		return ACL{}, err
	}
	return t.aclOf(info.ID), nil
}

// ACLs are every sequence's ACL by ID, as the transaction sees them.
func (t *Txn) ACLs() map[uint64]ACL {
	out := t.e.ACLs()
	for id, a := range t.acls {
		out[id] = a.clone()
	}
	return out
}

// Privileges of role on n as the transaction sees them.
func (t *Txn) Privileges(n Name, role string, superuser bool) (Privs, error) {
	a, err := t.ACL(n)
	if err != nil {
		return 0, err
	}
	return a.Privileges(role, superuser) & PrivAll, nil
}

// Comment is the sequence's comment as the transaction sees it.
func (t *Txn) Comment(n Name) (string, error) {
	info, err := t.Info(n)
	if err != nil {
		return "", err
	}
	if c, ok := t.comments[info.ID]; ok {
		if c == nil {
			return "", nil
		}
		return *c, nil
	}
	t.e.catMu.RLock()
	defer t.e.catMu.RUnlock()
	return t.e.comments[info.ID].text, nil
}

// --- values (non-transactional, but for the transaction's own copies) ---

// target is where n's values come from: the shadow engine or the server's
// (under the name it has there), with the context that passes the
// transaction's locks.
func (t *Txn) target(ctx context.Context, n Name) (*Engine, Name, context.Context, uint64, error) {
	ent, s, err := t.find(n)
	if err != nil {
		return nil, Name{}, ctx, 0, err
	}
	switch {
	case s != nil:
		return t.e, n, withTxn(ctx, t), 0, nil
	case ent.shadow.key != "":
		if err := t.shadowServes(ent); err != nil {
			return nil, Name{}, ctx, 0, err
		}
		return t.shadow, ent.shadow, ctx, ent.id, nil
	}
	on, _ := nameFromKey(ent.origin.key)
	return t.e, on, withTxn(ctx, t), ent.id, nil
}

// shadowServes refuses values from the transaction's copy of a NOORDER
// sequence in cluster mode whose position it did not set: the nodes'
// blocks are beyond the copy's position.
func (t *Txn) shadowServes(ent entry) error {
	if t.e.ranges == nil || ent.origin == nil {
		return nil
	}
	s := ent.origin
	s.mu.Lock()
	noOrder, epoch := s.opts.NoOrder, s.epoch
	s.mu.Unlock()
	info, err := t.shadow.Info(ent.shadow)
	if err != nil || !noOrder || info.Epoch != epoch {
		return err
	}
	return &Error{Kind: ErrUnsupported, Msg: fmt.Sprintf("cannot take values of NOORDER sequence \"%s\" altered in this transaction block", ent.view.Rel()),
		Hint: "COMMIT first, or set its position in the block (setval, RESTART)."}
}

// Nextval is the engine's, for the sequence as the transaction sees it.
func (t *Txn) Nextval(ctx context.Context, n Name) (uint64, int64, error) {
	eng, tn, ctx, id, err := t.target(ctx, n)
	if err != nil {
		return 0, 0, err
	}
	got, v, err := eng.Nextval(ctx, tn)
	if id != 0 {
		got = id
	}
	return got, v, asNamed(err, tn, n)
}

// Setval is the engine's, for the sequence as the transaction sees it.
func (t *Txn) Setval(ctx context.Context, n Name, v int64, called bool) (uint64, error) {
	eng, tn, ctx, id, err := t.target(ctx, n)
	if err != nil {
		return 0, err
	}
	got, err := eng.Setval(ctx, tn, v, called)
	if id != 0 {
		got = id
	}
	return got, asNamed(err, tn, n)
}

// Reserve is the engine's, for the sequence as the transaction sees it.
func (t *Txn) Reserve(ctx context.Context, n Name, count int64) (uint64, alloc.Range, error) {
	return t.reserve(ctx, n, count, true)
}

// ReserveUpTo is the engine's, for the sequence as the transaction sees it.
func (t *Txn) ReserveUpTo(ctx context.Context, n Name, count int64) (uint64, alloc.Range, error) {
	return t.reserve(ctx, n, count, false)
}

func (t *Txn) reserve(ctx context.Context, n Name, count int64, whole bool) (uint64, alloc.Range, error) {
	eng, tn, ctx, id, err := t.target(ctx, n)
	if err != nil {
		return 0, alloc.Range{}, err
	}
	got, r, err := eng.reserveRange(ctx, tn, count, whole)
	if id != 0 {
		got = id
	}
	return got, r, asNamed(err, tn, n)
}

// Release is the engine's, for the sequence as the transaction sees it.
func (t *Txn) Release(n Name, first, last int64) (int64, error) {
	eng, tn, _, _, err := t.target(context.Background(), n)
	if err != nil {
		return 0, err
	}
	v, err := eng.Release(tn, first, last)
	return v, asNamed(err, tn, n)
}

// asNamed rewrites an error about the sequence the transaction's view n
// stands for (its copy in the shadow engine, or the committed sequence
// under its old name) to name it as the session knows it.
func asNamed(err error, from, to Name) error {
	if err == nil || from.Rel() == to.Rel() {
		return err
	}
	fix := func(msg string) string {
		return strings.Replace(msg, `"`+from.Rel()+`"`, `"`+to.Rel()+`"`, 1)
	}
	var ae *alloc.Error
	var ee *Error
	switch {
	case errors.As(err, &ae):
		return &alloc.Error{Kind: ae.Kind, Msg: fix(ae.Msg)}
	case errors.As(err, &ee):
		return &Error{Kind: ee.Kind, Msg: fix(ee.Msg), Err: ee.Err}
	}
	return err
}

// --- DDL ---

// CreateWith creates a sequence in the transaction.
func (t *Txn) CreateWith(ctx context.Context, n Name, spec alloc.Spec, co CreateOptions) (bool, error) {
	for {
		if _, _, err := t.find(n); err == nil {
			if co.IfNotExists {
				return false, nil
			}
			return false, &Error{Kind: ErrExists, Msg: fmt.Sprintf("relation \"%s\" already exists", n.Rel())}
		} else if !errors.Is(err, ErrNotFound) {
			return false, err
		}
		if !t.schemaExists(n.Schema()) {
			return false, noSchema(n.Schema())
		}
		if err := t.lockName(ctx, n.key); err != nil {
			return false, err
		}
		// Another transaction may have created it, or dropped the
		// schema, while this one waited.
		if !t.schemaExists(n.Schema()) {
			return false, noSchema(n.Schema())
		}
		if _, _, err := t.find(n); errors.Is(err, ErrNotFound) {
			break
		}
	}
	opts, state, err := alloc.Create(spec)
	if err != nil {
		return false, err
	}
	t.e.catMu.Lock()
	id, err := t.e.newIDLocked()
	t.e.catMu.Unlock()
	if err != nil {
		return false, err
	}
	sh, err := t.copyOf(ctx, id, opts, state, co.Unlogged, 0)
	if err != nil {
		return false, err
	}
	t.entries[n.key] = entry{view: n, id: id, shadow: sh}
	if co.Owner != "" {
		t.acls[id] = ACL{Owner: co.Owner, Grants: map[string]Privs{}}
	}
	return true, nil
}

// Alter applies an ALTER SEQUENCE spec in the transaction. It rewrites the
// sequence, as PostgreSQL 15 does for every option (START alone too): from
// then on the transaction serves it from its own copy.
func (t *Txn) Alter(ctx context.Context, n Name, spec alloc.Spec) error {
	ent, err := t.entryFor(ctx, n)
	if err != nil {
		return err
	}
	o, st, unlogged, epoch, err := t.state(ent)
	if err != nil {
		return err
	}
	no, ns, err := alloc.Alter(o, st, spec)
	if err != nil {
		return err
	}
	sh, err := t.copyOf(ctx, ent.id, no, ns, unlogged, nextEpoch(o, no, epoch, spec.Restarts()))
	if err != nil {
		return err
	}
	ent.shadow = sh
	t.entries[n.key] = ent
	return nil
}

// SetLogged is ALTER SEQUENCE ... SET LOGGED|UNLOGGED in the transaction
// (a rewrite).
func (t *Txn) SetLogged(ctx context.Context, n Name, logged bool) error {
	ent, err := t.entryFor(ctx, n)
	if err != nil {
		return err
	}
	o, st, unlogged, epoch, err := t.state(ent)
	if err != nil || unlogged == !logged {
		if err == nil && ent.origin != nil {
			t.entries[n.key] = ent // locked: keep what it stands for
		}
		return err
	}
	sh, err := t.copyOf(ctx, ent.id, o, st, !logged, epoch)
	if err != nil {
		return err
	}
	ent.shadow = sh
	t.entries[n.key] = ent
	return nil
}

// Drop drops a sequence in the transaction.
func (t *Txn) Drop(ctx context.Context, n Name) error {
	ent, err := t.entryFor(ctx, n)
	if err != nil {
		return err
	}
	delete(t.entries, n.key)
	if ent.origin != nil {
		t.hidden[ent.origin.key] = true
	}
	delete(t.comments, ent.id)
	delete(t.acls, ent.id)
	return nil
}

// Rename renames a sequence (RENAME TO, SET SCHEMA) in the transaction.
func (t *Txn) Rename(ctx context.Context, from, to Name) error {
	ent, err := t.entryFor(ctx, from)
	if err != nil {
		return err
	}
	if ent.origin != nil {
		t.entries[from.key] = ent // locked; keep it even if the checks fail
	}
	if _, _, err := t.find(to); err == nil {
		return &Error{Kind: ErrExists, Msg: fmt.Sprintf("relation \"%s\" already exists in schema \"%s\"", to.Rel(), to.Schema())}
	}
	if !t.schemaExists(to.Schema()) {
		return noSchema(to.Schema())
	}
	if err := t.lockName(ctx, to.key); err != nil {
		return err
	}
	if _, _, err := t.find(to); err == nil {
		return &Error{Kind: ErrExists, Msg: fmt.Sprintf("relation \"%s\" already exists in schema \"%s\"", to.Rel(), to.Schema())}
	}
	delete(t.entries, from.key)
	if ent.origin != nil && ent.origin.key == from.key {
		t.hidden[from.key] = true
	}
	ent.view = to
	t.entries[to.key] = ent
	return nil
}

// SetComment sets the sequence's comment in the transaction ("" removes it).
func (t *Txn) SetComment(ctx context.Context, n Name, text string) error {
	ent, err := t.entryFor(ctx, n)
	if err != nil {
		return err
	}
	t.entries[n.key] = ent
	if text == "" {
		t.comments[ent.id] = nil
	} else {
		t.comments[ent.id] = &text
	}
	return nil
}

// UpdateACL changes the sequence's ACL in the transaction.
func (t *Txn) UpdateACL(ctx context.Context, n Name, f func(*ACL) error) error {
	ent, err := t.entryFor(ctx, n)
	if err != nil {
		return err
	}
	t.entries[n.key] = ent
	a := t.aclOf(ent.id)
	if err := f(&a); err != nil {
		return err
	}
	a.prune()
	t.acls[ent.id] = a
	return nil
}

// CreateSchema creates a schema owned by owner in the transaction.
func (t *Txn) CreateSchema(ctx context.Context, name, owner string, ifNotExists bool) (bool, error) {
	exists := func() (bool, error) {
		if !t.schemaExists(name) {
			return false, nil
		}
		if ifNotExists {
			return true, nil
		}
		return true, &Error{Kind: ErrSchemaExists, Msg: fmt.Sprintf("schema \"%s\" already exists", name)}
	}
	if ok, err := exists(); ok {
		return false, err
	}
	if err := t.lockName(ctx, schemaKey+name); err != nil {
		return false, err
	}
	if ok, err := exists(); ok {
		return false, err
	}
	t.schemas[name] = true
	t.schemaACLs[name] = ACL{Owner: owner, Grants: map[string]Privs{}}
	return true, nil
}

// SchemaACL is the schema's owner and grants as the transaction sees them.
func (t *Txn) SchemaACL(name string) (ACL, error) {
	if !t.schemaExists(name) {
		return ACL{}, noSchema(name)
	}
	if a, ok := t.schemaACLs[name]; ok {
		return a.clone(), nil
	}
	return t.e.SchemaACL(name)
}

// UpdateSchemaACL changes the schema's ACL in the transaction, which
// holds the schema's name lock until it ends: others creating or
// dropping it, or creating sequences in it, wait.
func (t *Txn) UpdateSchemaACL(ctx context.Context, name string, f func(*ACL) error) error {
	if !t.schemaExists(name) {
		return noSchema(name)
	}
	if err := t.lockName(ctx, schemaKey+name); err != nil {
		return err
	}
	a, err := t.SchemaACL(name) // after the wait: it may be gone
	if err != nil {
		return err
	}
	if err := f(&a); err != nil {
		return err
	}
	a.prune()
	t.schemaACLs[name] = a
	return nil
}

// DatabaseACL is the database's owner and grants as the transaction sees
// them.
func (t *Txn) DatabaseACL() ACL {
	if t.dbACL != nil {
		return t.dbACL.clone()
	}
	return t.e.DatabaseACL()
}

// UpdateDatabaseACL changes the database's ACL in the transaction, which
// holds the database's lock until it ends.
func (t *Txn) UpdateDatabaseACL(ctx context.Context, f func(*ACL) error) error {
	if err := t.lockName(ctx, databaseKey); err != nil {
		return err
	}
	a := t.DatabaseACL()
	if err := f(&a); err != nil {
		return err
	}
	a.prune()
	t.dbACL = &a
	return nil
}

// DropSchema drops a schema in the transaction; cascade drops its
// sequences, which are returned, and without it a schema holding
// sequences is refused with ErrDependents (and the sequences).
func (t *Txn) DropSchema(ctx context.Context, name string, cascade bool) ([]Name, error) {
	if !t.schemaExists(name) {
		return nil, noSchema(name)
	}
	if err := t.lockName(ctx, schemaKey+name); err != nil {
		return nil, err
	}
	t.e.catMu.Lock()
	for {
		waited, err := t.e.waitSchemaLocked(withTxn(ctx, t), name)
		if err != nil {
			t.e.catMu.Unlock()
			return nil, err
		}
		if !waited {
			break
		}
	}
	t.e.catMu.Unlock()
	seqs := t.SchemaSequences(name)
	if len(seqs) > 0 && !cascade {
		return seqs, &Error{Kind: ErrDependents, Msg: fmt.Sprintf("cannot drop schema %s because other objects depend on it", name)}
	}
	var dropped []Name
	for _, n := range seqs {
		if err := t.Drop(ctx, n); err != nil {
			return dropped, err
		}
		dropped = append(dropped, n)
	}
	if t.e.SchemaExists(name) {
		t.schemas[name] = false
	} else {
		delete(t.schemas, name)
	}
	delete(t.schemaACLs, name)
	return dropped, nil
}

// --- savepoints ---

// Savepoint is what the transaction had changed at a point.
type Savepoint struct {
	entries  map[string]entry
	hidden   map[string]bool
	comments map[uint64]*string
	acls     map[uint64]ACL
	schemas  map[string]bool
	// schemaACLs and dbACL: the transaction's, as in Txn.
	schemaACLs map[string]ACL
	dbACL      *ACL
	roles      map[string]*Role
	// nLocked and nNames: how many locks the transaction held; nRenames,
	// how many roles it had renamed.
	nLocked, nNames, nRenames int
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Savepoint records the transaction's changes so far.
func (t *Txn) Savepoint() Savepoint {
	return Savepoint{entries: cloneMap(t.entries), hidden: cloneMap(t.hidden), comments: cloneMap(t.comments), acls: cloneACLs(t.acls),
		schemas: cloneMap(t.schemas), schemaACLs: cloneACLs(t.schemaACLs), dbACL: t.dbACL, roles: cloneMap(t.roles),
		nLocked: len(t.locked), nNames: len(t.names), nRenames: len(t.renames)}
}

// cloneACLs copies m and the ACLs in it. (A stored ACL is replaced,
// never changed in place, so dbACL is shared safely.)
func cloneACLs[K comparable](m map[K]ACL) map[K]ACL {
	out := make(map[K]ACL, len(m))
	for k, a := range m {
		out[k] = a.clone()
	}
	return out
}

// RollbackTo undoes the changes made since sp and releases the locks
// taken since, as PostgreSQL releases a subtransaction's. Copies made
// since are dropped; what a copy made before sp handed out since stays
// handed out, as in PostgreSQL.
func (t *Txn) RollbackTo(sp Savepoint) {
	t.entries, t.hidden, t.comments, t.schemas, t.roles = cloneMap(sp.entries), cloneMap(sp.hidden), cloneMap(sp.comments), cloneMap(sp.schemas), cloneMap(sp.roles)
	t.acls, t.schemaACLs, t.dbACL = cloneACLs(sp.acls), cloneACLs(sp.schemaACLs), sp.dbACL
	t.renames = t.renames[:sp.nRenames]
	t.releaseSince(sp.nLocked, sp.nNames)
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
	e.lockMu.Lock()
	close(t.released)
	t.released = make(chan struct{})
	e.lockMu.Unlock()
}

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

// final is what one sequence becomes at commit.
type final struct {
	s    *seq // the committed sequence; nil: created
	ent  entry
	rec  record
	gone bool
}

// Commit makes the transaction's changes durable in one atomic write and
// visible to everyone, then ends it. On a storage failure the outcome is
// unknown (all or nothing): the sequences it touched report the failure
// until restart, as after any failed write. One that dropped a NOORDER
// sequence in cluster mode returns once no node serves it any more
// (Ranges.settle), its locks released.
func (t *Txn) Commit(ctx context.Context) error {
	err := t.commit(ctx)
	if err == nil && t.droppedNoOrder {
		t.e.ranges.settle(ctx)
	}
	return err
}

func (t *Txn) commit(ctx context.Context) error {
	defer t.end()
	if !t.Changed() {
		return nil
	}
	e := t.e
	// Roles are written under roleMu (taken before commentMu, as PutRole
	// takes it before anything else); one changed meanwhile by another
	// session fails the commit before anything is written.
	if len(t.roles) > 0 {
		e.roleMu.Lock()
		defer e.roleMu.Unlock()
		for name := range t.roles {
			if r, _ := e.Role(name); r.rev != t.roleRevs[name] {
				return &Error{Kind: ErrSerialization, Msg: fmt.Sprintf("could not serialize access due to concurrent update of role \"%s\"", name)}
			}
		}
	}
	// Comment and ACL records are written under commentMu, each expecting
	// the revision the one before left: so are this commit's.
	e.commentMu.Lock()
	defer e.commentMu.Unlock()
	var finals []final
	byOrigin := map[*seq]entry{}
	for _, ent := range t.entries {
		if ent.origin != nil {
			byOrigin[ent.origin] = ent
			continue
		}
		o, st, unlogged, epoch, err := t.state(ent)
		if err != nil {
			return err
		}
		finals = append(finals, final{ent: ent, rec: record{id: ent.id, opts: o, state: st, unlogged: unlogged, epoch: epoch}})
	}
	// The locked sequences: no write of theirs may be in flight (a
	// refill of our own nextval), and none starts until this one ends.
	var marked []*seq
	inWrite := map[*seq]bool{}
	release := func(err error) {
		for _, s := range marked {
			s.mu.Lock()
			s.writing = false
			if err != nil && inWrite[s] {
				s.err = storageError(s, err)
			}
			s.broadcastLocked()
			s.mu.Unlock()
		}
	}
	for _, s := range t.locked {
		s.mu.Lock()
		err := s.waitIdleLocked(ctx)
		if err == nil {
			err = s.usableLocked()
		}
		if err != nil {
			s.mu.Unlock()
			release(nil)
			return err
		}
		s.drainLocked()
		s.writing = true
		s.mu.Unlock()
		marked = append(marked, s)
		ent, ok := byOrigin[s]
		if !ok {
			if t.hidden[s.key] {
				finals = append(finals, final{s: s, gone: true})
				inWrite[s] = true
			}
			continue
		}
		o, st, unlogged, epoch, err := t.state(ent)
		if err != nil {
			release(nil)
			return err
		}
		finals = append(finals, final{s: s, ent: ent, rec: record{id: s.id, opts: o, state: st, unlogged: unlogged, epoch: epoch}})
		inWrite[s] = true
	}

	// A NOORDER sequence made ORDER (its position not set in the block)
	// goes on from where the nodes have reserved up to, and the commit
	// checks that no node reserved more meanwhile.
	var rangeOps []storage.Op
	for i, f := range finals {
		if f.s == nil || f.gone || e.ranges == nil || f.rec.opts.NoOrder {
			continue
		}
		f.s.mu.Lock()
		noOrder, epoch, cur := f.s.opts.NoOrder, f.s.epoch, f.s.cur
		frozen := record{id: f.s.id, opts: f.s.opts, state: cur, unlogged: f.s.unlogged, epoch: epoch, frozen: true}
		freeze := storage.Op{Key: f.s.key, Value: frozen.encode(), Expect: f.s.rev}
		f.s.mu.Unlock()
		if !noOrder || f.rec.epoch != epoch {
			continue
		}
		// First frozen, so that no node reserves another block; the
		// commit below thaws it, made ORDER.
		done := make(chan error, 1)
		e.w.submit(&write{op: freeze, done: func(rev storage.Rev, err error) {
			if err == nil {
				f.s.mu.Lock()
				f.s.rev = rev
				f.s.mu.Unlock()
			}
			done <- err
		}})
		if err := <-done; err != nil {
			release(err)
			return &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not persist the transaction: %v", err)}
		}
		pos, op, err := e.ranges.position(ctx, f.s.key, f.s.id, epoch, cur)
		if err != nil {
			release(nil)
			return &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not read the reserved values of sequence \"%s\": %v", f.ent.view.Rel(), err)}
		}
		finals[i].rec.state = pos
		rangeOps = append(rangeOps, op)
	}

	// The ops, one per key: a delete and a put of one key (a name dropped
	// and made again) become one put expecting the old revision.
	ops := map[string]storage.Op{}
	for _, op := range rangeOps {
		ops[op.Key] = op
	}
	put := func(op storage.Op) {
		if old, ok := ops[op.Key]; ok && old.Value == nil {
			op.Expect = old.Expect
		}
		ops[op.Key] = op
	}
	gone := map[uint64]bool{}
	e.catMu.RLock()
	for _, f := range finals {
		if f.s != nil {
			if f.gone || f.ent.view.key != f.s.key {
				ops[f.s.key] = storage.Op{Key: f.s.key, Expect: f.s.rev}
			}
			if f.gone {
				gone[f.s.id] = true
				if c, ok := e.comments[f.s.id]; ok {
					ops[commentKey(f.s.id)] = storage.Op{Key: commentKey(f.s.id), Expect: c.rev}
				}
				if a, ok := e.acls[f.s.id]; ok {
					ops[aclKey(f.s.id)] = storage.Op{Key: aclKey(f.s.id), Expect: a.rev}
				}
			}
		}
	}
	for name, exists := range t.schemas {
		if sc := e.schemas[name]; !exists && sc != nil && sc.rev != 0 {
			ops[schemaKey+name] = storage.Op{Key: schemaKey + name, Expect: sc.rev}
		}
	}
	// Created schemas (dropped and made again included) and changed
	// privileges: each schema's record with its ACL.
	for name, a := range t.schemaACLs {
		var expect storage.Rev
		if sc := e.schemas[name]; sc != nil {
			expect = sc.rev
		}
		put(storage.Op{Key: schemaKey + name, Value: encodeSchema(a), Expect: expect})
	}
	if t.dbACL != nil {
		put(storage.Op{Key: databaseKey, Value: t.dbACL.encode(), Expect: e.dbACL.rev})
	}
	for _, f := range finals {
		if f.gone {
			continue
		}
		var expect storage.Rev
		if f.s != nil && f.ent.view.key == f.s.key {
			expect = f.s.rev
		}
		put(storage.Op{Key: f.ent.view.key, Value: f.rec.encode(), Expect: expect})
	}
	for id, c := range t.comments {
		if gone[id] {
			continue
		}
		old, had := e.comments[id]
		switch {
		case c != nil:
			put(storage.Op{Key: commentKey(id), Value: []byte(*c), Expect: old.rev})
		case had:
			ops[commentKey(id)] = storage.Op{Key: commentKey(id), Expect: old.rev}
		}
	}
	for id, a := range t.acls {
		if gone[id] {
			continue
		}
		put(storage.Op{Key: aclKey(id), Value: a.encode(), Expect: e.acls[id].rev})
	}
	for name, r := range t.roles {
		switch rev := t.roleRevs[name]; {
		case r != nil:
			ops[roleKey+name] = storage.Op{Key: roleKey + name, Value: r.encode(), Expect: rev}
		case rev != 0:
			ops[roleKey+name] = storage.Op{Key: roleKey + name, Expect: rev}
		}
	}
	closing := e.closing
	e.catMu.RUnlock()
	if closing {
		release(nil)
		return closedError()
	}
	if len(ops) == 0 {
		release(nil)
		return nil
	}
	list := make([]storage.Op, 0, len(ops))
	for _, op := range ops {
		list = append(list, op)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Key < list[j].Key })

	done := make(chan error, 1)
	var rev storage.Rev
	e.w.submit(&write{op: list[0], extra: list[1:], alone: len(rangeOps) > 0, done: func(r storage.Rev, err error) {
		rev = r
		done <- err
	}})
	if err := <-done; err != nil {
		if len(rangeOps) > 0 && errors.Is(err, storage.ErrConflict) {
			// A node reserved values meanwhile: nothing was written.
			release(nil)
			return &Error{Kind: ErrSerialization, Err: err, Msg: "could not serialize access due to concurrent update of a NOORDER sequence"}
		}
		if errors.Is(err, storage.ErrDiskFull) {
			// Refused before anything was written: as a conflict, the
			// transaction simply did not happen.
			release(nil)
			return &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not persist the transaction: %v", err)}
		}
		release(err)
		t.failed(finals, err)
		return &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not persist the transaction: %v", err)}
	}

	// Durable: make it everyone's.
	e.catMu.Lock()
	for name, exists := range t.schemas {
		if !exists {
			delete(e.schemas, name)
		}
	}
	for name, a := range t.schemaACLs {
		if sc := e.schemas[name]; sc != nil {
			sc.acl, sc.rev = a.clone(), rev
		} else {
			e.schemas[name] = &schema{acl: a.clone(), rev: rev}
		}
	}
	if t.dbACL != nil {
		e.dbACL = aclRecord{acl: t.dbACL.clone(), rev: rev}
	}
	for _, f := range finals {
		s := f.s
		if s == nil {
			n := f.ent.view
			ns := &seq{key: n.key, id: f.rec.id, opts: f.rec.opts, cur: f.rec.state, rev: rev, unlogged: f.rec.unlogged, epoch: f.rec.epoch}
			e.setSeqLocked(n.key, ns)
			continue
		}
		s.mu.Lock()
		if e.seqs[s.key] == s {
			e.delSeqLocked(s.key)
		}
		if f.gone {
			s.gone = true
			delete(e.comments, s.id)
			delete(e.acls, s.id)
			t.droppedNoOrder = t.droppedNoOrder || e.ranges != nil && s.opts.NoOrder
		} else {
			s.key = f.ent.view.key
			e.setSeqLocked(s.key, s)
			s.opts, s.cur, s.unlogged, s.rev, s.epoch = f.rec.opts, f.rec.state, f.rec.unlogged, rev, f.rec.epoch
			s.remaining, s.granted, s.window, s.lastRefill = 0, 0, 0, 0
		}
		s.writing = false
		s.mu.Unlock()
	}
	for id, c := range t.comments {
		switch {
		case gone[id]:
		case c == nil:
			delete(e.comments, id)
		default:
			e.comments[id] = comment{text: *c, rev: rev}
		}
	}
	for id, a := range t.acls {
		if !gone[id] {
			e.acls[id] = aclRecord{acl: a.clone(), rev: rev}
		}
	}
	for _, s := range marked {
		if !inWrite[s] {
			s.mu.Lock()
			s.writing = false
			s.mu.Unlock()
		}
	}
	for name, r := range t.roles {
		if r == nil {
			delete(e.roles, name)
			continue
		}
		nr := *r
		nr.rev = rev
		e.roles[name] = nr
	}
	e.catMu.Unlock()
	e.catalogVersion.Add(1)
	if len(t.acls) > 0 || len(t.roles) > 0 || len(t.schemaACLs) > 0 || t.dbACL != nil || len(t.schemas) > 0 {
		e.bumpAuth(t.renames)
	}
	return nil
}

// failed keeps the names a failed commit may have written taken, as a
// failed CREATE keeps its own: its outcome is unknown, so nothing may be
// created over them (a write expecting them absent could conflict and
// fail every write of its group commit) until a restart reads the store.
func (t *Txn) failed(finals []final, err error) {
	e := t.e
	e.catMu.Lock()
	defer e.catMu.Unlock()
	for _, f := range finals {
		if f.gone || f.s != nil && f.ent.view.key == f.s.key {
			continue
		}
		if key := f.ent.view.key; e.seqs[key] == nil {
			ph := &seq{key: key, id: f.rec.id, opts: f.rec.opts, cur: f.rec.state}
			ph.err = storageError(ph, err)
			e.setSeqLocked(key, ph)
		}
	}
	for name, exists := range t.schemas {
		if exists && e.schemas[name] == nil {
			e.schemas[name] = &schema{dropping: true}
		}
	}
}
