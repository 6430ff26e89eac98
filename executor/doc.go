// Package executor runs parsed statements for a session: it compiles
// PostgreSQL parse trees into plans (sequence DDL and functions, a small
// query evaluator over virtual relations and set-returning functions, the
// catalog drivers and tools read, and the session commands pools send),
// and returns typed columns, streamed rows, notices and errors that carry
// a protocol-neutral kind. It knows nothing of any wire protocol: pgwire,
// and later other front ends, sit on top of it.
//
// Statements come from package sql (PostgreSQL's grammar); values come
// from package engine. A Session belongs to one connection and is not
// safe for concurrent use; everything it shares (the engine, the catalog's
// OID registry) is.
package executor
