package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Roles in a transaction: created, changed and dropped in its overlay,
// seen by it at once and by others after COMMIT, which writes them with
// the rest of its changes. A role another session changes meanwhile
// fails the COMMIT (ErrSerialization), so no change is lost.

// Role returns a role by name, as the transaction sees it.
func (t *Txn) Role(name string) (Role, bool) {
	if r, ok := t.roles[name]; ok {
		if r == nil {
			return Role{}, false
		}
		return *r, true
	}
	return t.e.Role(name)
}

// Roles lists the roles by name, as the transaction sees them.
func (t *Txn) Roles() []Role {
	var out []Role
	for _, r := range t.e.Roles() {
		if _, changed := t.roles[r.Name]; !changed {
			out = append(out, r)
		}
	}
	for _, r := range t.roles {
		if r != nil {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PutRole creates a role (create) or replaces an existing one's
// attributes in the transaction.
func (t *Txn) PutRole(ctx context.Context, r Role, create bool) error {
	if r.Name == "" || strings.ContainsRune(r.Name, 0) {
		return &Error{Kind: ErrInvalidName, Msg: fmt.Sprintf("invalid role name %q", r.Name)}
	}
	_, exists := t.Role(r.Name)
	switch {
	case create && exists:
		return &Error{Kind: ErrRoleExists, Msg: fmt.Sprintf("role \"%s\" already exists", r.Name)}
	case !create && !exists:
		return &Error{Kind: ErrNoRole, Msg: fmt.Sprintf("role \"%s\" does not exist", r.Name)}
	}
	t.touchRole(r.Name)
	t.roles[r.Name] = &r
	return nil
}

// DropRole removes a role in the transaction.
func (t *Txn) DropRole(ctx context.Context, name string) error {
	if _, exists := t.Role(name); !exists {
		return &Error{Kind: ErrNoRole, Msg: fmt.Sprintf("role \"%s\" does not exist", name)}
	}
	t.touchRole(name)
	t.roles[name] = nil
	return nil
}

// touchRole notes the committed revision of a role the transaction is
// about to change, the first time: COMMIT expects it unchanged.
func (t *Txn) touchRole(name string) {
	if _, ok := t.roleRevs[name]; !ok {
		r, _ := t.e.Role(name)
		t.roleRevs[name] = r.rev
	}
}

// RenameRole renames a role in the transaction, and with it every record
// that names it: other roles' memberships, and the owner and grantees of
// every sequence, schema and the database, so that the role keeps all it
// had under its new name when the transaction commits (PostgreSQL's
// catalogs name roles by OID; seqd's by name, so a rename rewrites them).
// The role keeps its ID.
func (t *Txn) RenameRole(ctx context.Context, from, to string) error {
	r, ok := t.Role(from)
	if !ok {
		return &Error{Kind: ErrNoRole, Msg: fmt.Sprintf("role \"%s\" does not exist", from)}
	}
	if to == "" || strings.ContainsRune(to, 0) {
		return &Error{Kind: ErrInvalidName, Msg: fmt.Sprintf("invalid role name %q", to)}
	}
	if _, exists := t.Role(to); exists {
		return &Error{Kind: ErrRoleExists, Msg: fmt.Sprintf("role \"%s\" already exists", to)}
	}
	t.touchRole(from)
	t.touchRole(to)
	t.roles[from] = nil
	r.Name = to
	t.roles[to] = &r
	t.renames = append(t.renames, RoleRename{From: from, To: to})
	for _, m := range t.Roles() {
		if memberOf(m.MemberOf, from) {
			m.MemberOf = renamedMembers(m.MemberOf, from, to)
			t.touchRole(m.Name)
			t.roles[m.Name] = &m
		}
	}
	rename := func(a *ACL) error {
		a.RenameRole(from, to)
		return nil
	}
	acls := t.ACLs()
	for _, i := range t.List() {
		if a, ok := acls[i.ID]; ok && a.Names(from) {
			if err := t.UpdateACL(ctx, i.Name, rename); err != nil {
				return err
			}
		}
	}
	for _, sc := range t.Schemas() {
		if a, err := t.SchemaACL(sc); err == nil && a.Names(from) {
			if err := t.UpdateSchemaACL(ctx, sc, rename); err != nil {
				return err
			}
		}
	}
	if t.DatabaseACL().Names(from) {
		return t.UpdateDatabaseACL(ctx, rename)
	}
	return nil
}

// memberOf reports whether ms holds a membership in role.
func memberOf(ms []Membership, role string) bool {
	for _, m := range ms {
		if m.Role == role {
			return true
		}
	}
	return false
}

// renamedMembers is a copy of ms with the role from named to instead.
func renamedMembers(ms []Membership, from, to string) []Membership {
	out := make([]Membership, len(ms))
	for i, m := range ms {
		if m.Role == from {
			m.Role = to
		}
		out[i] = m
	}
	return out
}
