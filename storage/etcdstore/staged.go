package etcdstore

// Staged commits. etcd applies a transaction of at most --max-txn-ops
// operations (128 by default, comparisons included), so a commit of more
// records (a migration's block of thousands of CREATE SEQUENCE, a
// takeover resetting many unlogged sequences) cannot be one transaction.
// It is made atomic in four steps, each fenced by the writer's token:
//
//  1. Check: the records' revisions are read, MaxOps keys a transaction,
//     and compared with the ops' expectations. Only the owner writes
//     these records, and it makes one commit at a time (the engine's
//     writer), so a check that passed still holds at the decision if the
//     fence does: another owner would have changed the fence.
//  2. Stage: the ops, encoded, in chunks under <prefix>staged/<id>/,
//     which no reader takes for records.
//  3. Decide: one transaction puts <prefix>pending (the stage's id and
//     chunk count) if the fence holds and no other commit is pending,
//     with the ops on shared records (storage.Op.Shared: NOORDER range
//     records, which other nodes swap) compared and written in it. From
//     this revision on the commit is made: every Load reads the pending
//     ops over the records, as of the revision it reads at.
//  4. Apply: the ops written to the records, MaxOps-1 a transaction;
//     then the pending key and the stage deleted.
//
// A writer that dies, is fenced or loses etcd before step 3 leaves a
// stage that nothing reads: the next Acquire deletes it, and the commit
// was not made. One that stops after step 3 leaves a made commit half
// applied, which every Load reads whole; the next Acquire applies the
// rest before its owner reads or writes anything. A Swap made while a
// commit is pending reads its guard through it (the pending key names
// each chunk's first key, so the one chunk that may hold the guard is
// read) and compares the pending key with the revision it saw: a
// reservation never acts on a record half applied, nor waits for a
// large commit to finish applying.
//
// The records of step 4 are written at several revisions; Commit returns
// the last. A later Commit expecting that revision of a record compares
// the record's own: a shared record's the store remembers (aliases), one
// of the owner's it reads, and takes if it lies within the staged
// commit's revisions (applied: a range per staged commit).

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/storage"
)

const (
	// stageBytes bounds a stage chunk's value (etcd takes requests of up
	// to 1.5 MiB by default).
	stageBytes = 512 << 10
	// applyBytes bounds the values one apply transaction writes.
	applyBytes = 1 << 20
	// pendingWait is how long a Swap sleeps before it looks again at a
	// pending commit.
	pendingWait = 20 * time.Millisecond
)

// alias is a shared record written by a staged commit: the revision
// Commit returned for it, and its own.
type alias struct{ returned, own storage.Rev }

// translate returns ops with each expectation of a staged commit's
// returned revision replaced by the record's own: a shared record's
// from its alias, one of the owner's own read from etcd (written only
// by the owner, its record is as the commit left it if its revision is
// within the commit's; the compare then checks it did not move since).
// The owner's records are not remembered one by one: a block of a
// million CREATE SEQUENCE would keep a million aliases until each was
// written again.
func (s *Store) translate(ctx context.Context, ops []storage.Op) ([]storage.Op, error) {
	s.amu.Lock()
	if len(s.aliases) == 0 && len(s.applied) == 0 {
		s.amu.Unlock()
		return ops, nil
	}
	out := ops
	copied := func() {
		if &out[0] == &ops[0] {
			out = append([]storage.Op(nil), ops...) // the caller's are its own
		}
	}
	var read []int // ops whose record's revision is to be read
	for i, op := range ops {
		if op.Expect == 0 {
			continue
		}
		if a, ok := s.aliases[op.Key]; ok && op.Expect == a.returned {
			copied()
			out[i].Expect = a.own
		} else if _, ok := s.applied[op.Expect]; ok && !op.Shared {
			read = append(read, i)
		}
	}
	applied := make(map[storage.Rev]storage.Rev, len(read))
	for _, i := range read {
		applied[ops[i].Expect] = s.applied[ops[i].Expect]
	}
	s.amu.Unlock()
	for from := 0; from < len(read); from += MaxOps {
		chunk := read[from:min(from+MaxOps, len(read))]
		gets := make([]clientv3.Op, len(chunk))
		for j, i := range chunk {
			gets[j] = clientv3.OpGet(s.data+ops[i].Key, clientv3.WithKeysOnly())
		}
		cctx, cancel := s.ctx(ctx)
		r, err := s.c.Txn(cctx).Then(gets...).Commit()
		cancel()
		if err != nil {
			return nil, fmt.Errorf("etcdstore: reading the revisions of records a staged commit wrote: %w", err) // nothing written
		}
		for j, i := range chunk {
			kvs := r.Responses[j].GetResponseRange().GetKvs()
			if len(kvs) == 0 {
				continue // gone: the compare fails
			}
			rev, returned := storage.Rev(kvs[0].ModRevision), ops[i].Expect
			if rev >= applied[returned] && rev <= returned {
				copied()
				out[i].Expect = rev
			}
		}
	}
	return out, nil
}

