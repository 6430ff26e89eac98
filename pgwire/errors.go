package pgwire

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/alloc"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sql"
)

// pgError is an error already in PostgreSQL's terms.
type pgError struct {
	code, msg string
	pos       int
}

func (e *pgError) Error() string { return e.msg }

// toErrorResponse chooses the SQLSTATE for err. This is the only place
// that does.
func toErrorResponse(err error) *pgproto3.ErrorResponse {
	r := &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Message: err.Error()}
	var pe *pgError
	var se *sql.Error
	switch {
	case errors.As(err, &pe):
		r.Code, r.Position = pe.code, int32(pe.pos)
	case errors.As(err, &se):
		r.Code, r.Position = se.Code, int32(se.Pos)
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
