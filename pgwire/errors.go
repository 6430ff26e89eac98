package pgwire

import (
	"context"
	"errors"

	"github.com/seqd/seqd/eval"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sqlerr"
	"github.com/seqd/seqd/storage"
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

// kindOf classifies an error of any layer: SQL errors carry their kind;
// the engine's and the allocator's sentinels map to PostgreSQL's
// conditions for the same failure.
func kindOf(err error) sqlerr.Kind {
	var se *sqlerr.Error
	switch {
	case errors.As(err, &se):
		return se.Kind
	case errors.Is(err, engine.ErrNotFound):
		return sqlerr.UndefinedTable
	case errors.Is(err, engine.ErrExists):
		return sqlerr.DuplicateTable
	case errors.Is(err, engine.ErrNoSchema):
		return sqlerr.UndefinedSchema
	case errors.Is(err, engine.ErrSchemaExists):
		return sqlerr.DuplicateSchema
	case errors.Is(err, engine.ErrDependents):
		return sqlerr.DependentObjectsStillExist
	case errors.Is(err, engine.ErrNoRole):
		return sqlerr.UndefinedObject
	case errors.Is(err, engine.ErrRoleExists):
		return sqlerr.DuplicateObject
	case errors.Is(err, engine.ErrInvalidName):
		return sqlerr.InvalidName
	case errors.Is(err, engine.ErrClosed):
		return sqlerr.AdminShutdown
	case errors.Is(err, engine.ErrDeposed):
		// As a standby answers writes: drivers' multi-host settings
		// (target_session_attrs=read-write) move on to the new owner.
		return sqlerr.ReadOnlyTransaction
	case errors.Is(err, storage.ErrDiskFull):
		return sqlerr.DiskFull // before ErrStorage, which wraps it
	case errors.Is(err, storage.ErrTooLarge):
		return sqlerr.ProgramLimitExceeded
	case errors.Is(err, engine.ErrStorage):
		return sqlerr.IOError
	case errors.Is(err, engine.ErrDeadlock):
		return sqlerr.DeadlockDetected
	case errors.Is(err, engine.ErrLockTimeout):
		return sqlerr.LockNotAvailable
	case errors.Is(err, engine.ErrSerialization):
		return sqlerr.SerializationFailure
	case errors.Is(err, engine.ErrUnsupported):
		return sqlerr.FeatureNotSupported
	case errors.Is(err, seqmath.ErrLimitReached):
		return sqlerr.SequenceLimitExceeded
	case errors.Is(err, seqmath.ErrInvalidOption):
		return sqlerr.InvalidParameterValue
	case errors.Is(err, seqmath.ErrOutOfBounds):
		return sqlerr.NumericValueOutOfRange
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return sqlerr.QueryCanceled
	}
	return sqlerr.InternalError
}

// toErrorResponse is err as PostgreSQL reports it, its SQLSTATE from the
// table above.
func toErrorResponse(err error) *pgproto3.ErrorResponse {
	kind := kindOf(err)
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
