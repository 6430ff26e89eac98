package sql

import "github.com/seqd/seqd/alloc"

// Stmt is one parsed statement.
type Stmt interface{ stmt() }

// QName is a possibly schema-qualified name; Schema is empty when the
// statement did not name one.
type QName struct{ Schema, Rel string }

// ValueKind says what a Value holds.
type ValueKind int

const (
	VInt   ValueKind = iota
	VStr             // a string literal: a sequence name for nextval('s')
	VBool            // true/false
	VNull            // NULL
	VParam           // $n
	VName            // an identifier naming a sequence (MariaDB spellings)
)

// Value is a function argument or literal.
type Value struct {
	Kind  ValueKind
	Int   int64
	Str   string
	Bool  bool
	Param int   // 1-based, for VParam
	Name  QName // for VName
	Pos   int   // 1-based character position, for messages
}

// CreateSequence is CREATE SEQUENCE.
type CreateSequence struct {
	Name        QName
	IfNotExists bool
	Spec        alloc.Spec
}

// AlterSequence is ALTER SEQUENCE.
type AlterSequence struct {
	Name     QName
	IfExists bool
	Spec     alloc.Spec
}

// DropSequence is DROP SEQUENCE.
type DropSequence struct {
	Names    []QName
	IfExists bool
}

// Call is a sequence function: nextval, currval, lastval, setval or
// seqd_reserve.
type Call struct {
	Func   string
	Args   []Value
	Column string // the result column's name
}

// SelectCall is SELECT f(...) [FROM generate_series(from, to)].
type SelectCall struct {
	Call   Call
	Series *Series
}

// Series is generate_series(From, To).
type Series struct{ From, To Value }

// SelectSequence is SELECT cols FROM seq: PostgreSQL's view of a sequence
// relation (last_value, log_cnt, is_called). Columns nil means *.
type SelectSequence struct {
	Name    QName
	Columns []string
}

// SelectPgSequences is SELECT * FROM pg_sequences (or pg_catalog.pg_sequences).
type SelectPgSequences struct{ Columns []string }

// SelectLiteral is SELECT <literal> [AS col], as drivers send to ping.
type SelectLiteral struct {
	Value  Value
	Column string
}

// Set is SET/RESET/DISCARD/DEALLOCATE: accepted and ignored.
type Set struct{ Tag string }

// Show is SHOW name.
type Show struct{ Name string }

// Transaction is BEGIN/COMMIT/ROLLBACK; Tag is the command tag to answer.
type Transaction struct{ Tag string }

func (*CreateSequence) stmt()    {}
func (*AlterSequence) stmt()     {}
func (*DropSequence) stmt()      {}
func (*SelectCall) stmt()        {}
func (*SelectSequence) stmt()    {}
func (*SelectPgSequences) stmt() {}
func (*SelectLiteral) stmt()     {}
func (*Set) stmt()               {}
func (*Show) stmt()              {}
func (*Transaction) stmt()       {}
