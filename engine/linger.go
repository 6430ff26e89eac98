package engine

import "time"

// The writer's linger. A sequence whose callers wait for its mark (NO
// CACHE, or a CACHE smaller than their demand) makes every call wait for
// a commit, and its callers fall into two groups that take turns: the
// callers a commit serves send their next call while the next commit,
// which carries the other group's, is in flight, and wait for the one
// after it. Each commit then carries half the callers, and the store
// syncs twice as often as one commit per round of callers needs. (Redis,
// whose one thread blocks on its fsync, reads every client's next
// request in its next turn, and syncs once per round.)
//
// So the writer, about to commit a write of such a sequence, lingers
// until the sequence's demand beyond its durable values reaches what its
// last commit left it (the callers that commit served, on their way
// back, and those it left waiting), for at most as long as that commit
// took and never more than maxLinger. A caller that does not come back costs the others one such
// wait, and the commit after it no longer counts that caller. A write
// that no caller waits for (a prefetch) is never held, nor one that a
// caller of a range or a bulk reservation waits for.

// maxLinger bounds one linger, whatever the store's commits take.
var maxLinger = time.Millisecond

// maxExpected bounds the sequences the writer keeps an expectation for;
// past it, they are forgotten and counted afresh.
const maxExpected = 4096

// expectLocked notes, as a write of s completes (its done, on the writer
// goroutine, s.mu held), the demand its next write should wait for: all
// demand now, the callers this write served and those it left waiting.
func (w *writer) expectLocked(s *seq) {
	switch {
	case s.demand > 1 && !s.rangedLocked():
		if len(w.expect) >= maxExpected {
			clear(w.expect)
		}
		w.expect[s] = s.demand
	case len(w.expect) > 0:
		delete(w.expect, s)
	}
}

// linger holds batch, about to be committed, while a sequence it extends
// has fewer callers waiting than its last commit left (expectLocked), up
// to min(the last commit's length, maxLinger). It reports whether it
// held the batch (the writer then takes the writes queued meanwhile).
func (w *writer) linger(batch []*write) bool {
	if len(w.expect) == 0 {
		return false
	}
	var began time.Time
	var timer *time.Timer
	defer func() {
		w.watched.Store(nil)
		if timer != nil {
			timer.Stop()
		}
		for _, wr := range batch {
			if wr.seq != nil {
				delete(w.expect, wr.seq)
			}
		}
	}()
	for {
		s, want := w.short(batch)
		if s == nil {
			break
		}
		if timer == nil {
			bound := min(w.lastCommit, maxLinger)
			if bound <= 0 {
				break
			}
			began = time.Now()
			timer = time.NewTimer(bound)
		}
		if w.watched.Load() != s || w.watchedFor.Load() != want {
			// Watched, then read again (short): a caller adding demand
			// after that read sees the watch and nudges
			// (nudgeIfWatchedLocked), one before it is seen there.
			w.watchedFor.Store(want)
			w.watched.Store(s)
			continue
		}
		select {
		case <-w.more:
			continue
		case <-timer.C:
			w.lingersExpired.Add(1)
		}
		break
	}
	if timer == nil {
		return false
	}
	w.lingers.Add(1)
	w.lingered.Add(int64(time.Since(began)))
	return true
}

// needLocked is the demand of s that its durable values do not cover:
// what its next write is for. Right after a commit it is the callers that
// commit left waiting (those it served are still counted in demand, and
// their values in remaining, until they wake and take them).
func (s *seq) needLocked() int64 { return s.demand - s.remaining }

// rangedLocked reports whether a caller waiting on s wants more than one
// value: demand then counts values, not callers, and no linger is held
// for it (a bulk reservation's next statement would wait out the bound).
func (s *seq) rangedLocked() bool { return s.rare != nil && s.rare.ranged > 0 }

// short returns the first sequence of batch with callers waiting beyond
// its durable values, but fewer than expected, and how many are
// expected.
func (w *writer) short(batch []*write) (*seq, int64) {
	for _, wr := range batch {
		s := wr.seq
		if s == nil {
			continue
		}
		want, ok := w.expect[s]
		if !ok {
			continue
		}
		s.mu.Lock()
		d, ranged := s.needLocked(), s.rangedLocked()
		s.mu.Unlock()
		if d > 0 && d < want && !ranged {
			return s, want
		}
		delete(w.expect, s)
	}
	return nil, 0
}

// nudgeIfWatchedLocked wakes the lingering writer when s's demand has
// reached what it waits for. REQUIRES: s.mu held.
func (w *writer) nudgeIfWatchedLocked(s *seq) {
	if w.watched.Load() != s || s.needLocked() < w.watchedFor.Load() {
		return
	}
	select {
	case w.more <- struct{}{}:
	default:
	}
}
