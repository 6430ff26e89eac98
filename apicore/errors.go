package apicore

import (
	"context"
	"errors"
	"strings"

	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// Error is a call's failure as the APIs answer it: its error kind, the
// SQLSTATE the SQL front ends give for it (sqlerr's one table) and the
// message.
type Error struct {
	Kind sqlerr.Kind
	Code string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// NewError is a failure of kind with msg.
func NewError(kind sqlerr.Kind, msg string) *Error {
	return &Error{Kind: kind, Code: sqlerr.SQLState(kind), Msg: msg}
}

// BadRequest is an invalid argument (22023).
func BadRequest(msg string) error { return NewError(sqlerr.InvalidParameterValue, msg) }

// ErrorOf is err as an Error, of the kind the SQL front ends give it.
func ErrorOf(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	e = NewError(frontend.KindOf(err), err.Error())
	switch {
	case errors.Is(err, context.DeadlineExceeded): // the statement's timeout or the caller's deadline
		e.Msg = "canceling statement due to statement timeout or the call's deadline"
	case errors.Is(err, context.Canceled):
		e.Msg = "canceling statement due to user request"
	}
	return e
}

// Class is what the caller of an API can do about a failure, by its
// kind (Error.Class): each transport answers each class with a status of
// its own, from this one table.
type Class int

const (
	Internal        Class = iota
	NotFound              // no such sequence, schema or object
	Forbidden             // a privilege is missing
	Unauthenticated       // no or wrong credentials
	Exists                // what it would make exists
	Contended             // a lock, a deadlock, a serialization failure
	Precondition          // the sequence's state refuses it (run out, in use)
	TooMany               // every connection slot in use
	TooLarge              // a request or statement too large
	OutOfMemory           // the statement asked for more than one may hold
	Canceled              // cancelled or past its deadline
	Unavailable           // the rest of Retryable: a standby, a shutdown, a store unavailable
	Invalid               // the request is wrong
)

// classes are the kinds of a class of their own; retryable the kinds of
// failures that sending again shortly may cure (to this node or, after a
// failover, the next leader): too many clients, a standby, a server
// shutting down, a store unavailable, a cancelled statement. Every other
// kind is Invalid when its SQLSTATE is of class 22 (data exception) or
// 42 (syntax error or access rule violation), a feature not supported
// or a protocol violation, else Internal (invalidKind).
var (
	classes = map[sqlerr.Kind]Class{
		sqlerr.UndefinedTable: NotFound, sqlerr.UndefinedSchema: NotFound, sqlerr.UndefinedObject: NotFound,
		sqlerr.InsufficientPrivilege: Forbidden,
		sqlerr.InvalidAuthorization:  Unauthenticated, sqlerr.InvalidPassword: Unauthenticated,
		sqlerr.DuplicateTable: Exists, sqlerr.DuplicateSchema: Exists,
		sqlerr.LockNotAvailable: Contended, sqlerr.DeadlockDetected: Contended, sqlerr.SerializationFailure: Contended,
		sqlerr.SequenceLimitExceeded: Precondition, sqlerr.ObjectInUse: Precondition, sqlerr.DependentObjectsStillExist: Precondition,
		sqlerr.TooManyConnections:   TooMany,
		sqlerr.ProgramLimitExceeded: TooLarge,
		sqlerr.OutOfMemory:          OutOfMemory,
		sqlerr.QueryCanceled:        Canceled,
	}
	retryable = map[sqlerr.Kind]bool{
		sqlerr.TooManyConnections: true, sqlerr.ReadOnlyTransaction: true, sqlerr.AdminShutdown: true, sqlerr.IOError: true,
		sqlerr.DiskFull: true, sqlerr.QueryCanceled: true,
	}
)

// invalidKind reports whether kind is a request that is wrong: its
// SQLSTATE's class is 22 or 42, or it is a feature not supported or a
// protocol violation.
func invalidKind(kind sqlerr.Kind) bool {
	code := sqlerr.SQLState(kind)
	return strings.HasPrefix(code, "22") || strings.HasPrefix(code, "42") || kind == sqlerr.FeatureNotSupported || kind == sqlerr.ProtocolViolation
}

// ClassOfKind is the class of a failure of kind.
func ClassOfKind(kind sqlerr.Kind) Class {
	if c, ok := classes[kind]; ok {
		return c
	}
	switch {
	case retryable[kind]:
		return Unavailable
	case invalidKind(kind):
		return Invalid
	}
	return Internal
}

// Class is the failure's class.
func (e *Error) Class() Class { return ClassOfKind(e.Kind) }

// Retryable reports whether the call may succeed if sent again shortly.
func (e *Error) Retryable() bool { return RetryableKind(e.Kind) }

// RetryableKind reports whether a call failing with kind may succeed if
// sent again shortly (to this node or, after a failover, the next
// leader): too many clients, a standby, a server shutting down, a store
// unavailable, a cancelled statement.
func RetryableKind(kind sqlerr.Kind) bool { return retryable[kind] }
