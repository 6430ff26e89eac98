package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
)

// NOORDER sequences in cluster mode (Oracle RAC's NOORDER, CockroachDB's
// per-node cache): every node, leader or not, hands out values from
// blocks of CACHE values it reserves for itself, so values are unique
// across the cluster and ordered per node only, and no node waits for
// another, or for a leader, while its block lasts.
//
// A block is reserved by one compare-and-swap (storage.Swapper) of the
// sequence's range record (rangeKey: the position up to which blocks are
// reserved, and the epoch it counts in) guarded by the sequence's own
// record: the swap succeeds only if neither changed since it read them,
// so two nodes never reserve the same values, and a reservation made
// while the leader rewrote the sequence is made again on the new
// definition. The leader never writes the range record: when it sets the
// position (setval, RESTART, becoming NOORDER) it writes the sequence's
// record with the next epoch, and a range record of an older epoch counts
// for nothing: the next block starts at the record's position.
//
// A node serves the rest of its block after setval, RESTART or ALTER,
// as a PostgreSQL session serves the rest of its cached values; a block
// a node does not finish (a restart, a crash) is burned, never reissued.

// rangePrefix begins the range records' keys (catalog records: the
// leader's engine skips them).
const rangePrefix = catalogPrefix + "range:"

func rangeKey(id uint64) string { return rangePrefix + strconv.FormatUint(id, 16) }

// rangeRecord is a range record's value: version 1, the epoch, and the
// position up to which blocks are reserved (last, is_called).
type rangeRecord struct {
	epoch uint64
	state seqmath.State
}

const rangeRecordSize = 18

func (r rangeRecord) encode() []byte {
	b := make([]byte, 1, rangeRecordSize)
	b[0] = 1
	b = binary.BigEndian.AppendUint64(b, r.epoch)
	b = binary.BigEndian.AppendUint64(b, uint64(r.state.Last))
	called := byte(0)
	if r.state.Called {
		called = 1
	}
	return append(b, called)
}

func decodeRangeRecord(b []byte) (rangeRecord, error) {
	if len(b) != rangeRecordSize || b[0] != 1 || b[17] > 1 {
		return rangeRecord{}, fmt.Errorf("seqd: corrupt range record (%d bytes)", len(b))
	}
	return rangeRecord{epoch: binary.BigEndian.Uint64(b[1:]),
		state: seqmath.State{Last: int64(binary.BigEndian.Uint64(b[9:])), Called: b[17] == 1}}, nil
}

// Ranges serves a node's NOORDER sequences: the blocks it reserved, kept
// across the engines the node opens (a follower opens a snapshot every
// few seconds), by sequence ID. Safe for concurrent use. Locks: a
// block's mu, then mu, never the other way, with no engine lock held
// (Engine's invariant 19).
type Ranges struct {
	st storage.Swapper

	mu     sync.Mutex
	blocks map[uint64]*block

	reserved atomic.Int64 // blocks reserved
	txns     atomic.Int64 // store transactions made reserving them

	// view is the NOORDER sequences of the node's latest read of the
	// store (Observe): an engine that does not lead serves from it.
	view  atomic.Pointer[rangeView]
	lease time.Duration
	now   func() time.Duration // the clock views age by
}

// rangeView is a node's view of its NOORDER sequences: ID to epoch, as
// of a read of the store begun at at (by the Ranges' clock).
type rangeView struct {
	at   time.Duration
	seqs map[uint64]uint64
	from *Engine // the snapshot it was made of
}

// RangeStats are a node's NOORDER counters since it started.
type RangeStats struct {
	Blocks int64 // blocks reserved
	Txns   int64 // store transactions (reads and compare-and-swaps) made for them
}

// Stats returns the node's counters.
func (r *Ranges) Stats() RangeStats {
	return RangeStats{Blocks: r.reserved.Load(), Txns: r.txns.Load()}
}

// block is the part of a NOORDER sequence's values a node reserved and
// has not handed out yet.
type block struct {
	mu sync.Mutex
	blockState
	// next is a block reserved ahead (prefetch), beyond this one, to be
	// used when this one runs out; fetching, while that reservation is
	// under way, is closed when it ends.
	next     *blockState
	fetching chan struct{}
}

// blockState is a block's values: its epoch, the sequence's options, the
// last value handed out (or the block's start) and how many remain.
type blockState struct {
	epoch     uint64
	opts      seqmath.Options
	cur       seqmath.State
	remaining int64
}

