// COMMIT: a transaction's changes made durable in one atomic write, then
// everyone's.

package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/seqd/seqd/storage"
)

// ErrSerialization: a transaction's commit found what it changed changed
// by another meanwhile (roles, which are not locked while a block holds
// them).
var ErrSerialization = errors.New("seqd: could not serialize access")

// final is what one sequence becomes at commit.
type final struct {
	s    *seq // the committed sequence; nil: created
	ent  entry
	rec  record
	gone bool
	// logCnt and logBlock are its log_cnt and the values left in the
	// cache it counts for (logcnt.go).
	logCnt   uint8
	logBlock int64
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
	// Roles are written under roleMu (invariant 8; taken before
	// commentMu, in the lock order); one changed meanwhile by another
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
	// the revision the one before left: so are this commit's (invariant
	// 9).
	e.commentMu.Lock()
	defer e.commentMu.Unlock()
	c := &commitPlan{t: t, inWrite: map[*seq]bool{}, gone: map[uint64]bool{}, ops: map[string]storage.Op{}}
	if err := c.collect(ctx); err != nil {
		return err
	}
	if err := c.freezeNoOrder(ctx); err != nil {
		return err
	}
	list, err := c.plan()
	if err != nil || len(list) == 0 {
		c.release(nil)
		return err
	}
	rev, err := c.write(list)
	if err != nil {
		return err
	}
	c.apply(rev)
	return nil
}

// commitPlan is one COMMIT under way, in steps: collect (what becomes of
// each sequence; the locked ones marked writing, so that no refill of
// theirs starts), freezeNoOrder (NOORDER sequences made ORDER stop the
// nodes' reservations), plan (the store ops, under catMu's read lock),
// write (one atomic commit), apply (everyone sees it, under catMu). From
// collect on, every way out releases the marked sequences (release).
// REQUIRES: throughout, the transaction's goroutine holds e.commentMu
// (invariant 9) and e.roleMu when it changes roles (invariant 8).
type commitPlan struct {
	t        *Txn
	finals   []final
	marked   []*seq        // the locked sequences, writing set by collect
	inWrite  map[*seq]bool // those of them whose record the commit writes
	rangeOps []storage.Op  // NOORDER range records the commit compares
	gone     map[uint64]bool
	ops      map[string]storage.Op // by key
}

// release ends the marked sequences' writing; after a failed write whose
// outcome is unknown (err), those the commit wrote fail until restart.
func (c *commitPlan) release(err error) {
	for _, s := range c.marked {
		s.mu.Lock()
		s.writing = false
		if err != nil && c.inWrite[s] {
			s.err = storageError(s, err)
		}
		s.broadcastLocked()
		s.mu.Unlock()
	}
}

// collect decides each sequence's final record: those created in the
// transaction, and the committed ones it locked, once no write of theirs
// is in flight (a refill of our own nextval); those are marked writing,
// so that none starts until the commit ends.
func (c *commitPlan) collect(ctx context.Context) error {
	t := c.t
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
		logCnt, logBlock := t.logState(ent)
		c.finals = append(c.finals, final{ent: ent, rec: record{id: ent.id, opts: o, state: st, unlogged: unlogged, epoch: epoch}, logCnt: logCnt, logBlock: logBlock})
	}
	for _, s := range t.locked {
		s.mu.Lock()
		err := s.waitIdleLocked(ctx)
		if err == nil {
			err = s.usableLocked()
		}
		if err != nil {
			s.mu.Unlock()
			c.release(nil)
			return err
		}
		s.drainLocked()
		s.writing = true
		s.mu.Unlock()
		c.marked = append(c.marked, s)
		ent, ok := byOrigin[s]
		if !ok {
			if t.hidden[s.key] {
				c.finals = append(c.finals, final{s: s, gone: true})
				c.inWrite[s] = true
			}
			continue
		}
		o, st, unlogged, epoch, err := t.state(ent)
		if err != nil {
			c.release(nil)
			return err
		}
		logCnt, logBlock := t.logState(ent)
		c.finals = append(c.finals, final{s: s, ent: ent, rec: record{id: s.id, opts: o, state: st, unlogged: unlogged, epoch: epoch}, logCnt: logCnt, logBlock: logBlock})
		c.inWrite[s] = true
	}
	return nil
}

