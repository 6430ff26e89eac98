package executor

import (
	"time"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// catalogSource is the session as the catalog's views read it
// (catalog.Source).
type catalogSource Session

var _ catalog.Source = (*catalogSource)(nil)

// source is s as the catalog's views read it.
func (s *Session) source() catalog.Source { return (*catalogSource)(s) }

func (c *catalogSource) s() *Session { return (*Session)(c) }

func (c *catalogSource) Database() string                 { return c.cfg.Database }
func (c *catalogSource) User() string                     { return c.cfg.User }
func (c *catalogSource) Superuser() bool                  { return c.s().isSuperuser(c.cfg.User) }
func (c *catalogSource) BootstrapUser() string            { return c.s().bootstrapUser() }
func (c *catalogSource) Roles() []catalog.Role            { return c.s().roleList() }
func (c *catalogSource) StoredRoles() []engine.Role       { return c.s().roles().Roles() }
func (c *catalogSource) RoleName(oid int64) string        { return c.s().roleName(oid) }
func (c *catalogSource) RoleOID(name string) int64        { return c.s().ownerOID(name) }
func (c *catalogSource) DatabaseACL() engine.ACL          { return c.s().cat().DatabaseACL() }
func (c *catalogSource) SchemaOID(name string) uint32     { return c.s().oids().forSchema(name) }
func (c *catalogSource) SchemaACL(name string) eval.Datum { return c.s().schemaACLItems(name) }
func (c *catalogSource) Owner(a engine.ACL) string        { return c.s().ownerName(a) }
func (c *catalogSource) Temporary(n engine.Name) bool     { return c.s().isTemp(n) }
func (c *catalogSource) HasPrivsOfRole(role string) bool  { return c.s().hasPrivsOfRole(role) }
func (c *catalogSource) ServerVersion() string            { return ServerVersion }
func (c *catalogSource) Now() time.Time                   { return time.Now() }
func (c *catalogSource) Location() *time.Location         { return c.s().location() }
func (c *catalogSource) Builtins() *catalog.Builtins      { return c.s().builtins() }
func (c *catalogSource) Cursors() []catalog.Cursor        { return c.s().declaredCursors() }
func (c *catalogSource) Locks() []catalog.Lock            { return c.s().locks() }

// Activity is every session's entry, the reader's own marked Self.
func (c *catalogSource) Activity() []catalog.Backend {
	out := c.cfg.Activity.backends()
	if b := c.s().backend; b != nil {
		for i := range out {
			out[i].Self = out[i].PID == b.pid
		}
	}
	return out
}

// SystemVariables are the front end's (ShowVariables), none without.
func (c *catalogSource) SystemVariables() []catalog.SystemVariable {
	if c.variables == nil {
		return nil
	}
	return c.variables()
}

func (c *catalogSource) IsMemberOf(member, role string) bool { return c.s().isMemberOf(member, role) }

func (c *catalogSource) DatabaseStats() catalog.DatabaseStats {
	return c.cfg.Activity.databaseStats(c.cfg.Database)
}

func (c *catalogSource) PreparedStatements() []catalog.PreparedStatement {
	return c.s().preparedStatements()
}

func (c *catalogSource) SchemaPrivileges(name string) (engine.Privs, error) {
	return c.s().schemaPrivileges(name, c.cfg.User)
}

func (c *catalogSource) SequenceACL(n engine.Name) (engine.ACL, error) {
	return c.s().engFor(n).ACL(n)
}

func (c *catalogSource) SequencePrivileges(n engine.Name) (engine.Privs, error) {
	return c.s().privilegesOn(n)
}

// Schemas are pg_namespace's: the schemas that exist, in OID order.
func (c *catalogSource) Schemas() []catalog.Schema {
	s := c.s()
	var out []catalog.Schema
	for _, n := range s.schemaNames() {
		out = append(out, catalog.Schema{Name: n, OID: s.oids().forSchema(n), Owner: s.schemaOwnerOID(n), ACL: s.schemaACLItems(n)})
	}
	return out
}

// SchemaComments are the durable schemas' descriptions.
func (c *catalogSource) SchemaComments() []catalog.Comment {
	s := c.s()
	var out []catalog.Comment
	for _, n := range s.cat().Schemas() {
		if d := s.schemaCommentNamed(n); !d.IsNull() {
			out = append(out, catalog.Comment{OID: s.oids().forSchema(n), Text: d})
		}
	}
	return out
}

// SequenceComments are the descriptions of the sequences the session
// sees, read from the engines' records of those that have one.
func (c *catalogSource) SequenceComments() ([]catalog.Comment, error) {
	s := c.s()
	commented, err := s.sequencesWhere(func(_ engine.ACL, c string) bool { return c != "" })
	if err != nil {
		return nil, err
	}
	var out []catalog.Comment
	for _, i := range commented {
		if d, err := s.engFor(i.Name).Comment(i.Name); err == nil && d != "" {
			out = append(out, catalog.Comment{OID: i.OID, Text: eval.Text(d)})
		}
	}
	return out, nil
}

func (c *catalogSource) SequenceComment(n engine.Name) string {
	d, _ := c.s().engFor(n).Comment(n)
	return d
}

// SequenceACLs are the sequences the session sees whose ACL is not their
// default, or explicit (a GRANT or REVOKE was made), read from the
// engines' records without describing the others.
func (c *catalogSource) SequenceACLs() ([]catalog.SequenceACL, error) {
	s := c.s()
	boot := s.bootstrapUser()
	seqs, err := s.sequencesWhere(func(a engine.ACL, _ string) bool {
		return a.Owner != "" && a.Owner != boot || len(a.Grants) > 0 || a.OwnerRevoked != 0 || a.Explicit
	})
	if err != nil {
		return nil, err
	}
	out := make([]catalog.SequenceACL, 0, len(seqs))
	for _, i := range seqs {
		a, err := s.engFor(i.Name).ACL(i.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, catalog.SequenceACL{Sequence: i, ACL: a})
	}
	return out, nil
}

// SchemaACLs are the durable schemas' owners and ACLs.
func (c *catalogSource) SchemaACLs() ([]catalog.SchemaACL, error) {
	s := c.s()
	var out []catalog.SchemaACL
	for _, n := range s.cat().Schemas() {
		a, err := s.cat().SchemaACL(n)
		if err != nil {
			return nil, err
		}
		out = append(out, catalog.SchemaACL{Name: n, OID: s.oids().forSchema(n), Owner: s.schemaOwnerOID(n), ACL: a})
	}
	return out, nil
}

// Settings are pg_settings': each setting's value and reset value, in
// PostgreSQL's base unit for its parameters.
func (c *catalogSource) Settings() []catalog.Setting {
	s := c.s()
	var out []catalog.Setting
	for _, name := range s.settings.names() {
		d := settingDefs[name]
		reset := d.value
		if v, ok := s.settings.defaults[name]; ok {
			reset = v
		}
		st := catalog.Setting{Name: settingDisplay(name), Value: first(s.settingValue(name)), Reset: reset, Boot: d.value, Desc: d.desc, Fixed: d.fixed}
		if p := pgSettingByName[name]; p != nil {
			st.Value, st.Reset = p.baseUnits(st.Value), p.baseUnits(reset)
			st.PG = &catalog.PGSetting{Unit: p.unit, Context: p.context, Vartype: p.vartype, Min: p.min, Max: p.max, Boot: p.boot, Enumvals: p.enumvals}
		}
		out = append(out, st)
	}
	return out
}
