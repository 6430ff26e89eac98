package seqmath

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/seqd/seqd/timeid"
)

// A Snowflake counter's value is timeid's id of the same unit, node and
// counter, for the libraries' layouts; Counter and ParseShape invert
// Value and String.
func TestSnowflakeShape(t *testing.T) {
	for _, l := range []timeid.Layout{timeid.Twitter, timeid.Sonyflake, timeid.UIDGenerator, timeid.TSO} {
		sh, err := NewSnowflake(l.Epoch.UnixMicro(), l.Unit.Microseconds(), int64(l.NodeBits), int64(l.CounterBits))
		if err != nil {
			t.Fatal(err)
		}
		if got := sh.Layout(); got != l {
			t.Fatalf("Layout() = %+v, want %+v", got, l)
		}
		r := rand.New(rand.NewPCG(1, uint64(l.NodeBits)))
		for range 1000 {
			unit, node, k := r.Int64N(l.MaxUnit()+1), r.Int64N(l.MaxNode()+1), r.Int64N(l.MaxCounter()+1)
			c := unit<<l.CounterBits | k
			sh.Node = node
			v := sh.Value(c)
			if want := l.Compose(unit, node, k); v != want {
				t.Fatalf("%+v: Value(%d) = %d, want %d", l, c, v, want)
			}
			if back, ok := sh.Counter(v); !ok || back != c {
				t.Fatalf("Counter(%d) = %d, %v, want %d", v, back, ok, c)
			}
			if sh.UnitOf(c) != unit || sh.FirstOf(unit) > c || sh.LastOf(unit) < c {
				t.Fatalf("unit %d: UnitOf %d, FirstOf %d, LastOf %d, counter %d", unit, sh.UnitOf(c), sh.FirstOf(unit), sh.LastOf(unit), c)
			}
			p, err := ParseShape(sh.String())
			if err != nil || p != sh {
				t.Fatalf("ParseShape(%q) = %+v, %v", sh.String(), p, err)
			}
		}
		if sh.MaxCounter() != l.MaxUnit()<<l.CounterBits|l.MaxCounter() {
			t.Fatalf("MaxCounter %d", sh.MaxCounter())
		}
	}
}

func TestSnowflakeLimits(t *testing.T) {
	for _, c := range []struct{ unit, nb, cb int64 }{
		{0, 10, 12}, {MaxUnitMicros + 1, 10, 12}, {1000, 10, 0}, {1000, -1, 12}, {1000, 30, 14}, {1000, 0, 44},
	} {
		if _, err := NewSnowflake(0, c.unit, c.nb, c.cb); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("NewSnowflake(unit %d, %d, %d) = %v, want ErrInvalidOption", c.unit, c.nb, c.cb, err)
		}
	}
	for _, text := range []string{"snowflake 0 1000 10 12", "snowflake 0 1000 10 12 node 0 skip 1 2", "snowflake 0 1000 10 12 node 1024", "snowflake 0 1000 10 12 node -1", "snowflake 0 1000 10 12 nod 1"} {
		if _, err := ParseShape(text); err == nil {
			t.Errorf("ParseShape(%q) accepted", text)
		}
	}
}

// CREATE takes no option about the counter; ALTER neither, nor changes
// the layout.
func TestSnowflakeOptions(t *testing.T) {
	sh, _ := NewSnowflake(DefaultEpochMicros, 1000, DefaultNodeBits, DefaultCounterBits)
	o, s, err := Create(Spec{Shape: &sh})
	if err != nil {
		t.Fatal(err)
	}
	if o.Min != 1 || o.Max != sh.MaxCounter() || o.Cache != 1 || o.Increment != 1 || s != (State{Last: 1}) {
		t.Fatalf("Create: %+v %+v", o, s)
	}
	one, no, yes := int64(1), false, true
	bad := []Spec{{Increment: &one}, {Cache: &one}, {Restart: true}, {Start: &one}, {Cycle: &yes}, {Order: &no}, {Skip: &[2]int64{1, 2}}, {Max: &one}}
	for _, spec := range bad {
		spec.Shape = &sh
		if _, _, err := Create(spec); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("Create(%+v) = %v, want ErrInvalidOption", spec, err)
		}
		spec.Shape = nil
		if _, _, err := Alter(o, s, spec); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("Alter(%+v) = %v, want ErrInvalidOption", spec, err)
		}
	}
	if _, _, err := Alter(o, s, Spec{Order: &yes}); err != nil {
		t.Errorf("Alter(ORDER): %v", err)
	}
	if time.UnixMicro(DefaultEpochMicros).UTC() != timeid.TwitterEpoch {
		t.Errorf("default epoch %v", time.UnixMicro(DefaultEpochMicros).UTC())
	}
}