// NewRanges returns a node's NOORDER ranges over st, the cluster's store.
// lease is how long after a read of the store (Observe) a node that does
// not lead serves on what it read, and how long a DROP of a NOORDER
// sequence waits before it returns: the nodes' views of the catalog are
// leases, as F1's and CockroachDB's schema leases are.
//
// clock is what a view's age is counted on (nil: Go's monotonic clock).
// It must count the time the machine was suspended (cluster.SystemClock),
// as the leader's lease does: on the monotonic clock, which stops then, a
// follower resumed after a DROP or a setval's new epoch had waited out
// its lease would serve on from its old view.
func NewRanges(st storage.Swapper, lease time.Duration, clock func() time.Duration) *Ranges {
	if clock == nil {
		origin := time.Now()
		clock = func() time.Duration { return time.Since(origin) }
	}
	return &Ranges{st: st, blocks: map[uint64]*block{}, lease: lease, now: clock}
}

// Now is the time by the Ranges' clock, for Observe and Renew.
func (r *Ranges) Now() time.Duration { return r.now() }

// Observe makes e, a snapshot of the store whose read began at at (by
// Now), the node's view of its NOORDER sequences, if it is newer.
func (r *Ranges) Observe(at time.Duration, e *Engine) {
	v := &rangeView{at: at, seqs: map[uint64]uint64{}, from: e}
	e.catMu.RLock()
	for s := range e.seqs.values() {
		s.mu.Lock()
		if s.opts.NoOrder && !s.gone {
			v.seqs[s.id] = s.epoch
		}
		s.mu.Unlock()
	}
	e.catMu.RUnlock()
	r.replace(v)
}

// replace makes v the view, unless the view is newer.
func (r *Ranges) replace(v *rangeView) {
	for {
		old := r.view.Load()
		if old != nil && old.at >= v.at || r.view.CompareAndSwap(old, v) {
			return
		}
	}
}

// Renew is Observe for a read-only snapshot e known unchanged in the
// store as of at (a follower's watch says no record changed since e was
// read): the view of e is kept, as of at, without going over e's
// sequences again.
func (r *Ranges) Renew(at time.Duration, e *Engine) {
	if old := r.view.Load(); old != nil && old.from == e {
		r.replace(&rangeView{at: at, seqs: old.seqs, from: e})
		return
	}
	r.Observe(at, e)
}

// current checks a NOORDER sequence against the node's view: the epoch
// it has there, errChanged if it is gone from it, an error if the view
// is older than the lease (the node may not know of a DROP).
func (r *Ranges) current(name Name, id uint64) (uint64, error) {
	v := r.view.Load()
	if v == nil || r.now()-v.at > r.lease {
		age := "never read"
		if v != nil {
			age = fmt.Sprintf("last read %v ago", (r.now() - v.at).Round(time.Millisecond))
		}
		return 0, &Error{Kind: ErrStorage, Msg: fmt.Sprintf("cannot serve NOORDER sequence \"%s\": this node's view of the store is out of date (%s)", name.Rel(), age)}
	}
	epoch, ok := v.seqs[id]
	if !ok {
		return 0, errChanged
	}
	return epoch, nil
}

