package catalog

import (
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// Source is what the views read of a session: the roles, schemas,
// settings and sequences it sees, as its current role sees them. The
// executor's session implements it; a Source is used by one goroutine at
// a time, as a session is.
type Source interface {
	// Database is the database's name; User the current role (SET
	// ROLE's), whose privileges filter the views; Superuser whether it is
	// a superuser.
	Database() string
	User() string
	Superuser() bool

	// HasPrivsOfRole reports whether the current role holds role's
	// privileges: it is role, a member of it, or a superuser.
	HasPrivsOfRole(role string) bool
	// ServerVersion is the version seqd reports ("15.0 (seqd)"); Now is
	// the time now, as pg_timezone_names reads its zones' offsets.
	ServerVersion() string
	Now() time.Time

	// BootstrapUser is the bootstrap superuser's name (OID 10).
	BootstrapUser() string
	// Roles are the roles as pg_roles lists them: the bootstrap
	// superuser first, with OID 10.
	Roles() []Role
	// StoredRoles are the roles as stored, with their memberships.
	StoredRoles() []engine.Role
	// RoleName is the name of the role with an OID, "unknown (OID=n)" for
	// none; RoleOID the OID of a role (or owner) by name.
	RoleName(oid int64) string
	RoleOID(name string) int64
	// DatabaseACL is the database's ACL.
	DatabaseACL() engine.ACL

	// Schemas are the schemas that exist, in OID order.
	Schemas() []Schema
	// SchemaPrivileges are what the current role holds on a schema.
	SchemaPrivileges(name string) (engine.Privs, error)
	// SchemaOID is a schema's OID; SchemaACL its nspacl.
	SchemaOID(name string) uint32
	SchemaACL(name string) eval.Datum
	// SchemaComments are the durable schemas' descriptions (COMMENT ON
	// SCHEMA, public's default), in their catalog's order.
	SchemaComments() []Comment

	// SequenceACL is a sequence's ACL; Owner names an ACL's owner.
	SequenceACL(n engine.Name) (engine.ACL, error)
	Owner(a engine.ACL) string
	// SequencePrivileges are what the current role holds on a sequence.
	SequencePrivileges(n engine.Name) (engine.Privs, error)
	// Temporary reports whether a sequence is the session's temporary one.
	Temporary(n engine.Name) bool
	// SequenceComments are the sequences' descriptions (COMMENT ON
	// SEQUENCE), those that have one.
	SequenceComments() ([]Comment, error)

	// Settings are the session's settings, as pg_settings lists them.
	Settings() []Setting
	// TypeRows are pg_type's rows; TokenRows seqd_tokens'.
	TypeRows() [][]eval.Datum
	TokenRows() [][]eval.Datum
}

// Role is a role as pg_roles shows it, with its OID.
type Role struct {
	engine.Role
	OID uint32
}

// Bootstrap reports whether r is the bootstrap superuser (OID 10), which
// has every attribute, as initdb's; seqd has no CREATEDB, REPLICATION or
// BYPASSRLS to give any other role.
func (r Role) Bootstrap() bool { return r.OID == SuperuserOID && r.Superuser && r.CreateRole }

// Schema is a schema as pg_namespace shows it.
type Schema struct {
	Name  string
	OID   uint32
	Owner int64      // the owner's OID
	ACL   eval.Datum // nspacl
}

// Comment is an object's description, by its OID.
type Comment struct {
	OID  uint32
	Text eval.Datum
}

// Sequence is a sequence with its catalog identity: its OID and its
// schema's.
type Sequence struct {
	engine.Info
	OID, Namespace uint32
}

// Setting is a setting as pg_settings shows it: Name as SHOW names it,
// Value and Reset its current and reset values, Desc seqd's account of
// it, Fixed for one no session may change; PG, for a parameter of
// PostgreSQL's, PostgreSQL's account of it (its numbers in its base unit).
type Setting struct {
	Name, Value, Reset, Boot, Desc string
	Fixed                          bool
	PG                             *PGSetting
}

// PGSetting is PostgreSQL's account of a parameter: its unit, context,
// type, bounds, enumerated values and boot value, "" (nil) for none.
type PGSetting struct {
	Unit, Context, Vartype, Min, Max, Boot string
	Enumvals                               []string
}
