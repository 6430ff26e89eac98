// Package engine serves sequences from memory over a durable high-water
// mark that is extended ahead of demand and group-committed to a store.
package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
)

// Sentinel errors, classified with errors.Is. Errors carry PostgreSQL's
// message as their text.
var (
	ErrNotFound    = errors.New("seqd: sequence not found")
	ErrExists      = errors.New("seqd: sequence already exists")
	ErrClosed      = errors.New("seqd: engine closed")
	ErrStorage     = errors.New("seqd: storage failure")
	ErrInvalidName = errors.New("seqd: invalid sequence name")
	// ErrDeposed: another owner took the store (a write was fenced off);
	// this engine serves nothing any more.
	ErrDeposed = errors.New("seqd: store ownership lost")
	// ErrUnsupported: PostgreSQL would do it; seqd cannot here.
	ErrUnsupported = errors.New("seqd: not supported")
)

// Error is an engine failure: a Kind from the sentinels above, a message
// for users, and the underlying cause if any.
type Error struct {
	Kind error
	Msg  string
	Err  error
	Hint string // what the user can do instead, if anything
}

func (e *Error) Error() string   { return e.Msg }
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// Config configures Open. Zero fields take the documented defaults.
type Config struct {
	// Store holds the durable state. Required; Close closes it.
	Store storage.Store
	// RefillPeriod is how long a prefetched window should last at the
	// current rate: a window used up faster doubles (within CACHE), one
	// that lasts more than eight periods halves. Default 50ms.
	RefillPeriod time.Duration
	// MaxBatch is the most records one commit writes. Default 1024.
	MaxBatch int
	// Now is a monotonic clock for window sizing; nil means real time.
	Now func() time.Duration
	// OnCommit, if set, is told of every group commit: how many records
	// it wrote and how long the store took (metrics). It runs on the
	// writer goroutine and must not block.
	OnCommit func(records int, d time.Duration)
	// CommitTimeout bounds one store commit, so that a partitioned store
	// cannot hang the writer: a commit that times out has an unknown
	// outcome, as any failed one. Default 30s.
	CommitTimeout time.Duration
	// Leadership, when set, says whether this node may still act as the
	// store's owner (cluster mode: its term is valid by its own clock).
	// Every request asks it first; once it says false nothing more is
	// handed out (ErrDeposed), and Close writes nothing back.
	Leadership func() bool
	// Ranges, in cluster mode, serves the NOORDER sequences from blocks
	// this node reserves (noorder.go); nil: they are served as any other.
	Ranges *Ranges
	// ReadOnly opens a snapshot of the store for reading only (a cluster
	// follower's catalog): no ownership is taken and nothing is ever
	// written; every write fails. Close leaves the store open (an owner
	// may share it).
	ReadOnly bool
	// MaxTxnLocks bounds the locks one transaction holds: sequences it
	// creates, changes or drops, and names and schemas it creates. The
	// next one fails with ErrTooManyLocks, and the transaction can still
	// be rolled back. It bounds a transaction block's memory and its
	// commit (in cluster mode, how long a large commit takes to apply).
	// Default DefaultMaxTxnLocks; negative: no limit.
	MaxTxnLocks int
	// Temporary says the engine holds a session's temporary sequences,
	// which PostgreSQL does not WAL-log: their log_cnt is counted as an
	// unlogged sequence's (logcnt.go).
	Temporary bool
	// WallClock is the time Snowflake sequences follow (snowflake.go);
	// nil means the system's. Tests step it back and forth.
	WallClock func() time.Time
	// NodeID is the node part of Snowflake sequences' values (its low
	// NODE_BITS bits).
	NodeID int64
	// OnClockBehind, when set, is told how far Snowflake ids run ahead
	// of the clock (a clock stepped back, or a rate above a layout's
	// borrowing ahead) once that is a second or more, at most every 10
	// seconds: the server logs it. It is called with a sequence's lock
	// held, and must not call the engine.
	OnClockBehind func(time.Duration)
	// Lineage, when set, names the catalog the engine is a view of: a
	// cluster node's successive snapshots and terms share one, since a
	// sequence's ID means the same sequence in each (IDs are never
	// reused), and so may what is derived from it (the OIDs sessions
	// show). Default: the engine itself.
	Lineage any
}

