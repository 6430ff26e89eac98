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

// sqlstates maps every error kind to its SQLSTATE: the one table where
// seqd chooses SQLSTATEs (every front end reports them).
var sqlstates = map[Kind]string{
	SuccessfulCompletion:          "00000",
	Warning:                       "01000",
	ProtocolViolation:             "08P01",
	FeatureNotSupported:           "0A000",
	CardinalityViolation:          "21000",
	NumericValueOutOfRange:        "22003",
	DivisionByZero:                "22012",
	SubstringError:                "22011",
	InvalidParameterValue:         "22023",
	InvalidRegularExpression:      "2201B",
	InvalidRowCountInLimit:        "2201W",
	InvalidRowCountInOffset:       "2201X",
	InvalidTextRepresentation:     "22P02",
	InvalidDatetimeFormat:         "22007",
	DatetimeFieldOverflow:         "22008",
	InvalidBinaryRepresentation:   "22P03",
	CharacterNotInRepertoire:      "22021",
	InvalidTransactionState:       "25000",
	ActiveTransaction:             "25001",
	NoActiveTransaction:           "25P01",
	InFailedTransaction:           "25P02",
	InvalidStatementName:          "26000",
	InvalidTransactionTermination: "2D000",
	InvalidCursorName:             "34000",
	InvalidSavepoint:              "3B001",
	UndefinedSchema:               "3F000",
	SyntaxError:                   "42601",
	UndefinedColumn:               "42703",
	UndefinedFunction:             "42883",
	UndefinedTable:                "42P01",
	UndefinedParameter:            "42P02",
	UndefinedObject:               "42704",
	DuplicateCursor:               "42P03",
	DuplicatePreparedStatement:    "42P05",
	DuplicateTable:                "42P07",
	DuplicateObject:               "42710",
	AmbiguousColumn:               "42702",
	AmbiguousFunction:             "42725",
	GroupingError:                 "42803",
	DatatypeMismatch:              "42804",
	CannotCoerce:                  "42846",
	IndeterminateDatatype:         "42P18",
	InvalidColumnReference:        "42P10",
	DuplicateAlias:                "42712",
	InvalidName:                   "42602",
	ProgramLimitExceeded:          "54000",
	StatementTooComplex:           "54001",
	ObjectNotInPrerequisiteState:  "55000",
	CantChangeRuntimeParam:        "55P02",
	InvalidCursorState:            "24000",
	DuplicateSchema:               "42P06",
	InvalidTableDefinition:        "42P16",
	DependentObjectsStillExist:    "2BP01",
	ReservedName:                  "42939",
	ReadOnlyTransaction:           "25006",
	NameTooLong:                   "42622",
	InvalidPassword:               "28P01",
	InvalidAuthorization:          "28000",
	ObjectInUse:                   "55006",
	TooManyConnections:            "53300",
	OutOfMemory:                   "53200",
	IdleSessionTimeout:            "57P05",
	IdleInTransactionTimeout:      "25P03",
	LockNotAvailable:              "55P03",
	AdminShutdown:                 "57P01",
	QueryCanceled:                 "57014",
	DeadlockDetected:              "40P01",
	SerializationFailure:          "40001",
	IOError:                       "58030",
	DiskFull:                      "53100",
	InsufficientPrivilege:         "42501",
	UndefinedDatabase:             "3D000",
	InvalidGrantOperation:         "0LP01",
	WrongObjectType:               "42809",
	WarningPrivilegeNotGranted:    "01007",
	WarningPrivilegeNotRevoked:    "01006",
	SequenceLimitExceeded:         "2200H",
	InternalError:                 "XX000",
}

// SQLState is kind's SQLSTATE, XX000 (internal error) for one not in
// the table.
func SQLState(k Kind) string {
	if code, ok := sqlstates[k]; ok {
		return code
	}
	return "XX000"
}