// forget drops the aliases of records a commit wrote again.
func (s *Store) forget(ops []storage.Op) {
	s.amu.Lock()
	defer s.amu.Unlock()
	if len(s.aliases) == 0 {
		return
	}
	for _, op := range ops {
		delete(s.aliases, op.Key)
	}
}

// commitStaged makes a commit of more ops than one transaction takes, in
// the four steps above.
func (s *Store) commitStaged(ctx context.Context, token storage.Token, ops []storage.Op) (storage.Rev, error) {
	var shared, own []storage.Op
	for _, op := range ops {
		if op.Shared {
			shared = append(shared, op)
		} else {
			own = append(own, op)
		}
	}
	// The deciding transaction compares the fence, the pending key's
	// absence and each shared record.
	if len(shared) > MaxOps-1 {
		return 0, fmt.Errorf("%w: a commit of %d records others also write exceeds etcd's transaction limit of %d (nothing was written)", storage.ErrTooLarge, len(shared), MaxOps-1)
	}
	sort.Slice(own, func(i, j int) bool { return own[i].Key < own[j].Key })
	for i := 1; i < len(own); i++ {
		if own[i].Key == own[i-1].Key {
			return 0, fmt.Errorf("etcdstore: a commit writes %q twice", own[i].Key)
		}
	}
	fence, fenceKey := s.fence(token)

	// 1. Check.
	first, err := s.check(ctx, fence, fenceKey, token, own)
	if err != nil {
		return 0, err
	}

	// 2. Stage.
	id := fmt.Sprintf("%016x", first)
	chunks, firsts := encodeChunks(own)
	for i, c := range chunks {
		if err := s.fenced(ctx, token, fence, fenceKey, clientv3.OpPut(s.stageKey(id, i), string(c))); err != nil {
			if errors.Is(err, storage.ErrFenced) {
				return 0, err
			}
			return 0, fmt.Errorf("etcdstore: staging a commit of %d records: %w", len(own), err)
		}
		if err := s.stopAt("stage"); err != nil {
			return 0, err
		}
	}

	// 3. Decide.
	made := pendingValue(id, firsts)
	cmps := []clientv3.Cmp{fence, clientv3.Compare(clientv3.CreateRevision(s.pending), "=", 0)}
	then := []clientv3.Op{clientv3.OpPut(s.pending, made)}
	for _, op := range shared {
		cmps = append(cmps, s.expect(op))
		then = append(then, s.write(op))
	}
	// Else reads the pending key too: a try of this transaction that
	// timed out may have made the commit (HardenClient tries again);
	// its stage must then not be discarded.
	cctx, cancel := s.ctx(ctx)
	r, err := s.c.Txn(cctx).If(cmps...).Then(then...).Else(clientv3.OpGet(fenceKey), clientv3.OpGet(s.pending)).Commit()
	cancel()
	if err != nil {
		return 0, fmt.Errorf("etcdstore: commit: %w", failed(cctx, err)) // outcome unknown
	}
	if !r.Succeeded {
		if s.wasFenced(r, token) {
			return 0, storage.ErrFenced
		}
		p := r.Responses[1].GetResponseRange().GetKvs()
		if len(p) == 0 || string(p[0].Value) != made {
			s.discard(ctx, token, id)
			return 0, storage.ErrConflict
		}
		r.Header.Revision = p[0].ModRevision // made by the earlier try
	}
	if err := s.stopAt("decide"); err != nil {
		return 0, err
	}

	// 4. Apply.
	last, own2, err := s.apply(ctx, token, id, own)
	if err != nil {
		return 0, fmt.Errorf("etcdstore: applying a made commit of %d records: %w", len(own), err) // made; the next owner applies it
	}
	s.amu.Lock()
	if s.aliases == nil {
		s.aliases, s.applied = map[string]alias{}, map[storage.Rev]storage.Rev{}
	}
	lowest := last
	for _, op := range own {
		delete(s.aliases, op.Key)
		if op.Value != nil {
			lowest = min(lowest, own2[op.Key])
		}
	}
	s.applied[last] = lowest
	for _, op := range shared {
		if op.Value != nil {
			s.aliases[op.Key] = alias{returned: last, own: storage.Rev(r.Header.Revision)}
		} else {
			delete(s.aliases, op.Key)
		}
	}
	s.amu.Unlock()
	return last, nil
}

