package frontend

import (
	"fmt"
	"log"
	"sync"
	"time"
)

// A failed statement's line is logged (LogFailure) at most failureBurst
// times in a row for one role and error code, then failureRate times a
// second: a client that sends a failing statement in a loop, or a clock
// stepped back under load (every call of a SNOWFLAKE sequence refused
// with 55000), would otherwise write a line for each, thousands a
// second. Per role, so that one role's flood cannot hide another's
// failures. Past failureKeys (role, code) pairs, the pairs whose bucket
// has filled again, nothing left out, are forgotten (and while that
// leaves failureKeys, the code's failures of the other roles share one
// bucket).
const (
	failureBurst = 100
	failureRate  = 10
	failureKeys  = 4096
)

// FailureLog logs a listener's failed statements (LogFailure), bounded
// per role and error code; the lines left out are counted, and the next
// line logged for the pair says how many. The zero value logs to
// log.Default(). Safe for concurrent use.
type FailureLog struct {
	Logger *log.Logger
	Now    func() time.Time // default time.Now

	mu    sync.Mutex
	codes map[failureKey]*failureBucket
}

// failureKey is whose failures of which code a bucket counts.
type failureKey struct{ user, code string }

// failureBucket is a code's token bucket and what it left out.
type failureBucket struct {
	tokens  float64
	at      time.Time // when tokens was counted
	skipped int64
}

// Log logs a failed statement as LogFailure does, unless its code has
// used up its lines: then it counts it.
func (f *FailureLog) Log(code, msg, user string, conn uint32, text string) {
	skipped, ok := f.take(failureKey{user, code})
	if !ok {
		return
	}
	logger := f.Logger
	if logger == nil {
		logger = log.Default()
	}
	if skipped > 0 {
		msg = fmt.Sprintf("%s (and %d more failures with code %s not logged, at most %d a second after %d in a row)", msg, skipped, code, failureRate, failureBurst)
	}
	LogFailure(logger, code, msg, user, conn, text)
}

// take reports whether a line of k may be logged now, and how many were
// left out before it.
func (f *FailureLog) take(k failureKey) (int64, bool) {
	now := time.Now()
	if f.Now != nil {
		now = f.Now()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.codes == nil {
		f.codes = map[failureKey]*failureBucket{}
	}
	b := f.codes[k]
	if b == nil && len(f.codes) >= failureKeys {
		f.forgetLocked(now)
		if len(f.codes) >= failureKeys {
			// As many pairs failing at once as the map holds: the
			// code's failures of every other role share one bucket.
			k.user = ""
			b = f.codes[k]
		}
	}
	if b == nil {
		b = &failureBucket{tokens: failureBurst, at: now}
		f.codes[k] = b
	}
	b.refill(now)
	if b.tokens < 1 {
		b.skipped++
		return 0, false
	}
	b.tokens--
	skipped := b.skipped
	b.skipped = 0
	return skipped, true
}

// refill adds the lines the time since the last count gives.
func (b *failureBucket) refill(now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(b.tokens+d.Seconds()*failureRate, failureBurst)
	}
	b.at = now
}

// forgetLocked drops the pairs whose bucket has filled again with
// nothing left out: they log as a new pair would. REQUIRES: f.mu held.
func (f *FailureLog) forgetLocked(now time.Time) {
	for k, b := range f.codes {
		if b.refill(now); b.tokens >= failureBurst && b.skipped == 0 {
			delete(f.codes, k)
		}
	}
}
