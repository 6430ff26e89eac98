package console

import (
	"sync"
	"time"

	"github.com/seqd/seqd/engine"
)

// The charts' memory is bounded whatever the store holds: positions are
// sampled only for the sequences viewed, at most maxTracked at once
// (the one viewed longest ago gives its place), each in a ring of
// ringSize samples, and a sequence not viewed for ringSize samples'
// time is forgotten.
const (
	DefaultSampleEvery = 30 * time.Second
	ringSize           = 360 // three hours at DefaultSampleEvery
	maxTracked         = 256
)

// Sample is a sequence's range use at a time.
type Sample struct {
	At   int64   `json:"at"`   // Unix milliseconds
	Used float64 `json:"used"` // values used, in increments
}

// track is one sequence's samples, in a ring.
type track struct {
	name   engine.Name
	id     uint64
	ring   [ringSize]Sample
	n      int // samples in the ring
	next   int // where the next sample goes
	viewed time.Time
}

func (t *track) add(s Sample) {
	t.ring[t.next] = s
	t.next = (t.next + 1) % ringSize
	t.n = min(t.n+1, ringSize)
}

// samples are the ring's samples, oldest first.
func (t *track) samples() []Sample {
	out := make([]Sample, 0, t.n)
	for i := range t.n {
		out = append(out, t.ring[(t.next-t.n+i+ringSize)%ringSize])
	}
	return out
}

// rates samples the sequences viewed. It is safe for concurrent use; its
// sampler runs only while a sequence is tracked.
type rates struct {
	every  time.Duration
	max    int
	engine func() *engine.Engine

	mu       sync.Mutex
	tracks   map[uint64]*track
	sampling bool
	stopped  bool
	quit     chan struct{}
}

func newRates(every time.Duration, max int, eng func() *engine.Engine) *rates {
	return &rates{every: every, max: max, engine: eng, tracks: map[uint64]*track{}, quit: make(chan struct{})}
}

// view tracks the sequence n (of ID id) from now, if it is not yet, and
// returns its samples and one taken now.
func (r *rates) view(n engine.Name, id uint64) []Sample {
	u, ok := r.engine().UseOf(n)
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tracks[id]
	if t == nil {
		r.evictLocked()
		t = &track{name: n, id: id}
		r.tracks[id] = t
	}
	t.viewed = now
	out := t.samples()
	if ok && u.ID == id {
		s := Sample{At: now.UnixMilli(), Used: u.Used}
		if t.n == 0 { // the first: kept, not shown twice
			t.add(s)
		}
		out = append(out, s)
	}
	if !r.sampling && !r.stopped {
		r.sampling = true
		go r.sample()
	}
	return out
}

// evictLocked makes room for one more track. REQUIRES: r.mu.
func (r *rates) evictLocked() {
	if len(r.tracks) < r.max {
		return
	}
	var oldest *track
	for _, t := range r.tracks {
		if oldest == nil || t.viewed.Before(oldest.viewed) {
			oldest = t
		}
	}
	delete(r.tracks, oldest.id)
}

// sample adds a sample to every track each period, and forgets the
// tracks not viewed for a ring's time; it returns once none is left.
func (r *rates) sample() {
	tick := time.NewTicker(r.every)
	defer tick.Stop()
	for {
		select {
		case <-r.quit:
			return
		case now := <-tick.C:
			if !r.sampleAll(now) {
				return
			}
		}
	}
}

// sampleAll samples every track at now; false once none is left (the
// sampler then stops).
func (r *rates) sampleAll(now time.Time) bool {
	eng := r.engine()
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, t := range r.tracks {
		if now.Sub(t.viewed) > ringSize*r.every {
			delete(r.tracks, id)
			continue
		}
		if u, ok := eng.UseOf(t.name); ok && u.ID == id {
			t.add(Sample{At: now.UnixMilli(), Used: u.Used})
		}
	}
	if len(r.tracks) == 0 {
		r.sampling = false
	}
	return r.sampling
}

// stop ends the sampler.
func (r *rates) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		r.stopped = true
		close(r.quit)
	}
}
