package executor

import "github.com/seqd/seqd/eval"

// exprWarnings are the warnings a session's expressions raised
// (eval.Warning: MariaDB's meaning of a division by zero, of a CAST that
// truncates, ...), kept until the front end takes them: the MySQL front
// end after each statement, as its diagnostics; PostgreSQL's statements
// raise none. At most maxExprWarnings are kept; count counts them all.
type exprWarnings struct {
	kept  []eval.Warning
	count int
}

// maxExprWarnings bounds the warnings a session keeps: a statement over
// many rows may raise one per row.
const maxExprWarnings = 64

// Warn keeps an expression's warning (eval.Warner).
func (v *evalView) Warn(w eval.Warning) {
	ws := &v.warnings
	ws.count++
	if len(ws.kept) < maxExprWarnings {
		ws.kept = append(ws.kept, w)
	}
}

// TakeWarnings returns the warnings the session's expressions raised
// since it was last asked, the first ones kept and how many there were,
// and forgets them. The slice is the caller's until the next call.
func (s *Session) TakeWarnings() (kept []eval.Warning, count int) {
	ws := &s.warnings
	kept, count = ws.kept, ws.count
	ws.kept, ws.count = nil, 0
	return kept, count
}
