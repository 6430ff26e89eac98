package pgwire

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/alloc"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sql"
)

// sqlstates maps every error kind to its SQLSTATE: the one table where
// seqd chooses SQLSTATEs.
var sqlstates = map[sql.Kind]string{
	sql.SuccessfulCompletion:          "00000",
	sql.Warning:                       "01000",
	sql.ProtocolViolation:             "08P01",
	sql.FeatureNotSupported:           "0A000",
	sql.CardinalityViolation:          "21000",
	sql.NumericValueOutOfRange:        "22003",
	sql.DivisionByZero:                "22012",
	sql.SubstringError:                "22011",
	sql.InvalidParameterValue:         "22023",
	sql.InvalidRegularExpression:      "2201B",
	sql.InvalidRowCountInLimit:        "2201W",
	sql.InvalidRowCountInOffset:       "2201X",
	sql.InvalidTextRepresentation:     "22P02",
	sql.InvalidBinaryRepresentation:   "22P03",
	sql.InvalidTransactionState:       "25000",
	sql.ActiveTransaction:             "25001",
	sql.NoActiveTransaction:           "25P01",
	sql.InFailedTransaction:           "25P02",
	sql.InvalidStatementName:          "26000",
	sql.InvalidTransactionTermination: "2D000",
	sql.InvalidCursorName:             "34000",
	sql.InvalidSavepoint:              "3B001",
	sql.UndefinedSchema:               "3F000",
	sql.SyntaxError:                   "42601",
	sql.UndefinedColumn:               "42703",
	sql.UndefinedFunction:             "42883",
	sql.UndefinedTable:                "42P01",
	sql.UndefinedParameter:            "42P02",
	sql.UndefinedObject:               "42704",
	sql.DuplicateCursor:               "42P03",
	sql.DuplicatePreparedStatement:    "42P05",
	sql.DuplicateTable:                "42P07",
	sql.DuplicateObjectNotice:         "42710",
	sql.AmbiguousColumn:               "42702",
	sql.AmbiguousFunction:             "42725",
	sql.GroupingError:                 "42803",
	sql.DatatypeMismatch:              "42804",
	sql.CannotCoerce:                  "42846",
	sql.IndeterminateDatatype:         "42P18",
	sql.InvalidColumnReference:        "42P10",
	sql.InvalidName:                   "42602",
	sql.ProgramLimitExceeded:          "54000",
	sql.ObjectNotInPrerequisiteState:  "55000",
	sql.CantChangeRuntimeParam:        "55P02",
	sql.InvalidCursorState:            "24000",
}

func sqlstate(k sql.Kind) string {
	if code, ok := sqlstates[k]; ok {
		return code
	}
	return "XX000"
}

// toErrorResponse chooses the SQLSTATE for err, through the table above
// for SQL errors and by sentinel for the layers below.
func toErrorResponse(err error) *pgproto3.ErrorResponse {
	r := &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Message: err.Error()}
	var se *sql.Error
	switch {
	case errors.As(err, &se):
		r.Code, r.Position, r.Detail, r.Hint = sqlstate(se.Kind), int32(se.Pos), se.Detail, se.Hint
	case errors.Is(err, engine.ErrNotFound):
		r.Code = "42P01"
	case errors.Is(err, engine.ErrExists):
		r.Code = "42P07"
	case errors.Is(err, engine.ErrInvalidName):
		r.Code = "42602"
	case errors.Is(err, engine.ErrClosed):
		r.Code = "57P01"
	case errors.Is(err, engine.ErrStorage):
		r.Code = "58030"
	case errors.Is(err, alloc.ErrLimitReached):
		r.Code = "2200H"
	case errors.Is(err, alloc.ErrInvalidOption):
		r.Code = "22023"
	case errors.Is(err, alloc.ErrOutOfBounds):
		r.Code = "22003"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		r.Code, r.Message = "57014", "canceling statement due to user request"
	default:
		r.Code = "XX000"
	}
	return r
}
