package engine

import (
	"hash/maphash"
	"iter"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/google/btree"
)

// seqIndex is the engine's sequences by key, and their keys in the order
// of their relation names. It is built so that the garbage collector has
// little to do with it at a million sequences: the runtime collects at
// least every two minutes, and a collection's work is what the heap
// holds pointers to, visited in the order it finds them.
//
//   - The hash index maps a hash of the key to a position, not the key
//     to a *seq: a map with string keys or pointer values is walked in
//     hash order, a cache miss for every sequence and every key (in a
//     model of the engine's heap, a map[string]*seq was two thirds of a
//     collection's CPU, a map[string]uint32 a third). Keys whose hash
//     another key already holds go to a small map of their own.
//   - Keys and sequences are listed by position, in the order they were
//     added, which is mostly the order they were allocated in.
//   - The order by relation name is a B-tree of positions, compared
//     through the list of keys, not a B-tree of strings; it is built on
//     the first prefix search, so that loading the store does not pay
//     for it.
//
// REQUIRES: the engine's catMu, for reading or writing as for a map.
// Prefix searches, which run under its read lock, serialize on their own.
type seqIndex struct {
	seed maphash.Seed
	hash func(seed maphash.Seed, key string) uint64 // maphash.String; tests collide it
	pos  map[uint64]uint32                          // hash of a key -> position
	more map[string]uint32                          // keys whose hash another holds in pos; nil: none
	keys []string                                   // by position; "": free
	seqs []*seq                                     // by position; nil: free
	// free lists the positions drops freed, taken before the lists grow.
	// Like a map's, the index's room stays that of its largest size.
	free []uint32

	// byRel orders the positions in use by relation name, then schema;
	// nil until the first search (relMu). Writers, who hold catMu for
	// writing and so exclude every search, keep it once it is built.
	relMu sync.Mutex
	byRel *btree.BTreeG[uint32]
	probe string // the key of position probePos during a search (relMu)
}

// probePos is no sequence's position: a search's pivot, whose key is
// probe.
const probePos = math.MaxUint32

func newSeqIndex(n int) *seqIndex {
	return &seqIndex{seed: maphash.MakeSeed(), hash: maphash.String,
		pos: make(map[uint64]uint32, n), keys: make([]string, 0, n), seqs: make([]*seq, 0, n)}
}

// find is key's position.
func (x *seqIndex) find(key string) (uint32, bool) {
	if i, ok := x.pos[x.hash(x.seed, key)]; ok && x.keys[i] == key {
		return i, true
	}
	if x.more != nil {
		i, ok := x.more[key]
		return i, ok
	}
	return 0, false
}

// get is key's sequence, nil if there is none.
func (x *seqIndex) get(key string) *seq {
	if i, ok := x.find(key); ok {
		return x.seqs[i]
	}
	return nil
}

// set makes s key's sequence.
func (x *seqIndex) set(key string, s *seq) {
	if i, ok := x.find(key); ok {
		x.seqs[i] = s
		return
	}
	var i uint32
	if n := len(x.free); n > 0 {
		i, x.free = x.free[n-1], x.free[:n-1]
		x.keys[i], x.seqs[i] = key, s
	} else {
		if len(x.seqs) == probePos {
			panic("seqd: more sequences than the index can number")
		}
		i = uint32(len(x.seqs))
		x.keys, x.seqs = append(x.keys, key), append(x.seqs, s)
	}
	h := x.hash(x.seed, key)
	if _, taken := x.pos[h]; taken {
		if x.more == nil {
			x.more = make(map[string]uint32)
		}
		x.more[key] = i
	} else {
		x.pos[h] = i
	}
	if x.byRel != nil {
		x.byRel.ReplaceOrInsert(i)
	}
}

// del removes key's sequence, if any.
func (x *seqIndex) del(key string) {
	i, ok := x.find(key)
	if !ok {
		return
	}
	if x.byRel != nil {
		x.byRel.Delete(i) // while its key is there to compare
	}
	if h := x.hash(x.seed, key); x.atHash(h, i) {
		delete(x.pos, h)
	} else {
		delete(x.more, key)
	}
	x.keys[i], x.seqs[i] = "", nil
	x.free = append(x.free, i)
}

