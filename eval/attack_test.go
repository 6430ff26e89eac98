package eval

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// TestStringIntegerLongDigits: a count given as a string of millions of
// digits (LEFT('a', REPEAT('9', 4000000))) is read in time linear in its
// length, and to the same value as a short one past the same bound;
// leading zeros are not digits that count.
func TestStringIntegerLongDigits(t *testing.T) {
	env := &Env{Ctx: WithMemory(context.Background(), NewMemory(0, nil)), Session: &warnings{}}
	long := strings.Repeat("9", 2_000_000)
	zeros := strings.Repeat("0", 2_000_000)
	start := time.Now()
	for _, c := range []struct {
		in   string
		want int64
	}{
		{long, -1}, // BIGINT UNSIGNED's largest, read as a signed count
		{"-" + long, math.MinInt64},
		{" +" + long + "x", -1},
		{zeros + "7", 7},
		{"-" + zeros + "7", -7},
		{"99999999999999999999", -1},
		{"-99999999999999999999", math.MinInt64},
		{"18446744073709551615", -1},
		{"9223372036854775807", math.MaxInt64},
	} {
		got, err := valInt(env, []Datum{Text(c.in)})
		if err != nil || got.I != c.want {
			t.Errorf("valInt(%.30q...) = %v, %v, want %d", c.in, got, err, c.want)
		}
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("reading 2,000,000 digits took %v: quadratic, where a statement may carry 16 MB of them", took)
	}
}

// TestReplaceCharged: REPLACE whose result is many times its input is
// charged to the statement's memory before it is made: REPLACE(LPAD('a',
// 30000, 'b'), 'b', LPAD('c', 30000, 'd')) made 900 MB under a 256 MiB
// statement limit, and 100000 of each would have made 10 GB.
func TestReplaceCharged(t *testing.T) {
	replace := builtins["replace"][0].fn
	env := &Env{Ctx: WithMemory(context.Background(), NewMemory(1<<20, nil)), Session: &warnings{}}
	s, to := Text(strings.Repeat("b", 2000)), Text(strings.Repeat("d", 2000))
	if got, err := replace(env, []Datum{s, Text("b"), to}); !oom(err) {
		t.Fatalf("4 MB under a 1 MiB statement limit: %d bytes, %v, want 53200", len(got.S), err)
	}
	env = &Env{Ctx: WithMemory(context.Background(), NewMemory(1<<20, nil)), Session: &warnings{}}
	if got, err := replace(env, []Datum{Text("abcb"), Text("b"), Text("xy")}); err != nil || got.S != "axycxy" {
		t.Errorf("replace('abcb', 'b', 'xy') = %v, %v", got, err)
	}
}

// TestDoubleRoundExtremeDigits: ROUND(1e300, -9223372036854775808) is 0,
// as MariaDB's, where the digits' absolute value overflowed to a
// negative and the double came back unrounded.
func TestDoubleRoundExtremeDigits(t *testing.T) {
	for _, c := range []struct {
		x    float64
		d    int64
		want float64
	}{
		{1e300, math.MinInt64, 0}, {1.5, math.MinInt64, 0}, {1e300, math.MaxInt64, 1e300}, {1.5, math.MaxInt64, 1.5},
		{-7, math.MinInt64 + 1, 0},
	} {
		if got := doubleRound(c.x, c.d); got != c.want && !(got == 0 && c.want == 0) {
			t.Errorf("doubleRound(%v, %d) = %v, want %v", c.x, c.d, got, c.want)
		}
	}
}
