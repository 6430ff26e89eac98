// Package etcdstore keeps seqd's records in etcd, behind storage.Store:
// the store of cluster mode, where several seqd nodes share one etcd and
// at most one of them may write.
//
// Fencing. Acquire writes the owner key; its mod revision (which etcd
// makes larger than every revision before it) is the owner's token. Every
// Commit is one etcd transaction whose first comparison is that the owner
// key's mod revision is still the writer's token, followed by one
// comparison per record (its mod revision is the one the writer expects,
// or it does not exist). A writer that another has replaced fails with
// storage.ErrFenced and changes nothing, however it retries: a lease
// alone does not give mutual exclusion, the fenced write does.
//
// In cluster mode the fence is the leadership itself (Config.Term): the
// token is the leader key's create revision, Acquire checks that the key
// is still the term's, and every Commit compares it, so a node whose term
// ended, however it learns of it, writes nothing.
//
// Limits. One etcd transaction holds at most MaxOps records (etcd's
// --max-txn-ops, 128 by default, counts the comparisons too); a Commit of
// more is staged and made visible by one small transaction (staged.go).
// Every call has a deadline, so a partitioned etcd fails the call rather
// than hangs it; a Commit that fails that way has an unknown outcome, as
// storage.Store says.
package etcdstore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/storage"
)

// MaxOps is the most records one transaction writes: etcd's default
// --max-txn-ops (128) less the owner comparison. A Commit of more is
// staged.
const MaxOps = 127

// Config configures Open.
type Config struct {
	// Client talks to etcd. Close does not close it.
	Client *clientv3.Client
	// Prefix is where the records live, e.g. "/seqd/"; several clusters
	// may share one etcd under different prefixes. Default "/seqd/".
	Prefix string
	// Timeout bounds every call to etcd. Default 5s.
	Timeout time.Duration
	// Owner names this writer in the owner key (for operators). Default
	// "seqd".
	Owner string
	// Term, when not zero, is the leadership term this store writes in
	// (cluster.Term.Token): writes are fenced by the leader key
	// (cluster.LeaderKey(Prefix)) still having this create revision,
	// instead of by the owner key.
	Term int64
	// Ended, when set, is closed when the term ends (cluster.Term.Done):
	// every call under way then ends, and every call after fails at
	// once. A write made after the term is of no use, and a request
	// waiting for one must be refused then, not held until Timeout
	// (ErrTermOver).
	Ended <-chan struct{}
}

// ErrTermOver: a call was cut short because the term it was made in has
// ended (Config.Ended); a write's outcome is unknown.
var ErrTermOver = errors.New("etcdstore: the term has ended")

// Store is a storage.Store in etcd. Safe for concurrent use.
type Store struct {
	c       *clientv3.Client
	data    string // prefix of the records' keys
	owner   string // the owner key
	leader  string // the leader key, when term is set
	term    int64
	name    string
	timeout time.Duration
	// termCtx ends, with cause ErrTermOver, when Config.Ended is
	// closed; closing ends the goroutine that waits for that.
	termCtx   context.Context
	closing   chan struct{}
	closeOnce sync.Once
	closed    atomic.Bool
	loaded    atomic.Int64 // the revision the last Load read at

	stage   string // prefix of staged commits' chunks (staged.go)
	pending string // the key of a made commit not yet applied

	amu     sync.Mutex
	aliases map[string]alias // shared records a staged commit wrote, by key
	// applied are the staged commits' revision ranges, by the revision
	// Commit returned: each record of its own it wrote has its own
	// revision in [first, returned] (read when a later commit expects
	// the returned one: translate).
	applied map[storage.Rev]storage.Rev
	chunks  chunkCache // of a pending commit, for Swap

	// stop, set by tests, is asked after each step of a staged commit
	// ("stage", "decide", "apply"): an error ends the commit there, as
	// the writer's death would.
	stop func(step string) error
}