// check reads the records own writes, MaxOps a transaction, and
// compares their revisions with the ops' expectations: ErrConflict for
// one that differs, ErrFenced when the fence has moved. It returns the
// revision of its first read.
func (s *Store) check(ctx context.Context, fence clientv3.Cmp, fenceKey string, token storage.Token, own []storage.Op) (int64, error) {
	var first int64
	for from := 0; from < len(own); from += MaxOps {
		part := own[from:min(from+MaxOps, len(own))]
		gets := make([]clientv3.Op, 0, len(part))
		for _, op := range part {
			gets = append(gets, clientv3.OpGet(s.data+op.Key, clientv3.WithKeysOnly()))
		}
		cctx, cancel := s.ctx(ctx)
		r, err := s.c.Txn(cctx).If(fence).Then(gets...).Else(clientv3.OpGet(fenceKey)).Commit()
		cancel()
		if err != nil {
			return 0, fmt.Errorf("etcdstore: checking a commit: %w", err)
		}
		if !r.Succeeded {
			return 0, storage.ErrFenced
		}
		if first == 0 {
			first = r.Header.Revision
		}
		for i, op := range part {
			var rev storage.Rev
			if kvs := r.Responses[i].GetResponseRange().GetKvs(); len(kvs) > 0 {
				rev = storage.Rev(kvs[0].ModRevision)
			}
			if rev != op.Expect {
				return 0, storage.ErrConflict
			}
		}
	}
	return first, nil
}

// apply writes a made commit's ops to the records, MaxOps-1 a
// transaction, then deletes the pending key and the stage. It returns the
// revision of its last transaction and each put record's own.
func (s *Store) apply(ctx context.Context, token storage.Token, id string, own []storage.Op) (storage.Rev, map[string]storage.Rev, error) {
	fence, fenceKey := s.fence(token)
	revs := make(map[string]storage.Rev, len(own))
	for from := 0; from < len(own); {
		to, size := from, 0
		for to < len(own) && to-from < MaxOps-1 && (to == from || size+len(own[to].Key)+len(own[to].Value) <= applyBytes) {
			size += len(own[to].Key) + len(own[to].Value)
			to++
		}
		writes := make([]clientv3.Op, 0, to-from)
		for _, op := range own[from:to] {
			writes = append(writes, s.write(op))
		}
		rev, err := s.fencedRev(ctx, token, fence, fenceKey, writes...)
		if err != nil {
			return 0, nil, err
		}
		for _, op := range own[from:to] {
			revs[op.Key] = rev
		}
		from = to
		if err := s.stopAt("apply"); err != nil {
			return 0, nil, err
		}
	}
	rev, err := s.fencedRev(ctx, token, fence, fenceKey, clientv3.OpDelete(s.pending), clientv3.OpDelete(s.stagePrefix(id), clientv3.WithPrefix()))
	return rev, revs, err
}

// finish, as a new owner takes the store: a made commit left half
// applied is applied, and stages never made into commits are deleted.
func (s *Store) finish(ctx context.Context, token storage.Token) error {
	cctx, cancel := s.ctx(ctx)
	r, err := s.c.Get(cctx, s.pending)
	cancel()
	if err != nil {
		return err
	}
	if len(r.Kvs) > 0 {
		id, ops, err := s.readPending(ctx, r.Kvs[0].Value, 0)
		if err != nil {
			return err
		}
		if _, _, err := s.apply(ctx, token, id, ops); err != nil {
			return fmt.Errorf("applying the last owner's made commit of %d records: %w", len(ops), err)
		}
	}
	cctx, cancel = s.ctx(ctx)
	r, err = s.c.Get(cctx, s.stage, clientv3.WithPrefix(), clientv3.WithCountOnly())
	cancel()
	if err != nil || r.Count == 0 {
		return err
	}
	fence, fenceKey := s.fence(token)
	cctx, cancel = s.ctx(ctx)
	defer cancel()
	_, err = s.c.Txn(cctx).If(fence, clientv3.Compare(clientv3.CreateRevision(s.pending), "=", 0)).
		Then(clientv3.OpDelete(s.stage, clientv3.WithPrefix())).Else(clientv3.OpGet(fenceKey)).Commit()
	return err
}

