// What the engine tells of its sequences: Info, the list, statistics and
// the values burned.

package engine

import (
	"math"
	"sort"
	"time"

	"github.com/seqd/seqd/seqmath"
)

// Info is a snapshot of one sequence.
type Info struct {
	Name    Name
	ID      uint64
	Options seqmath.Options
	State   seqmath.State
	// Window is how many values are durably reserved beyond State and not
	// yet handed out (what a crash would skip).
	Window int64
	// LogCnt is PostgreSQL's log_cnt as PostgreSQL 15 would show it
	// (logcnt.go).
	LogCnt int64
	// Unlogged sequences go back to their start after a crash.
	Unlogged bool
	// Burned counts the values it skipped since the engine opened.
	Burned Burned
	// Epoch counts the times a NOORDER sequence's position was set.
	Epoch uint64
}

// RangeUse is how many values the sequence has used of how many its range
// holds, counted in increments (CYCLE: before it wraps).
func (i Info) RangeUse() (used, total float64) { return rangeUse(i.Options, i.State) }

func rangeUse(o seqmath.Options, st seqmath.State) (used, total float64) {
	inc := math.Abs(float64(o.Increment))
	total = math.Max((float64(o.Max)-float64(o.Min))/inc, 1)
	if o.Increment > 0 {
		used = (float64(st.Last) - float64(o.Min)) / inc
	} else {
		used = (float64(o.Max) - float64(st.Last)) / inc
	}
	return math.Max(used, 0), total
}

// Use is how much of its range a sequence has used (Info.RangeUse), as
// a pass over every sequence sees it (EachUse).
type Use struct {
	ID          uint64
	Used, Total float64
	// Reserved is Used up to the durable mark: what the sequence may have
	// handed out, within CACHE of Used. It moves only with a write of
	// the sequence's record (MarkWatch).
	Reserved float64
	key      string
}

// Name is the sequence's name.
func (u Use) Name() Name {
	n, _ := nameFromKey(u.key)
	return n
}

// EachUse calls f with the range use of every sequence, one at a time,
// in no order: for watches over all of them (the exhaustion warning, the
// metrics' nearest to their limits), which keep little of each. It
// describes none (a million descriptions at once are 170 MB, and
// describing each as it passes costs more than the rest of the pass).
func (e *Engine) EachUse(f func(Use)) {
	for _, s := range e.pick(func(*seq) bool { return true }) {
		if u, ok := s.use(); ok {
			f(u)
		}
	}
}

// UseOf is the named sequence's range use (EachUse's, for one).
func (e *Engine) UseOf(n Name) (Use, bool) {
	e.catMu.RLock()
	s := e.seqs.get(n.key) // not through hot: a watch's look is no lookup to cache
	e.catMu.RUnlock()
	if s == nil {
		return Use{}, false
	}
	return s.use()
}

// use is s's range use, taken under its lock; false if s is dropped or
// failed.
func (s *seq) use() (Use, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.usableLocked() != nil {
		return Use{}, false
	}
	return s.useLocked(), true
}

// useLocked is s's range use. REQUIRES: s.mu held.
func (s *seq) useLocked() Use {
	cur, _ := s.currentLocked()
	u := Use{ID: s.id, key: s.key}
	u.Used, u.Total = rangeUse(*s.opts, cur)
	u.Reserved, _ = rangeUse(*s.opts, s.durableLocked())
	return u
}

