package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/seqd/seqd/alloc"
)

// A sequence's stored record: its options and the state it resumes from
// after a restart. The state is either a high-water mark (every value ever
// handed out is at or before it) or, after DDL and a clean shutdown, the
// exact position. This layout is part of the on-disk format:
//
//	 0        1        2                 10                18
//	+--------+--------+-----------------+-----------------+
//	| ver=1  | flags  | id (u64 BE)     | increment (i64) |
//	+--------+--------+-----------------+-----------------+
//	 18                26                34                42
//	+-----------------+-----------------+-----------------+
//	| min (i64 BE)    | max (i64 BE)    | start (i64 BE)  |
//	+-----------------+-----------------+-----------------+
//	 42                50                58
//	+-----------------+-----------------+
//	| cache (i64 BE)  | last (i64 BE)   |
//	+-----------------+-----------------+
//
// flags: bit 0 CYCLE, bit 1 is_called, bits 2-3 the type (alloc.Type),
// bit 4 UNLOGGED (reset to its start after a crash).
//
// A shaped sequence's record is version 2: the same 58 bytes, then its
// shape (alloc.Shape), 19 bytes:
//
//	 58       59       60       61                69                77
//	+--------+--------+--------+-----------------+-----------------+
//	| kind   | S      | R      | skip min (i64)  | skip max (i64)  |
//	+--------+--------+--------+-----------------+-----------------+
//
// kind: bits 0-1 the alloc.ShapeKind, bit 2 a skip range is set.
const (
	recordVersion = 1
	recordSize    = 58

	shapedVersion = 2
	shapedSize    = recordSize + 19
)

type record struct {
	id       uint64
	opts     alloc.Options
	state    alloc.State
	unlogged bool
}

func (r record) encode() []byte {
	sh := r.opts.Shape
	b := make([]byte, 2, shapedSize)
	b[0] = recordVersion
	if sh.Shaped() {
		b[0] = shapedVersion
	}
	if r.opts.Cycle {
		b[1] |= 1
	}
	if r.state.Called {
		b[1] |= 2
	}
	b[1] |= byte(r.opts.Type) << 2
	if r.unlogged {
		b[1] |= 16
	}
	b = binary.BigEndian.AppendUint64(b, r.id)
	for _, v := range []int64{r.opts.Increment, r.opts.Min, r.opts.Max, r.opts.Start, r.opts.Cache, r.state.Last} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	if sh.Shaped() {
		kind := byte(sh.Kind)
		lo, hi, skip := sh.Skip()
		if skip {
			kind |= 4
		}
		b = append(b, kind, sh.ShardBits, sh.RangeBits)
		b = binary.BigEndian.AppendUint64(b, uint64(lo))
		b = binary.BigEndian.AppendUint64(b, uint64(hi))
	}
	return b
}

func decodeRecord(b []byte) (record, error) {
	corrupt := fmt.Errorf("seqd: corrupt sequence record (%d bytes)", len(b))
	ok := len(b) == recordSize && b[0] == recordVersion || len(b) == shapedSize && b[0] == shapedVersion
	if !ok || b[1]>>5 != 0 || alloc.Type(b[1]>>2&3) > alloc.Smallint {
		return record{}, corrupt
	}
	var r record
	r.opts.Cycle = b[1]&1 != 0
	r.state.Called = b[1]&2 != 0
	r.opts.Type = alloc.Type(b[1] >> 2 & 3)
	r.unlogged = b[1]&16 != 0
	r.id = binary.BigEndian.Uint64(b[2:])
	field := func(i int) int64 { return int64(binary.BigEndian.Uint64(b[10+8*i:])) }
	r.opts.Increment, r.opts.Min, r.opts.Max = field(0), field(1), field(2)
	r.opts.Start, r.opts.Cache, r.state.Last = field(3), field(4), field(5)
	if b[0] == shapedVersion {
		kind := b[recordSize]
		sh := alloc.Shape{Kind: alloc.ShapeKind(kind & 3), ShardBits: b[recordSize+1], RangeBits: b[recordSize+2]}
		lo, hi := int64(binary.BigEndian.Uint64(b[recordSize+3:])), int64(binary.BigEndian.Uint64(b[recordSize+11:]))
		if kind&4 != 0 {
			sh = sh.WithSkip(lo, hi)
		} else if lo != 0 || hi != 0 {
			return record{}, corrupt
		}
		if kind>>3 != 0 || !sh.Shaped() || sh.Kind > alloc.Sharded {
			return record{}, corrupt
		}
		r.opts.Shape = sh
	}
	return r, nil
}
