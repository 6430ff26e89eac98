package timeid

import "time"

// UUIDv7Layout is the time and counter of RFC 9562's UUIDv7 as seqd
// makes them: 48 bits of Unix milliseconds and, in rand_a, a 12-bit
// counter (the RFC's method 1, "fixed bit-length dedicated counter"),
// which starts at 0 in each millisecond; when it runs out, the next
// millisecond is borrowed (invariant 3), so that the UUIDs of one Gen
// increase in the order they are issued, also within a millisecond and
// across a clock step back.
var UUIDv7Layout = Layout{Epoch: time.Unix(0, 0).UTC(), Unit: time.Millisecond, TimeBits: 48, CounterBits: 12}

// UUIDv7 is the UUID of id, issued by a Gen on UUIDv7Layout, with
// random's bits (62 of them are used) as rand_b.
func UUIDv7(id int64, random [8]byte) [16]byte {
	var u [16]byte
	ms, counter := uint64(id)>>12, uint64(id)&0xfff
	for i := range 6 {
		u[i] = byte(ms >> (40 - 8*i))
	}
	u[6] = 0x70 | byte(counter>>8) // version 7
	u[7] = byte(counter)
	copy(u[8:], random[:])
	u[8] = 0x80 | u[8]&0x3f // variant 10
	return u
}
