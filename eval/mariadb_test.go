package eval

import (
	"regexp"
	"strings"
	"testing"
)

// TestNumberPrefix: what MariaDB 10.11 reads of a string cast to a
// number, and what it says of the rest (the oracle in mysqlwire
// compares the casts themselves with a live MariaDB).
func TestNumberPrefix(t *testing.T) {
	for _, c := range []struct {
		in      string
		integer bool
		want    string
		kind    WarningKind
	}{
		{"12", true, "12", 0}, {" 12", true, "12", 0}, {"12 ", true, "12", TruncatedSpaces}, {"12abc", true, "12", Truncated},
		{"abc", true, "0", Truncated}, {"", true, "0", Truncated}, {"1.5", true, "1", Truncated}, {"1e3", true, "1", Truncated},
		{"+7", true, "+7", 0}, {"-5x", true, "-5", Truncated}, {"0x10", true, "0", Truncated}, {"-", true, "0", Truncated},
		{"1.5", false, "1.5", 0}, {"1.5x", false, "1.5", Truncated}, {" 2.5 ", false, "2.5", TruncatedSpaces},
		{"-.5", false, "-.5", 0}, {"5.", false, "5.", 0}, {".", false, "0", Truncated}, {"1.5e1x", false, "1.5e1", Truncated},
		{"2e", false, "2", Truncated}, {"2e+", false, "2", Truncated}, {"2E-3", false, "2E-3", 0}, {"x", false, "0", Truncated},
	} {
		got, kind := NumberPrefix(c.in, c.integer)
		if got != c.want || kind != c.kind {
			t.Errorf("NumberPrefix(%q, %v) = %q, %d; want %q, %d", c.in, c.integer, got, kind, c.want, c.kind)
		}
	}
}

// numberSyntax is the syntax of a number NumberPrefix reads (numeric_in
// reads each, within numeric's range of exponents).
var numberSyntax = map[bool]*regexp.Regexp{
	true:  regexp.MustCompile(`^[+-]?[0-9]+$`),
	false: regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`),
}

// FuzzNumberPrefix: the prefix is a number (or "0"), taken from the
// string after its leading spaces, and nothing is said only when it is
// all of them.
func FuzzNumberPrefix(f *testing.F) {
	for _, s := range []string{"12abc", " 2.5 ", "-.5e+3x", "", "0x1f"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, integer bool) {
		p, kind := NumberPrefix(s, integer)
		rest := strings.TrimLeft(s, " \t\n\r")
		if p != "0" || kind == 0 {
			if !strings.HasPrefix(rest, p) {
				t.Fatalf("%q: prefix %q", s, p)
			}
		}
		if !numberSyntax[integer].MatchString(p) {
			t.Fatalf("%q: prefix %q not a number", s, p)
		}
		if (kind == 0) != (p == rest) {
			t.Fatalf("%q: prefix %q, kind %d", s, p, kind)
		}
	})
}