// Info describes the named sequence.
func (e *Engine) Info(n Name) (Info, error) {
	s, err := e.lookup(n)
	if err != nil {
		return Info{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usableLocked(); err != nil {
		return Info{}, err
	}
	return e.withNode(s.infoLocked()), nil
}

// List describes every sequence, sorted by name.
func (e *Engine) List() []Info {
	return e.describeSorted(e.pick(func(*seq) bool { return true }))
}

// Matching describes, sorted by name, the sequences whose ACL and
// comment keep accepts, without describing the others: for catalogs of
// a few rows over many sequences (pg_description: those with a comment).
// keep runs under the catalog's lock: it must not call the engine, nor
// keep the ACL (it may not be modified).
func (e *Engine) Matching(keep func(acl ACL, comment string) bool) []Info {
	return e.describeSorted(e.pick(func(s *seq) bool { return keep(e.aclOfLocked(s.id).acl, e.comments[s.id].text) }))
}

// Keys are every sequence's key, sorted as List sorts: for a scan that
// describes them a batch at a time (Describe), keeping 16 bytes a
// sequence rather than a description's 170.
func (e *Engine) Keys() []string {
	e.catMu.RLock()
	keys := make([]string, 0, e.seqs.len())
	for k := range e.seqs.all() {
		keys = append(keys, k)
	}
	e.catMu.RUnlock()
	sort.Strings(keys)
	return keys
}

// Describe describes the sequences of keys that are still there and
// usable, in the order of keys.
func (e *Engine) Describe(keys []string) []Info {
	e.catMu.RLock()
	seqs := make([]*seq, 0, len(keys))
	for _, k := range keys {
		if s := e.seqs.get(k); s != nil {
			seqs = append(seqs, s)
		}
	}
	e.catMu.RUnlock()
	out := make([]Info, 0, len(seqs))
	eachUsable(seqs, func(i Info) { out = append(out, e.withNode(i)) })
	return out
}

// pick lists the sequences keep accepts. keep runs under catMu's read
// lock.
func (e *Engine) pick(keep func(*seq) bool) []*seq {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	var seqs []*seq
	for s := range e.seqs.values() {
		if keep(s) {
			seqs = append(seqs, s)
		}
	}
	return seqs
}

// eachUsable calls f with the description of each of seqs still usable
// (not dropped, not failed), taken under its lock; f runs without it.
func eachUsable(seqs []*seq, f func(Info)) {
	for _, s := range seqs {
		s.mu.Lock()
		ok := s.usableLocked() == nil
		var info Info
		if ok {
			info = s.infoLocked()
		}
		s.mu.Unlock()
		if ok {
			f(info)
		}
	}
}

// describeSorted describes the usable ones of seqs, sorted by name.
func (e *Engine) describeSorted(seqs []*seq) []Info {
	out := make([]Info, 0, len(seqs))
	eachUsable(seqs, func(i Info) { out = append(out, e.withNode(i)) })
	sort.Slice(out, func(i, j int) bool { return out[i].Name.key < out[j].Name.key })
	return out
}

// Stats counts the engine's commits and the records they wrote (records
// per commit is the group-commit factor), the mark extensions among
// them, and the commits that failed.
type Stats struct {
	Commits    int64
	Records    int64
	Extensions int64
	Failures   int64
	// Lingers counts the commits the writer held for callers on their
	// way back (linger.go), LingersExpired those of them whose callers
	// did not all come back within the hold's bound, Lingered their
	// holds in all.
	Lingers, LingersExpired int64
	Lingered                time.Duration
	Burned                  Burned // every sequence's
}

// Count is how many sequences the engine serves: cheap, where List
// builds every sequence's Info.
func (e *Engine) Count() int {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	return e.seqs.len()
}

// Stats returns counters since Open.
func (e *Engine) Stats() Stats {
	return Stats{Commits: e.w.commits.Load(), Records: e.w.records.Load(), Extensions: e.extensions.Load(), Failures: e.w.failures.Load(),
		Lingers: e.w.lingers.Load(), LingersExpired: e.w.lingersExpired.Load(), Lingered: time.Duration(e.w.lingered.Load()),
		Burned: Burned{Crash: e.burned[BurnedCrash].Load(), Failover: e.burned[BurnedFailover].Load(), Release: e.burned[BurnedRelease].Load()}}
}

// Burned counts values a sequence skipped since the engine opened, by
// why. Crash and Failover are counted at Open, after a run that did not
// close cleanly (a takeover in cluster mode is a failover): the values
// between the position recorded with the last mark written and the mark,
// which is at most what was skipped (values handed out after that write
// were not). Release counts the values of ranges given back that could
// not be taken back (others were handed out since, or DDL held the
// sequence): nobody will use them.
type Burned struct {
	Crash, Failover, Release int64
}

// Reasons a value is burned (indexes of Engine.burned).
const (
	BurnedCrash = iota
	BurnedFailover
	BurnedRelease
)

func (b *Burned) add(reason int, n int64) {
	switch reason {
	case BurnedCrash:
		b.Crash += n
	case BurnedFailover:
		b.Failover += n
	case BurnedRelease:
		b.Release += n
	}
}

// burnLocked counts n values of s burned. REQUIRES: s.mu held, or s not
// yet shared.
func (e *Engine) burnLocked(s *seq, reason int, n int64) {
	if n > 0 {
		s.rareLocked().burned.add(reason, n)
		e.burned[reason].Add(n)
	}
}

// StoredSize is how many bytes the named sequence's record takes in the
// store, key and value (pg_relation_size's answer for it; its ACL and
// comment are records of their own).
func (e *Engine) StoredSize(n Name) (int64, error) {
	s, err := e.lookup(n)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := record{id: s.id, opts: *s.opts, state: s.cur, unlogged: s.unlogged, epoch: s.epoch}
	return int64(len(s.key) + len(rec.encode())), nil
}

// InfosWithPrefix describes the sequences whose relation name (in any
// schema) begins with prefix, sorted by name, looking at the names only:
// a pattern's lookup at a million sequences reads a million keys, not a
// million sequences.
func (e *Engine) InfosWithPrefix(prefix string) []Info {
	e.catMu.RLock()
	var seqs []*seq
	e.seqs.withRelPrefix(prefix, func(_ string, s *seq) bool {
		seqs = append(seqs, s)
		return true
	})
	e.catMu.RUnlock()
	return e.describeSorted(seqs)
}
