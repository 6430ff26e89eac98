package engine

import (
	"hash/maphash"
	"iter"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
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
//   - The order by relation name is a list of positions, in sorted
//     chunks (relOrder), compared through the list of keys: not a
//     B-tree of strings. Loading the store builds it once at the end,
//     from the store's order (by schema, then name: already sorted
//     within each schema), and a copy of the index copies its chunks.
//
// REQUIRES: the engine's catMu, for reading or writing as for a map.
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
	// nil while a load defers it (deferOrder, buildOrder).
	byRel *relOrder
}

func newSeqIndex(n int) *seqIndex {
	return &seqIndex{seed: maphash.MakeSeed(), hash: maphash.String,
		pos: make(map[uint64]uint32, n), keys: make([]string, 0, n), seqs: make([]*seq, 0, n), byRel: &relOrder{}}
}

// deferOrder stops keeping the order by relation name until buildOrder:
// for a load of many sequences, which sorts them once instead of
// placing each.
func (x *seqIndex) deferOrder() { x.byRel = nil }

// buildOrder builds the order by relation name of the positions in use.
func (x *seqIndex) buildOrder() { x.byRel = x.sortedOrder() }

// sortedOrder is the order by relation name of the positions in use,
// made afresh.
func (x *seqIndex) sortedOrder() *relOrder {
	in := make([]uint32, 0, x.len())
	for i, s := range x.seqs {
		if s != nil {
			in = append(in, uint32(i))
		}
	}
	// Nearly sorted when loaded from the store (by key: schema, then
	// name), which the sort finds in linear time.
	slices.SortFunc(in, func(a, b uint32) int { return relCompare(x.keys[a], x.keys[b]) })
	return newRelOrder(in)
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
		if len(x.seqs) == math.MaxUint32 {
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
		x.byRel.insert(i, key, x.keyAt)
	}
}

// del removes key's sequence, if any.
func (x *seqIndex) del(key string) {
	i, ok := x.find(key)
	if !ok {
		return
	}
	if x.byRel != nil {
		x.byRel.delete(i, key, x.keyAt)
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
	if x.byRel != nil {
		c.byRel = x.byRel.clone()
	}
	for i, s := range x.seqs {
		if s != nil {
			c.seqs[i] = copy(s)
		}
	}
	return c
}

// keyAt is position i's key.
func (x *seqIndex) keyAt(i uint32) string { return x.keys[i] }

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
// f returns true.
func (x *seqIndex) withRelPrefix(prefix string, f func(key string, s *seq) bool) {
	o := x.byRel
	if o == nil { // during a load (not reached: Open builds it after)
		o = x.sortedOrder()
	}
	// From "." + prefix: the empty schema sorts before every schema.
	for i := range o.from("."+prefix, x.keyAt) {
		if _, rel := splitKey(x.keys[i]); !strings.HasPrefix(rel, prefix) || !f(x.keys[i], x.seqs[i]) {
			return
		}
	}
}

// relOrder is positions sorted by their keys (relCompare), which it is
// given by a function: a list of sorted chunks of at most relChunk
// positions, a few pointers for the collector at a million positions,
// built from a sorted list in linear time, copied with a copy of each
// chunk. Keys are unique: no two positions compare equal.
type relOrder struct{ chunks [][]uint32 }

// relChunk is the most positions a chunk holds; a full chunk splits in
// two.
const relChunk = 512

// newRelOrder is the order of sorted, in chunks three quarters full.
func newRelOrder(sorted []uint32) *relOrder {
	o := &relOrder{}
	for len(sorted) > 0 {
		n := min(len(sorted), relChunk*3/4)
		o.chunks = append(o.chunks, slices.Clone(sorted[:n]))
		sorted = sorted[n:]
	}
	return o
}

// seek is where key is, or would be: the chunk and the place in it of
// the first position whose key is not before key (len(chunks), 0: none).
func (o *relOrder) seek(key string, keyOf func(uint32) string) (c, j int) {
	c = sort.Search(len(o.chunks), func(c int) bool {
		ch := o.chunks[c]
		return relCompare(keyOf(ch[len(ch)-1]), key) >= 0
	})
	if c == len(o.chunks) {
		return c, 0
	}
	ch := o.chunks[c]
	return c, sort.Search(len(ch), func(j int) bool { return relCompare(keyOf(ch[j]), key) >= 0 })
}

// insert places position i, whose key is key.
func (o *relOrder) insert(i uint32, key string, keyOf func(uint32) string) {
	if len(o.chunks) == 0 {
		o.chunks = [][]uint32{{i}}
		return
	}
	c, j := o.seek(key, keyOf)
	if c == len(o.chunks) { // after every key: at the end of the last chunk
		c = len(o.chunks) - 1
		j = len(o.chunks[c])
	}
	ch := slices.Insert(o.chunks[c], j, i)
	if len(ch) <= relChunk {
		o.chunks[c] = ch
		return
	}
	half := len(ch) / 2
	o.chunks[c] = ch[:half:half]
	o.chunks = slices.Insert(o.chunks, c+1, slices.Clone(ch[half:]))
}

// delete removes position i, whose key is key.
func (o *relOrder) delete(i uint32, key string, keyOf func(uint32) string) {
	c, j := o.seek(key, keyOf)
	if c == len(o.chunks) || o.chunks[c][j] != i {
		// Not where its key says: never so while keys are unique and
		// unchanged in the order. Looked for everywhere rather than
		// left behind.
		if c, j = o.locate(i); c < 0 {
			return
		}
	}
	if ch := slices.Delete(o.chunks[c], j, j+1); len(ch) > 0 {
		o.chunks[c] = ch
	} else {
		o.chunks = slices.Delete(o.chunks, c, c+1)
	}
}

// locate is where position i is, by looking at every chunk (-1: nowhere).
func (o *relOrder) locate(i uint32) (c, j int) {
	for c, ch := range o.chunks {
		if j := slices.Index(ch, i); j >= 0 {
			return c, j
		}
	}
	return -1, 0
}

// from lists the positions in order from the first whose key is not
// before key.
func (o *relOrder) from(key string, keyOf func(uint32) string) iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		c, j := o.seek(key, keyOf)
		for ; c < len(o.chunks); c, j = c+1, 0 {
			for _, i := range o.chunks[c][j:] {
				if !yield(i) {
					return
				}
			}
		}
	}
}

// clone is a copy of o.
func (o *relOrder) clone() *relOrder {
	c := &relOrder{chunks: make([][]uint32, len(o.chunks))}
	for k, ch := range o.chunks {
		c.chunks[k] = slices.Clone(ch)
	}
	return c
}
