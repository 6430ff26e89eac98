package torture

import (
	"sync"
	"time"
)

// Kind is what an operation did.
type Kind int

const (
	Nextval Kind = iota // select nextval(s)
	Bulk                // select nextval(s) from generate_series(1, n)
	Range               // select * from seqd_reserve(s, n)
	Setval              // select setval(s, x): x is Values[0]
)

func (k Kind) String() string { return [...]string{"nextval", "bulk", "range", "setval"}[k] }

// Outcome is how an operation ended, as the client saw it.
type Outcome int

const (
	// OK: the whole response arrived.
	OK Outcome = iota
	// Failed: the server answered with an error. Rows it streamed before
	// the error are in Values.
	Failed
	// Unknown: the connection died or the client gave up first. The
	// operation may or may not have taken effect; the values that did
	// arrive are in Values.
	Unknown
)

func (o Outcome) String() string { return [...]string{"ok", "failed", "unknown"}[o] }

// Op is one operation on one sequence, from the client's point of view.
type Op struct {
	Seq     string
	Kind    Kind
	Client  int
	Epoch   int   // which run of the server it was sent to
	Want    int64 // values asked for (1 for nextval, n for bulk and range; 0 for setval)
	Call    int64 // ns since the history began, before the request was sent
	Return  int64 // ns since the history began, after the response arrived (OK and Failed only)
	Outcome Outcome
	Values  []int64 // in the order received; for setval, the value set
	// Times, for bulk, is when each row arrived: a generate_series takes
	// its values one row at a time, so each row is an operation of its
	// own, called with the statement and done by its arrival.
	Times []int64
	Err   string // the error, for Failed and Unknown
	// Node is the node a NOORDER client talks to (its own, by address).
	Node int
}

// History is every operation of a run, appended concurrently.
type History struct {
	t0  time.Time
	mu  sync.Mutex
	ops []Op
}

// NewHistory starts a history's clock.
func NewHistory() *History { return &History{t0: time.Now()} }

// Now is the history's clock: monotonic nanoseconds since it began.
func (h *History) Now() int64 { return int64(time.Since(h.t0)) }

// Add appends a finished operation.
func (h *History) Add(op Op) {
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// okSince reports whether a request of epoch sent after t was answered
// with values, looking at the latest operations only (they are appended
// as they finish).
func (h *History) okSince(epoch int, t int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.ops) - 1; i >= 0 && i >= len(h.ops)-10_000; i-- {
		if op := h.ops[i]; op.Epoch == epoch && op.Call > t && op.Outcome == OK && len(op.Values) > 0 {
			return true
		}
	}
	return false
}

// answeredSince reports whether a workload client's request for seq
// called after t was answered, looking at the latest operations only.
func (h *History) answeredSince(seq string, t int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.ops) - 1; i >= 0 && i >= len(h.ops)-10_000; i-- {
		if op := h.ops[i]; op.Seq == seq && op.Client >= 0 && op.Call > t && op.Outcome == OK {
			return true
		}
	}
	return false
}

// Ops is a snapshot of the operations so far.
func (h *History) Ops() []Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Op(nil), h.ops...)
}
