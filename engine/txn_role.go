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
