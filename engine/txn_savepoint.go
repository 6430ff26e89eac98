// Savepoints: the overlay's state at SAVEPOINT, restored by ROLLBACK TO.

package engine

// Savepoint is what the transaction had changed at a point.
type Savepoint struct {
	entries  map[string]entry
	hidden   map[string]bool
	comments map[uint64]*string
	acls     map[uint64]ACL
	schemas  map[string]bool
	// schemaACLs and dbACL: the transaction's, as in Txn.
	schemaACLs     map[string]ACL
	schemaComments map[string]*string
	dbACL          *ACL
	roles          map[string]*Role
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
		schemas: cloneMap(t.schemas), schemaACLs: cloneACLs(t.schemaACLs), schemaComments: cloneMap(t.schemaComments), dbACL: t.dbACL, roles: cloneMap(t.roles),
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
	t.acls, t.schemaACLs, t.schemaComments, t.dbACL = cloneACLs(sp.acls), cloneACLs(sp.schemaACLs), cloneMap(sp.schemaComments), sp.dbACL
	t.renames = t.renames[:sp.nRenames]
	t.releaseSince(sp.nLocked, sp.nNames)
}
