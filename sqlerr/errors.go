// Package sqlerr names every SQL-level failure with a protocol-neutral
// Kind, PostgreSQL's condition name, and carries PostgreSQL's message,
// detail, hint and position. The layers below the front ends return these;
// each front end maps a Kind to its protocol's codes in one table.
package sqlerr

import "fmt"

// Kind classifies a failure in protocol-neutral terms: PostgreSQL's
// condition names (Appendix A of its manual). A front end maps each Kind to
// its own codes; pgwire maps them to SQLSTATEs in one table.
type Kind string

// The kinds seqd reports.
const (
	SyntaxError                   Kind = "syntax_error"
	FeatureNotSupported           Kind = "feature_not_supported"
	UndefinedTable                Kind = "undefined_table"
	UndefinedColumn               Kind = "undefined_column"
	UndefinedFunction             Kind = "undefined_function"
	UndefinedObject               Kind = "undefined_object"
	UndefinedParameter            Kind = "undefined_parameter"
	UndefinedSchema               Kind = "invalid_schema_name"
	DuplicateTable                Kind = "duplicate_table"
	DuplicatePreparedStatement    Kind = "duplicate_prepared_statement"
	DuplicateCursor               Kind = "duplicate_cursor"
	InvalidName                   Kind = "invalid_name"
	InvalidParameterValue         Kind = "invalid_parameter_value"
	NumericValueOutOfRange        Kind = "numeric_value_out_of_range"
	DivisionByZero                Kind = "division_by_zero"
	InvalidTextRepresentation     Kind = "invalid_text_representation"
	InvalidDatetimeFormat         Kind = "invalid_datetime_format"
	DatetimeFieldOverflow         Kind = "datetime_field_overflow"
	InvalidBinaryRepresentation   Kind = "invalid_binary_representation"
	CharacterNotInRepertoire      Kind = "character_not_in_repertoire"
	DatatypeMismatch              Kind = "datatype_mismatch"
	CannotCoerce                  Kind = "cannot_coerce"
	IndeterminateDatatype         Kind = "indeterminate_datatype"
	AmbiguousColumn               Kind = "ambiguous_column"
	AmbiguousFunction             Kind = "ambiguous_function"
	InvalidColumnReference        Kind = "invalid_column_reference"
	DuplicateAlias                Kind = "duplicate_alias"
	GroupingError                 Kind = "grouping_error"
	InvalidRegularExpression      Kind = "invalid_regular_expression"
	InvalidRowCountInLimit        Kind = "invalid_row_count_in_limit_clause"
	InvalidRowCountInOffset       Kind = "invalid_row_count_in_result_offset_clause"
	CardinalityViolation          Kind = "cardinality_violation"
	ObjectNotInPrerequisiteState  Kind = "object_not_in_prerequisite_state"
	InFailedTransaction           Kind = "in_failed_sql_transaction"
	NoActiveTransaction           Kind = "no_active_sql_transaction"
	ActiveTransaction             Kind = "active_sql_transaction"
	InvalidTransactionState       Kind = "invalid_transaction_state"
	InvalidCursorName             Kind = "invalid_cursor_name"
	InvalidStatementName          Kind = "invalid_sql_statement_name"
	InvalidSavepoint              Kind = "invalid_savepoint_specification"
	ProgramLimitExceeded          Kind = "program_limit_exceeded"
	StatementTooComplex           Kind = "statement_too_complex"
	ProtocolViolation             Kind = "protocol_violation"
	InvalidCursorState            Kind = "invalid_cursor_state"
	CantChangeRuntimeParam        Kind = "cant_change_runtime_param"
	InvalidTransactionTermination Kind = "invalid_transaction_termination"
	SubstringError                Kind = "substring_error"
	DuplicateSchema               Kind = "duplicate_schema"
	InvalidTableDefinition        Kind = "invalid_table_definition"
	DependentObjectsStillExist    Kind = "dependent_objects_still_exist"
	ReservedName                  Kind = "reserved_name"
	ReadOnlyTransaction           Kind = "read_only_sql_transaction"
	NameTooLong                   Kind = "name_too_long"
	InvalidPassword               Kind = "invalid_password"
	InvalidAuthorization          Kind = "invalid_authorization_specification"
	ObjectInUse                   Kind = "object_in_use"
	TooManyConnections            Kind = "too_many_connections"
	OutOfMemory                   Kind = "out_of_memory"
	IdleSessionTimeout            Kind = "idle_session_timeout"
	IdleInTransactionTimeout      Kind = "idle_in_transaction_session_timeout"
	LockNotAvailable              Kind = "lock_not_available"
	AdminShutdown                 Kind = "admin_shutdown"
	QueryCanceled                 Kind = "query_canceled"
	DeadlockDetected              Kind = "deadlock_detected"
	SerializationFailure          Kind = "serialization_failure"
	IOError                       Kind = "io_error"
	DiskFull                      Kind = "disk_full"
	SequenceLimitExceeded         Kind = "sequence_generator_limit_exceeded"
	InternalError                 Kind = "internal_error"
	Warning                       Kind = "warning"
	SuccessfulCompletion          Kind = "successful_completion"
	DuplicateObject               Kind = "duplicate_object"
	InsufficientPrivilege         Kind = "insufficient_privilege"
	InvalidGrantOperation         Kind = "invalid_grant_operation"
	WrongObjectType               Kind = "wrong_object_type"
	WarningPrivilegeNotGranted    Kind = "privilege_not_granted"
	WarningPrivilegeNotRevoked    Kind = "privilege_not_revoked"
	UndefinedDatabase             Kind = "invalid_catalog_name"
	CrashShutdown                 Kind = "crash_shutdown"
	CannotConnectNow              Kind = "cannot_connect_now"
)

