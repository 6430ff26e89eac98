package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/memstore"
)

func TestShapedRecordRoundTrip(t *testing.T) {
	for _, sh := range []seqmath.Shape{
		{Kind: seqmath.BitReversed},
		seqmath.Shape{Kind: seqmath.BitReversed}.WithSkip(-7, 1<<62),
		seqmath.Shape{Kind: seqmath.Sharded, ShardBits: 15, RangeBits: 32}.WithSkip(1, 2),
		{Kind: seqmath.Snowflake, NodeBits: 16, CounterBits: 8, EpochMicros: -5, UnitMicros: 10000},
	} {
		r := record{id: 9, opts: seqmath.Options{Increment: 1, Min: 1, Max: sh.MaxCounter(), Start: 3, Cache: 20, Shape: sh}, state: seqmath.State{Last: 77, Called: true}}
		b := r.encode()
		got, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("%v: %v", sh, err)
		}
		// The shape field by field (its skip range is behind a pointer,
		// which == would compare by address), then the rest of the
		// record with the shape left out of both sides.
		gs, ws := got.opts.Shape, r.opts.Shape
		glo, ghi, gok := gs.Skip()
		wlo, whi, wok := ws.Skip()
		if gs.Kind != ws.Kind || gs.ShardBits != ws.ShardBits || gs.RangeBits != ws.RangeBits || glo != wlo || ghi != whi || gok != wok {
			t.Fatalf("%v: decoded shape %v (skip %d..%d %v), want skip %d..%d %v", sh, gs, glo, ghi, gok, wlo, whi, wok)
		}
		got.opts.Shape, r.opts.Shape = seqmath.Shape{}, seqmath.Shape{}
		if got != r {
			t.Fatalf("%v: decoded %+v, want %+v", sh, got, r)
		}
		r.opts.Shape = sh
		for _, bad := range [][]byte{b[:recordSize], append(b[:len(b):len(b)], 0)} {
			if _, err := decodeRecord(bad); err == nil {
				t.Errorf("%v: %d bytes decoded", sh, len(bad))
			}
		}
		c := append([]byte(nil), b...)
		c[recordSize] |= 8
		if _, err := decodeRecord(c); err == nil {
			t.Errorf("%v: unknown shape bits decoded", sh)
		}
	}
	plain := record{id: 1, opts: seqmath.Options{Increment: 1, Min: 1, Max: 10, Start: 1, Cache: 1}}
	if b := plain.encode(); len(b) != recordSize || b[0] != recordVersion {
		t.Fatalf("an ordered sequence's record changed format: %d bytes, version %d", len(b), b[0])
	}
}

// TestShapedNextvalAcrossRestart: nextval maps counters to values, passes
// over the skip range, and a reopened engine keeps the shape and resumes
// beyond the counter.
func TestShapedNextvalAcrossRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "br")
	sh := seqmath.Shape{Kind: seqmath.BitReversed}
	// The skip range holds counters 1, 2, 3, 5 and 6's values (2^62,
	// 2^61, 2^62+2^61, 2^62+2^60, 2^61+2^60); counters 4, 7 and 8 give
	// 2^60, 2^62+2^61+2^60 and 2^59.
	skip := [2]int64{1 << 61, 1<<62 | 1<<61}
	if _, err := e.Create(ctx, n, seqmath.Spec{Shape: &sh, Skip: &skip, Cache: i64(10)}, false); err != nil {
		t.Fatal(err)
	}
	want := []int64{1 << 60, 1<<62 | 1<<61 | 1<<60, 1 << 59}
	for _, w := range want {
		if v := next(t, e, n); v != w {
			t.Fatalf("nextval = %d, want %d", v, w)
		}
	}
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	info, err := e.Info(n)
	if err != nil || info.Options.Shape.Kind != seqmath.BitReversed || !info.Options.Shape.HasSkip() || info.State.Last != 8 {
		t.Fatalf("after restart: %+v, %v", info, err)
	}
	// Counters 9 and 10 are skipped (2^62+2^59, 2^61+2^59).
	if v, w := next(t, e, n), sh.Value(11); v != w {
		t.Fatalf("after restart: %d, want counter 11's value %d", v, w)
	}
}

