package server

import (
	"log/slog"
	"sync"
	"time"

	"github.com/seqd/seqd/engine"
)

// exhaustionWatch warns of sequences that, at their current rate, reach
// their limit within the horizon: logged once a day per sequence, counted
// in seqd_sequences_near_exhaustion. No database the project compares with
// warns before a sequence runs out; users ask for exactly that.
type exhaustionWatch struct {
	horizon time.Duration

	mu     sync.Mutex
	at     time.Time          // the previous check
	last   map[uint64]float64 // by sequence ID: values used at the previous check
	warned map[uint64]time.Time
	near   int // sequences within the horizon at the last check
}

func newExhaustionWatch(horizon time.Duration) *exhaustionWatch {
	return &exhaustionWatch{horizon: horizon, last: map[uint64]float64{}, warned: map[uint64]time.Time{}}
}

// check samples every sequence each gives at now and warns of those
// projected to run out within the horizon; it returns their names. What
// it keeps of each sequence is its ID and how much of its range it had
// used (a million sequences: about 30 MB).
func (w *exhaustionWatch) check(each func(func(engine.Info)), now time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var near []string
	next := make(map[uint64]float64, len(w.last))
	elapsed := now.Sub(w.at).Seconds()
	each(func(info engine.Info) {
		used, total := info.RangeUse()
		next[info.ID] = used
		prev, ok := w.last[info.ID]
		if !ok || used <= prev {
			return
		}
		rate := (used - prev) / elapsed
		seconds := (total - used) / rate // as a float: it may not fit a Duration
		if seconds > w.horizon.Seconds() {
			return
		}
		eta := time.Duration(seconds * float64(time.Second))
		key := info.Name.String()
		near = append(near, key)
		if t, ok := w.warned[info.ID]; !ok || now.Sub(t) >= 24*time.Hour {
			w.warned[info.ID] = now
			slog.Warn("sequence projected to reach its limit", "sequence", key, "in", eta.Round(time.Minute).String(),
				"values_left", total-used, "per_second", rate)
		}
	})
	w.last, w.at, w.near = next, now, len(near)
	return near
}

// Near is how many sequences were within the horizon at the last check.
func (w *exhaustionWatch) Near() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.near
}

// run checks every period until stop is closed. sequences lists what to
// check; ok false (a cluster node that does not lead: the leader warns)
// checks nothing and forgets the rates seen, which a new leadership
// measures afresh.
func (w *exhaustionWatch) run(sequences func() (each func(func(engine.Info)), ok bool), period time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(period)
	defer t.Stop()
	check := func(now time.Time) {
		each, ok := sequences()
		if !ok {
			w.mu.Lock()
			w.last, w.near = map[uint64]float64{}, 0
			w.mu.Unlock()
			return
		}
		w.check(each, now)
	}
	check(time.Now())
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			check(now)
		}
	}
}
