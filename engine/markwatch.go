package engine

import (
	"strings"
	"sync"
	"weak"

	"github.com/seqd/seqd/storage"
)

// A MarkWatch tells which sequences' records were written since it last
// looked, so that a watch over every sequence's range use (the metrics'
// nearest to their limits) need not pass over a million sequences to
// find the few that moved. A sequence's durable mark (Use.Reserved)
// moves only with a write of its record: nextval within the window and
// a release move its position, not its mark. The writes are noted as
// the store commits them (and, in a read-only engine, as Follow takes
// them); a watch that falls more than markWatchMax sequences behind
// says so (Drain's complete false), and its reader passes over them all
// again.
type MarkWatch struct {
	// e is weak: a watch kept by a reader that stopped reading (a
	// scraper gone) does not keep a replaced engine, a follower's old
	// snapshot, in memory.
	e        weak.Pointer[Engine]
	mu       sync.Mutex             // invariant 17: a leaf, taken under a seq.mu by Follow
	pending  map[string]storage.Rev // sequence keys written, at the revision of their write
	overflow bool
	limit    int // most keys pending: markWatchMax (tests: fewer)
}

// markWatchMax bounds a watch's pending keys (about 3 MB).
const markWatchMax = 1 << 16

// WatchMarks starts a watch of e's sequences' records: from now on,
// Drain reports each one written. Stop ends it.
func (e *Engine) WatchMarks() *MarkWatch {
	w := &MarkWatch{e: weak.Make(e), pending: map[string]storage.Rev{}, limit: markWatchMax}
	e.markWatchMu.Lock()
	defer e.markWatchMu.Unlock()
	ws := append(append([]*MarkWatch(nil), e.markWatchers()...), w)
	e.markWatches.Store(&ws)
	return w
}

// Engine is the engine w watches, nil once it was collected.
func (w *MarkWatch) Engine() *Engine { return w.e.Value() }

// Stop ends w: nothing is noted for it any more.
func (w *MarkWatch) Stop() {
	e := w.e.Value()
	if e == nil {
		return
	}
	e.markWatchMu.Lock()
	defer e.markWatchMu.Unlock()
	var ws []*MarkWatch
	for _, o := range e.markWatchers() {
		if o != w {
			ws = append(ws, o)
		}
	}
	e.markWatches.Store(&ws)
}

func (e *Engine) markWatchers() []*MarkWatch {
	if p := e.markWatches.Load(); p != nil {
		return *p
	}
	return nil
}

// noteWritten tells the watches that ops were committed at rev.
func (e *Engine) noteWritten(ops []storage.Op, rev storage.Rev) {
	ws := e.markWatchers()
	if len(ws) == 0 {
		return
	}
	for _, w := range ws {
		w.mu.Lock()
		for _, op := range ops {
			if w.overflow {
				break
			}
			if strings.HasPrefix(op.Key, catalogPrefix) {
				continue // not a sequence's record
			}
			if r, ok := w.pending[op.Key]; !ok || r < rev {
				if !ok && len(w.pending) >= w.limit {
					w.overflow, w.pending = true, map[string]storage.Rev{}
					break
				}
				w.pending[op.Key] = rev
			}
		}
		w.mu.Unlock()
	}
}

// Drain calls use with the range use of each sequence whose record was
// written since the last Drain, and gone with the name of each written
// that is no longer there (dropped, or renamed: its new name is among
// those used). complete is false if more were written than the watch
// keeps, or its engine was collected: some were not reported, and the
// caller must pass over every sequence (EachUse) to know where they are. A sequence whose write is
// committed but not yet applied in memory is reported now and again at
// the next Drain.
func (w *MarkWatch) Drain(use func(Use), gone func(Name)) (complete bool) {
	e := w.e.Value()
	if e == nil {
		return false
	}
	w.mu.Lock()
	pending, overflow := w.pending, w.overflow
	w.pending, w.overflow = map[string]storage.Rev{}, false
	w.mu.Unlock() // before catMu and a seq.mu: a leaf (invariant 17)
	later := map[string]storage.Rev{}
	for key, rev := range pending {
		e.catMu.RLock()
		s := e.seqs.get(key)
		e.catMu.RUnlock()
		var u Use
		ok := false
		if s != nil {
			s.mu.Lock()
			if ok = s.usableLocked() == nil; ok {
				u = s.useLocked()
				if s.rev < rev {
					later[key] = rev
				}
			}
			s.mu.Unlock()
		}
		if ok {
			use(u)
		} else if n, valid := nameFromKey(key); valid {
			gone(n)
		}
	}
	if len(later) > 0 {
		w.mu.Lock()
		for key, rev := range later {
			if r, ok := w.pending[key]; !w.overflow && (!ok || r < rev) {
				w.pending[key] = rev
			}
		}
		w.mu.Unlock()
	}
	return !overflow
}
