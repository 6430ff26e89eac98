package eval

import "testing"

// TestCompareGeneralCI: utf8mb4_general_ci's order as MariaDB 10.11
// gives it (mysqlwire's oracle compares the operators built of it).
func TestCompareGeneralCI(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"a", "A", 0}, {"a", "a ", 0}, {"a\t", "a", -1}, {"a", "a\t", 1}, {"é", "E", 0}, {"ß", "s", 0},
		{"Æ", "æ", 0}, {"ÿ", "Y", 0}, {"a", "B", -1}, {"µ", "μ", 0}, {"😀", "𐀀", 0}, {"", " ", 0}, {"ab", "a", 1},
	} {
		if got := compareGeneralCI(c.a, c.b); got != c.want {
			t.Errorf("compareGeneralCI(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
