package engine

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
)

// TestRecordIncrementZero: a sequence written with MariaDB's INCREMENT BY
// 0 is a version 3 record, read back with the flag (shaped, with a known
// position and a NOORDER epoch too); every other record keeps version 1
// or 2, so that older seqds read them as before, and a version 3 record
// is refused by a seqd that reads versions up to 2 (its check: b[0] >
// shapedVersion), not read with the flag lost.
func TestRecordIncrementZero(t *testing.T) {
	plain := seqmath.Options{Increment: 1, Min: 1, Max: 100, Start: 1, Cache: 1}
	zero := plain
	zero.IncrementZero = true
	shaped := zero
	shaped.Shape = seqmath.Shape{Kind: seqmath.BitReversed}
	shaped.Max = shaped.Shape.MaxCounter()
	noorder := zero
	noorder.NoOrder = true
	for _, c := range []struct {
		name    string
		rec     record
		version byte
	}{
		{"plain", record{id: 7, opts: plain, state: seqmath.State{Last: 3, Called: true}}, recordVersion},
		{"shaped", record{id: 7, opts: seqmath.Options{Increment: 1, Min: 1, Max: shaped.Max, Start: 1, Cache: 1, Shape: shaped.Shape}}, shapedVersion},
		{"zero", record{id: 7, opts: zero, state: seqmath.State{Last: 3, Called: true}}, flaggedVersion},
		{"zero shaped", record{id: 7, opts: shaped}, flaggedVersion},
		{"zero known", record{id: 7, opts: zero, state: seqmath.State{Last: 9}, known: seqmath.State{Last: 4, Called: true}, hasKnown: true}, flaggedVersion},
		{"zero noorder", record{id: 7, opts: noorder, epoch: 5, frozen: true, unlogged: true}, flaggedVersion},
	} {
		b := c.rec.encode()
		if b[0] != c.version {
			t.Errorf("%s: version %d, want %d", c.name, b[0], c.version)
		}
		got, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.rec {
			t.Errorf("%s: read back %+v, want %+v", c.name, got, c.rec)
		}
		if older := b[0] > shapedVersion; older != c.rec.opts.IncrementZero {
			t.Errorf("%s: a seqd without version 3 would refuse it: %v", c.name, older)
		}
	}
	good := record{id: 7, opts: zero}.encode()
	for name, b := range map[string][]byte{
		"no flag":         append(good[:len(good)-1:len(good)-1], 0),
		"unknown flag":    append(good[:len(good)-1:len(good)-1], moreZeroInc|8),
		"shape missing":   append(good[:len(good)-1:len(good)-1], moreZeroInc|moreShaped),
		"increment not 1": record{id: 7, opts: seqmath.Options{Increment: 2, Min: 1, Max: 100, Start: 1, Cache: 1, IncrementZero: true}}.encode(),
		"version only":    {flaggedVersion},
	} {
		if _, err := decodeRecord(b); err == nil || !strings.Contains(err.Error(), "corrupt sequence record") {
			t.Errorf("%s: %v, want a corrupt record", name, err)
		}
	}
	if _, err := decodeRecord([]byte{cacheOneVersion + 1, 0}); err == nil || !strings.Contains(err.Error(), "reads versions up to 4") {
		t.Errorf("version 5: %v", err)
	}
}