// settle waits out the nodes' leases after a DROP of a NOORDER sequence:
// once it returns, no node serves the sequence any more.
func (r *Ranges) settle(ctx context.Context) {
	t := time.NewTimer(r.lease)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func (r *Ranges) block(id uint64) *block {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.blocks[id]
	if b == nil {
		b = &block{}
		r.blocks[id] = b
	}
	return b
}

func (r *Ranges) forget(id uint64) {
	r.mu.Lock()
	delete(r.blocks, id)
	r.mu.Unlock()
}

// errFrozen: the sequence is being made ORDER (record.frozen).
var errFrozen = errors.New("seqd: sequence frozen")

// frozenWait is how long a node waits for a frozen sequence to be
// thawed or made ORDER before it fails the request.
const frozenWait = 5 * time.Second

// errChanged: the sequence's stored record is no longer the NOORDER
// sequence the engine knows (dropped, made again, made ORDER); the
// engine's view is older than the store's.
var errChanged = errors.New("seqd: sequence changed")

// take is reserve for a NOORDER sequence: n values (0: nextval's one, as
// reserve counts it) from the node's block, reserving a new block when
// it holds too few. epoch is the sequence's as the engine knows it: a
// block of an older epoch is given up.
func (r *Ranges) take(ctx context.Context, name Name, key string, id, epoch uint64, n int64, whole, leads bool) (seqmath.Range, error) {
	if !leads {
		// An engine that does not lead may be older than the store: the
		// node's latest view says whether the sequence is still there.
		latest, err := r.current(name, id)
		if errors.Is(err, errChanged) {
			r.forget(id)
			return seqmath.Range{}, changedError(name)
		}
		if err != nil {
			return seqmath.Range{}, err
		}
		epoch = max(epoch, latest)
	}
	b := r.block(id) // Ranges.mu released: it is taken under b.mu only (invariant 19)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.epoch < epoch {
		b.remaining = 0
	}
	rel := name.Rel()
	for {
		k := n
		if n == 0 {
			k = 1
			if b.remaining > 0 {
				var ok bool
				if k, ok = b.opts.NextSteps(b.cur); !ok {
					k = b.remaining + 1 // past the limit: a new block says so
				}
			}
		}
		if b.remaining > 0 {
			if k <= b.remaining || !whole && n > 0 {
				rg, next, err := b.opts.Reserve(b.cur, min(k, b.remaining), rel)
				if err != nil {
					return seqmath.Range{}, err
				}
				b.cur = next
				b.remaining -= rg.Count
				r.ahead(name, key, id, b)
				if n == 0 {
					return seqmath.Range{First: b.opts.Value(rg.Last()), Count: 1, Increment: 1}, nil
				}
				return rg, nil
			}
		}
		// A new block: the one reserved ahead, once its reservation
		// ends, if it is of the epoch and holds enough; else one of at
		// least CACHE values and all a whole range needs. The rest of
		// the old one (and of one reserved ahead that is not used) is
		// burned.
		if ch := b.fetching; ch != nil {
			b.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
			}
			b.mu.Lock()
			if ctx.Err() != nil {
				return seqmath.Range{}, ctx.Err()
			}
			continue
		}
		if nb := b.next; nb != nil {
			b.next = nil
			if nb.epoch >= epoch && (n == 0 || nb.remaining >= k || !whole) {
				b.blockState = *nb
				continue
			}
		}
		err := r.reserve(ctx, name, key, id, k, b)
		for began := time.Now(); errors.Is(err, errFrozen) && time.Since(began) < frozenWait && ctx.Err() == nil; {
			time.Sleep(20 * time.Millisecond) // the leader is making it ORDER
			err = r.reserve(ctx, name, key, id, k, b)
		}
		if errors.Is(err, errFrozen) {
			return seqmath.Range{}, changedError(name)
		}
		if err != nil {
			if errors.Is(err, errChanged) {
				r.forget(id)
				return seqmath.Range{}, changedError(name)
			}
			return seqmath.Range{}, err
		}
	}
}

// ahead reserves the block after b in the background once b is half
// used, so that a node seldom waits for etcd when a block runs out: it
// holds at most two blocks, and a node that dies burns both.
// REQUIRES: b.mu held.
func (r *Ranges) ahead(name Name, key string, id uint64, b *block) {
	if b.next != nil || b.fetching != nil || b.opts.Cache <= 1 || b.remaining > b.opts.Cache/2 {
		return
	}
	done := make(chan struct{})
	b.fetching = done
	go func() {
		got, err := r.reserveBlock(context.Background(), name, key, id, 0)
		b.mu.Lock()
		if err == nil {
			b.next = &got
		}
		b.fetching = nil
		close(done)
		b.mu.Unlock()
	}()
}

// reserve reserves the next block of the sequence in the store for this
// node into b. REQUIRES: b.mu held.
func (r *Ranges) reserve(ctx context.Context, name Name, key string, id uint64, need int64, b *block) error {
	got, err := r.reserveBlock(ctx, name, key, id, need)
	if err != nil {
		return err
	}
	b.blockState = got
	return nil
}