// Engine serves sequences. It is safe for concurrent use.
//
// Invariants:
//
//  1. No value beyond a sequence's durable mark is ever handed out. Values
//     are taken only from the window (seq.remaining): the values between
//     the last one handed out (seq.cur) and the mark the store holds
//     durably (seq.durable).
//  2. At most one write per sequence is in flight (seq.writing), so every
//     write expects the revision the previous one produced.
//  3. Prefetch never plans more than CACHE-1 values beyond those that
//     blocked callers asked for: a crash skips fewer than CACHE values that
//     no request was waiting for. With CACHE 1 nothing is prefetched and
//     every value is made durable on demand, group-committed.
//  4. DDL writes the exact state and is durable before it returns; while
//     its write is in flight the window is empty, so no value is handed
//     out that the DDL record would not cover.
//  5. Close writes every sequence's exact position: a restart after a
//     clean Close skips nothing.
//  6. After a write fails (outcome unknown), its sequences hand out no
//     more values and report the failure until the engine is reopened.
//  7. After a write is fenced off (another owner acquired the store),
//     no sequence hands out anything more: a deposed owner stops at once
//     for all of them, never only for the one whose write failed.
//
// Locks, in the order they are taken: a goroutine holding one of them
// takes only locks below it, never one above; none is taken twice at
// once (catMu's read lock neither: a reader waiting behind a writer
// would wait for itself). Each protects the invariant whose number
// follows it.
//
//	roleMu                 8
//	commentMu              9
//	catMu                  10
//	seq.mu (one at a time) 11
//	leaves, which take no other lock:
//	  followMu             12
//	  lockMu               13
//	  heldMu               14
//	  writer.mu            15
//	  renameMu             16
//	  markWatchMu, MarkWatch.mu 17
//	  meter.mu, optionsMu  18
//
// Ranges (noorder.go) takes a block's mu, then Ranges.mu (19), holding
// no lock of an engine and taken under none. A transaction's shadow
// engine (Txn.shadow) is an Engine of its own: its locks are taken with
// at most this engine's roleMu and commentMu held (a commit reads its
// copies), never under catMu or a seq.mu. A goroutine waiting (for a
// write, a transaction, the store) holds no seq.mu nor catMu, except
// that DDL reads a NOORDER sequence's reservations from the store under
// the sequence's mu (mutate).
//
//  8. A role's record is written only under roleMu, expecting the
//     revision read under it, and e.roles changes after the write, under
//     catMu: writes of roles never conflict. A commit that changes roles
//     holds roleMu from its check of their revisions to its apply.
//  9. Comment and ACL records that exist (a sequence's; a schema's or the
//     database's, which transactions change) are rewritten or deleted only
//     under commentMu, each write expecting the revision the one before it
//     left, read under it: a conflict would fail the whole group commit
//     the write rides in. New ones are written with what they belong to
//     (CreateWith, CreateSchema), which nobody else writes meanwhile.
//  10. The catalog (seqs, schemas, comments, ACLs and their owner tables,
//     dbACL, roles, nameLocks, nextID, closing) is read under catMu's read
//     lock and changed under its write lock. An entry of hot is stored
//     under the read lock and deleted under the write lock, so that none
//     outlives its mapping.
//  11. A sequence's fields, id and carved aside, are read and written
//     under its mu (seq's comment); it is released to wait (waitLocked,
//     waitLockLocked), and whoever waited looks at the sequence again.
//  12. In a read-only engine rangeRevs, rangeAt, known, runningRev, epoch
//     and epochRev change under followMu (Follow) and are read under it
//     (copyInto); an owner's are written only while it opens, before it
//     is shared.
//  13. A transaction's waitingFor and released change under lockMu; a
//     waiter takes its holder's released under lockMu while the mutex of
//     the lock it waits for (seq.mu, catMu) still shows the holder, so
//     that it cannot miss the release that frees it (releasedOf).
//  14. held lists a sequence exactly when a transaction holds its lock
//     (seq.lockedBy): both change under the sequence's mu, held under
//     heldMu within it.
//  15. The writer's queue changes under writer.mu, held only to append or
//     take writes: the writer runs prepare and done with no lock held.
//     Its linger's expectations are the writer goroutine's alone; it
//     reads a sequence's demand under the sequence's mu, holding no
//     other lock, and a caller adding demand nudges it without blocking.
//  16. A commit's role renames are noted with the AuthVersion it brings
//     under renameMu, so that RoleRenamesSince returns every rename up to
//     the version it returns.
//  17. markWatches is replaced whole under markWatchMu and read without a
//     lock; a MarkWatch's pending keys change under its mu.
//  18. meter.mu guards the advance meter's buckets, optionsMu the table
//     of interned options.
//  19. One goroutine at a time reserves a block of a NOORDER sequence for
//     this node, holding the block's mu across the store's transaction
//     (a prefetch holds fetching instead); Ranges.mu guards the blocks
//     map, taken under a block's mu to forget it, never the other way.
type Engine struct {
	store        storage.Store
	token        storage.Token
	maxLocks     int   // Config.MaxTxnLocks; 0: no limit
	refillPeriod int32 // in ticks
	now          func() int64
	wall         func() time.Time // Config.WallClock
	nodeID       int64            // Config.NodeID
	onBehind     func(time.Duration)
	behindSaid   atomic.Int64 // when onBehind was last called (Unix nanoseconds)
	// snowflakeBehind: nanoseconds the last Snowflake id ran ahead of
	// the clock (ClockBehind).
	snowflakeBehind atomic.Int64
	// timeMarks are the built-in generators' durable marks as loaded or
	// followed (timegen.go), under followMu; times the generators made
	// from them.
	timeMarks map[string]timeMark
	times     timeGens

	catMu sync.RWMutex // invariant 10
	// seqs are the sequences by key, and in the order of their relation
	// names: prefix lookups of names (InfosWithPrefix) read only the
	// matches.
	seqs    *seqIndex
	schemas map[string]*schema
	// comments are the sequences' comments by sequence ID.
	comments map[uint64]comment
	// acls are the sequences' owners and grants by sequence ID, for
	// those with grants; ownerOnly those of sequences whose ACL is their
	// owner alone (nearly all), without a pointer (no work for the
	// collector) and in 24 bytes instead of 40. Their writes are
	// serialized by commentMu too (aclRecLocked, putACLLocked; invariant
	// 9).
	acls      map[uint64]aclRecord
	ownerOnly map[uint64]ownerRecord
	// ownerNames are the owners' names ownerOnly refers to, ownerIdx
	// their indexes: one string per owner, not one per sequence.
	// ownerRefs counts the records referring to each; ownerFree are the
	// indexes no record refers to, for the next new owner.
	ownerNames []string
	ownerIdx   map[string]uint32
	ownerRefs  []uint32
	ownerFree  []uint32
	// dbACL is the database's (rev 0: none recorded, the defaults).
	dbACL aclRecord
	// hot caches the lookups of up to maxHot names (name -> *seq), so
	// that nextval takes no shared lock: every reader of one RWMutex
	// writes its reader count, which under contention cost more than the
	// rest of nextval. Entries are stored under catMu's read lock and
	// deleted under its write lock (setSeqLocked, delSeqLocked), so none
	// outlives its mapping (invariant 10).
	hot         sync.Map
	hotSize     atomic.Int64  // entries in hot, at most maxHot
	authVersion atomic.Uint64 // see AuthVersion
	meter       advanceMeter  // see Rate
	// markWatches are the MarkWatches noteWritten tells, replaced whole
	// under markWatchMu (the writer reads them without a lock; invariant
	// 17).
	markWatches atomic.Pointer[[]*MarkWatch]
	markWatchMu sync.Mutex
	// roles are who may connect; roleMu serializes their writes
	// (invariant 8).
	roles  map[string]Role
	roleMu sync.Mutex
	// renames are the latest role renames (RoleRenamesSince); renameMu
	// guards them and orders them with authVersion (invariant 16).
	renames  []RoleRename
	renameMu sync.Mutex
	// commentMu serializes the writes of comment records: each expects
	// the revision the one before it left (a conflict would fail the
	// whole group commit it rides in; invariant 9).
	commentMu sync.Mutex
	// catalogRev is the catalog marker's revision, 0 before migration;
	// runningRev the running marker's (see markRunning).
	catalogRev storage.Rev
	runningRev storage.Rev
	rangeRevs  map[uint64]storage.Rev // NOORDER range records at Open, by sequence ID
	rangeAt    map[uint64]rangeRecord // and what they said (MovePast)
	// known, in a read-only engine, are the positions handed out below
	// the marks of its ORDER sequences' records (record.known), as Open
	// read them and Follow keeps them: what Promote counts as burned.
	known map[*seq]seqmath.State
	// followMu guards rangeRevs, rangeAt, known, runningRev, timeMarks, epoch and
	// epochRev in a read-only engine, which Follow keeps current once it
	// serves (an owner's are written only by itself; invariant 12).
	followMu sync.Mutex
	frozen   []*seq // NOORDER sequences left frozen (record.frozen) at Open
	// epoch counts the opens of the store, this one included once
	// markRunning has written it; epochRev is its record's revision.
	epoch          uint64
	epochRev       storage.Rev
	secret         []byte // see Secret; written once, read-only after Open
	fresh          bool   // Open found an empty store
	catalogVersion atomic.Uint64
	extensions     atomic.Int64    // mark extensions submitted
	burned         [3]atomic.Int64 // values burned since Open, by reason (Burned)
	// deposed is set at the first write fenced off by a newer owner: from
	// then on every sequence refuses at once (invariant 7).
	deposed       atomic.Bool
	leadership    func() bool // Config.Leadership
	readOnly      bool        // Config.ReadOnly
	temporary     bool        // Config.Temporary
	ranges        *Ranges     // Config.Ranges
	lineage       any         // Config.Lineage
	commitTimeout time.Duration
	onCommit      func(int, time.Duration)
	nextID        uint64 // low 32 bits of the next new sequence ID
	closing       bool
	// nameLocks are the names transactions are creating (sequence keys,
	// schemaKey+name for schemas): other creators wait (txn.go).
	// REQUIRES: catMu.
	nameLocks map[string]*Txn
	// lockMu guards the transactions' waitingFor (deadlock detection)
	// and released (invariant 13); a leaf of the lock order.
	lockMu sync.Mutex
	// heldMu guards held, the committed sequences whose lock a
	// transaction holds, as Locks lists them (invariant 14); a leaf of
	// the lock order, taken under a sequence's mu.
	heldMu sync.Mutex
	held   map[*seq]*Txn
	// txnSeq numbers the transactions (Locks' transaction numbers).
	txnSeq atomic.Uint64

	w writer
}