// discard deletes a stage that was not made into a commit (best effort:
// the next owner's Acquire deletes what is left).
func (s *Store) discard(ctx context.Context, token storage.Token, id string) {
	fence, fenceKey := s.fence(token)
	_ = s.fenced(ctx, token, fence, fenceKey, clientv3.OpDelete(s.stagePrefix(id), clientv3.WithPrefix()))
}

// readPending reads the stage a pending key's value names (as of rev,
// when not 0), its ops in key order.
func (s *Store) readPending(ctx context.Context, value []byte, rev int64) (string, []storage.Op, error) {
	id, firsts, err := parsePending(value)
	if err != nil {
		return "", nil, err
	}
	chunks := len(firsts)
	var ops []storage.Op
	from, end := s.stagePrefix(id), clientv3.GetPrefixRangeEnd(s.stagePrefix(id))
	seen := 0
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(2)}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		cctx, cancel := s.ctx(ctx)
		r, err := s.c.Get(cctx, from, opts...)
		cancel()
		if err != nil {
			return "", nil, fmt.Errorf("etcdstore: reading a pending commit: %w", err)
		}
		for _, kv := range r.Kvs {
			ops, err = decodeChunk(ops, kv.Value)
			if err != nil {
				return "", nil, fmt.Errorf("etcdstore: pending commit %s: %w", id, err)
			}
			seen++
		}
		if !r.More || len(r.Kvs) == 0 {
			break
		}
		from = string(r.Kvs[len(r.Kvs)-1].Key) + "\x00"
	}
	if seen != chunks {
		return "", nil, fmt.Errorf("etcdstore: pending commit %s has %d of its %d chunks", id, seen, chunks)
	}
	return id, ops, nil
}

// errStageGone is pendingOp's when the stage it reads is gone: the
// commit has been applied (or its owner's successor is applying it)
// since the pending key was read.
var errStageGone = errors.New("the pending commit's stage is gone")

// pendingOp returns the op the made commit of a pending key's value has
// on key, if it has one: the one chunk whose key range holds key is read
// (a stage's chunks never change while it exists), and kept for the
// next Swap while the commit is pending.
func (s *Store) pendingOp(ctx context.Context, value []byte, key string) (storage.Op, bool, error) {
	id, firsts, err := parsePending(value)
	if err != nil {
		return storage.Op{}, false, err
	}
	i := sort.Search(len(firsts), func(j int) bool { return firsts[j] > key }) - 1
	if i < 0 {
		return storage.Op{}, false, nil
	}
	ops, err := s.chunk(ctx, id, i)
	if err != nil {
		return storage.Op{}, false, err
	}
	j := sort.Search(len(ops), func(j int) bool { return ops[j].Key >= key })
	if j == len(ops) || ops[j].Key != key {
		return storage.Op{}, false, nil
	}
	return ops[j], true, nil
}

// chunkCache is the decoded chunks of one stage that Swaps read.
type chunkCache struct {
	mu  sync.Mutex
	id  string
	ops map[int][]storage.Op
}

// keptChunks is how many decoded chunks (each from up to stageBytes) a
// store keeps for Swaps.
const keptChunks = 8