// Open returns the store under cfg.Prefix. It does not contact etcd.
func Open(cfg Config) (*Store, error) {
	if cfg.Client == nil {
		return nil, errors.New("etcdstore: no client")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "/seqd/"
	}
	if !strings.HasSuffix(cfg.Prefix, "/") {
		cfg.Prefix += "/"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Owner == "" {
		cfg.Owner = "seqd"
	}
	s := &Store{c: cfg.Client, data: cfg.Prefix + "data/", owner: cfg.Prefix + "owner", leader: cfg.Prefix + "leader", term: cfg.Term, name: cfg.Owner, timeout: cfg.Timeout,
		stage: cfg.Prefix + "staged/", pending: cfg.Prefix + "pending", closing: make(chan struct{})}
	if cfg.Ended != nil {
		ctx, end := context.WithCancelCause(context.Background())
		s.termCtx = ctx
		go func() {
			select {
			case <-cfg.Ended:
				end(ErrTermOver)
			case <-s.closing:
				end(storage.ErrClosed)
			}
		}()
	}
	return s, nil
}

// ctx bounds one call to etcd: by Timeout, and by the term's end. A call
// cut short by the term's end fails with ErrTermOver (context.Cause), at
// once if the term has ended already.
func (s *Store) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.termCtx == nil {
		return context.WithTimeout(ctx, s.timeout)
	}
	cctx, end := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.termCtx, func() { end(context.Cause(s.termCtx)) })
	tctx, cancel := context.WithTimeout(cctx, s.timeout)
	return tctx, func() {
		cancel()
		stop()
		end(nil)
	}
}

// failed is err, of a call made under cctx (s.ctx's), naming the term's
// end when that is what cut it short.
func failed(cctx context.Context, err error) error {
	if cause := context.Cause(cctx); errors.Is(cause, ErrTermOver) {
		return fmt.Errorf("%w: %w", ErrTermOver, err)
	}
	return err
}

// Acquire makes the caller the owner: the owner key is written, and its
// mod revision is the token. Every earlier token is fenced off from then.
// A commit the last owner made and did not finish applying is applied
// first, and its unmade ones' stages deleted (staged.go).
func (s *Store) Acquire(ctx context.Context) (storage.Token, error) {
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	tok, err := s.acquire(ctx)
	if err != nil {
		return 0, err
	}
	if err := s.finish(ctx, tok); err != nil {
		if errors.Is(err, storage.ErrFenced) {
			return 0, err
		}
		return 0, fmt.Errorf("etcdstore: acquire: %w", err)
	}
	return tok, nil
}

func (s *Store) acquire(ctx context.Context) (storage.Token, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	if s.term != 0 {
		r, err := s.c.Get(ctx, s.leader)
		if err != nil {
			return 0, fmt.Errorf("etcdstore: acquire: %w", err)
		}
		if len(r.Kvs) == 0 || r.Kvs[0].CreateRevision != s.term {
			return 0, storage.ErrFenced
		}
		return storage.Token(s.term), nil
	}
	r, err := s.c.Put(ctx, s.owner, s.name)
	if err != nil {
		return 0, fmt.Errorf("etcdstore: acquire: %w", err)
	}
	return storage.Token(r.Header.Revision), nil
}

// fence is the comparison every Commit makes first, and the key it reads
// back to tell a fenced write from a conflict.
func (s *Store) fence(token storage.Token) (clientv3.Cmp, string) {
	if s.term != 0 {
		return clientv3.Compare(clientv3.CreateRevision(s.leader), "=", int64(token)), s.leader
	}
	return clientv3.Compare(clientv3.ModRevision(s.owner), "=", int64(token)), s.owner
}

// loadPage is how many records one request of Load reads at most. A
// request with a limit costs etcd a visit of every key to the end of its
// range (it counts them for the response), so paging through N records
// costs it N²/2/loadPage visits: a million records in pages of 1,000 are
// 500 million. So Load pages within ranges: those between every
// loadPage-th key the last Load read (loadCuts), each about a page, so
// that etcd visits each key about twice. Keys made since land in the
// range they sort into, which takes more pages. A first Load finds its
// cuts from the keys alone (firstCuts).
const loadPage = 10_000

// loadCuts holds, per client and prefix, the keys at which the last Load
// cut its reads.
var loadCuts sync.Map

// firstCuts finds, for a Load with no cuts of a last one, every
// loadPage-th key at rev from the keys alone, read in pages of keysPage:
// a million keys cost etcd 5 million visits to count, where pages of
// records over the whole prefix cost it 50 million.
func (s *Store) firstCuts(ctx context.Context, rev int64) ([]string, error) {
	const keysPage = 10 * loadPage
	var cuts []string
	n := 0
	end := clientv3.GetPrefixRangeEnd(s.data)
	for from := s.data; ; {
		cctx, cancel := s.ctx(ctx)
		r, err := s.c.Get(cctx, from, clientv3.WithRange(end), clientv3.WithRev(rev), clientv3.WithKeysOnly(), clientv3.WithLimit(keysPage))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("etcdstore: load: %w", err)
		}
		for _, kv := range r.Kvs {
			if n > 0 && n%loadPage == 0 {
				cuts = append(cuts, string(kv.Key))
			}
			n++
		}
		if !r.More || len(r.Kvs) == 0 {
			return cuts, nil
		}
		from = string(r.Kvs[len(r.Kvs)-1].Key) + "\x00"
	}
}