// freezeNoOrder: a NOORDER sequence made ORDER (its position not set in
// the block) goes on from where the nodes have reserved up to, and the
// commit checks that no node reserved more meanwhile.
func (c *commitPlan) freezeNoOrder(ctx context.Context) error {
	e := c.t.e
	for i, f := range c.finals {
		if f.s == nil || f.gone || e.ranges == nil || f.rec.opts.NoOrder {
			continue
		}
		f.s.mu.Lock()
		noOrder, epoch, cur := f.s.opts.NoOrder, f.s.epoch, f.s.cur
		frozen := record{id: f.s.id, opts: *f.s.opts, state: cur, unlogged: f.s.unlogged, epoch: epoch, frozen: true}
		freeze := storage.Op{Key: f.s.key, Value: frozen.encode(), Expect: f.s.rev}
		f.s.mu.Unlock()
		if !noOrder || f.rec.epoch != epoch {
			continue
		}
		// First frozen, so that no node reserves another block; the
		// commit thaws it, made ORDER.
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
			c.release(err)
			return &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not persist the transaction: %v", err)}
		}
		pos, op, err := e.ranges.position(ctx, f.s.key, f.s.id, epoch, cur)
		if err != nil {
			c.release(nil)
			return &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not read the reserved values of sequence \"%s\": %v", f.ent.view.Rel(), err)}
		}
		c.finals[i].rec.state = pos
		c.rangeOps = append(c.rangeOps, op)
	}
	return nil
}

