package catalog

import (
	"crypto/tls"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// Source is what the views read of a session, as its current role sees
// it: facts (roles, grants, schemas, settings, sequences, sessions,
// locks, statements, cursors, built-in functions), never rows, which the
// views make. The executor's session implements it; a Source is used by
// one goroutine at a time, as a session is.
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
	// SequenceComment is one sequence's description, "" for none.
	SequenceComment(n engine.Name) string

	// SequenceACLs are the sequences the session sees whose ACL is not
	// their default: owned by another role than the bootstrap superuser,
	// or granting a privilege; with their ACLs.
	SequenceACLs() ([]SequenceACL, error)
	// SchemaACLs are the durable schemas (not the catalog's or a
	// temporary one) with their owners' OIDs and their ACLs.
	SchemaACLs() ([]SchemaACL, error)
	// IsMemberOf reports whether role member holds role's privileges
	// (it is role, a member of it, or a superuser), as grants'
	// is_grantable reads it.
	IsMemberOf(member, role string) bool

	// Settings are the session's settings, as pg_settings lists them;
	// Location is its TimeZone, in which timestamps are shown.
	Settings() []Setting
	Location() *time.Location

	// SystemVariables are the system variables of the session's front
	// end (MySQL's @@variables), the session's own values, in the order
	// SHOW VARIABLES lists them; none for a front end without them.
	SystemVariables() []SystemVariable

	// Activity is every session of the server, the reading one included,
	// as pg_stat_activity shows them; DatabaseStats the counters of
	// pg_stat_database.
	Activity() []Backend
	DatabaseStats() DatabaseStats
	// PreparedStatements and Cursors are the session's own (named
	// prepared statements, DECLAREd cursors).
	PreparedStatements() []PreparedStatement
	Cursors() []Cursor
	// Locks are the locks transactions hold and those sessions wait for.
	Locks() []Lock

	// Builtins are the built-in functions, operators and casts the
	// evaluator has (NewBuiltins), made once and shared.
	Builtins() *Builtins
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

// SequenceACL is a sequence with its ACL.
type SequenceACL struct {
	Sequence
	ACL engine.ACL
}

// SchemaACL is a durable schema's identity, owner and ACL.
type SchemaACL struct {
	Name  string
	OID   uint32
	Owner int64 // the owner's OID
	ACL   engine.ACL
}

// Backend is a session as pg_stat_activity shows it. Addr is
// client_addr ("" when unknown), Port client_port (-1 for a Unix
// socket). Active: it runs a statement (Query, since QueryStart);
// else it waits for its client, in transaction status Status ('I',
// 'T' or 'E'). Disabled: track_activities is off. WaitEvent is the lock
// it waits for, "" for none. Zero times are NULL. Schema is the MySQL
// database the session uses ("" for none, and for a front end with no
// such notion); Execute, that the statement it runs is one its client
// prepared (MySQL's COM_STMT_EXECUTE); Self marks the reading session's
// own entry.
type Backend struct {
	PID                                   uint32
	User, Database, Application           string
	Schema                                string
	Self                                  bool
	Addr                                  string
	Port                                  int
	TLS                                   *tls.ConnectionState
	Active, Disabled, Execute             bool
	Status                                byte
	Query, WaitEvent                      string
	Start, XactStart, QueryStart, Changed time.Time
}

// DatabaseStats are pg_stat_database's counters of the database, over
// every front end's sessions since Since: Backends connected to it now,
// transactions ended, deadlocks, sessions begun, and the milliseconds
// sessions lasted, ran statements and were idle in a transaction.
type DatabaseStats struct {
	Backends, Commits, Rollbacks, Deadlocks, Sessions int64
	SessionTime, ActiveTime, IdleInTransactionTime    float64
	Since                                             time.Time
}

// PreparedStatement is a named prepared statement: the text that
// prepared it, when, its parameters' types, whether PREPARE made it
// (else the protocol's Parse) and how many times it ran.
type PreparedStatement struct {
	Name, Text string
	Prepared   time.Time
	ParamTypes []*eval.Type
	FromSQL    bool
	Runs       int64
}

// Cursor is a DECLAREd cursor: its DECLARE, WITH HOLD, BINARY, and
// when it was declared.
type Cursor struct {
	Name, Text   string
	Hold, Binary bool
	Declared     time.Time
}

// Lock is a lock held or waited for: Relation is the OID of its
// sequence (a relation lock), 0 for a lock on a transaction.
type Lock struct {
	engine.LockInfo
	Relation uint32
}