// Open recovers every sequence from cfg.Store and starts the writer.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	e, err := newEngine(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.ReadOnly {
		e.readOnly = true
		e.store = readOnlyStore{cfg.Store}
		e.known = map[*seq]seqmath.State{}
	} else {
		tok, err := cfg.Store.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		e.token = tok
	}
	// Positions recorded with marks ahead of them: a read-only engine
	// keeps them (Follow, Promote), an owner counts from them at start.
	known := e.known
	if known == nil {
		known = map[*seq]seqmath.State{}
	}
	e.seqs.deferOrder() // sorted once, after
	err = cfg.Store.Load(ctx, func(kv storage.KV) error {
		if strings.HasPrefix(kv.Key, catalogPrefix) {
			return e.loadCatalog(kv)
		}
		rec, err := decodeRecord(kv.Value)
		if err != nil {
			return fmt.Errorf("%w: key %q", err, kv.Key)
		}
		if _, ok := nameFromKey(kv.Key); !ok {
			return fmt.Errorf("seqd: corrupt sequence key %q", kv.Key)
		}
		s := &seq{key: kv.Key, id: rec.id, opts: internOptions(rec.opts), cur: rec.state, rev: kv.Rev, unlogged: rec.unlogged, epoch: rec.epoch}
		if !e.readOnly {
			s.cur = ownerStart(s.opts, s.cur)
		}
		e.seqs.set(kv.Key, s)
		if rec.hasKnown && !rec.unlogged {
			known[s] = rec.known
		}
		if rec.frozen {
			e.frozen = append(e.frozen, s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.seqs.buildOrder()
	if err := e.start(ctx, cfg, known); err != nil {
		return nil, err
	}
	return e, nil
}

// ownerStart is where a new owner of a sequence resumes from its record's
// position st: st itself, but for a Snowflake sequence the end of st's
// time unit. Every owner's ids then begin on a time unit of its own
// (snowflake.go's third point), and keep their order even when the
// node parts differ: the record may hold an exact position inside a unit
// (a clean shutdown's, setval's, an ALTER's) whose later counters, with
// a lower node part, would sort below the ids handed out before. The
// record is left as it is: the owner's first extension writes past it.
// A unit's first counter not yet called stays: no id of that unit came
// before it.
func ownerStart(o *seqmath.Options, st seqmath.State) seqmath.State {
	if o.Shape.Kind != seqmath.Snowflake {
		return st
	}
	end := min(o.Shape.LastOf(o.Shape.UnitOf(st.Last)), o.Max)
	switch {
	case st.Called:
		st.Last = max(end, st.Last)
	case st.Last > o.Shape.FirstOf(o.Shape.UnitOf(st.Last)) && end < o.Max:
		// The next value (setval's, not yet called) inside a unit the
		// last owner may have handed ids out in: the next unit's first.
		st.Last, st.Called = end, true
	}
	return st
}

// newEngine is an engine of cfg with nothing loaded.
func newEngine(cfg Config) (*Engine, error) {
	if cfg.Store == nil {
		return nil, errors.New("seqd: engine needs a store")
	}
	e := &Engine{
		store:         cfg.Store,
		refillPeriod:  int32(cfg.RefillPeriod >> tickShift),
		seqs:          newSeqIndex(0),
		rangeRevs:     make(map[uint64]storage.Rev),
		rangeAt:       make(map[uint64]rangeRecord),
		schemas:       make(map[string]*schema),
		comments:      make(map[uint64]comment),
		acls:          make(map[uint64]aclRecord),
		ownerOnly:     make(map[uint64]ownerRecord),
		ownerIdx:      make(map[string]uint32),
		onCommit:      cfg.OnCommit,
		leadership:    cfg.Leadership,
		commitTimeout: cfg.CommitTimeout,
		temporary:     cfg.Temporary,
		roles:         make(map[string]Role),
		nameLocks:     make(map[string]*Txn),
		timeMarks:     make(map[string]timeMark),
	}
	if e.commitTimeout <= 0 {
		e.commitTimeout = 30 * time.Second
	}
	if cfg.RefillPeriod <= 0 {
		e.refillPeriod = int32((50 * time.Millisecond) >> tickShift)
	}
	e.refillPeriod = max(e.refillPeriod, 1)
	if cfg.Now != nil {
		e.now = func() int64 { return int64(cfg.Now()) }
	} else {
		start := time.Now()
		e.now = func() int64 { return int64(time.Since(start)) }
	}
	e.wall, e.nodeID, e.onBehind = cfg.WallClock, cfg.NodeID, cfg.OnClockBehind
	if e.wall == nil {
		e.wall = time.Now
	}
	e.ranges = cfg.Ranges
	e.lineage = cfg.Lineage
	if e.lineage == nil {
		e.lineage = e
	}
	switch {
	case cfg.MaxTxnLocks == 0:
		e.maxLocks = DefaultMaxTxnLocks
	case cfg.MaxTxnLocks > 0:
		e.maxLocks = cfg.MaxTxnLocks
	}
	return e, nil
}

// start completes an open once the catalog is loaded: the values a
// crash skipped counted as burned, the catalog migrated and the store
// marked in use (an owner's), and the writer started.
func (e *Engine) start(ctx context.Context, cfg Config, known map[*seq]seqmath.State) error {
	if e.runningRev != 0 && !e.readOnly { // the last run did not close cleanly
		reason := BurnedCrash
		if cfg.Leadership != nil {
			reason = BurnedFailover
		}
		for s, k := range known {
			if s.opts.Shape.Kind == seqmath.Snowflake {
				continue // its counters follow the clock: none is a value anyone waits for
			}
			if n, ok := s.opts.Steps(k, s.cur); ok {
				e.burnLocked(s, reason, n)
			}
		}
	}
	if !e.readOnly {
		if err := e.migrateCatalog(ctx); err != nil {
			return err
		}
		if err := e.markRunning(ctx); err != nil {
			return err
		}
	}
	maxBatch := cfg.MaxBatch
	if maxBatch <= 0 {
		maxBatch = 1024
	}
	e.w.start(e, maxBatch)
	return nil
}

// tickShift makes the engine's clock ticks about a millisecond (2^20 ns):
// a sequence keeps its last refill time in 32 bits, and differences of
// ticks stay right across wraparound.
const tickShift = 20

func (e *Engine) tick() int32 { return int32(e.now() >> tickShift) }

// newIDLocked returns an ID no other sequence has ever had: the epoch in
// the high 32 bits (it grows with every open, durably) and a counter
// below.
// REQUIRES: catMu held for writing.
func (e *Engine) newIDLocked() (uint64, error) {
	if e.nextID >= 1<<32 {
		return 0, &Error{Kind: ErrStorage, Msg: "too many sequences created since the server started; restart it"}
	}
	e.nextID++
	return e.epoch<<32 | e.nextID, nil
}

// maxHot bounds the lookup cache.
const maxHot = 4096

// setSeqLocked maps key to s; delSeqLocked removes key. Both keep the
// lookup cache right. REQUIRES: catMu held for writing.
func (e *Engine) setSeqLocked(key string, s *seq) {
	e.seqs.set(key, s)
	e.forgetLocked(key)
}

func (e *Engine) delSeqLocked(key string) {
	e.seqs.del(key)
	e.forgetLocked(key)
}

func (e *Engine) forgetLocked(key string) {
	if _, had := e.hot.LoadAndDelete(key); had {
		e.hotSize.Add(-1)
	}
}

func (e *Engine) lookup(n Name) (*seq, error) {
	if e.deposed.Load() {
		return e.lookupNoOrder(n, deposedError())
	}
	// A request that passes here while the term is valid may be served
	// after it ends: it was called while this node led, and it is
	// linearizable there (the next leader serves above every mark).
	if e.leadership != nil && !e.leadership() {
		return e.lookupNoOrder(n, &Error{Kind: ErrDeposed, Msg: "this node's leadership has ended: another node serves the sequences"})
	}
	return e.find(n)
}

// lookupNoOrder is lookup once this engine's leadership has ended: a
// NOORDER sequence is still served from the node's blocks (they are the
// node's, whoever leads); anything else fails with deposed.
func (e *Engine) lookupNoOrder(n Name, deposed error) (*seq, error) {
	if e.ranges == nil {
		return nil, deposed
	}
	s, err := e.find(n)
	if err != nil {
		return nil, deposed
	}
	s.mu.Lock()
	noOrder := s.opts.NoOrder
	s.mu.Unlock()
	if !noOrder {
		return nil, deposed
	}
	return s, nil
}

// find is lookup without the leadership checks.
func (e *Engine) find(n Name) (*seq, error) {
	if v, ok := e.hot.Load(n.key); ok {
		return v.(*seq), nil
	}
	e.catMu.RLock()
	s := e.seqs.get(n.key)
	if s != nil && e.hotSize.Load() < maxHot { // invariant 10: stored under the read lock
		if _, had := e.hot.LoadOrStore(n.key, s); !had {
			e.hotSize.Add(1)
		}
	}
	e.catMu.RUnlock()
	if s == nil {
		return nil, notFound(n)
	}
	return s, nil
}

// Nextval hands out the sequence's next value. id identifies the sequence
// for currval/lastval bookkeeping.
func (e *Engine) Nextval(ctx context.Context, n Name) (id uint64, v int64, err error) {
	s, err := e.lookup(n)
	if err != nil {
		return 0, 0, err
	}
	// The fast path: a value from the sequence's carve, without its lock.
	if c := s.carved.Load(); c != nil && !e.deposed.Load() {
		if v, ok := c.take(); ok {
			return s.id, v, nil
		}
	}
	r, err := e.reserve(ctx, s, 0, true)
	return s.id, r.First, err
}

// MaxReserve is the most values one Reserve hands out.
const MaxReserve = 1 << 31

// Reserve hands out count consecutive values (count >= 1) as one range,
// waiting for the durable mark to cover them if the window in memory
// holds fewer. The range holds fewer than count values only when it
// reaches the sequence's limit (the next call then wraps with CYCLE, or
// fails without) or when count exceeds MaxReserve.
func (e *Engine) Reserve(ctx context.Context, n Name, count int64) (id uint64, r seqmath.Range, err error) {
	return e.reserveRange(ctx, n, count, true)
}

// ReserveUpTo is Reserve for callers that stream values and call again
// for the rest: when the window in memory holds some values but fewer
// than count, it hands those out at once rather than wait for the disk.
func (e *Engine) ReserveUpTo(ctx context.Context, n Name, count int64) (id uint64, r seqmath.Range, err error) {
	return e.reserveRange(ctx, n, count, false)
}

func (e *Engine) reserveRange(ctx context.Context, n Name, count int64, whole bool) (id uint64, r seqmath.Range, err error) {
	if count < 1 {
		return 0, seqmath.Range{}, &Error{Kind: seqmath.ErrInvalidOption, Msg: fmt.Sprintf("range size must be positive, not %d", count)}
	}
	s, err := e.lookup(n)
	if err != nil {
		return 0, seqmath.Range{}, err
	}
	r, err = e.reserve(ctx, s, min(count, MaxReserve), whole)
	return s.id, r, err
}

// Release gives back first..last, the tail of the range (or value) the
// sequence handed out last, so that the next caller gets first again. It
// returns how many values were given back: 0 when first..last is not that
// tail, because another value was handed out since, DDL or setval ran, or
// the server restarted. Released values are within the durable mark, so a
// crash may skip them but never reissues a value handed out before.
func (e *Engine) Release(n Name, first, last int64) (released int64, err error) {
	s, err := e.lookup(n)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drainLocked()
	if err := s.usableLocked(); err != nil {
		return 0, err
	}
	if e.ranges != nil && s.opts.NoOrder {
		return 0, nil // the node's blocks are not given back
	}
	if s.lockedBy != nil {
		// A transaction's DDL holds it: give nothing back.
		e.burnLocked(s, BurnedRelease, s.handedOutLocked(first, last))
		return 0, nil
	}
	ns, k, ok := s.opts.Release(s.cur, s.granted, first, last)
	if !ok || s.remaining > math.MaxInt64-k {
		e.burnLocked(s, BurnedRelease, s.handedOutLocked(first, last))
		return 0, nil
	}
	s.cur, s.remaining, s.granted = ns, s.remaining+k, 0
	s.logBlock += k // handed out again without a fetch, as from a cache
	return k, nil
}

// Healthy reports whether every write since Open reached the store: after
// a failed write the affected sequences refuse to serve until restart.
func (e *Engine) Healthy() error {
	if n := e.w.failures.Load(); n > 0 {
		return fmt.Errorf("seqd: %d writes to the store failed since start; restart once the store is sound", n)
	}
	if e.w.full.Load() {
		return fmt.Errorf("seqd: the store's disk is full: writes are refused until space is freed")
	}
	return nil
}

func closedError() *Error { return &Error{Kind: ErrClosed, Msg: "the server is shutting down"} }

func deposedError() *Error {
	return &Error{Kind: ErrDeposed, Msg: "this server no longer owns the store: another took it over, and serves its sequences"}
}

// Lineage is the catalog the engine is a view of (Config.Lineage).
func (e *Engine) Lineage() any { return e.lineage }