// chunk returns the decoded chunk i of stage id.
func (s *Store) chunk(ctx context.Context, id string, i int) ([]storage.Op, error) {
	c := &s.chunks
	c.mu.Lock()
	if c.id == id {
		if ops, ok := c.ops[i]; ok {
			c.mu.Unlock()
			return ops, nil
		}
	}
	c.mu.Unlock()
	cctx, cancel := s.ctx(ctx)
	r, err := s.c.Get(cctx, s.stageKey(id, i))
	cancel()
	if err != nil {
		return nil, fmt.Errorf("reading a pending commit: %w", err)
	}
	if len(r.Kvs) == 0 {
		return nil, errStageGone
	}
	ops, err := decodeChunk(nil, r.Kvs[0].Value)
	if err != nil {
		return nil, fmt.Errorf("pending commit %s: %w", id, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id != id {
		c.id, c.ops = id, map[int][]storage.Op{}
	}
	if len(c.ops) >= keptChunks {
		for k := range c.ops {
			delete(c.ops, k)
			break
		}
	}
	c.ops[i] = ops
	return ops, nil
}

// fenced runs ops in one transaction if the fence holds: ErrFenced if
// not.
func (s *Store) fenced(ctx context.Context, token storage.Token, fence clientv3.Cmp, fenceKey string, ops ...clientv3.Op) error {
	_, err := s.fencedRev(ctx, token, fence, fenceKey, ops...)
	return err
}

func (s *Store) fencedRev(ctx context.Context, token storage.Token, fence clientv3.Cmp, fenceKey string, ops ...clientv3.Op) (storage.Rev, error) {
	cctx, cancel := s.ctx(ctx)
	defer cancel()
	r, err := s.c.Txn(cctx).If(fence).Then(ops...).Else(clientv3.OpGet(fenceKey)).Commit()
	if err != nil {
		return 0, err
	}
	if !r.Succeeded {
		return 0, storage.ErrFenced
	}
	return storage.Rev(r.Header.Revision), nil
}

func (s *Store) stopAt(step string) error {
	if s.stop == nil {
		return nil
	}
	return s.stop(step)
}

func (s *Store) stagePrefix(id string) string { return s.stage + id + "/" }

func (s *Store) stageKey(id string, i int) string { return fmt.Sprintf("%s%06d", s.stagePrefix(id), i) }

// pendingValue is the pending key's value for a stage: its id, then
// each chunk's first key, hex-encoded, one a line.
func pendingValue(id string, firsts []string) string {
	var b strings.Builder
	b.WriteString(id)
	b.WriteString(" ")
	b.WriteString(strconv.Itoa(len(firsts)))
	for _, k := range firsts {
		b.WriteString("\n")
		b.WriteString(hex.EncodeToString([]byte(k)))
	}
	return b.String()
}

// parsePending reads a pending key's value: the stage's id and each
// chunk's first key.
func parsePending(value []byte) (string, []string, error) {
	lines := strings.Split(string(value), "\n")
	id, n, ok := strings.Cut(lines[0], " ")
	chunks, err := strconv.Atoi(n)
	if !ok || err != nil || chunks != len(lines)-1 {
		return "", nil, fmt.Errorf("etcdstore: corrupt pending commit %q", value)
	}
	firsts := make([]string, chunks)
	for i, l := range lines[1:] {
		k, err := hex.DecodeString(l)
		if err != nil || i > 0 && string(k) <= firsts[i-1] {
			return "", nil, fmt.Errorf("etcdstore: corrupt pending commit %q", value)
		}
		firsts[i] = string(k)
	}
	return id, firsts, nil
}

// encodeChunks encodes ops into chunks of at most stageBytes (one op
// larger than that is a chunk of its own): per op, the key's length and
// the key, 0 (a delete) or 1 and the value's length and the value. It
// returns each chunk's first key beside.
func encodeChunks(ops []storage.Op) (chunks [][]byte, firsts []string) {
	var b []byte
	for _, op := range ops {
		if len(b) > 0 && len(b)+len(op.Key)+len(op.Value)+21 > stageBytes {
			chunks, b = append(chunks, b), nil
		}
		if len(b) == 0 {
			firsts = append(firsts, op.Key)
		}
		b = binary.AppendUvarint(b, uint64(len(op.Key)))
		b = append(b, op.Key...)
		if op.Value == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(op.Value)))
		b = append(b, op.Value...)
	}
	if len(b) > 0 {
		chunks = append(chunks, b)
	}
	return chunks, firsts
}

var errCorruptChunk = errors.New("corrupt stage chunk")

// decodeChunk appends the ops of one chunk to ops.
func decodeChunk(ops []storage.Op, b []byte) ([]storage.Op, error) {
	field := func() ([]byte, bool) {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return nil, false
		}
		f := b[w : w+int(n)]
		b = b[w+int(n):]
		return f, true
	}
	for len(b) > 0 {
		key, ok := field()
		if !ok || len(b) == 0 {
			return nil, errCorruptChunk
		}
		kind := b[0]
		b = b[1:]
		op := storage.Op{Key: string(key)}
		switch kind {
		case 0:
		case 1:
			v, ok := field()
			if !ok {
				return nil, errCorruptChunk
			}
			op.Value = append([]byte{}, v...)
		default:
			return nil, errCorruptChunk
		}
		ops = append(ops, op)
	}
	return ops, nil
}
