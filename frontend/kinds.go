package frontend

import (
	"context"
	"errors"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sqlerr"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/timeid"
)

// KindOf classifies an error of any layer for a front end's table: SQL errors carry their kind;
// the engine's and the allocator's sentinels map to PostgreSQL's
// conditions for the same failure.
func KindOf(err error) sqlerr.Kind {
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
	case errors.Is(err, engine.ErrTooManyLocks):
		return sqlerr.ProgramLimitExceeded
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
	case errors.Is(err, timeid.ErrClockBehind):
		// A SNOWFLAKE sequence's ids ran too far ahead of the clock.
		return sqlerr.ObjectNotInPrerequisiteState
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return sqlerr.QueryCanceled
	}
	return sqlerr.InternalError
}
