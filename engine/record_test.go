package engine

import (
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
	if _, err := decodeRecord([]byte{flaggedVersion + 1, 0}); err == nil || !strings.Contains(err.Error(), "reads versions up to 3") {
		t.Errorf("version 4: %v", err)
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
