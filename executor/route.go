package executor

import (
	"context"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/seqmath"
)

// seqCatalog is what a session reads and changes of an engine: the
// engine itself (each change durable when acknowledged) or, in a
// transaction block that changed something, the block's transaction over
// it. Both implement it; route chooses.
type seqCatalog interface {
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
	SetvalAhead(ctx context.Context, n engine.Name, v int64, called bool) (uint64, bool, error)
	Reserve(ctx context.Context, n engine.Name, count int64) (uint64, seqmath.Range, error)
	ReserveUpTo(ctx context.Context, n engine.Name, count int64) (uint64, seqmath.Range, error)
	Release(n engine.Name, first, last int64) (int64, error)
	CreateWith(ctx context.Context, n engine.Name, spec seqmath.Spec, co engine.CreateOptions) (bool, error)
	Alter(ctx context.Context, n engine.Name, spec seqmath.Spec) error
	SetLogged(ctx context.Context, n engine.Name, logged bool) error
	Drop(context.Context, engine.Name) error
	Rename(ctx context.Context, from, to engine.Name) error
	SetComment(ctx context.Context, n engine.Name, text string) error
	UpdateACL(ctx context.Context, n engine.Name, f func(*engine.ACL) error) error
	CreateSchema(ctx context.Context, name, owner string, ifNotExists bool) (bool, error)
	DropSchema(ctx context.Context, name string, cascade bool) ([]engine.Name, error)
	SchemaACL(name string) (engine.ACL, error)
	UpdateSchemaACL(ctx context.Context, name string, f func(*engine.ACL) error) error
	SchemaComment(name string) (comment string, ok bool, err error)
	SetSchemaComment(ctx context.Context, name, text string) error
	DatabaseACL() engine.ACL
	UpdateDatabaseACL(ctx context.Context, f func(*engine.ACL) error) error
}

var (
	_ seqCatalog = (*engine.Engine)(nil)
	_ seqCatalog = (*engine.Txn)(nil)
)

// route is the one place a session chooses what a sequence, or the
// catalog of the server's schemas, goes through: temp picks the session's
// temporary engine over the server's; ddl, inside a transaction block or
// a Query's implicit transaction, the block's transaction on it (begun
// now, so that ROLLBACK or an error undoes the DDL; cached plans and
// privileges are looked at again); otherwise reads go through the block's
// transaction once it has one, and DDL outside blocks to the engine.
func (s *Session) route(temp, ddl bool) seqCatalog {
	eng, txn := s.eng, &s.txn
	if temp {
		eng, txn = s.tempEng, &s.tempTxn
	}
	if ddl {
		if !s.inBlock() {
			return eng
		}
		s.ddlChanged()
		if *txn == nil {
			*txn = eng.BeginOwned(uint32(s.backendPID()))
		}
	}
	if *txn != nil {
		return *txn
	}
	return eng
}

// baseFor is the engine holding a sequence: the session's temporary one
// for its temporary schema, the server's for every other.
func (s *Session) baseFor(n engine.Name) *engine.Engine {
	if s.isTemp(n) {
		return s.tempEng
	}
	return s.eng
}

// engFor is the catalog a sequence is read and served through.
func (s *Session) engFor(n engine.Name) seqCatalog { return s.route(s.isTemp(n), false) }

// cat is the server's catalog as the session sees it.
func (s *Session) cat() seqCatalog { return s.route(false, false) }

// ddlFor is the catalog DDL on a sequence goes through.
func (s *Session) ddlFor(n engine.Name) seqCatalog { return s.route(s.isTemp(n), true) }

// ddlCat is ddlFor for the server's schemas.
func (s *Session) ddlCat() seqCatalog { return s.route(false, true) }

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
