package pgwire

import (
	"context"
	"errors"

	"github.com/seqd/seqd/eval"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sql"
	"github.com/seqd/seqd/storage"
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
	sql.DuplicateObject:               "42710",
	sql.AmbiguousColumn:               "42702",
	sql.AmbiguousFunction:             "42725",
	sql.GroupingError:                 "42803",
	sql.DatatypeMismatch:              "42804",
	sql.CannotCoerce:                  "42846",
	sql.IndeterminateDatatype:         "42P18",
	sql.InvalidColumnReference:        "42P10",
	sql.DuplicateAlias:                "42712",
	sql.InvalidName:                   "42602",
	sql.ProgramLimitExceeded:          "54000",
	sql.StatementTooComplex:           "54001",
	sql.ObjectNotInPrerequisiteState:  "55000",
	sql.CantChangeRuntimeParam:        "55P02",
	sql.InvalidCursorState:            "24000",
	sql.DuplicateSchema:               "42P06",
	sql.InvalidTableDefinition:        "42P16",
	sql.DependentObjectsStillExist:    "2BP01",
	sql.ReservedName:                  "42939",
	sql.ReadOnlyTransaction:           "25006",
	sql.NameTooLong:                   "42622",
	sql.InvalidPassword:               "28P01",
	sql.InvalidAuthorization:          "28000",
	sql.ObjectInUse:                   "55006",
	sql.TooManyConnections:            "53300",
	sql.OutOfMemory:                   "53200",
	sql.IdleSessionTimeout:            "57P05",
	sql.IdleInTransactionTimeout:      "25P03",
	sql.LockNotAvailable:              "55P03",
	sql.AdminShutdown:                 "57P01",
	sql.QueryCanceled:                 "57014",
	sql.DeadlockDetected:              "40P01",
	sql.SerializationFailure:          "40001",
	sql.IOError:                       "58030",
	sql.DiskFull:                      "53100",
	sql.InsufficientPrivilege:         "42501",
	sql.UndefinedDatabase:             "3D000",
	sql.InvalidGrantOperation:         "0LP01",
	sql.WrongObjectType:               "42809",
	sql.WarningPrivilegeNotGranted:    "01007",
	sql.WarningPrivilegeNotRevoked:    "01006",
	sql.SequenceLimitExceeded:         "2200H",
	sql.InternalError:                 "XX000",
}

func sqlstate(k sql.Kind) string {
	if code, ok := sqlstates[k]; ok {
		return code
	}
	return "XX000"
}

// kindOf classifies an error of any layer: SQL errors carry their kind;
// the engine's and the allocator's sentinels map to PostgreSQL's
// conditions for the same failure.
func kindOf(err error) sql.Kind {
	var se *sql.Error
	switch {
	case errors.As(err, &se):
		return se.Kind
	case errors.Is(err, engine.ErrNotFound):
		return sql.UndefinedTable
	case errors.Is(err, engine.ErrExists):
		return sql.DuplicateTable
	case errors.Is(err, engine.ErrNoSchema):
		return sql.UndefinedSchema
	case errors.Is(err, engine.ErrSchemaExists):
		return sql.DuplicateSchema
	case errors.Is(err, engine.ErrDependents):
		return sql.DependentObjectsStillExist
	case errors.Is(err, engine.ErrNoRole):
		return sql.UndefinedObject
	case errors.Is(err, engine.ErrRoleExists):
		return sql.DuplicateObject
	case errors.Is(err, engine.ErrInvalidName):
		return sql.InvalidName
	case errors.Is(err, engine.ErrClosed):
		return sql.AdminShutdown
	case errors.Is(err, engine.ErrDeposed):
		// As a standby answers writes: drivers' multi-host settings
		// (target_session_attrs=read-write) move on to the new owner.
		return sql.ReadOnlyTransaction
	case errors.Is(err, storage.ErrDiskFull):
		return sql.DiskFull // before ErrStorage, which wraps it
	case errors.Is(err, storage.ErrTooLarge):
		return sql.ProgramLimitExceeded
	case errors.Is(err, engine.ErrStorage):
		return sql.IOError
	case errors.Is(err, engine.ErrDeadlock):
		return sql.DeadlockDetected
	case errors.Is(err, engine.ErrLockTimeout):
		return sql.LockNotAvailable
	case errors.Is(err, engine.ErrSerialization):
		return sql.SerializationFailure
	case errors.Is(err, engine.ErrUnsupported):
		return sql.FeatureNotSupported
	case errors.Is(err, seqmath.ErrLimitReached):
		return sql.SequenceLimitExceeded
	case errors.Is(err, seqmath.ErrInvalidOption):
		return sql.InvalidParameterValue
	case errors.Is(err, seqmath.ErrOutOfBounds):
		return sql.NumericValueOutOfRange
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return sql.QueryCanceled
	}
	return sql.InternalError
}

// toErrorResponse is err as PostgreSQL reports it, its SQLSTATE from the
// table above.
func toErrorResponse(err error) *pgproto3.ErrorResponse {
	kind := kindOf(err)
	r := &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: sqlstate(kind), Message: err.Error()}
	var se *sql.Error
	var ee *engine.Error
	if errors.As(err, &se) {
		r.Position, r.Detail, r.Hint = int32(se.Pos), se.Detail, se.Hint
	} else if errors.As(err, &ee) {
		r.Hint = ee.Hint
	}
	if kind == sql.QueryCanceled && se == nil {
		r.Message = "canceling statement due to user request"
		if errors.Is(err, context.DeadlineExceeded) {
			// The only deadline a statement's context has.
			r.Message = eval.ErrStatementTimeout.Error()
		}
	}
	return r
}