// Error is a failure in PostgreSQL's terms: a Kind, PostgreSQL's message,
// and where in the query it lies.
type Error struct {
	Kind   Kind
	Msg    string
	Detail string
	Hint   string
	// Pos is the 1-based character position in the query string, 0 if
	// none.
	Pos int
	// Column is, for a column reference that names no column or more
	// than one (UndefinedColumn, AmbiguousColumn, and UndefinedTable
	// where its qualifier names no FROM item), the reference as written,
	// qualified as it was ("s.nope"), or the position written in GROUP
	// BY or ORDER BY ("2", InvalidColumnReference), or for GroupingError
	// the column read outside GROUP BY and aggregates (or the select
	// list's name GROUP BY gives, of an aggregate); Clause is the clause
	// it stands in. Front ends whose words name them (MySQL's) read
	// these, never the message.
	Column string
	Clause Clause
	// Function is, for UndefinedFunction where no function of a call's
	// name is there, or none that takes as many arguments as the call
	// gives (WrongArgCount), that name; "" where one of that many
	// arguments is there but their types fit none.
	Function      string
	WrongArgCount bool
	// Alias is, for DuplicateAlias, the name two FROM items take; for
	// UndefinedTable of a column reference (Column) in a query that
	// reads no table, nor stands in one that does, its qualifier.
	Alias string
	// ColumnsWanted is, for a subquery whose place takes a value of so
	// many columns (an expression's operand: 1), that number where it
	// gives another.
	ColumnsWanted int
	// Table is, for UndefinedTable of a t.* whose t the FROM clause has
	// not, t as written (qualified as it was); for FeatureNotSupported of
	// a set operation's ORDER BY naming a column t.c, t.
	Table string
	// SetOperation is, for a set operation whose sides give different
	// numbers of columns, the operation (UNION, INTERSECT, EXCEPT).
	SetOperation string
	// Range is, for NumericValueOutOfRange of MariaDB's arithmetic
	// (eval's seqd_mariadb_arith), the type whose range the result
	// passed (BIGINT, BIGINT UNSIGNED, DOUBLE), and Expression the
	// expression as MariaDB prints it.
	Range, Expression string
}

// Clause is the part of a query a column reference stands in.
type Clause string

// The clauses a column reference stands in.
const (
	ClauseSelectList Clause = "select list"
	ClauseFrom       Clause = "FROM" // JOIN ... USING
	ClauseOn         Clause = "ON"
	ClauseWhere      Clause = "WHERE"
	ClauseGroupBy    Clause = "GROUP BY"
	ClauseHaving     Clause = "HAVING"
	ClauseOrderBy    Clause = "ORDER BY"
)

func (e *Error) Error() string { return e.Msg }

// Errorf makes an Error with no position.
func Errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// At returns e positioned at byte offset loc of query (a parse-tree
// location); a negative loc leaves e without a position.
func (e *Error) At(query string, loc int32) *Error {
	if loc >= 0 {
		e.Pos = CharPos(query, int(loc))
	}
	return e
}

