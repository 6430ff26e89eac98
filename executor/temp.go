package executor

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// Temporary sequences (CREATE TEMP SEQUENCE, or a name in pg_temp) live in
// an engine of the session's own over an in-memory store: private to the
// session, never written to the store, gone when the session ends or
// DISCARD TEMP|ALL. Their schema is pg_temp_N, searched first, as
// PostgreSQL searches a session's temporary schema.

// tempSchemas numbers the sessions' temporary schemas.
var tempSchemas atomic.Uint64

// tempNamespace opens the session's temporary schema, at its first use.
func (s *Session) tempNamespace(ctx context.Context) (string, error) {
	if s.tempEng != nil {
		return s.tempSchema, nil
	}
	// As PostgreSQL, TEMPORARY on the database is checked when the
	// session's temporary schema is first needed.
	if !s.isSuperuser(s.cfg.User) && s.cat().DatabaseACL().Privileges(s.cfg.User, false)&engine.PrivTemp == 0 {
		return "", sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied to create temporary tables in database \"%s\"", s.cfg.Database)
	}
	eng, err := engine.OpenTemporary(ctx)
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
	s.cfg.Activity.remove(s.backend)
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
func (s *Session) tempCreationName(ctx context.Context, q pgsql.QName) (engine.Name, error) {
	if q.Schema != "" && q.Schema != "pg_temp" && (s.tempEng == nil || q.Schema != s.tempSchema) {
		return engine.Name{}, sqlerr.Errorf(sqlerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	schema, err := s.tempNamespace(ctx)
	if err != nil {
		return engine.Name{}, err
	}
	return engine.NewName(schema, q.Rel)
}
