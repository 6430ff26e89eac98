package engine

import (
	"sync"
	"time"
)

// RateWindow is the interval over which the store's advance rate is
// measured (AdvanceRate).
const RateWindow = 10 * time.Second

// AdvanceRate is how fast the store's durable marks have advanced since
// the engine opened: the most values the marks of all its sequences
// together moved on (to hand values out, by nextval and reservations;
// not setval or RESTART) within any RateWindow, and for how long the
// engine has been watching. A backup records it, so that a restore can
// bound how far the original may have moved on since (server.Restore).
type AdvanceRate struct {
	Peak     int64
	Observed time.Duration
}

// Rate is the store's advance rate so far.
func (e *Engine) Rate() AdvanceRate {
	e.meter.mu.Lock()
	defer e.meter.mu.Unlock()
	return AdvanceRate{Peak: e.meter.peak, Observed: time.Duration(e.now())}
}

// advanceMeter keeps the peak of the marks' advance over a sliding
// RateWindow, in one-second buckets: a few additions per refill, which
// already costs a commit.
type advanceMeter struct {
	mu      sync.Mutex // invariant 18: a leaf, taken under a seq.mu
	buckets [RateWindow / time.Second]struct{ sec, n int64 }
	peak    int64
}

// add counts n values the marks advanced at now (nanoseconds on the
// engine's clock).
func (m *advanceMeter) add(now, n int64) {
	sec := now / int64(time.Second)
	m.mu.Lock()
	defer m.mu.Unlock()
	b := &m.buckets[sec%int64(len(m.buckets))]
	if b.sec != sec {
		b.sec, b.n = sec, 0
	}
	b.n += n
	var sum int64
	for _, b := range m.buckets {
		if b.sec > sec-int64(len(m.buckets)) {
			sum += b.n
		}
	}
	m.peak = max(m.peak, sum)
}
