package apicore

import (
	"context"
	"errors"

	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
	"github.com/seqd/seqd/timeid"
)

// Error is a call's failure as the APIs answer it: its error kind, the
// SQLSTATE the SQL front ends give for it (sqlerr's one table) and the
// message.
type Error struct {
	Kind sqlerr.Kind
	Code string
	Msg  string
	// Later: the same call will succeed once time has passed, though
	// its kind is not one sending again shortly cures (a SNOWFLAKE
	// sequence's ids ahead of the clock): HTTP says Retry-After.
	Later bool
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
	e.Later = errors.Is(err, timeid.ErrClockBehind)
	switch {
	case errors.Is(err, context.DeadlineExceeded): // the statement's timeout or the caller's deadline
		e.Msg = "canceling statement due to statement timeout or the call's deadline"
	case errors.Is(err, context.Canceled):
		e.Msg = "canceling statement due to user request"
	}
	return e
}

// Class is the failure's class, from sqlerr's one table of kinds.
func (e *Error) Class() sqlerr.Class { return sqlerr.ClassOf(e.Kind) }

// Retryable reports whether the call may succeed if sent again shortly
// (sqlerr's table says which kinds).
func (e *Error) Retryable() bool { return sqlerr.Retryable(e.Kind) }
