package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/seqd/seqd/seqmath"
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
// flags: bit 0 CYCLE, bit 1 is_called, bits 2-3 the type (seqmath.Type),
// bit 4 UNLOGGED (reset to its start after a crash).
//
// A shaped sequence's record is version 2: the same 58 bytes, then its
// shape (seqmath.Shape), 19 bytes:
//
//	 58       59       60       61                69                77
//	+--------+--------+--------+-----------------+-----------------+
//	| kind   | S      | R      | skip min (i64)  | skip max (i64)  |
//	+--------+--------+--------+-----------------+-----------------+
//
// kind: bits 0-1 the seqmath.ShapeKind, bit 2 a skip range is set. A
// Snowflake's (kind 3) has its node bits in S, its counter bits in R,
// and its epoch and time unit (microseconds) where a skip range would be.
//
// A mark written ahead of the values handed out (an extension) also
// records the position handed out when it was written: flags bit 5 says
// it follows the fields above, 8 bytes (its last value), and bit 6 is its
// is_called. A crash skips at most the values between it and the mark
// (counted as burned at the next start). A record without it holds an
// exact position, or is an older seqd's.
//
// A NOORDER sequence's record has flags bit 7 set and, after the shape
// and before the known position, 8 bytes: its epoch, the number of times
// its position was set (setval, RESTART, becoming NOORDER). In cluster
// mode the nodes reserve its values in blocks recorded apart (rangeKey);
// the record's state is where they start from in a new epoch.
//
// A record of a sequence written with MariaDB's INCREMENT BY 0
// (seqmath.Options.IncrementZero) is version 3: a version 1 or 2 record,
// its optional fields included, then one byte of more flags: bit 0 the
// increment written as 0 (its increment is 1), bit 1 the shape follows
// the first 58 bytes, as in version 2. Version 3 is written only where
// bit 0 is set, so that a seqd that does not know it refuses the record
// as newer rather than show the increment as 1, and records of other
// sequences are read by older seqds as before.
//
// A record of a sequence written with MariaDB's CACHE 1
// (seqmath.Options.CacheOne; its cache is 1, as NOCACHE's) is version 4:
// version 3's layout, its more flags with bit 2 set, the cache written
// as CACHE 1, and bit 0 set or not. Version 3 has no bit 2, and version
// 4 is written only where it is set, so that a seqd that reads versions
// up to 3 refuses the record as newer rather than call the bit damage
// or show the cache as NOCACHE; every other record is written as
// before.
const (
	recordVersion = 1
	recordSize    = 58

	shapedVersion = 2
	shapedSize    = recordSize + 19

	flaggedVersion  = 3
	cacheOneVersion = 4
	moreZeroInc     = 1 // version 3's and 4's flags
	moreShaped      = 2
	moreCacheOne    = 4 // version 4's only
)

type record struct {
	id       uint64
	opts     seqmath.Options
	state    seqmath.State
	unlogged bool
	// known is the position handed out when a mark ahead of it was
	// written; hasKnown false: state is the position (or unknown).
	known    seqmath.State
	hasKnown bool
	// epoch counts the times a NOORDER sequence's position was set.
	epoch uint64
	// frozen: a NOORDER sequence being made ORDER; no node reserves a
	// block of it (stored as the epoch's top bit). The leader's next
	// write of the record, or the next leader's takeover, thaws it.
	frozen bool
}

// frozenBit marks a frozen record in its epoch field.
const frozenBit = 1 << 63

// knownSize and epochSize are the sizes of the optional fields.
const (
	knownSize = 8
	epochSize = 8
)

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
	if r.hasKnown {
		b[1] |= 32
		if r.known.Called {
			b[1] |= 64
		}
	}
	if r.opts.NoOrder {
		b[1] |= 128
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
		s, r := sh.ShardBits, sh.RangeBits
		if sh.Kind == seqmath.Snowflake {
			s, r, lo, hi = sh.NodeBits, sh.CounterBits, sh.EpochMicros, sh.UnitMicros
		}
		b = append(b, kind, s, r)
		b = binary.BigEndian.AppendUint64(b, uint64(lo))
		b = binary.BigEndian.AppendUint64(b, uint64(hi))
	}
	if r.opts.NoOrder {
		epoch := r.epoch
		if r.frozen {
			epoch |= frozenBit
		}
		b = binary.BigEndian.AppendUint64(b, epoch)
	}
	if r.hasKnown {
		b = binary.BigEndian.AppendUint64(b, uint64(r.known.Last))
	}
	if r.opts.IncrementZero || r.opts.CacheOne {
		var more byte
		b[0] = flaggedVersion
		if r.opts.IncrementZero {
			more |= moreZeroInc
		}
		if sh.Shaped() {
			more |= moreShaped
		}
		if r.opts.CacheOne {
			more |= moreCacheOne
			b[0] = cacheOneVersion
		}
		b = append(b, more)
	}
	return b
}

