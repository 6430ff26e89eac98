package faultclock

import (
	"testing"
	"time"
)

// sysClock is a system clock the test moves.
type sysClock struct{ t time.Time }

func (s *sysClock) now() time.Time { return s.t }

func TestStepSlewReset(t *testing.T) {
	sys := &sysClock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	c := New(sys.now)
	want := func(off time.Duration) {
		t.Helper()
		if got := c.Now().Sub(sys.t); got != off {
			t.Fatalf("offset %v, want %v", got, off)
		}
	}
	want(0)
	for _, cmd := range []string{"clock step -5s"} {
		if ok, err := c.Command(cmd); !ok || err != nil {
			t.Fatalf("%s: %v %v", cmd, ok, err)
		}
	}
	want(-5 * time.Second)
	c.Slew(10*time.Second, 20*time.Second)
	sys.t = sys.t.Add(10 * time.Second)
	want(0) // half way: -5s + 5s
	sys.t = sys.t.Add(30 * time.Second)
	want(5 * time.Second) // done, folded in
	c.Slew(-4*time.Second, 2*time.Second)
	sys.t = sys.t.Add(time.Second)
	c.Step(time.Hour) // the moves add up: the slew goes on
	want(3*time.Second + time.Hour)
	c.Slew(time.Second, 2*time.Second) // the 2 s the last one had left, and 1 s more, over 2 s
	sys.t = sys.t.Add(time.Second)
	want(2500*time.Millisecond + time.Hour)
	sys.t = sys.t.Add(5 * time.Second)
	want(2*time.Second + time.Hour)
	c.Reset()
	want(0)
	for _, bad := range []string{"clock step", "clock step 5", "clock slew 1s 0s", "clock jump 1s"} {
		if ok, err := c.Command(bad); !ok || err == nil {
			t.Errorf("%q: ok %v, err %v", bad, ok, err)
		}
	}
	if ok, _ := c.Command("crash"); ok {
		t.Error("a fault command taken for a clock command")
	}
}

func TestZeroValue(t *testing.T) {
	var c Clock
	if d := time.Since(c.Now()); d < 0 || d > time.Minute {
		t.Fatalf("zero clock off by %v", d)
	}
}