// TestRecordCacheOne: a sequence written with MariaDB's CACHE 1 is a
// version 4 record, version 3's layout with more flags bit 2 set, read
// back with the flag (with INCREMENT BY 0's, shaped, with a known
// position and a NOORDER epoch too); every other record is written
// byte for byte as before, and a seqd that reads versions up to 3 (its
// check: b[0] > flaggedVersion) refuses it rather than read it without
// the flag.
func TestRecordCacheOne(t *testing.T) {
	plain := seqmath.Options{Increment: 1, Min: 1, Max: 100, Start: 1, Cache: 1}
	one := plain
	one.CacheOne = true
	zeroOne := one
	zeroOne.IncrementZero = true
	shaped := one
	shaped.Shape = seqmath.Shape{Kind: seqmath.BitReversed}
	shaped.Max = shaped.Shape.MaxCounter()
	noorder := zeroOne
	noorder.NoOrder = true
	for _, c := range []struct {
		name    string
		rec     record
		version byte
	}{
		{"one", record{id: 7, opts: one, state: seqmath.State{Last: 3, Called: true}}, cacheOneVersion},
		{"one zero", record{id: 7, opts: zeroOne}, cacheOneVersion},
		{"one shaped", record{id: 7, opts: shaped}, cacheOneVersion},
		{"one known", record{id: 7, opts: one, state: seqmath.State{Last: 9}, known: seqmath.State{Last: 4, Called: true}, hasKnown: true}, cacheOneVersion},
		{"one noorder", record{id: 7, opts: noorder, epoch: 5, frozen: true, unlogged: true}, cacheOneVersion},
	} {
		b := c.rec.encode()
		if b[0] != c.version {
			t.Errorf("%s: version %d, want %d", c.name, b[0], c.version)
		}
		got, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.rec {
			t.Errorf("%s: read back %+v, want %+v", c.name, got, c.rec)
		}
		if b[0] <= flaggedVersion {
			t.Errorf("%s: a seqd that reads versions up to 3 would read it without the flag", c.name)
		}
		// Version 3's layout: the record of the same sequence without
		// the flag (version 1, 2 or 3), and the more flags with bit 2.
		without := c.rec
		without.opts.CacheOne = false
		old, more := without.encode(), byte(0)
		switch {
		case old[0] == flaggedVersion:
			old, more = old[:len(old)-1], old[len(old)-1]
		case old[0] == shapedVersion:
			more = moreShaped
		}
		if string(old[1:]) != string(b[1:len(b)-1]) || b[len(b)-1] != more|moreCacheOne {
			t.Errorf("%s: % x is not % x with more flags %x", c.name, b, old, more|moreCacheOne)
		}
	}

	// Records without the flag, byte for byte as before it: a version 1
	// record (CACHE 1 as PostgreSQL's and NOCACHE are) and a version 3.
	be := func(vs ...int64) []byte {
		var out []byte
		for _, v := range vs {
			out = binary.BigEndian.AppendUint64(out, uint64(v))
		}
		return out
	}
	v1 := append([]byte{recordVersion, 2}, be(7, 1, 1, 100, 1, 1, 3)...)
	if b := (record{id: 7, opts: plain, state: seqmath.State{Last: 3, Called: true}}).encode(); string(b) != string(v1) {
		t.Errorf("CACHE 1 without the flag: % x, want % x", b, v1)
	}
	zero := plain
	zero.IncrementZero = true
	v3 := append(append([]byte{flaggedVersion, 0}, be(7, 1, 1, 100, 1, 1, 0)...), moreZeroInc)
	if b := (record{id: 7, opts: zero}).encode(); string(b) != string(v3) {
		t.Errorf("INCREMENT BY 0: % x, want % x", b, v3)
	}

	// Version 4 written by hand reads as CACHE 1, with INCREMENT BY 0's
	// bit too.
	v4 := append(append([]byte{cacheOneVersion, 2}, be(7, 1, 1, 100, 1, 1, 3)...), moreCacheOne)
	if r, err := decodeRecord(v4); err != nil || !r.opts.CacheOne || r.opts.IncrementZero || r.opts.Cache != 1 || r.state != (seqmath.State{Last: 3, Called: true}) {
		t.Errorf("version 4: %+v, %v", r, err)
	}
	v4[len(v4)-1] |= moreZeroInc
	if r, err := decodeRecord(v4); err != nil || !r.opts.CacheOne || !r.opts.IncrementZero {
		t.Errorf("version 4 with INCREMENT BY 0: %+v, %v", r, err)
	}

	good := record{id: 7, opts: one}.encode()
	body := good[: len(good)-1 : len(good)-1]
	v3body := append([]byte{flaggedVersion}, body[1:]...)
	cache2 := one
	cache2.Cache = 2
	for name, b := range map[string][]byte{
		"no flag":            append(body, 0),
		"only zero":          append(body, moreZeroInc),
		"unknown flag":       append(body, moreCacheOne|8),
		"unknown high flag":  append(body, moreCacheOne|128),
		"shape missing":      append(body, moreCacheOne|moreShaped),
		"bit 2 in version 3": append(v3body, moreZeroInc|moreCacheOne),
		"bit 2 alone, v3":    append(v3body, moreCacheOne),
		"cache not 1":        record{id: 7, opts: cache2}.encode(),
		"version only":       {cacheOneVersion},
		"version and flags":  {cacheOneVersion, moreCacheOne},
	} {
		if _, err := decodeRecord(b); err == nil || !strings.Contains(err.Error(), "corrupt sequence record") {
			t.Errorf("%s: %v, want a corrupt record", name, err)
		}
	}
}

