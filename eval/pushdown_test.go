package eval

import "testing"

// TestPatternPrefix: the literal prefix every match of a pattern has, or
// none where a match need not have one.
func TestPatternPrefix(t *testing.T) {
	for _, c := range []struct{ kind, p, want string }{
		{"~", "^(s_5000.*)$", "s_5000"},
		{"~", "^abc", "abc"},
		{"~", "^abc*", "ab"},
		{"~", "^abc?d", "ab"},
		{"~", "^ab{0,2}", "a"},
		{"~", "^abc+", "abc"},
		{"~", `^a\.b`, "a"},
		{"~", "^(a|b)", ""},
		{"~", "^ab|c", ""},
		{"~", "abc", ""},
		{"~", "^[ab]c", ""},
		{"~", "^(?i)abc", ""},
		{"~", "^a*", ""},
		{"~", "^é", ""},
		{"~~", "abc%", "abc"},
		{"~~", "ab_c", "ab"},
		{"~~", `ab\%`, "ab"},
		{"~~", "%abc", ""},
		{"~~", "abc", "abc"},
	} {
		if got := patternPrefix(c.kind, c.p); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.kind, c.p, got, c.want)
		}
	}
}
