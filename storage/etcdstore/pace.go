package etcdstore

import (
	"sync"
	"time"
)

// pace is the deadline of a hardened client's tries, shared by all its
// requests: AttemptTimeout while etcd answers well inside it, longer
// while it does not. A try's deadline catches one member holding a
// request (cut off, paused); it must not cut short a request that every
// member answers slowly alike. An etcd whose leader member's links to
// its peers are slow (150-200 ms each way) answers every linearizable
// read and write made through a follower in four such trips, 0.6-0.8 s,
// more than a quarter of a 2 s lease: every try then timed out on every
// member, and a takeover made of such requests ran out of its lease, try
// after try, for as long as the links were slow.
//
// The rules, each request starting from Deadline:
//
//  1. A try that timed out, the request's second or later to, is
//     followed by one of twice its deadline, up to longest (Next): held
//     by a second member, or again by the only one left, the request
//     may be one that every member answers slowly. The first timeout is
//     not: the next try goes to another member, which answers at once
//     if only the first held it. Timeouts raise no other request's
//     deadline: every member holds requests alike while etcd elects a
//     leader too, and tries lengthened then would hold on past the
//     election, each for its whole deadline.
//  2. An answer that took more than half the deadline (Answered) raises
//     it, for every request, to twice that answer, up to half of
//     longest: etcd is answering, slowly. So the first answers of a slow
//     etcd set the deadline for the requests after them, which then
//     complete at their first try. Half, because the deadline stays
//     raised for a while after etcd is fast again, and a first try held
//     by one member (paused, cut off) then must still leave a caller
//     bounded by longest (a store call, by the lease) the time of a
//     second try.
//  3. Once a whole longest has passed since the deadline last changed,
//     and the slowest answer since took less than a quarter of it, the
//     deadline halves, down to base: back to AttemptTimeout a few leases
//     after etcd is fast again.
//
// So a first try's deadline never goes below base, where a member
// holding requests is caught soonest, nor above half of longest (the
// lease), and no try's above longest: fencing, the lease
// and the callers' own deadlines bound every request as before, and only
// how soon a try is given up changes.
//
// pace does no I/O and reads no clock: the caller says when. Safe for
// concurrent use.
type pace struct {
	base, longest time.Duration

	mu      sync.Mutex
	cur     time.Duration // the deadline of a request's first try
	since   time.Time     // when cur last changed, or was last kept (rule 3)
	slowest time.Duration // the slowest answer since then
}

func newPace(base, longest time.Duration) *pace {
	return &pace{base: base, longest: max(base, longest), cur: base}
}

// Deadline is the deadline of a request's first try.
func (p *pace) Deadline() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur
}

// Next is the deadline of the try after one of d that timed out, the
// request's second or later to (rule 1).
func (p *pace) Next(d time.Duration) time.Duration { return min(2*d, p.longest) }

// Answered notes an answer that took took, at now (rules 2 and 3).
func (p *pace) Answered(took time.Duration, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if 2*took > p.cur && p.raiseLocked(min(2*took, max(p.base, p.longest/2)), now) {
		return // rule 3 counts from here
	}
	p.slowest = max(p.slowest, took)
	if p.cur == p.base || now.Sub(p.since) < p.longest {
		return
	}
	if 4*p.slowest < p.cur {
		p.cur = max(p.base, p.cur/2)
	}
	p.since, p.slowest = now, 0
}

// raiseLocked makes the deadline d if that is longer, counting rule 3's
// time from now, and reports whether it did.
// REQUIRES: p.mu.
func (p *pace) raiseLocked(d time.Duration, now time.Time) bool {
	if d <= p.cur {
		return false
	}
	p.cur, p.since, p.slowest = d, now, 0
	return true
}
