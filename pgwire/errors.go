package pgwire

import (
	"context"
	"errors"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/frontend"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sqlerr"
)

// sqlstates maps every error kind to its SQLSTATE: the one table where
// seqd chooses SQLSTATEs.
var sqlstates = map[sqlerr.Kind]string{
	sqlerr.SuccessfulCompletion:          "00000",
	sqlerr.Warning:                       "01000",
	sqlerr.ProtocolViolation:             "08P01",
	sqlerr.FeatureNotSupported:           "0A000",
	sqlerr.CardinalityViolation:          "21000",
	sqlerr.NumericValueOutOfRange:        "22003",
	sqlerr.DivisionByZero:                "22012",
	sqlerr.SubstringError:                "22011",
	sqlerr.InvalidParameterValue:         "22023",
	sqlerr.InvalidRegularExpression:      "2201B",
	sqlerr.InvalidRowCountInLimit:        "2201W",
	sqlerr.InvalidRowCountInOffset:       "2201X",
	sqlerr.InvalidTextRepresentation:     "22P02",
	sqlerr.InvalidDatetimeFormat:         "22007",
	sqlerr.DatetimeFieldOverflow:         "22008",
	sqlerr.InvalidBinaryRepresentation:   "22P03",
	sqlerr.InvalidTransactionState:       "25000",
	sqlerr.ActiveTransaction:             "25001",
	sqlerr.NoActiveTransaction:           "25P01",
	sqlerr.InFailedTransaction:           "25P02",
	sqlerr.InvalidStatementName:          "26000",
	sqlerr.InvalidTransactionTermination: "2D000",
	sqlerr.InvalidCursorName:             "34000",
	sqlerr.InvalidSavepoint:              "3B001",
	sqlerr.UndefinedSchema:               "3F000",
	sqlerr.SyntaxError:                   "42601",
	sqlerr.UndefinedColumn:               "42703",
	sqlerr.UndefinedFunction:             "42883",
	sqlerr.UndefinedTable:                "42P01",
	sqlerr.UndefinedParameter:            "42P02",
	sqlerr.UndefinedObject:               "42704",
	sqlerr.DuplicateCursor:               "42P03",
	sqlerr.DuplicatePreparedStatement:    "42P05",
	sqlerr.DuplicateTable:                "42P07",
	sqlerr.DuplicateObject:               "42710",
	sqlerr.AmbiguousColumn:               "42702",
	sqlerr.AmbiguousFunction:             "42725",
	sqlerr.GroupingError:                 "42803",
	sqlerr.DatatypeMismatch:              "42804",
	sqlerr.CannotCoerce:                  "42846",
	sqlerr.IndeterminateDatatype:         "42P18",
	sqlerr.InvalidColumnReference:        "42P10",
	sqlerr.DuplicateAlias:                "42712",
	sqlerr.InvalidName:                   "42602",
	sqlerr.ProgramLimitExceeded:          "54000",
	sqlerr.StatementTooComplex:           "54001",
	sqlerr.ObjectNotInPrerequisiteState:  "55000",
	sqlerr.CantChangeRuntimeParam:        "55P02",
	sqlerr.InvalidCursorState:            "24000",
	sqlerr.DuplicateSchema:               "42P06",
	sqlerr.InvalidTableDefinition:        "42P16",
	sqlerr.DependentObjectsStillExist:    "2BP01",
	sqlerr.ReservedName:                  "42939",
	sqlerr.ReadOnlyTransaction:           "25006",
	sqlerr.NameTooLong:                   "42622",
	sqlerr.InvalidPassword:               "28P01",
	sqlerr.InvalidAuthorization:          "28000",
	sqlerr.ObjectInUse:                   "55006",
	sqlerr.TooManyConnections:            "53300",
	sqlerr.OutOfMemory:                   "53200",
	sqlerr.IdleSessionTimeout:            "57P05",
	sqlerr.IdleInTransactionTimeout:      "25P03",
	sqlerr.LockNotAvailable:              "55P03",
	sqlerr.AdminShutdown:                 "57P01",
	sqlerr.QueryCanceled:                 "57014",
	sqlerr.DeadlockDetected:              "40P01",
	sqlerr.SerializationFailure:          "40001",
	sqlerr.IOError:                       "58030",
	sqlerr.DiskFull:                      "53100",
	sqlerr.InsufficientPrivilege:         "42501",
	sqlerr.UndefinedDatabase:             "3D000",
	sqlerr.InvalidGrantOperation:         "0LP01",
	sqlerr.WrongObjectType:               "42809",
	sqlerr.WarningPrivilegeNotGranted:    "01007",
	sqlerr.WarningPrivilegeNotRevoked:    "01006",
	sqlerr.SequenceLimitExceeded:         "2200H",
	sqlerr.InternalError:                 "XX000",
}

func sqlstate(k sqlerr.Kind) string {
	if code, ok := sqlstates[k]; ok {
		return code
	}
	return "XX000"
}

// toErrorResponse is err as PostgreSQL reports it, its SQLSTATE from the
// table above.
func toErrorResponse(err error) *pgproto3.ErrorResponse {
	kind := frontend.KindOf(err)
	r := &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: sqlstate(kind), Message: err.Error()}
	var se *sqlerr.Error
	var ee *engine.Error
	if errors.As(err, &se) {
		r.Position, r.Detail, r.Hint = int32(se.Pos), se.Detail, se.Hint
	} else if errors.As(err, &ee) {
		r.Hint = ee.Hint
	}
	if kind == sqlerr.QueryCanceled && se == nil {
		r.Message = "canceling statement due to user request"
		if errors.Is(err, context.DeadlineExceeded) {
			// The only deadline a statement's context has.
			r.Message = eval.ErrStatementTimeout.Error()
		}
	}
	return r
}
