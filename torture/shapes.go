package torture

import (
	"fmt"

	"github.com/seqd/seqd/seqmath"
)

// A shaped sequence's values are not ordered, so the history holds what
// the checks can order: each value's rank, its position among the values
// the sequence can hand out (its counter, less the counters the skip range
// passes over). Ranks go 1, 2, 3, ... as an ordered sequence's values do,
// so every checker (unique, order, linearizable, bounded gap) applies as it
// is. A value the shape cannot give, or one from the skip range, is a
// violation of its own.
type shapedSeq struct {
	shape seqmath.Shape
	// rank and counter convert between a counter whose value is not
	// skipped and its rank.
	rank    func(c int64) int64
	counter func(rank int64) int64
}

// shapedSeqs are DefaultSeqs' shaped sequences. t_bitrev's skip range,
// 1..2^60-1, holds exactly the values whose bits 62..60 are 0: those of
// the counters divisible by 8, so one counter in eight is passed over.
var shapedSeqs = map[string]shapedSeq{
	"t_bitrev": {
		shape:   seqmath.Shape{Kind: seqmath.BitReversed}.WithSkip(1, 1<<60-1),
		rank:    func(c int64) int64 { return c - c/8 },
		counter: func(k int64) int64 { return k + (k-1)/7 },
	},
	"t_sharded": {
		shape:   seqmath.Shape{Kind: seqmath.Sharded, ShardBits: 4, RangeBits: 64},
		rank:    func(c int64) int64 { return c },
		counter: func(k int64) int64 { return k },
	},
}

// rank is what the history records for value v of s.
func (r *run) rank(s Seq, v int64) int64 {
	sh, ok := shapedSeqs[s.Name]
	if !ok {
		return v
	}
	c, ok := sh.shape.Counter(v)
	if !ok || c < 1 || sh.shape.Skipped(v) {
		r.violation(fmt.Sprintf("%s returned %d, which is not one of its values (%v)", s.Name, v, sh.shape))
		return v
	}
	return sh.rank(c)
}

// rankOfCounter is the rank of counter c of a range seqd_reserve returned;
// ok is false when the skip range passes over it.
func (r *run) rankOfCounter(s Seq, c int64) (int64, bool) {
	sh, ok := shapedSeqs[s.Name]
	if !ok {
		return c, true
	}
	if sh.shape.Skipped(sh.shape.Value(c)) {
		return 0, false
	}
	return sh.rank(c), true
}

// valueOf is the value whose rank is k: what setval is given.
func (r *run) valueOf(s Seq, k int64) int64 {
	sh, ok := shapedSeqs[s.Name]
	if !ok {
		return k
	}
	return sh.shape.Value(sh.counter(k))
}