// newerRecord is the error for a record of a version this seqd does not
// know: written by a newer seqd, not damaged.
func newerRecord(kind string, version, known byte) error {
	return fmt.Errorf("seqd: a %s record of version %d was written by a newer seqd (this one reads versions up to %d): run that seqd or a newer one", kind, version, known)
}

func decodeRecord(b []byte) (record, error) {
	if len(b) > 0 && b[0] > cacheOneVersion {
		return record{}, newerRecord("sequence", b[0], cacheOneVersion)
	}
	// Made only when needed: a load decodes every record.
	size := len(b)
	corrupt := func() error { return fmt.Errorf("seqd: corrupt sequence record (%d bytes)", size) }
	version, zeroInc, cacheOne := byte(0), false, false
	if len(b) > 0 {
		version = b[0]
	}
	if version == flaggedVersion || version == cacheOneVersion {
		// The version 1 or 2 record before the last byte: version 3's
		// with bit 0 set, version 4's with bit 2.
		more := b[len(b)-1]
		known, required := byte(moreZeroInc|moreShaped), byte(moreZeroInc)
		if version == cacheOneVersion {
			known, required = known|moreCacheOne, moreCacheOne
		}
		if more&^known != 0 || more&required == 0 {
			return record{}, corrupt()
		}
		b, version = b[:len(b)-1], recordVersion
		zeroInc, cacheOne = more&moreZeroInc != 0, more&moreCacheOne != 0
		if more&moreShaped != 0 {
			version = shapedVersion
		}
	}
	extra := 0
	if len(b) > 1 && b[1]&32 != 0 {
		extra = knownSize
	}
	if len(b) > 1 && b[1]&128 != 0 {
		extra += epochSize
	}
	ok := len(b) == recordSize+extra && version == recordVersion || len(b) == shapedSize+extra && version == shapedVersion
	if !ok || b[1]&32 == 0 && b[1]&64 != 0 || seqmath.Type(b[1]>>2&3) > seqmath.Smallint {
		return record{}, corrupt()
	}
	var r record
	tail := b[len(b)-extra:]
	if b[1]&128 != 0 {
		r.opts.NoOrder = true
		r.epoch = binary.BigEndian.Uint64(tail)
		r.frozen, r.epoch = r.epoch&frozenBit != 0, r.epoch&^frozenBit
		tail = tail[epochSize:]
	}
	if b[1]&32 != 0 {
		r.hasKnown = true
		r.known = seqmath.State{Last: int64(binary.BigEndian.Uint64(tail)), Called: b[1]&64 != 0}
	}
	r.opts.Cycle = b[1]&1 != 0
	r.state.Called = b[1]&2 != 0
	r.opts.Type = seqmath.Type(b[1] >> 2 & 3)
	r.unlogged = b[1]&16 != 0
	r.id = binary.BigEndian.Uint64(b[2:])
	field := func(i int) int64 { return int64(binary.BigEndian.Uint64(b[10+8*i:])) }
	r.opts.Increment, r.opts.Min, r.opts.Max = field(0), field(1), field(2)
	r.opts.Start, r.opts.Cache, r.state.Last = field(3), field(4), field(5)
	if zeroInc {
		if r.opts.Increment != 1 {
			return record{}, corrupt()
		}
		r.opts.IncrementZero = true
	}
	if cacheOne {
		if r.opts.Cache != 1 {
			return record{}, corrupt()
		}
		r.opts.CacheOne = true
	}
	if version == shapedVersion {
		kind := b[recordSize]
		sh := seqmath.Shape{Kind: seqmath.ShapeKind(kind & 3), ShardBits: b[recordSize+1], RangeBits: b[recordSize+2]}
		lo, hi := int64(binary.BigEndian.Uint64(b[recordSize+3:])), int64(binary.BigEndian.Uint64(b[recordSize+11:]))
		switch {
		case sh.Kind == seqmath.Snowflake && kind&4 == 0:
			var err error
			if sh, err = seqmath.NewSnowflake(lo, hi, int64(sh.ShardBits), int64(sh.RangeBits)); err != nil {
				return record{}, corrupt()
			}
		case kind&4 != 0:
			sh = sh.WithSkip(lo, hi)
		case lo != 0 || hi != 0:
			return record{}, corrupt()
		}
		if kind>>3 != 0 || !sh.Shaped() {
			return record{}, corrupt()
		}
		r.opts.Shape = sh
	}
	return r, nil
}
