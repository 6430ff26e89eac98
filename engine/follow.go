// A read-only engine: a cluster follower's snapshot of the store, kept
// current by Follow, and promoted to its owner's engine by Promote.

package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
)

// ErrStale is Promote's when the snapshot is not the store as it is now.
var ErrStale = errors.New("seqd: the snapshot is not the store as it is now")

// Promote opens cfg.Store as its owner, as Open does, but takes the
// catalog and every sequence's position from snap, a read-only engine
// over the same store (a cluster follower's snapshot, kept current by
// Follow), instead of reading the store: a new leader at a million
// sequences takes over in a fraction of a second instead of reading two
// million records. Once the store is acquired, current is asked whether
// snap holds every change to the store up to now (its watch delivered
// and Follow took every event up to a revision read after the
// acquisition); if not, Promote fails with ErrStale and the caller opens
// the store afresh. snap is not changed: its sessions may go on reading
// it while the new engine serves (the two share nothing but cfg.Ranges).
func Promote(ctx context.Context, cfg Config, snap *Engine, current func(context.Context) bool) (*Engine, error) {
	if cfg.ReadOnly || snap == nil || !snap.readOnly {
		return nil, errors.New("seqd: Promote takes a read-only engine and opens a writable one")
	}
	e, err := newEngine(cfg)
	if err != nil {
		return nil, err
	}
	tok, err := cfg.Store.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	e.token = tok
	if !current(ctx) {
		return nil, ErrStale
	}
	known := snap.copyInto(e)
	if err := e.start(ctx, cfg, known); err != nil {
		return nil, err
	}
	return e, nil
}

// copyInto gives e a copy of everything Open loaded into the read-only
// engine o, as Follow has kept it: sequences (new ones, at o's positions
// and revisions, or where an owner resumes from them, ownerStart, when e
// writes), schemas, comments, privileges, roles and the catalog's
// markers. It returns the positions handed out below marks, by e's
// sequences.
func (o *Engine) copyInto(e *Engine) map[*seq]seqmath.State {
	// A read lock: readers of the catalog only read it, so o's sessions
	// go on beside the copy.
	o.catMu.RLock()
	defer o.catMu.RUnlock()
	known := make(map[*seq]seqmath.State, len(o.known))
	copies := make([]seq, o.seqs.len()) // one allocation
	i := 0
	e.seqs = o.seqs.clone(func(os *seq) *seq {
		s := &copies[i]
		i++
		os.mu.Lock()
		s.key, s.id, s.opts, s.cur, s.rev, s.unlogged, s.epoch = os.key, os.id, os.opts, os.cur, os.rev, os.unlogged, os.epoch
		if !e.readOnly {
			s.cur = ownerStart(s.opts, s.cur)
		}
		s.logCnt, s.logBlock = os.logCnt, os.logBlock
		os.mu.Unlock()
		return s
	})
	// Follow takes a sequence's mu, then followMu (a leaf, invariant
	// 12): the positions below marks are read under followMu alone, then
	// each sequence's key under its mu.
	type below struct {
		s *seq
		k seqmath.State
	}
	o.followMu.Lock()
	belows := make([]below, 0, len(o.known))
	for os, k := range o.known {
		belows = append(belows, below{os, k})
	}
	maps.Copy(e.rangeRevs, o.rangeRevs)
	maps.Copy(e.rangeAt, o.rangeAt)
	maps.Copy(e.timeMarks, o.timeMarks) // a new owner's generators start above them
	e.runningRev, e.epoch, e.epochRev = o.runningRev, o.epoch, o.epochRev
	o.followMu.Unlock()
	keyOf := func(os *seq) string {
		os.mu.Lock()
		defer os.mu.Unlock()
		return os.key
	}
	for _, b := range belows {
		if s := e.seqs.get(keyOf(b.s)); s != nil {
			known[s] = b.k
		}
	}
	for _, os := range o.frozen {
		if s := e.seqs.get(keyOf(os)); s != nil {
			e.frozen = append(e.frozen, s)
		}
	}
	for name, sc := range o.schemas {
		c := *sc
		c.acl = sc.acl.clone()
		e.schemas[name] = &c
	}
	// One allocation each, of the size needed; kept ACLs are never
	// modified: shared.
	e.comments, e.acls, e.ownerOnly = maps.Clone(o.comments), maps.Clone(o.acls), maps.Clone(o.ownerOnly)
	e.ownerNames, e.ownerIdx = slices.Clone(o.ownerNames), maps.Clone(o.ownerIdx)
	e.ownerRefs, e.ownerFree = slices.Clone(o.ownerRefs), slices.Clone(o.ownerFree)
	e.dbACL = aclRecord{acl: o.dbACL.acl.clone(), rev: o.dbACL.rev}
	for name, r := range o.roles {
		r.MemberOf, r.Settings = slices.Clone(r.MemberOf), slices.Clone(r.Settings)
		e.roles[name] = r
	}
	e.catalogRev, e.secret = o.catalogRev, o.secret
	return known
}