// WithDetail sets e's detail and returns e.
func (e *Error) WithDetail(detail string) *Error {
	e.Detail = detail
	return e
}

// InClause sets the column reference e is about, as written, and the
// clause it stands in, and returns e.
func (e *Error) InClause(column string, clause Clause) *Error {
	e.Column, e.Clause = column, clause
	return e
}

// WithHint sets e's hint and returns e.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// CharPos is the 1-based character position of byte offset off in q, as
// PostgreSQL reports positions.
func CharPos(q string, off int) int {
	if off > len(q) {
		off = len(q)
	}
	n := 1
	for range q[:off] {
		n++
	}
	return n
}

// Class is what the caller of an API can do about a failure, by its
// kind: each transport (HTTP's statuses, gRPC's codes, the client
// library's sentinels) answers each class in a table of its own.
type Class int

const (
	ClassInternal        Class = iota
	ClassNotFound              // no such sequence, schema or object
	ClassForbidden             // a privilege is missing
	ClassUnauthenticated       // no or wrong credentials
	ClassExists                // what it would make exists
	ClassContended             // a lock, a deadlock, a serialization failure
	ClassPrecondition          // the sequence's state refuses it (run out, in use)
	ClassTooMany               // every connection slot in use
	ClassTooLarge              // a request or statement too large
	ClassOutOfMemory           // the statement asked for more than one may hold
	ClassCanceled              // cancelled or past its deadline
	ClassUnavailable           // a standby, a shutdown, a store unavailable: worth sending again
	ClassInvalid               // the request is wrong (data exceptions, syntax, access rules)
)

// kindInfo is what the one table says of a kind: its SQLSTATE, its class,
// and whether sending the request again shortly (to this node or, after
// a failover, the next leader) may cure it.
type kindInfo struct {
	code  string
	class Class
	retry bool
}

