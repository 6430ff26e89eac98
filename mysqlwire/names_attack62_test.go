package mysqlwire

import (
	"fmt"
	"strings"
	"testing"
)

// TestColumnNamesOracle: a column's name, as MariaDB 10.11 gives it: cut
// to 255 bytes at a character's start, and each character outside the
// Basic Multilingual Plane a '?' (MariaDB keeps names in utf8mb3), in an
// item's text, a string's value, a string alias and a derived table's
// columns, which are read by those names.
func TestColumnNamesOracle(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_names")
	a := strings.Repeat("a", 253)
	var diffs []string
	for _, q := range []string{
		"SELECT 'a😀b'",
		"SELECT * FROM (SELECT 'a😀b') t",
		"SELECT `a?b` FROM (SELECT 'a😀b') t",
		"SELECT 'é😀' AS 'x😀y'",
		"SELECT CONCAT('😀', 1)",
		"SELECT '" + a + "😀'",
		"SELECT 1 AS '" + a + "😀'",
		"SELECT '" + a + "é'",
		"SELECT '" + a + "aé'",
		"SELECT '" + a + "€'",
	} {
		want, got := outcome(mc, q, false), outcome(sc, q, false)
		if want != got {
			diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, want, got))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}
