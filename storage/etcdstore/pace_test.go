package etcdstore

import (
	"testing"
	"time"
)

// TestPace: the deadline of a hardened client's tries, step by step
// (pace's rules), for a 2 s lease: base 500 ms, longest 2 s.
func TestPace(t *testing.T) {
	const ms = time.Millisecond
	type step struct {
		at       time.Duration // since the start
		answered time.Duration // an answer that took this long; or
		next     time.Duration // a request's second or later timeout, of a try of this deadline
		want     time.Duration // the deadline of the try after (Next), if asked
		deadline time.Duration // then the deadline of a request's first try
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"fast answers keep the base", []step{
			{at: 0, answered: 10 * ms, deadline: 500 * ms},
			{at: 5000 * ms, answered: 240 * ms, deadline: 500 * ms},
		}},
		{"timeouts lengthen the request's next try, to the lease, and no other request's", []step{
			{at: 0, next: 500 * ms, want: 1000 * ms, deadline: 500 * ms},
			{at: 1000 * ms, next: 1000 * ms, want: 2000 * ms, deadline: 500 * ms},
			{at: 3000 * ms, next: 2000 * ms, want: 2000 * ms, deadline: 500 * ms},
		}},
		{"its slow answer then sets every request's, up to half the lease", []step{
			{at: 0, next: 500 * ms, want: 1000 * ms, deadline: 500 * ms},
			{at: 800 * ms, answered: 800 * ms, deadline: 1000 * ms},
		}},
		{"a late answer raises it before any timeout", []step{
			{at: 0, answered: 300 * ms, deadline: 600 * ms},
			{at: 100 * ms, answered: 400 * ms, deadline: 800 * ms},
			{at: 200 * ms, answered: 1500 * ms, deadline: 1000 * ms},
		}},
		{"back down a lease after etcd is fast again, halving", []step{
			{at: 0, answered: 300 * ms, deadline: 600 * ms},
			{at: 100 * ms, answered: 450 * ms, deadline: 900 * ms},
			{at: 1000 * ms, answered: 10 * ms, deadline: 900 * ms}, // within a lease of the raise
			{at: 2200 * ms, answered: 10 * ms, deadline: 500 * ms}, // 450 halved: not below base
			{at: 4300 * ms, answered: 10 * ms, deadline: 500 * ms},
		}},
		{"at its highest, late answers keep it there", []step{
			{at: 0, answered: 1200 * ms, deadline: 1000 * ms},
			{at: 1900 * ms, answered: 1500 * ms, deadline: 1000 * ms},
			{at: 2100 * ms, answered: 10 * ms, deadline: 1000 * ms}, // the window's slowest: 1.5 s
			{at: 4200 * ms, answered: 10 * ms, deadline: 500 * ms},
		}},
		{"kept while answers still need a quarter of it", []step{
			{at: 0, answered: 800 * ms, deadline: 1000 * ms},
			{at: 1500 * ms, answered: 300 * ms, deadline: 1000 * ms},
			{at: 2100 * ms, answered: 10 * ms, deadline: 1000 * ms}, // the window's slowest: 300 ms
			{at: 4200 * ms, answered: 10 * ms, deadline: 500 * ms},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newPace(500*ms, 2000*ms)
			start := time.Unix(1000, 0)
			for i, s := range c.steps {
				now := start.Add(s.at)
				var got time.Duration
				switch {
				case s.next > 0:
					got = p.Next(s.next)
				default:
					p.Answered(s.answered, now)
				}
				if s.want > 0 && got != s.want {
					t.Errorf("step %d: the next try's deadline %v, want %v", i, got, s.want)
				}
				if d := p.Deadline(); d != s.deadline {
					t.Errorf("step %d: a first try's deadline %v, want %v", i, d, s.deadline)
				}
			}
		})
	}
}
