package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seqd/seqd/storage"
)

// write is one record write and what to do once its commit is known. Both
// functions run on the writer goroutine, with no lock held.
type write struct {
	op storage.Op
	// extra are further ops committed atomically with op (a rename's
	// delete and put, a drop's comment).
	extra []storage.Op
	// prepare, if set, computes op when the writer takes the write; false
	// drops the write (prepare has then done its own cleanup and done is
	// not called).
	prepare func() (storage.Op, bool)
	done    func(storage.Rev, error)
	// alone: committed in a commit of its own, because it may fail in a
	// way that must fail no other write: storage.ErrConflict (it compares
	// a record other nodes write: a NOORDER sequence's range record), or
	// storage.ErrTooLarge (a transaction of many records).
	alone bool
	// seq is the sequence whose mark this write extends (refillLocked),
	// for the writer's linger; nil for every other write.
	seq *seq
}

// writer is the one goroutine that owns the store's write path. It takes
// every write queued since its last commit (up to maxBatch) into a single
// synced commit: group commit across sequences.
type writer struct {
	e        *Engine
	maxBatch int

	mu    sync.Mutex // invariant 15: a leaf of the lock order
	queue []*write

	wake    chan struct{}
	quit    chan struct{}
	stopped chan struct{}

	// The linger (linger.go): the callers each contended sequence's
	// last commit left waiting or served, who may be back for its next
	// (the writer goroutine's alone), and the sequence the writer
	// lingers for now, until its demand reaches watchedFor.
	expect         map[*seq]int64
	lastCommit     time.Duration // the last commit's length
	more           chan struct{}
	watched        atomic.Pointer[seq]
	watchedFor     atomic.Int64
	lingers        atomic.Int64 // commits the writer lingered before
	lingersExpired atomic.Int64 // of them, those whose callers did not all come back in time
	lingered       atomic.Int64 // their lingers, in nanoseconds

	commits  atomic.Int64
	records  atomic.Int64
	failures atomic.Int64 // commits whose outcome is unknown (storage.Refused ones are not)
	full     atomic.Bool  // the last commit was refused for a full disk
}

func (w *writer) start(e *Engine, maxBatch int) {
	w.e, w.maxBatch = e, maxBatch
	w.wake = make(chan struct{}, 1)
	w.quit = make(chan struct{})
	w.stopped = make(chan struct{})
	w.more = make(chan struct{}, 1)
	w.expect = map[*seq]int64{}
	go w.loop()
}

// submit queues a write; it never blocks on I/O, and takes writer.mu
// alone (invariant 15): callers may hold any other lock.
func (w *writer) submit(wr *write) {
	w.mu.Lock()
	w.queue = append(w.queue, wr)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// stop ends the loop once the queue is empty. REQUIRES: nothing submits
// after stop is called.
func (w *writer) stop() {
	close(w.quit)
	<-w.stopped
}

// take appends to batch the writes queued, up to maxBatch in all. A
// write that must be alone is taken only into an empty batch, and alone.
func (w *writer) take(batch []*write) []*write {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(batch) > 0 && batch[0].alone {
		return batch
	}
	n := min(len(w.queue), w.maxBatch-len(batch))
	for i, wr := range w.queue[:n] {
		if wr.alone {
			if len(batch) == 0 && i == 0 {
				n = 1 // it alone
			} else {
				n = i // the writes before it
			}
			break
		}
	}
	batch = append(batch, w.queue[:n]...)
	rest := copy(w.queue, w.queue[n:])
	clear(w.queue[rest:])
	w.queue = w.queue[:rest]
	return batch
}

func (w *writer) loop() {
	defer close(w.stopped)
	var batch []*write
	var ops []storage.Op
	for {
		batch = w.take(batch[:0])
		if len(batch) == 0 {
			select {
			case <-w.wake:
				continue
			case <-w.quit:
				return
			}
		}
		if w.linger(batch) {
			batch = w.take(batch)
		}
		ops = ops[:0]
		kept := batch[:0]
		for _, wr := range batch {
			if wr.prepare != nil {
				op, ok := wr.prepare()
				if !ok {
					continue
				}
				wr.op = op
			}
			ops = append(ops, wr.op)
			ops = append(ops, wr.extra...)
			kept = append(kept, wr)
		}
		clear(batch[len(kept):])
		batch = kept
		if len(batch) == 0 {
			continue
		}
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), w.e.commitTimeout)
		rev, err := w.e.store.Commit(ctx, w.e.token, ops)
		cancel()
		w.lastCommit = time.Since(began)
		w.commits.Add(1)
		w.records.Add(int64(len(batch)))
		switch {
		case err == nil:
			w.full.Store(false)
		case errors.Is(err, storage.ErrDiskFull):
			// Refused, nothing written: the store is sound, and says so
			// again once space is freed (Healthy).
			w.full.Store(true)
		case storage.Refused(err):
			// The request's own fault (too large): the store is sound.
		default:
			w.failures.Add(1)
			if errors.Is(err, storage.ErrFenced) {
				w.e.deposed.Store(true)
			}
		}
		if w.e.onCommit != nil {
			w.e.onCommit(len(batch), time.Since(began))
		}
		if err == nil {
			// Before done, so that a write is noted once its caller
			// returns (a drain before a sequence applies it sees its
			// revision behind, and reports it again: MarkWatch.Drain).
			w.e.noteWritten(ops, rev)
		}
		for _, wr := range batch {
			wr.done(rev, err)
		}
		clear(batch)
	}
}