// atHash reports whether the hash index holds position i at hash h.
func (x *seqIndex) atHash(h uint64, i uint32) bool {
	j, ok := x.pos[h]
	return ok && j == i
}

// len is the number of sequences.
func (x *seqIndex) len() int { return len(x.pos) + len(x.more) }

// all lists the keys and their sequences, by position. The body may
// delete the key it is given (as in a range over a map).
func (x *seqIndex) all() iter.Seq2[string, *seq] {
	return func(yield func(string, *seq) bool) {
		for i, s := range x.seqs {
			if s != nil && !yield(x.keys[i], s) {
				return
			}
		}
	}
}

// values lists the sequences by position (the order that reads memory
// in order). The body must not add or remove sequences.
func (x *seqIndex) values() iter.Seq[*seq] {
	return func(yield func(*seq) bool) {
		for _, s := range x.seqs {
			if s != nil && !yield(s) {
				return
			}
		}
	}
}

// clone is a copy of the index at the same positions, holding the
// sequences copy makes of x's.
func (x *seqIndex) clone(copy func(*seq) *seq) *seqIndex {
	c := &seqIndex{seed: x.seed, hash: x.hash, pos: maps.Clone(x.pos), keys: slices.Clone(x.keys),
		seqs: make([]*seq, len(x.seqs)), free: slices.Clone(x.free)}
	if x.more != nil {
		c.more = maps.Clone(x.more)
	}
	for i, s := range x.seqs {
		if s != nil {
			c.seqs[i] = copy(s)
		}
	}
	return c
}

// relKey is position i's key, the probe's for probePos.
func (x *seqIndex) relKey(i uint32) string {
	if i == probePos {
		return x.probe
	}
	return x.keys[i]
}

// relLessAt orders positions by their keys' relation names, then schemas.
func (x *seqIndex) relLessAt(a, b uint32) bool { return relCompare(x.relKey(a), x.relKey(b)) < 0 }

// relCompare orders keys ("schema.rel") by relation name, then schema.
func relCompare(a, b string) int {
	sa, ra := splitKey(a)
	sb, rb := splitKey(b)
	if c := strings.Compare(ra, rb); c != 0 {
		return c
	}
	return strings.Compare(sa, sb)
}

// splitKey is a key's schema and relation name.
func splitKey(key string) (schema, rel string) {
	i := strings.IndexByte(key, '.')
	return key[:max(i, 0)], key[i+1:]
}

// withRelPrefix calls f with each key, and its sequence, whose relation
// name begins with prefix, in order of relation name then schema, while
// f returns true. f must not search the index again.
func (x *seqIndex) withRelPrefix(prefix string, f func(key string, s *seq) bool) {
	x.relMu.Lock()
	defer x.relMu.Unlock()
	if x.byRel == nil {
		x.byRel = x.buildByRel()
	}
	// From "." + prefix: the empty schema sorts before every schema.
	x.probe = "." + prefix
	defer func() { x.probe = "" }()
	x.byRel.AscendGreaterOrEqual(probePos, func(i uint32) bool {
		_, rel := splitKey(x.keys[i])
		return strings.HasPrefix(rel, prefix) && f(x.keys[i], x.seqs[i])
	})
}

// buildByRel is the order by relation name of the positions in use.
func (x *seqIndex) buildByRel() *btree.BTreeG[uint32] {
	in := make([]uint32, 0, x.len())
	for i, s := range x.seqs {
		if s != nil {
			in = append(in, uint32(i))
		}
	}
	slices.SortFunc(in, func(a, b uint32) int { return relCompare(x.keys[a], x.keys[b]) })
	t := btree.NewG(32, x.relLessAt)
	for _, i := range in {
		t.ReplaceOrInsert(i)
	}
	return t
}