// kinds is the one table where seqd chooses each error kind's SQLSTATE
// (every front end reports them, MySQL's beside its own numbers), its
// class and whether it is retryable. Retryable are too many clients, a
// standby or deposed leader (read_only_sql_transaction), a server
// shutting down or not yet up, a store unavailable or full, a cancelled
// statement.
var kinds = map[Kind]kindInfo{
	SuccessfulCompletion:          {"00000", ClassInternal, false},
	Warning:                       {"01000", ClassInternal, false},
	ProtocolViolation:             {"08P01", ClassInvalid, false},
	FeatureNotSupported:           {"0A000", ClassInvalid, false},
	CardinalityViolation:          {"21000", ClassInternal, false},
	NumericValueOutOfRange:        {"22003", ClassInvalid, false},
	DivisionByZero:                {"22012", ClassInvalid, false},
	SubstringError:                {"22011", ClassInvalid, false},
	InvalidParameterValue:         {"22023", ClassInvalid, false},
	InvalidRegularExpression:      {"2201B", ClassInvalid, false},
	InvalidRowCountInLimit:        {"2201W", ClassInvalid, false},
	InvalidRowCountInOffset:       {"2201X", ClassInvalid, false},
	InvalidTextRepresentation:     {"22P02", ClassInvalid, false},
	InvalidDatetimeFormat:         {"22007", ClassInvalid, false},
	DatetimeFieldOverflow:         {"22008", ClassInvalid, false},
	InvalidBinaryRepresentation:   {"22P03", ClassInvalid, false},
	CharacterNotInRepertoire:      {"22021", ClassInvalid, false},
	InvalidTransactionState:       {"25000", ClassInternal, false},
	ActiveTransaction:             {"25001", ClassInternal, false},
	NoActiveTransaction:           {"25P01", ClassInternal, false},
	InFailedTransaction:           {"25P02", ClassInternal, false},
	InvalidStatementName:          {"26000", ClassInternal, false},
	InvalidTransactionTermination: {"2D000", ClassInternal, false},
	InvalidCursorName:             {"34000", ClassInternal, false},
	InvalidSavepoint:              {"3B001", ClassInternal, false},
	UndefinedSchema:               {"3F000", ClassNotFound, false},
	SyntaxError:                   {"42601", ClassInvalid, false},
	UndefinedColumn:               {"42703", ClassInvalid, false},
	UndefinedFunction:             {"42883", ClassInvalid, false},
	UndefinedTable:                {"42P01", ClassNotFound, false},
	UndefinedParameter:            {"42P02", ClassInvalid, false},
	UndefinedObject:               {"42704", ClassNotFound, false},
	DuplicateCursor:               {"42P03", ClassInvalid, false},
	DuplicatePreparedStatement:    {"42P05", ClassInvalid, false},
	DuplicateTable:                {"42P07", ClassExists, false},
	DuplicateObject:               {"42710", ClassInvalid, false},
	AmbiguousColumn:               {"42702", ClassInvalid, false},
	AmbiguousFunction:             {"42725", ClassInvalid, false},
	GroupingError:                 {"42803", ClassInvalid, false},
	DatatypeMismatch:              {"42804", ClassInvalid, false},
	CannotCoerce:                  {"42846", ClassInvalid, false},
	IndeterminateDatatype:         {"42P18", ClassInvalid, false},
	InvalidColumnReference:        {"42P10", ClassInvalid, false},
	DuplicateAlias:                {"42712", ClassInvalid, false},
	InvalidName:                   {"42602", ClassInvalid, false},
	ProgramLimitExceeded:          {"54000", ClassTooLarge, false},
	StatementTooComplex:           {"54001", ClassInternal, false},
	ObjectNotInPrerequisiteState:  {"55000", ClassPrecondition, false},
	CantChangeRuntimeParam:        {"55P02", ClassInternal, false},
	InvalidCursorState:            {"24000", ClassInternal, false},
	DuplicateSchema:               {"42P06", ClassExists, false},
	InvalidTableDefinition:        {"42P16", ClassInvalid, false},
	DependentObjectsStillExist:    {"2BP01", ClassPrecondition, false},
	ReservedName:                  {"42939", ClassInvalid, false},
	ReadOnlyTransaction:           {"25006", ClassUnavailable, true},
	NameTooLong:                   {"42622", ClassInvalid, false},
	InvalidPassword:               {"28P01", ClassUnauthenticated, false},
	InvalidAuthorization:          {"28000", ClassUnauthenticated, false},
	ObjectInUse:                   {"55006", ClassPrecondition, false},
	TooManyConnections:            {"53300", ClassTooMany, true},
	OutOfMemory:                   {"53200", ClassOutOfMemory, false},
	IdleSessionTimeout:            {"57P05", ClassInternal, false},
	IdleInTransactionTimeout:      {"25P03", ClassInternal, false},
	LockNotAvailable:              {"55P03", ClassContended, false},
	AdminShutdown:                 {"57P01", ClassUnavailable, true},
	QueryCanceled:                 {"57014", ClassCanceled, true},
	DeadlockDetected:              {"40P01", ClassContended, false},
	SerializationFailure:          {"40001", ClassContended, false},
	IOError:                       {"58030", ClassUnavailable, true},
	DiskFull:                      {"53100", ClassUnavailable, true},
	InsufficientPrivilege:         {"42501", ClassForbidden, false},
	UndefinedDatabase:             {"3D000", ClassInternal, false},
	InvalidGrantOperation:         {"0LP01", ClassInternal, false},
	WrongObjectType:               {"42809", ClassInvalid, false},
	WarningPrivilegeNotGranted:    {"01007", ClassInternal, false},
	WarningPrivilegeNotRevoked:    {"01006", ClassInternal, false},
	SequenceLimitExceeded:         {"2200H", ClassPrecondition, false},
	InternalError:                 {"XX000", ClassInternal, false},
	CrashShutdown:                 {"57P02", ClassUnavailable, true},
	CannotConnectNow:              {"57P03", ClassUnavailable, true},
}

// byCode is kinds by SQLSTATE, for clients that read one off the wire.
var byCode = func() map[string]Kind {
	m := make(map[string]Kind, len(kinds))
	for k, i := range kinds {
		m[i.code] = k
	}
	return m
}()

// KindOfCode is the kind of SQLSTATE code, "" for one seqd has no kind
// for.
func KindOfCode(code string) Kind { return byCode[code] }

// ClassOf is kind's class (ClassInternal for one not in the table).
func ClassOf(k Kind) Class { return kinds[k].class }

// Retryable reports whether a request failing with kind may succeed if
// sent again shortly.
func Retryable(k Kind) bool { return kinds[k].retry }

// SQLState is kind's SQLSTATE, XX000 (internal error) for one not in
// the table.
func SQLState(k Kind) string {
	if i, ok := kinds[k]; ok {
		return i.code
	}
	return "XX000"
}
