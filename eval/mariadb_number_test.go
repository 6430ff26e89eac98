package eval

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestDecimalReadHeld: a string read as a DECIMAL keeps the digits past
// its point MariaDB's decimal holds (81 where it has no integer digits),
// cut, not rounded; an exponent apd refuses is 0 or DECIMAL's bound; a
// compared one is rounded half up to 39 digits.
func TestDecimalReadHeld(t *testing.T) {
	for _, c := range []struct{ in, held, compared string }{
		{"1e-81", "0." + strings.Repeat("0", 80) + "1", "0." + strings.Repeat("0", 39)},
		{"5e-82", "0." + strings.Repeat("0", 81), "0." + strings.Repeat("0", 39)},
		{"5e-40", "0." + strings.Repeat("0", 39) + "5", "0." + strings.Repeat("0", 38) + "1"},
		{"-4.9e-40", "-0." + strings.Repeat("0", 39) + "49", "0." + strings.Repeat("0", 39)},
		{"1e-99999999999999999999", "0", "0"},
		{"0." + strings.Repeat("0", 200000) + "1", "0", "0"},
		{"-1e200000", "-" + strings.Repeat("9", 65), "-" + strings.Repeat("9", 65)},
		{"12.5", "12.5", "12.5"},
	} {
		env := &Env{Ctx: WithMemory(context.Background(), NewMemory(0, nil)), Session: &warnings{}}
		d, err := decimalRead(env, c.in, true)
		if err != nil {
			t.Fatalf("%.40s: %v", c.in, err)
		}
		if x, _ := decimal(d); x.Cmp(mustDecimal(t, c.held)) != 0 {
			t.Errorf("%.40s: held %.90s, want %.90s", c.in, d.S, c.held)
		}
		if got, _ := decimal(roundedCompared(d)); got.Cmp(mustDecimal(t, c.compared)) != 0 {
			t.Errorf("%.40s: compared %.90s, want %.90s", c.in, roundedCompared(d).S, c.compared)
		}
	}
}

// mustDecimal is s read as a Numeric's value.
func mustDecimal(t *testing.T, s string) *apd.Decimal {
	t.Helper()
	x, _, err := apd.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