// TestCacheOneKept: the flag survives a restart and an ALTER that gives
// no CACHE; a CACHE given without it (PostgreSQL's, NOCACHE) clears it.
// The values are NOCACHE's.
func TestCacheOneKept(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	n, m := mustName(t, "c"), mustName(t, "n")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(1), CacheOne: true}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(ctx, m, seqmath.Spec{Cache: i64(1)}, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Alter(ctx, n, seqmath.Spec{Max: i64(50)}); err != nil {
		t.Fatal(err)
	}
	if a, b := next(t, e, n), next(t, e, m); a != 1 || b != 1 {
		t.Fatalf("first values %d, %d", a, b)
	}
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	info, err := e.Info(n)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Options.CacheOne || info.Options.Cache != 1 || info.Options.Max != 50 {
		t.Fatalf("after a restart: %+v", info.Options)
	}
	if info, _ := e.Info(m); info.Options.CacheOne {
		t.Fatal("CACHE 1 without the flag read with it")
	}
	if a, b := next(t, e, n), next(t, e, m); a != 2 || b != 2 {
		t.Fatalf("after a restart: %d, %d", a, b)
	}
	if err := e.Alter(ctx, n, seqmath.Spec{Cache: i64(1)}); err != nil {
		t.Fatal(err)
	}
	if info, _ := e.Info(n); info.Options.CacheOne {
		t.Fatal("CACHE 1 without the flag kept it")
	}
	if err := e.Alter(ctx, n, seqmath.Spec{Cache: i64(1), CacheOne: true}); err != nil {
		t.Fatal(err)
	}
	if err := e.Alter(ctx, n, seqmath.Spec{Cache: i64(5), CacheOne: true}); err != nil {
		t.Fatal(err)
	}
	if info, _ := e.Info(n); info.Options.CacheOne || info.Options.Cache != 5 {
		t.Fatalf("CACHE 5: %+v", info.Options)
	}
}

// TestIncrementZeroKept: the flag survives a restart and an ALTER that
// gives no INCREMENT; an INCREMENT given clears it.
func TestIncrementZeroKept(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "z")
	if _, err := e.Create(ctx, n, seqmath.Spec{Increment: i64(1), IncrementZero: true}, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Alter(ctx, n, seqmath.Spec{Max: i64(50)}); err != nil {
		t.Fatal(err)
	}
	if v := next(t, e, n); v != 1 {
		t.Fatalf("first value %d", v)
	}
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	info, err := e.Info(n)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Options.IncrementZero || info.Options.Increment != 1 || info.Options.Max != 50 {
		t.Fatalf("after a restart: %+v", info.Options)
	}
	if v := next(t, e, n); v != 2 {
		t.Fatalf("after a restart: %d", v)
	}
	if err := e.Alter(ctx, n, seqmath.Spec{Increment: i64(1)}); err != nil {
		t.Fatal(err)
	}
	if info, _ := e.Info(n); info.Options.IncrementZero {
		t.Fatal("INCREMENT 1 kept the flag")
	}
}