// TestKnownPositionRecord: a mark's record may carry the position handed
// out when it was written, in both versions; its bits alone, or a wrong
// size, do not decode.
func TestKnownPositionRecord(t *testing.T) {
	for _, sh := range []seqmath.Shape{{}, {Kind: seqmath.BitReversed}} {
		max := int64(1000)
		if sh.Shaped() {
			max = sh.MaxCounter()
		}
		for _, known := range []seqmath.State{{Last: 5}, {Last: 40, Called: true}} {
			r := record{id: 3, opts: seqmath.Options{Increment: 1, Min: 1, Max: max, Start: 1, Cache: 50, Shape: sh},
				state: seqmath.State{Last: 90, Called: true}, known: known, hasKnown: true}
			b := r.encode()
			got, err := decodeRecord(b)
			got.opts.Shape = r.opts.Shape
			if err != nil || got != r {
				t.Fatalf("%v %+v: decoded %+v, %v", sh, known, got, err)
			}
			for _, bad := range [][]byte{b[:len(b)-knownSize], append(b[:len(b):len(b)], 0)} {
				if _, err := decodeRecord(bad); err == nil {
					t.Errorf("%v: %d bytes decoded", sh, len(bad))
				}
			}
		}
		r := record{id: 3, opts: seqmath.Options{Increment: 1, Min: 1, Max: max, Start: 1, Cache: 50, Shape: sh}}
		b := r.encode()
		b[1] |= 64 // known is_called without a known position
		if _, err := decodeRecord(b); err == nil {
			t.Errorf("%v: bit 6 alone decoded", sh)
		}
	}
}

// TestNoOrderRecord: a NOORDER record carries its epoch, with or without
// a known position and a shape; a wrong size does not decode.
func TestNoOrderRecord(t *testing.T) {
	for _, sh := range []seqmath.Shape{{}, {Kind: seqmath.BitReversed}} {
		max := int64(1000)
		if sh.Shaped() {
			max = sh.MaxCounter()
		}
		for _, hasKnown := range []bool{false, true} {
			r := record{id: 9, opts: seqmath.Options{Increment: 1, Min: 1, Max: max, Start: 1, Cache: 50, Shape: sh, NoOrder: true},
				state: seqmath.State{Last: 70, Called: true}, epoch: 1<<40 + 3}
			if hasKnown {
				r.known, r.hasKnown = seqmath.State{Last: 60, Called: true}, true
			}
			b := r.encode()
			got, err := decodeRecord(b)
			got.opts.Shape = r.opts.Shape
			if err != nil || got != r {
				t.Fatalf("%v known %v: decoded %+v, %v; want %+v", sh, hasKnown, got, err, r)
			}
			for _, bad := range [][]byte{b[:len(b)-epochSize], append(b[:len(b):len(b)], 0)} {
				if _, err := decodeRecord(bad); err == nil {
					t.Errorf("%v: %d bytes decoded", sh, len(bad))
				}
			}
			r.opts.NoOrder = false
			if len(r.encode()) != len(b)-epochSize {
				t.Errorf("%v: an ORDER record carries the epoch", sh)
			}
		}
	}
}

// TestThawAtTakeover: a NOORDER sequence left frozen by a leader that
// did not finish making it ORDER is thawed by the next one, NOORDER as
// before, and its later writes expect the thawed record's revision.
func TestThawAtTakeover(t *testing.T) {
	st := memstore.New()
	e, err := Open(ctx, Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	n := mustName(t, "s")
	no := false
	if _, err := e.Create(ctx, n, seqmath.Spec{Order: &no}, false); err != nil {
		t.Fatal(err)
	}
	s, err := e.lookupIdle(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.freeze(ctx, s, n); err != nil {
		t.Fatal(err)
	}
	s.mu.Unlock()
	stored := func() record {
		var rec record
		st.Load(ctx, func(kv storage.KV) error {
			if kv.Key == n.key {
				rec, err = decodeRecord(kv.Value)
			}
			return err
		})
		return rec
	}
	if !stored().frozen {
		t.Fatal("not frozen")
	}
	next, err := Open(ctx, Config{Store: st}) // takes over; e is deposed
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if rec := stored(); rec.frozen || !rec.opts.NoOrder {
		t.Fatalf("after the takeover: %+v", rec)
	}
	if _, err := next.Setval(ctx, n, 5, true); err != nil {
		t.Fatalf("a write after the thaw: %v", err)
	}
}
