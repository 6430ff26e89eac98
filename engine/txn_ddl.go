// A transaction's DDL: sequences, comments, privileges and schemas
// changed in its overlay, written at COMMIT.

package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/seqd/seqd/seqmath"
)

// CreateWith creates a sequence in the transaction.
func (t *Txn) CreateWith(ctx context.Context, n Name, spec seqmath.Spec, co CreateOptions) (bool, error) {
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
	opts, state, err := seqmath.Create(spec)
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
func (t *Txn) Alter(ctx context.Context, n Name, spec seqmath.Spec) error {
	ent, err := t.entryFor(ctx, n)
	if err != nil {
		return err
	}
	o, st, unlogged, epoch, err := t.state(ent)
	if err != nil {
		return err
	}
	no, ns, err := seqmath.Alter(o, st, spec)
	if err != nil {
		return err
	}
	logCnt, _ := t.logState(ent)
	if logResets(spec, &o) {
		logCnt = 0
	}
	sh, err := t.copyOf(ctx, ent.id, no, ns, unlogged, nextEpoch(o, no, epoch, spec.Restarts()))
	if err != nil {
		return err
	}
	t.setLog(sh, logCnt, 0) // ALTER empties the cache
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
	logCnt, logBlock := t.logState(ent)
	sh, err := t.copyOf(ctx, ent.id, o, st, !logged, epoch)
	if err != nil {
		return err
	}
	t.setLog(sh, logCnt, logBlock)
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
	t.schemaComments[name] = nil
	return true, nil
}

// SetSchemaComment sets the schema's comment in the transaction ("":
// removed). The comment is written with the schema's record, so it is a
// change of the record as UpdateSchemaACL's (its ACL as it is): the
// transaction holds the schema's name lock until it ends.
func (t *Txn) SetSchemaComment(ctx context.Context, name, text string) error {
	if err := t.UpdateSchemaACL(ctx, name, func(*ACL) error { return nil }); err != nil {
		return err
	}
	t.schemaComments[name] = &text
	return nil
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
	delete(t.schemaComments, name)
	return dropped, nil
}
