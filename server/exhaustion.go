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
	last   map[string]rateSample // by sequence: position at the previous check
	warned map[string]time.Time  // by sequence: when it was last logged
	near   int                   // sequences within the horizon at the last check
}

func newExhaustionWatch(horizon time.Duration) *exhaustionWatch {
	return &exhaustionWatch{horizon: horizon, last: map[string]rateSample{}, warned: map[string]time.Time{}}
}

// check samples every sequence at now and warns of those projected to run
// out within the horizon; it returns their names.
func (w *exhaustionWatch) check(list []engine.Info, now time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var near []string
	next := make(map[string]rateSample, len(list))
	for _, info := range list {
		key := info.Name.String()
		used, total := info.RangeUse()
		next[key] = rateSample{used: used, at: now}
		prev, ok := w.last[key]
		if !ok || used <= prev.used {
			continue
		}
		rate := (used - prev.used) / now.Sub(prev.at).Seconds()
		seconds := (total - used) / rate // as a float: it may not fit a Duration
		if seconds > w.horizon.Seconds() {
			continue
		}
		eta := time.Duration(seconds * float64(time.Second))
		near = append(near, key)
		if t, ok := w.warned[key]; !ok || now.Sub(t) >= 24*time.Hour {
			w.warned[key] = now
			slog.Warn("sequence projected to reach its limit", "sequence", key, "in", eta.Round(time.Minute).String(),
				"values_left", total-used, "per_second", rate)
		}
	}
	w.last, w.near = next, len(near)
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
func (w *exhaustionWatch) run(sequences func() (list []engine.Info, ok bool), period time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(period)
	defer t.Stop()
	check := func(now time.Time) {
		list, ok := sequences()
		if !ok {
			w.mu.Lock()
			w.last, w.near = map[string]rateSample{}, 0
			w.mu.Unlock()
			return
		}
		w.check(list, now)
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
