// Package executor runs parsed statements for a session: it compiles
// PostgreSQL parse trees into plans (sequence DDL and functions, the
// catalog drivers and tools read, roles and privileges, and the session
// commands pools send), and returns typed columns, streamed rows, notices
// and errors that carry a protocol-neutral kind. Queries and expressions
// it hands to package eval, the evaluator, into which it registers what
// only a session knows (the sequence functions, the catalog, the privilege
// inquiry functions; sessionfuncs.go, seqfuncs.go, evalview.go). It knows
// nothing of any wire protocol: pgwire, and later other front ends, sit on
// top of it.
//
// Statements come from package pgsql (PostgreSQL's grammar); values come
// from package engine. A Session belongs to one connection and is not
// safe for concurrent use; everything it shares (the engine, the catalog's
// OID registry) is.
package executor
