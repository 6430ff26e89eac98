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
}

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