// ReadOnly reports whether the engine is a read-only snapshot
// (Config.ReadOnly).
func (e *Engine) ReadOnly() bool { return e.readOnly }

// readOnlyStore is the store of a ReadOnly engine: every write fails,
// and closing it leaves the store open.
type readOnlyStore struct{ storage.Store }

func (readOnlyStore) Close() error { return nil }

func (readOnlyStore) Commit(context.Context, storage.Token, []storage.Op) (storage.Rev, error) {
	return 0, errors.New("seqd: this engine is a read-only snapshot")
}

// Follow applies to a read-only engine (a cluster follower's snapshot) a
// record the store changed since the engine read it, where that change
// leaves the catalog as it was: an ORDER sequence's new position (the
// leader's mark), a NOORDER range record (which a follower's engine
// does not serve from; the nodes reserve through the store), a built-in
// generator's time mark (timegen.go), or the
// markers an owner writes as it opens and closes; Promote takes them all
// over. It reports false
// for any other change (a sequence made, dropped or altered, a NOORDER
// sequence's record, a role, a privilege, a comment), which only a new
// snapshot shows. A nil value is a deleted record.
func (e *Engine) Follow(kv storage.KV) bool {
	if !e.readOnly {
		return false
	}
	switch kv.Key {
	case runningKey:
		// An owner opening (markRunning) or closing cleanly: what a
		// promotion tells a crash by.
		e.followMu.Lock()
		defer e.followMu.Unlock()
		e.runningRev = kv.Rev
		if kv.Value == nil {
			e.runningRev = 0
		}
		return true
	case epochKey:
		if len(kv.Value) != 9 || kv.Value[0] != schemaVersion {
			return false
		}
		e.followMu.Lock()
		defer e.followMu.Unlock()
		e.epoch, e.epochRev = binary.BigEndian.Uint64(kv.Value[1:]), kv.Rev
		return true
	}
	if strings.HasPrefix(kv.Key, timeMarkPrefix) {
		return e.followTimeMark(kv)
	}
	if strings.HasPrefix(kv.Key, catalogPrefix) {
		if !strings.HasPrefix(kv.Key, rangePrefix) {
			return false
		}
		id, err := strconv.ParseUint(kv.Key[len(rangePrefix):], 16, 64)
		if err != nil {
			return false
		}
		e.followMu.Lock()
		defer e.followMu.Unlock()
		if kv.Value == nil {
			delete(e.rangeRevs, id)
			delete(e.rangeAt, id)
			return true
		}
		e.rangeRevs[id] = kv.Rev
		if r, err := decodeRangeRecord(kv.Value); err == nil {
			e.rangeAt[id] = r
		} else {
			delete(e.rangeAt, id)
		}
		return true
	}
	if kv.Value == nil {
		return false
	}
	rec, err := decodeRecord(kv.Value)
	if err != nil || rec.frozen || rec.opts.NoOrder {
		return false
	}
	e.catMu.RLock()
	s := e.seqs.get(kv.Key)
	e.catMu.RUnlock()
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id != rec.id || *s.opts != rec.opts || s.unlogged != rec.unlogged || s.epoch != rec.epoch || kv.Rev < s.rev {
		return false
	}
	s.cur, s.rev = rec.state, kv.Rev
	e.followMu.Lock() // invariant 12; a leaf, under s.mu
	if rec.hasKnown && !rec.unlogged {
		e.known[s] = rec.known
	} else {
		delete(e.known, s)
	}
	e.followMu.Unlock()
	if len(e.markWatchers()) > 0 {
		e.noteWritten([]storage.Op{{Key: kv.Key}}, kv.Rev)
	}
	return true
}
