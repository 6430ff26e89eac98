package localetcd

import (
	"math/rand/v2"
	"time"
)

// Impairment is what a slow or lossy link does to each chunk of a TCP
// connection it carries, in each direction. Chunks are never reordered:
// a chunk leaves no sooner than the one read before it, as a TCP stream
// delivers. The zero value is a clean link.
//
// Loss is played as TCP shows it to the program above: a lost segment
// is sent again after the retransmission timeout, and again after twice
// that if lost again, and every byte behind it waits (head-of-line
// blocking). So a lost chunk stalls the stream; dropping bytes from it
// would corrupt the stream instead, which no real link does. Chunks read
// during such a stall add none of their own (due).
type Impairment struct {
	Delay  time.Duration // added to every chunk
	Jitter time.Duration // up to this much more, drawn per chunk
	// Loss is the chance a chunk is lost each time it is sent; each loss
	// holds it (and what follows it) one more retransmission timeout:
	// RTO, doubled on each further loss up to MaxRTO. Below 1: a link
	// that loses everything is a cut (CutLink).
	Loss float64
}

// RTO is the first retransmission timeout (Linux's floor), MaxRTO where
// the impairment stops backing off.
const (
	RTO    = 200 * time.Millisecond
	MaxRTO = 3200 * time.Millisecond
)

// Hold is how long imp holds a chunk read now: its delay, jitter and
// the stall of its losses.
func (imp Impairment) Hold() time.Duration {
	d := imp.Delay
	if imp.Jitter > 0 {
		d += rand.N(imp.Jitter + 1)
	}
	for backoff := RTO; imp.Loss > 0 && rand.Float64() < imp.Loss; backoff = min(2*backoff, MaxRTO) {
		d += backoff
	}
	return d
}

// due is when a chunk read at now leaves under imp, the chunk before it
// leaving at last: never before last, so the stream keeps its order. A
// chunk read while the stream is held behind a lost one (last later than
// the delay and jitter explain) takes no stall of its own: TCP repairs
// the segments lost behind a stalled one while the stream waits
// (selective acknowledgements, fast retransmit), so a busy stream waits
// for its head's retransmission, not for the sum of every loss.
func (imp Impairment) due(now, last time.Time) time.Time {
	if last.After(now.Add(imp.Delay + imp.Jitter)) {
		imp.Loss = 0
	}
	d := now.Add(imp.Hold())
	if d.Before(last) {
		return last
	}
	return d
}
