package timeid

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

func TestLayouts(t *testing.T) {
	for _, c := range []struct {
		name string
		l    Layout
		// an id, and what it decodes to
		unit, node, counter int64
	}{
		{"twitter", Layout{}, 1 << 40, 1023, 4095},
		{"twitter", Twitter, 12345678, 7, 1},
		{"sonyflake", Sonyflake, 1<<39 - 1, 65535, 255},
		{"uid-generator", UIDGenerator, 1 << 27, 1<<22 - 1, 0},
		{"tso", TSO, 1732752000000, 0, 1<<18 - 1},
		{"uuidv7", UUIDv7Layout, 1<<48 - 1, 0, 4095},
	} {
		l, err := c.l.WithDefaults()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		id := l.Compose(c.unit, c.node, c.counter)
		if id < 0 {
			t.Fatalf("%s: id %d is negative", c.name, id)
		}
		at, node, counter := l.Decode(id)
		if at != l.Time(c.unit) || node != c.node || counter != c.counter {
			t.Errorf("%s: Decode(%d) = %v, %d, %d; want %v, %d, %d", c.name, id, at, node, counter, l.Time(c.unit), c.node, c.counter)
		}
		if u := l.Units(at.Add(l.Unit - 1)); u != c.unit {
			t.Errorf("%s: Units of the unit's last instant = %d, want %d", c.name, u, c.unit)
		}
	}
	// Twitter's ids decode as Twitter's own decoders read them: the
	// time is (id >> 22) ms after its epoch.
	l, _ := Layout{}.WithDefaults()
	id := l.Compose(l.Units(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)), 5, 9)
	if got := time.UnixMilli(id>>22 + 1288834974657).UTC(); !got.Equal(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("Twitter's decoding of a default id: %v", got)
	}
	if u := l.Units(TwitterEpoch.Add(-time.Nanosecond)); u != -1 {
		t.Errorf("Units just before the epoch = %d, want -1", u)
	}
	// A long unit's last ids lie past what an int64 of seconds holds:
	// their time is far past any a caller shows, never wrapped before
	// the epoch.
	day := Layout{Epoch: TwitterEpoch, Unit: 24 * time.Hour, TimeBits: 62, CounterBits: 1}
	if got := day.Time(day.MaxUnit()); got.Year() < 1e9 {
		t.Errorf("the last of 2^62 days: %v, want billions of years ahead", got)
	}
	if got := day.Time(1 << 40); !got.Equal(TwitterEpoch.AddDate(0, 0, 1<<40)) {
		t.Errorf("2^40 days: %v", got)
	}
	for _, bad := range []Layout{
		{TimeBits: 41, NodeBits: 10, CounterBits: 13},
		{TimeBits: 40, NodeBits: 10},
		{TimeBits: 0, NodeBits: 10, CounterBits: 1},
		{Unit: time.Nanosecond},
		{TimeBits: 41, NodeBits: -1, CounterBits: 12},
	} {
		if _, err := bad.WithDefaults(); !errors.Is(err, ErrLayout) {
			t.Errorf("%+v: %v, want ErrLayout", bad, err)
		}
	}
	if _, err := NewGen(Config{Node: 1024}, -1); !errors.Is(err, ErrLayout) {
		t.Errorf("node 1024 of 10 bits: %v", err)
	}
}

// TestUUIDv7: version, variant, and the time and counter where RFC 9562
// puts them; UUIDs of increasing ids compare increasing as bytes.
func TestUUIDv7(t *testing.T) {
	l := UUIDv7Layout
	ms := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC).UnixMilli()
	a := UUIDv7(l.Compose(ms, 0, 4095), [8]byte{0xff, 1, 2, 3, 4, 5, 6, 7})
	b := UUIDv7(l.Compose(ms+1, 0, 0), [8]byte{})
	if a[6]>>4 != 7 || a[8]>>6 != 2 || b[6]>>4 != 7 || b[8]>>6 != 2 {
		t.Fatalf("version or variant: %x %x", a, b)
	}
	var got int64
	for i := range 6 {
		got = got<<8 | int64(a[i])
	}
	if got != ms || int64(a[6]&0xf)<<8|int64(a[7]) != 4095 {
		t.Fatalf("%x: ms %d counter %d", a, got, int64(a[6]&0xf)<<8|int64(a[7]))
	}
	if string(a[:]) >= string(b[:]) {
		t.Fatalf("%x is not below %x", a, b)
	}
}

// model drives a Gen as a node does, with a clock that steps, saves that
// complete late or fail, and restarts from the durable mark alone; every
// id is checked against invariants 1 and 2.
type model struct {
	t       *testing.T
	cfg     Config
	g       *Gen
	now     int64 // the clock's unit
	durable int64 // the mark a restart reads
	pending []int64
	last    int64 // the largest id issued, ever
	ids     int
}

