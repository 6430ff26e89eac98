package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/seqd/seqd/storage"
)

// Privs are privileges on a sequence, a schema or the database, with
// PostgreSQL's meanings.
type Privs uint8

const (
	PrivUsage   Privs                                 = 1 << iota // USAGE: currval, nextval; on a schema: look up in it
	PrivSelect                                                    // SELECT: currval, SELECT FROM s
	PrivUpdate                                                    // UPDATE: nextval, setval
	PrivCreate                                                    // CREATE: on a schema, sequences in it; on the database, schemas
	PrivConnect                                                   // CONNECT to the database
	PrivTemp                                                      // TEMPORARY: temporary sequences in the database
	PrivAll     = PrivUsage | PrivSelect | PrivUpdate             // a sequence's
	// SchemaPrivs and DatabasePrivs are a schema's and the database's.
	SchemaPrivs   = PrivUsage | PrivCreate
	DatabasePrivs = PrivCreate | PrivConnect | PrivTemp
	privEvery     = PrivAll | PrivCreate | PrivConnect | PrivTemp
)

// Public is the grantee every role is part of (GRANT ... TO PUBLIC).
const Public = ""

// ACL is a sequence's owner and what others were granted. The owner
// holds every privilege but those it revoked from itself: OwnerRevoked
// (as in PostgreSQL, where the owner's rights are an ACL entry like any
// other, which REVOKE ... FROM the owner takes; ownership itself, to
// ALTER, DROP and GRANT, stays). Grants maps a role (Public for PUBLIC)
// to its privileges; it holds no empty entries. Explicit says a GRANT or
// REVOKE was made on the object: PostgreSQL's ACL is then an array of
// its items even where they are the defaults (relacl
// {owner=rwU/owner}), NULL only while none was ever made.
type ACL struct {
	Owner        string
	Grants       map[string]Privs
	OwnerRevoked Privs
	Explicit     bool
}

// Privileges of role, a superuser or not, on an object with this ACL:
// its owner holds every privilege the object has but those it revoked
// from itself.
func (a ACL) Privileges(role string, superuser bool) Privs {
	if superuser {
		return privEvery
	}
	if role == a.Owner && role != Public {
		return privEvery&^a.OwnerRevoked | a.Grants[role] | a.Grants[Public]
	}
	return a.Grants[role] | a.Grants[Public]
}

// Grant gives grantee want (GRANT): to the owner, what it had revoked
// from itself.
func (a *ACL) Grant(grantee string, want Privs) {
	a.Explicit = true
	if grantee == a.Owner && grantee != Public {
		a.OwnerRevoked &^= want
		return
	}
	a.Grants[grantee] |= want
}

// Revoke takes want from grantee (REVOKE): from the owner, its own
// rights to them.
func (a *ACL) Revoke(grantee string, want Privs) {
	a.Explicit = true
	if grantee == a.Owner && grantee != Public {
		a.OwnerRevoked |= want
	}
	if p, ok := a.Grants[grantee]; ok {
		a.Grants[grantee] = p &^ want
	}
}