func (s *Store) cutsKey() string { return fmt.Sprintf("%p %s", s.c, s.data) }

// Load calls fn for every record, in key order, from one consistent
// snapshot: every page is read at one revision, and a commit made by
// then but not yet wholly applied (staged.go) is read whole, its pending
// ops over the records (at the pending key's revision, or the record's
// own once applied).
func (s *Store) Load(ctx context.Context, fn func(storage.KV) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	cctx, cancel := s.ctx(ctx)
	p, err := s.c.Get(cctx, s.pending)
	cancel()
	if err != nil {
		return fmt.Errorf("etcdstore: load: %w", err)
	}
	rev := p.Header.Revision
	var over []storage.Op
	var made storage.Rev
	if len(p.Kvs) > 0 {
		if _, over, err = s.readPending(ctx, p.Kvs[0].Value, rev); err != nil {
			return fmt.Errorf("etcdstore: load: %w", err)
		}
		made = storage.Rev(p.Kvs[0].ModRevision)
	}
	// emit gives fn the pending ops before key (all of them for ""):
	// their records not yet written, or deleted (a record before the
	// pending key's revision is not yet applied).
	emit := func(key string) error {
		for len(over) > 0 && (key == "" || over[0].Key < key) {
			if op := over[0]; op.Value != nil {
				if err := fn(storage.KV{Key: op.Key, Value: op.Value, Rev: made}); err != nil {
					return err
				}
			}
			over = over[1:]
		}
		return nil
	}
	// take gives fn one record read, the pending ops before it first.
	take := func(kv *mvccpb.KeyValue) error {
		key := string(kv.Key[len(s.data):])
		if err := emit(key); err != nil {
			return err
		}
		if len(over) > 0 && over[0].Key == key {
			op := over[0]
			over = over[1:]
			if storage.Rev(kv.ModRevision) < made {
				if op.Value != nil {
					return fn(storage.KV{Key: key, Value: op.Value, Rev: made})
				}
				return nil
			}
		}
		return fn(storage.KV{Key: key, Value: kv.Value, Rev: storage.Rev(kv.ModRevision)})
	}
	// Every loadPage-th key read is where the next Load cuts its reads.
	var cuts []string
	n := 0
	read := func(kvs []*mvccpb.KeyValue) error {
		for _, kv := range kvs {
			if n > 0 && n%loadPage == 0 {
				cuts = append(cuts, string(kv.Key))
			}
			n++
			if err := take(kv); err != nil {
				return err
			}
		}
		return nil
	}
	get := func(from, to string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
		cctx, cancel := s.ctx(ctx)
		defer cancel()
		r, err := s.c.Get(cctx, from, append(opts, clientv3.WithRange(to), clientv3.WithRev(rev))...)
		if err != nil {
			return nil, fmt.Errorf("etcdstore: load: %w", err)
		}
		return r, nil
	}
	// Each range between the cuts the last Load made (the whole prefix,
	// the first time) read in pages.
	bounds := []string{s.data}
	if last, ok := loadCuts.Load(s.cutsKey()); ok {
		bounds = append(bounds, last.([]string)...)
	} else {
		first, err := s.firstCuts(ctx, rev)
		if err != nil {
			return err
		}
		bounds = append(bounds, first...)
	}
	bounds = append(bounds, clientv3.GetPrefixRangeEnd(s.data))
	for i := 0; i+1 < len(bounds); i++ {
		for from := bounds[i]; ; {
			// No sort option: etcd answers in key order anyway, and a
			// sorted request reads every record to the end of the range
			// for each page (its limit is applied after the sort).
			r, err := get(from, bounds[i+1], clientv3.WithLimit(loadPage))
			if err == nil {
				err = read(r.Kvs)
			}
			if err != nil {
				return err
			}
			if !r.More || len(r.Kvs) == 0 {
				break
			}
			from = string(r.Kvs[len(r.Kvs)-1].Key) + "\x00"
		}
	}
	loadCuts.Store(s.cutsKey(), cuts)
	if err := emit(""); err != nil {
		return err
	}
	s.loaded.Store(rev)
	return nil
}

// Loaded is the etcd revision the last Load read the records at (0
// before one): a watch from the revision after it misses no change.
func (s *Store) Loaded() int64 { return s.loaded.Load() }

// DataPrefix is the prefix of the records' keys, for a watch on them.
func (s *Store) DataPrefix() string { return s.data }

