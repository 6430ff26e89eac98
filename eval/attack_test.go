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

// TestDecimalCastLongDigits: CAST of a string of a million digits AS
// DECIMAL is read in time linear in its length (it was quadratic: 7 s),
// to the value all its digits make at the DECIMAL's scale, as reading
// them all (slowly) does.
func TestDecimalCastLongDigits(t *testing.T) {
	cast := func(s string, p, scale int64) string {
		t.Helper()
		env := &Env{Ctx: WithMemory(context.Background(), NewMemory(0, nil)), Session: &warnings{}}
		got, err := castDecimal(env, []Datum{Text(s), Int(p), Int(scale), Text("")})
		if err != nil {
			return err.Error()
		}
		return got.S
	}
	start := time.Now()
	nines := strings.Repeat("9", 1_000_000)
	zeros := strings.Repeat("0", 1_000_000)
	for _, c := range []struct{ in, want string }{
		{nines, strings.Repeat("9", 63) + ".99"},      // overflows: the bound
		{"-" + nines + "e-999990", "-10000000000.00"}, // -9999999999.999...
		{"0." + nines, "1.00"},
		{"0." + zeros + "9", "0.00"},
		{"1." + zeros + "1e1000000", strings.Repeat("9", 63) + ".99"},
		{"0.00" + nines[:500_000] + "e3", "10.00"},
		{"0.00" + "4" + nines[:500_000] + "e3", "5.00"}, // 4.999...
		{"0.00" + "4" + zeros[:500_000] + "1e3", "4.00"},
		{"1234.5649" + nines, "1234.56"},
	} {
		if got := cast(c.in, 65, 2); got != c.want {
			t.Errorf("CAST(%.30q... AS DECIMAL(65, 2)) = %s, want %s", c.in, got, c.want)
		}
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("reading a million digits took %v: quadratic", took)
	}
	testAllDigitsRead(t, func(s string) string { return cast(s, 65, 30) })
}

// testAllDigitsRead checks that cast reads strings of a few hundred
// digits as reading all their digits does.
func testAllDigitsRead(t *testing.T, cast func(string) string) {
	t.Helper()
	defer func() { readSignificant = significant }()
	for _, s := range []string{
		"12.5", "-0.000123e5", strings.Repeat("1", 130) + ".5", "0." + strings.Repeat("0", 150) + strings.Repeat("7", 150),
		"-" + strings.Repeat("4", 60) + "." + strings.Repeat("5", 100) + "e-20", "3" + strings.Repeat("0", 200) + "e-195",
		"0.000000000000000000000000000000000000004999" + strings.Repeat("9", 200), "-" + strings.Repeat("5", 300) + "e-290",
	} {
		readSignificant = significant
		got := cast(s)
		readSignificant = func(p string) string { return p }
		if want := cast(s); got != want {
			t.Errorf("%.40s...: %s, all digits read: %s", s, got, want)
		}
	}
}