// Grantees are the roles with grants, sorted (Public first).
func (a ACL) Grantees() []string {
	out := make([]string, 0, len(a.Grants))
	for r := range a.Grants {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// prune removes the grantees left with no privileges.
func (a ACL) prune() {
	for r, p := range a.Grants {
		if p == 0 {
			delete(a.Grants, r)
		}
	}
}

func (a ACL) clone() ACL {
	g := make(map[string]Privs, len(a.Grants))
	for k, v := range a.Grants {
		g[k] = v
	}
	return ACL{Owner: a.Owner, Grants: g, OwnerRevoked: a.OwnerRevoked, Explicit: a.Explicit}
}

// kept is the ACL as the engine keeps it, never to be modified (clone
// makes one to modify): no map when there are no grants, the common case
// of a million sequences each with an ACL of its owner alone.
func (a ACL) kept() ACL {
	if len(a.Grants) == 0 {
		return ACL{Owner: a.Owner, OwnerRevoked: a.OwnerRevoked, Explicit: a.Explicit}
	}
	return a.clone()
}

// ACL records are catalog records keyed by the sequence's ID, so that
// they follow it through renames. A sequence without one was created
// before privileges existed, when every role could do everything: it is
// owned by no role and PUBLIC holds every privilege, until a GRANT,
// REVOKE or OWNER TO writes its record. This layout is part of the
// on-disk format:
//
//	version (1) | owner length (u16 BE) | owner | grants (u16 BE), each:
//	    role length (u16 BE) | role ("" for PUBLIC) | privileges (1 byte)
//	version 2 only: what the owner revoked from itself (1 byte)
//	version 3 only: what the owner revoked from itself (1 byte, 0 for
//	    nothing) | flags (1 byte: 1 explicit, the others 0)
//
// Version 1 is written while the owner holds every privilege (as before
// owners' rights were revocable, so that a store is read by the seqd
// that wrote it before them until an owner revokes its own); one
// without version 2 refuses such a record as corrupt rather than
// grant the owner what it revoked. Version 3 is written only where the
// flag is not what the rest says (impliedExplicit: an ACL with grants or
// an owner's revocation is explicit, as version 1 and 2 records are
// read): an explicit ACL of its owner alone, after a GRANT and a REVOKE
// back; one without version 3 refuses it as corrupt rather than show
// NULL where PostgreSQL shows the items.
const (
	aclPrefix    = catalogPrefix + "acl:"
	aclVersion   = 1
	aclVersionV2 = 2
	aclVersionV3 = 3
	aclExplicit  = 1 // version 3's flag
)

func aclKey(id uint64) string { return aclPrefix + strconv.FormatUint(id, 16) }

type aclRecord struct {
	acl ACL
	rev storage.Rev
}

// legacyACL is the ACL of a sequence without a record.
func legacyACL() ACL { return ACL{Grants: map[string]Privs{Public: PrivAll}} }

// aclOfLocked is sequence id's ACL. REQUIRES: catMu held.
func (e *Engine) aclOfLocked(id uint64) aclRecord {
	if r, ok := e.aclRecLocked(id); ok {
		return r
	}
	return aclRecord{acl: legacyACL()}
}

// ownerRecord is a kept ACL of its owner alone: the owner's index in
// ownerNames, and the record's revision.
type ownerRecord struct {
	owner uint32
	rev   storage.Rev
}

// aclRecLocked is the sequence's ACL record, if it has one (its ACL as
// kept: never to be modified).
// REQUIRES: catMu held.
func (e *Engine) aclRecLocked(id uint64) (aclRecord, bool) {
	if o, ok := e.ownerOnly[id]; ok {
		return e.ownerRecordLocked(o), true
	}
	r, ok := e.acls[id]
	return r, ok
}

// putACLLocked keeps a (as kept: never modified after) as the sequence's
// ACL record at rev.
// REQUIRES: catMu held for writing.
func (e *Engine) putACLLocked(id uint64, a ACL, rev storage.Rev) {
	// The owner-only layout says the owner holds all, by default (no
	// GRANT or REVOKE made): only while that is so.
	if len(a.Grants) > 0 || a.OwnerRevoked != 0 || a.Explicit {
		e.dropOwnerOnlyLocked(id)
		e.acls[id] = aclRecord{acl: a, rev: rev}
		return
	}
	i, ok := e.ownerIdx[a.Owner]
	if !ok {
		if n := len(e.ownerFree); n > 0 {
			i, e.ownerFree = e.ownerFree[n-1], e.ownerFree[:n-1]
			e.ownerNames[i] = a.Owner
		} else {
			i = uint32(len(e.ownerNames))
			e.ownerNames = append(e.ownerNames, a.Owner)
			e.ownerRefs = append(e.ownerRefs, 0)
		}
		e.ownerIdx[a.Owner] = i
	}
	e.ownerRefs[i]++ // before the old one's release: the same owner stays
	e.dropOwnerOnlyLocked(id)
	delete(e.acls, id)
	e.ownerOnly[id] = ownerRecord{owner: i, rev: rev}
}

// dropACLLocked forgets the sequence's ACL record.
// REQUIRES: catMu held for writing.
func (e *Engine) dropACLLocked(id uint64) {
	delete(e.acls, id)
	e.dropOwnerOnlyLocked(id)
}

// dropOwnerOnlyLocked forgets the sequence's owner-only record, if it
// has one, and the owner's name once no record refers to it (roles come
// and go: their names must not pile up).
// REQUIRES: catMu held for writing.
func (e *Engine) dropOwnerOnlyLocked(id uint64) {
	o, ok := e.ownerOnly[id]
	if !ok {
		return
	}
	delete(e.ownerOnly, id)
	if e.ownerRefs[o.owner]--; e.ownerRefs[o.owner] == 0 {
		delete(e.ownerIdx, e.ownerNames[o.owner])
		e.ownerNames[o.owner] = ""
		e.ownerFree = append(e.ownerFree, o.owner)
	}
}

// eachACLLocked calls f with every sequence's ACL record.
// REQUIRES: catMu held.
func (e *Engine) eachACLLocked(f func(id uint64, r aclRecord)) {
	for id, r := range e.acls {
		f(id, r)
	}
	for id, o := range e.ownerOnly {
		f(id, e.ownerRecordLocked(o))
	}
}

// ownerRecordLocked is o as the ACL record it stands for.
// REQUIRES: catMu held.
func (e *Engine) ownerRecordLocked(o ownerRecord) aclRecord {
	return aclRecord{acl: ACL{Owner: e.ownerNames[o.owner]}, rev: o.rev}
}

// impliedExplicit is what a version 1 or 2 record says of Explicit:
// grants, or an owner's revocation, were made by GRANT or REVOKE.
func (a ACL) impliedExplicit() bool { return len(a.Grants) > 0 || a.OwnerRevoked != 0 }

func (a ACL) encode() []byte {
	b := []byte{aclVersion}
	v3 := a.Explicit != a.impliedExplicit()
	switch {
	case v3:
		b[0] = aclVersionV3
	case a.OwnerRevoked != 0:
		b[0] = aclVersionV2
	}
	str := func(s string) {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	str(a.Owner)
	b = binary.BigEndian.AppendUint16(b, uint16(len(a.Grants)))
	for _, r := range a.Grantees() {
		str(r)
		b = append(b, byte(a.Grants[r]))
	}
	switch {
	case v3 && a.Explicit:
		b = append(b, byte(a.OwnerRevoked), aclExplicit)
	case v3:
		b = append(b, byte(a.OwnerRevoked), 0)
	case a.OwnerRevoked != 0:
		b = append(b, byte(a.OwnerRevoked))
	}
	return b
}

func decodeACL(b []byte) (ACL, error) {
	// Made only when needed: a load decodes every sequence's record.
	size := len(b)
	bad := func() error { return fmt.Errorf("seqd: corrupt privileges record (%d bytes)", size) }
	if len(b) < 1 || b[0] < aclVersion || b[0] > aclVersionV3 {
		return ACL{}, bad()
	}
	version := b[0]
	b = b[1:]
	str := func() (string, bool) {
		if len(b) < 2 {
			return "", false
		}
		n := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+n {
			return "", false
		}
		s := string(b[2 : 2+n])
		b = b[2+n:]
		return s, true
	}
	owner, ok := str()
	if !ok || len(b) < 2 {
		return ACL{}, bad()
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	a := ACL{Owner: owner}
	if n > 0 {
		a.Grants = make(map[string]Privs, n)
	}
	for range n {
		r, ok := str()
		if !ok || len(b) < 1 || Privs(b[0])&^privEvery != 0 || b[0] == 0 {
			return ACL{}, bad()
		}
		a.Grants[r] = Privs(b[0])
		b = b[1:]
	}
	switch version {
	case aclVersionV2:
		if len(b) < 1 || Privs(b[0])&^privEvery != 0 || b[0] == 0 {
			return ACL{}, bad()
		}
		a.OwnerRevoked = Privs(b[0])
		b = b[1:]
	case aclVersionV3:
		if len(b) < 2 || Privs(b[0])&^privEvery != 0 || b[1]&^aclExplicit != 0 {
			return ACL{}, bad()
		}
		a.OwnerRevoked = Privs(b[0])
		a.Explicit = b[1] == aclExplicit
		b = b[2:]
		if a.Explicit == a.impliedExplicit() {
			return ACL{}, bad() // version 3 is written only where it differs
		}
	}
	if len(b) != 0 {
		return ACL{}, bad()
	}
	if version != aclVersionV3 {
		a.Explicit = a.impliedExplicit()
	}
	return a, nil
}

func (e *Engine) loadACL(kv storage.KV) error {
	id, err := strconv.ParseUint(strings.TrimPrefix(kv.Key, aclPrefix), 16, 64)
	if err != nil {
		return fmt.Errorf("seqd: corrupt privileges record %q", kv.Key)
	}
	a, err := decodeACL(kv.Value)
	if err != nil {
		return fmt.Errorf("%w: key %q", err, kv.Key)
	}
	e.putACLLocked(id, a, kv.Rev)
	return nil
}

// ACL is the sequence's owner and grants.
func (e *Engine) ACL(n Name) (ACL, error) {
	info, err := e.Info(n)
	if err != nil {
		return ACL{}, err
	}
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	return e.aclOfLocked(info.ID).acl.clone(), nil
}

// ACLs are every sequence's ACL by sequence ID (for catalogs and for
// finding what depends on a role).
func (e *Engine) ACLs() map[uint64]ACL {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	out := make(map[uint64]ACL, len(e.acls)+len(e.ownerOnly))
	e.eachACLLocked(func(id uint64, r aclRecord) { out[id] = r.acl.clone() })
	return out
}

// UpdateACL changes the sequence's ACL durably: f gets the current one
// (which it may modify) and returns the new one. Changes are serialized.
func (e *Engine) UpdateACL(ctx context.Context, n Name, f func(*ACL) error) error {
	if err := e.waitUnlocked(ctx, n); err != nil {
		return err
	}
	e.commentMu.Lock() // invariant 9
	defer e.commentMu.Unlock()
	info, err := e.Info(n)
	if err != nil {
		return err
	}
	e.catMu.RLock()
	old := e.aclOfLocked(info.ID)
	e.catMu.RUnlock()
	a := old.acl.clone()
	if err := f(&a); err != nil {
		return err
	}
	a.prune()
	rev, err := e.writeCatalog(storage.Op{Key: aclKey(info.ID), Value: a.encode(), Expect: old.rev})
	if err != nil {
		return err
	}
	e.catMu.Lock()
	e.putACLLocked(info.ID, a.kept(), rev)
	e.catMu.Unlock()
	e.authVersion.Add(1)
	return nil
}

// Privileges of role on the sequence n; superuser: the role is one. Cheap
// enough for every nextval: one catalog read lock, no copies.
func (e *Engine) Privileges(n Name, role string, superuser bool) (Privs, error) {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	s := e.seqs.get(n.key)
	if s == nil {
		return 0, notFound(n)
	}
	return e.aclOfLocked(s.id).acl.Privileges(role, superuser) & PrivAll, nil
}

// AuthVersion changes whenever a sequence's ACL or a role changes, so
// that callers may cache privileges (together with CatalogVersion, which
// changes when names do).
func (e *Engine) AuthVersion() uint64 { return e.authVersion.Load() }

// Names reports whether the ACL names role, as owner or grantee.
func (a ACL) Names(role string) bool {
	_, granted := a.Grants[role]
	return a.Owner == role || granted
}

// RenameRole makes the ACL name to wherever it named from.
func (a *ACL) RenameRole(from, to string) {
	if a.Owner == from {
		a.Owner = to
	}
	if p, ok := a.Grants[from]; ok {
		delete(a.Grants, from)
		a.Grants[to] |= p
	}
}