// ChangesAt turns the changes a watch on DataPrefix delivered after
// revision after up to revision rev (keys without the prefix, in
// order), into what changed for a reader of the store between a Load
// at after and one at rev, in the order to apply them: the changes,
// and a commit made after after and not yet wholly applied at
// rev (staged.go) put in whole at the revision it was made, before its
// records that were applied by rev, as Load reads it. Without it, a
// reader of the changes alone would see such a commit in part, or not
// at all before its records are written. A commit made by after is in
// the view at after already (Load put it in). The changes may leave out
// some that the reader took as they came (they then precede the first
// change given): a record of the commit it so took after the commit was
// made is newer than the commit's op on it. The result is nil if
// nothing changed.
func (s *Store) ChangesAt(ctx context.Context, changes []storage.KV, after, rev int64) ([]storage.KV, error) {
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	cctx, cancel := s.ctx(ctx)
	p, err := s.c.Get(cctx, s.pending, clientv3.WithRev(rev))
	cancel()
	if err != nil {
		return nil, fmt.Errorf("etcdstore: reading the pending commit at revision %d: %w", rev, err)
	}
	if len(p.Kvs) == 0 || p.Kvs[0].ModRevision <= after {
		if len(changes) == 0 {
			return nil, nil
		}
		return changes, nil
	}
	made := storage.Rev(p.Kvs[0].ModRevision)
	_, ops, err := s.readPending(ctx, p.Kvs[0].Value, rev)
	if err != nil {
		return nil, err
	}
	at, _ := slices.BinarySearchFunc(changes, made, func(kv storage.KV, r storage.Rev) int { return cmp.Compare(kv.Rev, r) })
	out := make([]storage.KV, 0, len(changes)+len(ops))
	out = append(out, changes[:at]...)
	for _, op := range ops {
		out = append(out, storage.KV{Key: op.Key, Value: op.Value, Rev: made})
	}
	return append(out, changes[at:]...), nil
}

// Commit applies ops in one etcd transaction, fenced by token; more ops
// than one transaction takes are a staged commit (staged.go).
func (s *Store) Commit(ctx context.Context, token storage.Token, ops []storage.Op) (storage.Rev, error) {
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	ops, err := s.translate(ctx, ops)
	if err != nil {
		return 0, err
	}
	if len(ops) > MaxOps {
		rev, err := s.commitStaged(ctx, token, ops)
		return rev, err
	}
	cmps := make([]clientv3.Cmp, 0, len(ops)+1)
	fence, fenceKey := s.fence(token)
	cmps = append(cmps, fence)
	then := make([]clientv3.Op, 0, len(ops))
	for _, op := range ops {
		cmps = append(cmps, s.expect(op))
		then = append(then, s.write(op))
	}
	// Else reads the fence key, then each record: a try of this
	// transaction that timed out may have been applied (HardenClient
	// tries again), which the records then show.
	reads := make([]clientv3.Op, 0, len(ops)+1)
	reads = append(reads, clientv3.OpGet(fenceKey))
	for _, op := range ops {
		reads = append(reads, clientv3.OpGet(s.data+op.Key))
	}
	cctx, cancel := s.ctx(ctx)
	defer cancel()
	cctx, tries := countTries(cctx)
	r, err := s.c.Txn(cctx).If(cmps...).Then(then...).Else(reads...).Commit()
	if err != nil {
		return 0, fmt.Errorf("etcdstore: commit: %w", failed(cctx, err)) // outcome unknown
	}
	if r.Succeeded {
		s.forget(ops)
		return storage.Rev(r.Header.Revision), nil
	}
	if s.wasFenced(r, token) {
		return 0, storage.ErrFenced
	}
	if rev := appliedAt(r.Responses[1:], ops); rev != 0 && tries.Load() > 1 {
		s.forget(ops)
		return rev, nil
	}
	return 0, storage.ErrConflict
}

// appliedAt tells, from the records as a failed commit of ops read them
// (one response each, in order), whether they are what ops write, all
// at one revision: asked only of a commit tried more than once, a try
// of it was applied at that revision. Only the fence's holder writes, and at most one write of a
// record is in flight at a time (engine invariant 2), so a record that
// holds what this commit writes was written by it. It returns that
// revision, or 0 if the records do not show one (a commit of deletes
// alone shows none: it is reported as a conflict, which its caller
// takes as it takes an unknown outcome).
func appliedAt(reads []*pb.ResponseOp, ops []storage.Op) storage.Rev {
	var rev storage.Rev
	for i, op := range ops {
		kvs := reads[i].GetResponseRange().GetKvs()
		switch {
		case op.Value == nil && len(kvs) == 0:
			continue
		case op.Value == nil || len(kvs) == 0 || !bytes.Equal(kvs[0].Value, op.Value):
			return 0
		case rev != 0 && storage.Rev(kvs[0].ModRevision) != rev:
			return 0
		case storage.Rev(kvs[0].ModRevision) <= op.Expect:
			return 0
		}
		rev = storage.Rev(kvs[0].ModRevision)
	}
	return rev
}