// plan makes the store ops, one per key, sorted: a delete and a put of
// one key (a name dropped and made again) become one put expecting the
// old revision. It reads the committed catalog under catMu's read lock.
// An engine closing fails it (the caller releases).
func (c *commitPlan) plan() ([]storage.Op, error) {
	t, e, ops := c.t, c.t.e, c.ops
	for _, op := range c.rangeOps {
		ops[op.Key] = op
	}
	put := func(op storage.Op) {
		if old, ok := ops[op.Key]; ok && old.Value == nil {
			op.Expect = old.Expect
		}
		ops[op.Key] = op
	}
	e.catMu.RLock()
	for _, f := range c.finals {
		if f.s != nil {
			if f.gone || f.ent.view.key != f.s.key {
				ops[f.s.key] = storage.Op{Key: f.s.key, Expect: f.s.rev}
			}
			if f.gone {
				c.gone[f.s.id] = true
				if cm, ok := e.comments[f.s.id]; ok {
					ops[commentKey(f.s.id)] = storage.Op{Key: commentKey(f.s.id), Expect: cm.rev}
				}
				if a, ok := e.aclRecLocked(f.s.id); ok {
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
		put(storage.Op{Key: schemaKey + name, Value: encodeSchema(a, t.schemaComment(name)), Expect: expect})
	}
	if t.dbACL != nil {
		put(storage.Op{Key: databaseKey, Value: t.dbACL.encode(), Expect: e.dbACL.rev})
	}
	for _, f := range c.finals {
		if f.gone {
			continue
		}
		var expect storage.Rev
		if f.s != nil && f.ent.view.key == f.s.key {
			expect = f.s.rev
		}
		put(storage.Op{Key: f.ent.view.key, Value: f.rec.encode(), Expect: expect})
	}
	for id, cm := range t.comments {
		if c.gone[id] {
			continue
		}
		old, had := e.comments[id]
		switch {
		case cm != nil:
			put(storage.Op{Key: commentKey(id), Value: []byte(*cm), Expect: old.rev})
		case had:
			ops[commentKey(id)] = storage.Op{Key: commentKey(id), Expect: old.rev}
		}
	}
	for id, a := range t.acls {
		if c.gone[id] {
			continue
		}
		old, _ := e.aclRecLocked(id)
		put(storage.Op{Key: aclKey(id), Value: a.encode(), Expect: old.rev})
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
		return nil, closedError()
	}
	list := make([]storage.Op, 0, len(ops))
	for _, op := range ops {
		list = append(list, op)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Key < list[j].Key })
	return list, nil
}

// write commits list in one atomic write. A write refused before it was
// made (a node's NOORDER reservation, a full disk) leaves everything as
// it was; one whose outcome is unknown leaves the sequences it wrote
// failed, and the names it may have made taken (failed), until restart.
func (c *commitPlan) write(list []storage.Op) (storage.Rev, error) {
	done := make(chan error, 1)
	var rev storage.Rev
	// Alone when it compares NOORDER range records, or is more than one
	// record: a commit the store refuses (too large, a node's
	// reservation) then fails only this transaction, not the sequences
	// whose refills would have shared its group commit.
	c.t.e.w.submit(&write{op: list[0], extra: list[1:], alone: len(c.rangeOps) > 0 || len(list) > 1, done: func(r storage.Rev, err error) {
		rev = r
		done <- err
	}})
	err := <-done
	switch {
	case err == nil:
		return rev, nil
	case len(c.rangeOps) > 0 && errors.Is(err, storage.ErrConflict):
		// A node reserved values meanwhile: nothing was written.
		c.release(nil)
		return 0, &Error{Kind: ErrSerialization, Err: err, Msg: "could not serialize access due to concurrent update of a NOORDER sequence"}
	case storage.Refused(err):
		// Refused before anything was written (a full disk, a commit
		// larger than the store takes): as a conflict, the transaction
		// simply did not happen.
		c.release(nil)
		return 0, &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not persist the transaction: %v", err)}
	}
	c.release(err)
	c.t.failed(c.finals, err)
	return 0, &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not persist the transaction: %v", err)}
}

// apply makes the durable commit everyone's, under catMu (each sequence
// under its mu, in the lock order), and ends the marked sequences'
// writing.
func (c *commitPlan) apply(rev storage.Rev) {
	t, e := c.t, c.t.e
	e.catMu.Lock()
	for name, exists := range t.schemas {
		if !exists {
			delete(e.schemas, name)
		}
	}
	for name, a := range t.schemaACLs {
		comment := t.schemaComment(name)
		if sc := e.schemas[name]; sc != nil {
			sc.acl, sc.comment, sc.rev = a.clone(), comment, rev
		} else {
			e.schemas[name] = &schema{acl: a.clone(), comment: comment, rev: rev}
		}
	}
	if t.dbACL != nil {
		e.dbACL = aclRecord{acl: t.dbACL.clone(), rev: rev}
	}
	for _, f := range c.finals {
		s := f.s
		if s == nil {
			n := f.ent.view
			ns := &seq{key: n.key, id: f.rec.id, opts: internOptions(f.rec.opts), cur: f.rec.state, rev: rev, unlogged: f.rec.unlogged, epoch: f.rec.epoch,
				logCnt: f.logCnt, logBlock: f.logBlock}
			e.setSeqLocked(n.key, ns)
			continue
		}
		s.mu.Lock()
		if e.seqs.get(s.key) == s {
			e.delSeqLocked(s.key)
		}
		if f.gone {
			s.gone = true
			delete(e.comments, s.id)
			e.dropACLLocked(s.id)
			t.droppedNoOrder = t.droppedNoOrder || e.ranges != nil && s.opts.NoOrder
		} else {
			s.key = f.ent.view.key
			e.setSeqLocked(s.key, s)
			s.opts, s.cur, s.unlogged, s.rev, s.epoch = internOptions(f.rec.opts), f.rec.state, f.rec.unlogged, rev, f.rec.epoch
			s.remaining, s.granted, s.window, s.lastRefill = 0, 0, 0, 0
			s.logCnt, s.logBlock = f.logCnt, f.logBlock
		}
		s.writing = false
		s.mu.Unlock()
	}
	for id, cm := range t.comments {
		switch {
		case c.gone[id]:
		case cm == nil:
			delete(e.comments, id)
		default:
			e.comments[id] = comment{text: *cm, rev: rev}
		}
	}
	for id, a := range t.acls {
		if !c.gone[id] {
			e.putACLLocked(id, a.kept(), rev)
		}
	}
	for _, s := range c.marked {
		if !c.inWrite[s] {
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
		if key := f.ent.view.key; e.seqs.get(key) == nil {
			ph := &seq{key: key, id: f.rec.id, opts: internOptions(f.rec.opts), cur: f.rec.state}
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
