package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/sqlerr"
)

// DefaultMaxStatementMemory is Config.MaxStatementMemory's default.
const DefaultMaxStatementMemory = 256 << 20

// The session's time limits, PostgreSQL's settings of the same names
// (0: none), read at every statement or message: parsed again only when
// a setting changed (pathVersion counts every change).
const (
	statementTimeout = iota
	lockTimeout
	idleInTransactionTimeout
	idleSessionTimeout
)

var timeoutSettings = [...]string{"statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout"}

type timeoutCache struct {
	valid   bool
	version uint64 // the pathVersion d was read at
	d       [len(timeoutSettings)]time.Duration
}

func (s *Session) timeout(which int) time.Duration {
	c := &s.timeouts
	if !c.valid || c.version != s.pathVersion {
		for i, name := range timeoutSettings {
			c.d[i], _ = parseDuration(s.settings.get(name), time.Millisecond)
		}
		c.valid, c.version = true, s.pathVersion
	}
	return c.d[which]
}

// StatementTimeout is the session's statement_timeout: how long one
// statement may run (0: no limit). A front end puts it on the statement's
// context with StatementContext.
func (s *Session) StatementTimeout() time.Duration { return s.timeout(statementTimeout) }

// StatementContext is ctx bounded by the session's statement_timeout:
// past it the statement's context ends with eval.ErrStatementTimeout as
// its cause, and the statement with 57014. Without a timeout it is ctx
// itself, and cancel does nothing (nothing is allocated).
func (s *Session) StatementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := s.StatementTimeout(); d > 0 {
		return context.WithTimeoutCause(ctx, d, eval.ErrStatementTimeout)
	}
	return ctx, noCancel
}

func noCancel() {}

// IdleTimeout is how long the session may wait for its client's next
// message as it stands (idle_in_transaction_session_timeout inside a
// transaction block, idle_session_timeout outside; 0: no limit), and the
// kind of error that ends it then.
func (s *Session) IdleTimeout() (time.Duration, sqlerr.Kind) {
	if s.TxStatus() != 'I' {
		return s.timeout(idleInTransactionTimeout), sqlerr.IdleInTransactionTimeout
	}
	return s.timeout(idleSessionTimeout), sqlerr.IdleSessionTimeout
}

// parseDuration reads a time setting as PostgreSQL does: a number in unit,
// or a number with a unit (us, ms, s, min, h, d).
func parseDuration(v string, unit time.Duration) (time.Duration, error) {
	var n float64
	var suffix string
	if _, err := fmt.Sscanf(v, "%g%s", &n, &suffix); err != nil {
		if _, err := fmt.Sscanf(v, "%g", &n); err != nil {
			return 0, err
		}
	}
	u := unit
	switch suffix {
	case "":
	case "us":
		u = time.Microsecond
	case "ms":
		u = time.Millisecond
	case "s":
		u = time.Second
	case "min":
		u = time.Minute
	case "h":
		u = time.Hour
	case "d":
		u = 24 * time.Hour
	default:
		return 0, fmt.Errorf("invalid unit %q", suffix)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative")
	}
	return time.Duration(n * float64(u)), nil
}