func (m *model) take(n int64) error {
	r, err := m.g.Take(m.now, n)
	if err != nil {
		return err
	}
	if r.Save {
		m.pending = append(m.pending, r.Mark)
	}
	for k := range r.Count {
		id := r.First + k
		if id <= m.last {
			m.t.Fatalf("invariant 1: id %d after %d", id, m.last)
		}
		m.last = id
		m.ids++
	}
	if r.Count > 0 {
		if u := (r.First + r.Count - 1) >> (m.g.l.NodeBits + m.g.l.CounterBits); u > m.durable {
			m.t.Fatalf("invariant 2: an id of unit %d, above the durable mark %d", u, m.durable)
		}
	}
	return nil
}

// settle completes (or fails) the oldest pending save.
func (m *model) settle(fail bool) {
	if len(m.pending) == 0 {
		return
	}
	mark := m.pending[0]
	m.pending = m.pending[1:]
	if fail {
		m.g.Failed(mark)
		return
	}
	m.durable = max(m.durable, mark)
	m.g.Saved(mark)
}

func (m *model) restart() {
	g, err := NewGen(m.cfg, m.durable)
	if err != nil {
		m.t.Fatal(err)
	}
	m.g, m.pending = g, nil
}

// TestGenModel: random clocks (steps back within and beyond MaxBehind,
// jumps ahead, stalls), saves late and failed, restarts: no id twice,
// each above the last, none above the durable mark; the only errors are
// ErrClockBehind when the ids ran more than MaxBehind ahead.
func TestGenModel(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 1))
		cfg := Config{Layout: Layout{Unit: time.Millisecond, TimeBits: 41, NodeBits: 3, CounterBits: 1 + rng.IntN(4)}, Node: rng.Int64N(8),
			MaxBehind: 50 * time.Millisecond, Window: 20 * time.Millisecond}
		m := &model{t: t, cfg: cfg, now: 1_000_000 + rng.Int64N(1000), durable: -1}
		m.restart()
		for range 3000 {
			switch r := rng.IntN(100); {
			case r < 60:
				err := m.take(1 + rng.Int64N(5))
				if errors.Is(err, ErrClockBehind) {
					if behind := m.g.unit + 1 - m.now; behind <= m.g.maxBehind {
						t.Fatalf("seed %d: refused %v with ids %d units ahead of the clock, within the %d allowed", seed, err, behind, m.g.maxBehind)
					}
				} else if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			case r < 75:
				m.now += rng.Int64N(3)
			case r < 85:
				m.settle(rng.IntN(8) == 0)
			case r < 90:
				m.now -= rng.Int64N(80) // back, sometimes past MaxBehind
			case r < 93:
				m.now += rng.Int64N(100_000) // far ahead
			case r < 96:
				m.restart()
			default:
				m.now -= rng.Int64N(5)
				m.restart() // a restart into a clock that went back
			}
		}
		if m.ids < 100 {
			t.Fatalf("seed %d: only %d ids", seed, m.ids)
		}
	}
}

// TestClockBack: a step back of the clock within MaxBehind costs no
// error: the ids go on above the last, on the borrowed units, and the
// clock's catching up ends the borrowing; a step back past it is
// refused until the clock is within MaxBehind again.
func TestClockBack(t *testing.T) {
	cfg := Config{Layout: Layout{Unit: time.Millisecond, TimeBits: 41, NodeBits: 0, CounterBits: 2}, MaxBehind: time.Second, Window: time.Second}
	m := &model{t: t, cfg: cfg, now: 5000, durable: -1}
	m.restart()
	step := func(n int) {
		for range n {
			for m.take(1) == nil && len(m.pending) > 0 {
				m.settle(false)
			}
			if err := m.take(1); err != nil {
				t.Fatalf("at %d: %v", m.now, err)
			}
			m.settle(false)
		}
	}
	step(10)
	m.now -= 900 // back 0.9 s
	step(100)    // 4 ids a unit: 25 units borrowed at most
	if b := m.g.Behind(m.now); b < 800*time.Millisecond {
		t.Fatalf("behind %v after a step back of 900 ms", b)
	}
	m.now += 1000
	step(1)
	if b := m.g.Behind(m.now); b != 0 {
		t.Fatalf("behind %v once the clock caught up", b)
	}
	m.now -= 2000 // past MaxBehind
	if err := m.take(1); !errors.Is(err, ErrClockBehind) {
		t.Fatalf("a step back of 2 s with MaxBehind 1 s: %v", err)
	}
	m.now += 1100
	step(1)
}

// TestExhausted: the layout's last unit bounds a jump ahead.
func TestExhausted(t *testing.T) {
	g, err := NewGen(Config{Layout: Layout{Unit: time.Second, TimeBits: 4, CounterBits: 1}}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Take(16, 1); !errors.Is(err, ErrExhausted) {
		t.Fatalf("unit 16 of a 4-bit time: %v", err)
	}
	r, err := g.Take(15, 1)
	if err != nil || !r.Save || r.Mark != 15 || r.Count != 0 {
		t.Fatalf("unit 15: %+v %v", r, err)
	}
	g.Saved(15)
	for want := range int64(2) {
		if r, err := g.Take(15, 1); err != nil || r.Count != 1 || r.First != 15<<1|want {
			t.Fatalf("unit 15, id %d: %+v %v", want, r, err)
		}
	}
	if _, err := g.Take(15, 1); !errors.Is(err, ErrExhausted) {
		t.Fatalf("past the last unit's counters: %v", err)
	}
}