// reserveBlock reserves the next block of the sequence in the store for
// this node: at least CACHE values, and need.
func (r *Ranges) reserveBlock(ctx context.Context, name Name, key string, id uint64, need int64) (blockState, error) {
	var got blockState
	err := r.st.Swap(ctx, key, rangeKey(id), func(g, cur storage.KV) ([]byte, error) {
		r.txns.Add(1) // the read; the swap's write is counted below
		if g.Rev == 0 {
			return nil, errChanged
		}
		rec, err := decodeRecord(g.Value)
		if err != nil {
			return nil, err
		}
		if rec.id != id || !rec.opts.NoOrder {
			return nil, errChanged
		}
		if rec.frozen {
			return nil, errFrozen
		}
		start := rec.state
		if cur.Rev != 0 {
			rr, err := decodeRangeRecord(cur.Value)
			if err != nil {
				return nil, err
			}
			if rr.epoch == rec.epoch {
				start = rr.state
			}
		}
		want := max(rec.opts.Cache, need)
		if want > MaxReserve {
			want = MaxReserve
		}
		rg, next, err := rec.opts.Reserve(start, want, name.Rel())
		if err != nil {
			return nil, err // the limit, without CYCLE
		}
		got = blockState{epoch: rec.epoch, opts: rec.opts, cur: start, remaining: rg.Count}
		r.txns.Add(1)
		return rangeRecord{epoch: rec.epoch, state: next}.encode(), nil
	})
	if err != nil {
		if e := (*Error)(nil); errors.As(err, &e) || errors.Is(err, errChanged) || errors.Is(err, errFrozen) || errors.Is(err, seqmath.ErrLimitReached) {
			return got, err
		}
		return got, &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not reserve values of sequence \"%s\": %v", name.Rel(), err)}
	}
	r.reserved.Add(1)
	return got, nil
}

// Unordered reports whether this engine serves n from its node's blocks:
// a NOORDER sequence in cluster mode, which a standby serves too.
func (e *Engine) Unordered(n Name) bool {
	if e.ranges == nil {
		return false
	}
	s, err := e.lookup(n)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.NoOrder
}

// errPeek ends a Swap that only reads.
var errPeek = errors.New("seqd: read only")

// position is where a NOORDER sequence's values are reserved up to, in
// the epoch the engine knows (cur: the record's position, where the epoch
// began), and the op that, in the leader's commit, checks that no node
// reserved more since (and removes the range record).
func (r *Ranges) position(ctx context.Context, key string, id, epoch uint64, cur seqmath.State) (seqmath.State, storage.Op, error) {
	pos, op := cur, storage.Op{Key: rangeKey(id), Shared: true}
	err := r.st.Swap(ctx, key, rangeKey(id), func(_, c storage.KV) ([]byte, error) {
		pos, op.Expect = cur, c.Rev
		if c.Rev != 0 {
			rr, err := decodeRangeRecord(c.Value)
			if err != nil {
				return nil, err
			}
			if rr.epoch == epoch {
				pos = rr.state
			}
		}
		return nil, errPeek
	})
	if !errors.Is(err, errPeek) {
		return cur, op, err
	}
	return pos, op, nil
}

// Reserved is info with, for a NOORDER sequence in cluster mode, the
// position the nodes have reserved up to (what PostgreSQL's last_value
// shows of a sequence whose sessions cache values: the state on disk),
// read from the store.
func (e *Engine) Reserved(ctx context.Context, info Info) (Info, error) {
	if e.ranges == nil || !info.Options.NoOrder {
		return info, nil
	}
	pos, _, err := e.ranges.position(ctx, info.Name.key, info.ID, info.Epoch, info.State)
	if err != nil {
		return info, &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not read the reserved values of sequence \"%s\": %v", info.Name.Rel(), err)}
	}
	info.State, info.Window = pos, 0
	return info, nil
}

// maxCleanup bounds the ops of the commit that marks the store in use,
// range records of dropped sequences included (the rest wait for the
// next takeover): etcd's transaction limit is 128.
const maxCleanup = 64

// changedError: the sequence an engine that does not lead knows was
// dropped or changed since its snapshot; the client tries again (on a
// new session, which sees the node's latest snapshot).
func changedError(name Name) *Error { return concurrentUpdate(name, errChanged) }

// concurrentUpdate is PostgreSQL's 40001 for a sequence that changed
// under the request, for cause.
func concurrentUpdate(name Name, cause error) *Error {
	return &Error{Kind: ErrSerialization, Err: cause,
		Msg: fmt.Sprintf("could not serialize access due to concurrent update of sequence \"%s\"", name.Rel())}
}
