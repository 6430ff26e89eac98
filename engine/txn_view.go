// What a transaction sees: its own changes over the committed catalog.

package engine

import "sort"

// schemaExists is whether the schema exists as the transaction sees it.
func (t *Txn) schemaExists(name string) bool {
	if v, ok := t.schemas[name]; ok {
		return v
	}
	return t.e.SchemaExists(name)
}

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
		info = t.e.withNode(s.infoLocked())
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

// SchemaComment is the schema's comment as the transaction sees it; ok
// is false when none was ever set.
func (t *Txn) SchemaComment(name string) (comment string, ok bool, err error) {
	if !t.schemaExists(name) {
		return "", false, noSchema(name)
	}
	if c, set := t.schemaComments[name]; set {
		if c == nil {
			return "", false, nil
		}
		return *c, true, nil
	}
	return t.e.SchemaComment(name)
}

// schemaComment is the comment its commit writes with the schema's
// record: the transaction's, else the committed one.
func (t *Txn) schemaComment(name string) *string {
	if c, set := t.schemaComments[name]; set {
		return c
	}
	if sc := t.e.schemas[name]; sc != nil {
		return sc.comment
	}
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
