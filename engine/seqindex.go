package engine

import "iter"

// seqIndex is the engine's sequences by key. It is not a map from key to
// *seq because of what such a map costs the garbage collector: every
// collection walks the map in its hash order and so visits each sequence
// at a random address, a cache miss each. At a million sequences that was
// two thirds of a collection's CPU (190 of 284 ms in a model of the
// engine's heap), and the runtime collects at least every two minutes,
// so an idle cluster follower spent most of its time there. Here the map
// holds positions, which the collector need not follow, and the
// sequences are listed by position: in the order they were added, which
// is mostly the order they were allocated in.
//
// REQUIRES: the engine's catMu, for reading or writing as for a map.
type seqIndex struct {
	pos  map[string]uint32 // key -> position in seqs
	seqs []*seq            // by position; nil: free
	// free lists the positions drops freed, taken before seqs grows.
	// Like a map's, the index's room stays that of its largest size.
	free []uint32
}

func newSeqIndex(n int) seqIndex {
	return seqIndex{pos: make(map[string]uint32, n), seqs: make([]*seq, 0, n)}
}

// get is key's sequence, nil if there is none.
func (x *seqIndex) get(key string) *seq {
	if i, ok := x.pos[key]; ok {
		return x.seqs[i]
	}
	return nil
}

// set makes s key's sequence.
func (x *seqIndex) set(key string, s *seq) {
	if i, ok := x.pos[key]; ok {
		x.seqs[i] = s
		return
	}
	var i uint32
	if n := len(x.free); n > 0 {
		i, x.free = x.free[n-1], x.free[:n-1]
		x.seqs[i] = s
	} else {
		i = uint32(len(x.seqs))
		x.seqs = append(x.seqs, s)
	}
	x.pos[key] = i
}

// del removes key's sequence, if any.
func (x *seqIndex) del(key string) {
	i, ok := x.pos[key]
	if !ok {
		return
	}
	delete(x.pos, key)
	x.seqs[i] = nil
	x.free = append(x.free, i)
}

// len is the number of sequences.
func (x *seqIndex) len() int { return len(x.pos) }

// all lists the keys and their sequences, in no particular order. The
// body may delete the key it is given (as in a range over a map).
func (x *seqIndex) all() iter.Seq2[string, *seq] {
	return func(yield func(string, *seq) bool) {
		for k, i := range x.pos {
			if !yield(k, x.seqs[i]) {
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
