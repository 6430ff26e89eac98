package executor

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/seqd/seqd/alloc"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sql"
)

// Temporary sequences (CREATE TEMP SEQUENCE, or a name in pg_temp) live in
// an engine of the session's own over an in-memory store: private to the
// session, never written to the store, gone when the session ends or
// DISCARD TEMP|ALL. Their schema is pg_temp_N, searched first, as
// PostgreSQL searches a session's temporary schema.

// tempSchemas numbers the sessions' temporary schemas.
var tempSchemas atomic.Uint64

// catalog is what a session reads and changes of an engine: the engine
// itself (each change durable when acknowledged) or, in a transaction
// block that changed something, the block's transaction over it.
type catalog interface {
	Info(engine.Name) (engine.Info, error)
	List() []engine.Info
	SchemaExists(string) bool
	Schemas() []string
	SchemaSequences(string) []engine.Name
	ACL(engine.Name) (engine.ACL, error)
	ACLs() map[uint64]engine.ACL
	Privileges(n engine.Name, role string, superuser bool) (engine.Privs, error)
	Comment(engine.Name) (string, error)
	CatalogVersion() uint64
	AuthVersion() uint64
	Nextval(context.Context, engine.Name) (uint64, int64, error)
	Setval(ctx context.Context, n engine.Name, v int64, called bool) (uint64, error)
	Reserve(ctx context.Context, n engine.Name, count int64) (uint64, alloc.Range, error)
	ReserveUpTo(ctx context.Context, n engine.Name, count int64) (uint64, alloc.Range, error)
	Release(n engine.Name, first, last int64) (int64, error)
	CreateWith(ctx context.Context, n engine.Name, spec alloc.Spec, co engine.CreateOptions) (bool, error)
	Alter(ctx context.Context, n engine.Name, spec alloc.Spec) error
	SetLogged(ctx context.Context, n engine.Name, logged bool) error
	Drop(context.Context, engine.Name) error
	Rename(ctx context.Context, from, to engine.Name) error
	SetComment(ctx context.Context, n engine.Name, text string) error
	UpdateACL(ctx context.Context, n engine.Name, f func(*engine.ACL) error) error
	CreateSchema(ctx context.Context, name, owner string, ifNotExists bool) (bool, error)
	DropSchema(ctx context.Context, name string, cascade bool) ([]engine.Name, error)
	SchemaACL(name string) (engine.ACL, error)
	UpdateSchemaACL(ctx context.Context, name string, f func(*engine.ACL) error) error
	DatabaseACL() engine.ACL
	UpdateDatabaseACL(ctx context.Context, f func(*engine.ACL) error) error
}

var (
	_ catalog = (*engine.Engine)(nil)
	_ catalog = (*engine.Txn)(nil)
)

// baseFor is the engine holding a sequence: the session's temporary one
// for its temporary schema, the server's for every other.
func (s *Session) baseFor(n engine.Name) *engine.Engine {
	if s.tempEng != nil && n.Schema() == s.tempSchema {
		return s.tempEng
	}
	return s.eng
}

// engFor is the catalog a sequence is read and served through: its
// engine, or the block's transaction on it.
func (s *Session) engFor(n engine.Name) catalog {
	if s.tempEng != nil && n.Schema() == s.tempSchema {
		if s.tempTxn != nil {
			return s.tempTxn
		}
		return s.tempEng
	}
	return s.cat()
}

// cat is the server's catalog as the session sees it.
func (s *Session) cat() catalog {
	if s.txn != nil {
		return s.txn
	}
	return s.eng
}

// ddlFor is the catalog DDL on a sequence goes through: in a transaction
// block or a Query's implicit transaction, the transaction begun at its
// first DDL, so that ROLLBACK or an error undoes it; outside, the
// engine.
func (s *Session) ddlFor(n engine.Name) catalog {
	if !s.inBlock() {
		return s.baseFor(n)
	}
	s.ddlChanged()
	if s.tempEng != nil && n.Schema() == s.tempSchema {
		if s.tempTxn == nil {
			s.tempTxn = s.tempEng.Begin()
		}
		return s.tempTxn
	}
	return s.ddlCat()
}

// ddlCat is ddlFor for the server's schemas.
func (s *Session) ddlCat() catalog {
	if !s.inBlock() {
		return s.eng
	}
	s.ddlChanged()
	if s.txn == nil {
		s.txn = s.eng.Begin()
	}
	return s.txn
}

// ddlChanged notes that the block's DDL may change what names mean and
// who may do what: cached plans and privileges are looked at again.
func (s *Session) ddlChanged() {
	s.pathVersion++
	s.privCache = privCache{}
}

// isTemp reports whether a name is in the session's temporary schema.
func (s *Session) isTemp(n engine.Name) bool {
	return s.tempEng != nil && n.Schema() == s.tempSchema
}

// tempNamespace opens the session's temporary schema, at its first use.
func (s *Session) tempNamespace(ctx context.Context) (string, error) {
	if s.tempEng != nil {
		return s.tempSchema, nil
	}
	// As PostgreSQL, TEMPORARY on the database is checked when the
	// session's temporary schema is first needed.
	if !s.isSuperuser(s.cfg.User) && s.cat().DatabaseACL().Privileges(s.cfg.User, false)&engine.PrivTemp == 0 {
		return "", sql.Errorf(sql.InsufficientPrivilege, "permission denied to create temporary tables in database \"%s\"", s.cfg.Database)
	}
	eng, err := engine.OpenMemory(ctx)
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("pg_temp_%d", tempSchemas.Add(1))
	if _, err := eng.CreateSchema(ctx, name, s.cfg.User, false); err != nil {
		eng.Close()
		return "", err
	}
	s.tempEng, s.tempSchema = eng, name
	s.pathVersion++
	return name, nil
}

// dropTemp drops every temporary sequence (DISCARD TEMP, DISCARD ALL, the
// end of the session).
func (s *Session) dropTemp() {
	if s.tempEng == nil {
		return
	}
	if s.tempTxn != nil {
		s.tempTxn.Rollback()
		s.tempTxn = nil
	}
	s.oids().forget(s.tempEng, 0)
	s.tempEng.Close()
	s.tempEng, s.tempSchema = nil, ""
	s.pathVersion++
}

// Close ends the session: its temporary sequences go.
func (s *Session) Close() {
	if s.txn != nil {
		s.txn.Rollback() // a block never committed
		s.txn = nil
	}
	s.dropTemp()
}

// tempName resolves pg_temp and pg_temp_N to the session's temporary
// schema; ok is false for other schemas.
func (s *Session) tempName(schema string) (string, bool) {
	if schema == "pg_temp" || s.tempEng != nil && schema == s.tempSchema {
		return s.tempSchema, true
	}
	return "", false
}

// memoryID is the key currval and lastval use for a sequence: the engine's
// ID, with the top bit set for the temporary engine, whose IDs could
// repeat the server's.
func (s *Session) memoryID(n engine.Name, id uint64) uint64 {
	if s.isTemp(n) {
		return id | 1<<63
	}
	return id
}

// tempCreationName is where CREATE TEMP puts a sequence: the temporary
// schema, which a schema-qualified name must name.
func (s *Session) tempCreationName(ctx context.Context, q sql.QName) (engine.Name, error) {
	if q.Schema != "" && q.Schema != "pg_temp" && (s.tempEng == nil || q.Schema != s.tempSchema) {
		return engine.Name{}, sql.Errorf(sql.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	schema, err := s.tempNamespace(ctx)
	if err != nil {
		return engine.Name{}, err
	}
	return engine.NewName(schema, q.Rel)
}
