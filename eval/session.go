package eval

import (
	"time"

	"github.com/seqd/seqd/pgsql"
)

// Session is what the evaluator asks of the session it runs for; it
// knows nothing else of it. Functions and relations that need more (the
// sequence functions, the catalog, the privilege inquiry functions) are
// registered by the session's package, which knows its own sessions.
type Session interface {
	// CurrentUser, SessionUser and Database are CURRENT_USER,
	// SESSION_USER and CURRENT_CATALOG.
	CurrentUser() string
	SessionUser() string
	Database() string
	// CurrentSchema is current_schema(): the first schema of the search
	// path that exists, NULL if none does.
	CurrentSchema() Datum
	// Relation resolves a relation name (a catalog relation or a
	// sequence) along the search path, with the privilege checks a
	// lookup takes; its error is the one PostgreSQL gives.
	Relation(q pgsql.QName) (*Relation, error)
	// RegclassIn and RegclassOut are regclass's input and output
	// functions: a relation's name to its OID, and back.
	RegclassIn(text string) (Datum, error)
	RegclassOut(oid uint32) Datum
	// RegIn and RegOut are the input and output functions of the other
	// OID alias types the session resolves (regnamespace, regrole,
	// regproc, regprocedure): a name to its OID, and back.
	RegIn(typ uint32, text string) (Datum, error)
	RegOut(typ, oid uint32) Datum
	// StatementMemory is how many bytes a statement may keep (0: no
	// bound); MaxRows the most rows one generate_series may produce.
	StatementMemory() int64
	// KeptMemory is what the session keeps for results that outlive
	// their statement, which counts against StatementMemory too (nil:
	// none).
	KeptMemory() *Kept
	MaxRows() int64
	// Queried tells the session a query ran in its transaction.
	Queried()
	// Location is the session's TimeZone, which timestamps are read and
	// shown in.
	Location() *time.Location
}

// Relation is a relation a FROM item names: a virtual relation of the
// catalog, or a sequence.
type Relation struct {
	OID          uint32
	Schema, Name string
	Cols         []RelColumn
	// Rows reads the relation's rows for the session it was resolved
	// for.
	Rows func() ([][]Datum, error)
	// Stream, set instead of Rows, reads the rows as they are made: a
	// scan keeps one row at a time, not the relation.
	Stream func() (Rows, error)
	// Lookup, when set, reads the rows whose column col equals v, or at
	// least every such row (the query filters what it returns); ok false
	// means it cannot look up by that column or value, and Rows is read.
	Lookup func(col int, v Datum) (rows [][]Datum, ok bool, err error)
	// LookupPrefix, when set, reads at least the rows whose column col
	// (text) begins with prefix, as Lookup.
	LookupPrefix func(col int, prefix string) (rows [][]Datum, ok bool, err error)
}
