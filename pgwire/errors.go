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

func sqlstate(k sqlerr.Kind) string { return sqlerr.SQLState(k) }

// toErrorResponse is err as PostgreSQL reports it, its SQLSTATE from the
// kind's row of sqlerr's table (sqlerr/errors.go).
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