// expect is the comparison of op's expectation.
func (s *Store) expect(op storage.Op) clientv3.Cmp {
	key := s.data + op.Key
	if op.Expect == 0 {
		return clientv3.Compare(clientv3.CreateRevision(key), "=", 0)
	}
	return clientv3.Compare(clientv3.ModRevision(key), "=", int64(op.Expect))
}

// write is op's put or delete.
func (s *Store) write(op storage.Op) clientv3.Op {
	if op.Value == nil {
		return clientv3.OpDelete(s.data + op.Key)
	}
	return clientv3.OpPut(s.data+op.Key, string(op.Value))
}

// wasFenced tells, of a transaction that failed and read the fence key
// in its Else branch first, whether the fence was what failed (else a
// record's comparison did).
func (s *Store) wasFenced(r *clientv3.TxnResponse, token storage.Token) bool {
	kvs := r.Responses[0].GetResponseRange().GetKvs()
	return len(kvs) == 0 ||
		s.term == 0 && kvs[0].ModRevision != int64(token) ||
		s.term != 0 && kvs[0].CreateRevision != int64(token)
}

// Close releases the store; it does not close the client.
func (s *Store) Close() error {
	s.closed.Store(true)
	s.closeOnce.Do(func() { close(s.closing) })
	return nil
}

// Swap is storage.Swapper's: one read of both keys in a transaction, then
// a transaction that writes key only if neither key's mod revision moved.
// It is not fenced by the owner: any node may reserve.
func (s *Store) Swap(ctx context.Context, guard, key string, fn func(guard, cur storage.KV) ([]byte, error)) error {
	gk, kk := s.data+guard, s.data+key
	unchanged := func(k string, kv storage.KV) clientv3.Cmp {
		if kv.Rev == 0 {
			return clientv3.Compare(clientv3.CreateRevision(k), "=", 0)
		}
		return clientv3.Compare(clientv3.ModRevision(k), "=", int64(kv.Rev))
	}
	for {
		if s.closed.Load() {
			return storage.ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		cctx, cancel := s.ctx(ctx)
		r, err := s.c.Txn(cctx).Then(clientv3.OpGet(gk), clientv3.OpGet(kk), clientv3.OpGet(s.pending)).Commit()
		if err != nil {
			cancel()
			return fmt.Errorf("etcdstore: swap: %w", err)
		}
		var stored, got [2]storage.KV
		for i, k := range []string{guard, key} {
			stored[i].Key = k
			if kvs := r.Responses[i].GetResponseRange().GetKvs(); len(kvs) > 0 {
				stored[i].Value, stored[i].Rev = kvs[0].Value, storage.Rev(kvs[0].ModRevision)
			}
		}
		got = stored
		// No commit pending, or the same one still, when it writes.
		pending := clientv3.Compare(clientv3.CreateRevision(s.pending), "=", 0)
		stale := false
		if p := r.Responses[2].GetResponseRange().GetKvs(); len(p) > 0 {
			// A commit is made and may not be applied yet: a record it
			// writes and that is older than it is read through it.
			made := storage.Rev(p[0].ModRevision)
			pending = clientv3.Compare(clientv3.ModRevision(s.pending), "=", int64(made))
			for i := range got {
				if got[i].Rev >= made {
					continue
				}
				op, ok, err := s.pendingOp(ctx, p[0].Value, got[i].Key)
				if errors.Is(err, errStageGone) {
					stale = true // applied since: read again
					break
				}
				if err != nil {
					cancel()
					return fmt.Errorf("etcdstore: swap: %w", err)
				}
				if ok {
					got[i].Value, got[i].Rev = op.Value, made
					if op.Value == nil {
						got[i].Rev = 0
					}
				}
			}
		}
		if stale {
			cancel()
			continue
		}
		v, err := fn(got[0], got[1])
		if err != nil {
			cancel()
			return err
		}
		w, err := s.c.Txn(cctx).If(unchanged(gk, stored[0]), unchanged(kk, stored[1]), pending).Then(clientv3.OpPut(kk, string(v))).Commit()
		cancel()
		if err != nil {
			return fmt.Errorf("etcdstore: swap: %w", err) // outcome unknown
		}
		if w.Succeeded {
			return nil
		}
	}
}
