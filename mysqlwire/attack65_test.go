package mysqlwire

import (
	"strings"
	"testing"
)

// TestUnprintedRangeRefused: arithmetic whose type the builder knows but
// which holds what seqd does not print as MariaDB does (an aggregate, a
// subquery) is refused past its type's range, on MariaDB with 1690 and
// on seqd with 1264 (22003: the differences table's row), never
// answered past it (COUNT(*) - CAST(5 AS UNSIGNED) is not -4).
func TestUnprintedRangeRefused(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_unprinted_range")
	for _, c := range []struct{ q, rng, words string }{
		{"SELECT COUNT(*) - CAST(5 AS UNSIGNED)", "BIGINT UNSIGNED", "bigint unsigned out of range"},
		{"SELECT 18446744073709551615 + COUNT(*)", "BIGINT UNSIGNED", "bigint unsigned out of range"},
		{"SELECT (SELECT 1) - CAST(5 AS UNSIGNED)", "BIGINT UNSIGNED", "bigint unsigned out of range"},
		{"SELECT MAX(x) * 9223372036854775807 FROM (SELECT 2 x) t", "BIGINT", "bigint out of range"},
	} {
		for _, prepared := range []bool{false, true} {
			if got := statementResult(mc, c.q, prepared); !strings.HasPrefix(got, "ERROR 1690 22003 "+c.rng+" value is out of range in '") {
				t.Errorf("%s (prepared %v) on MariaDB: %s, want 1690", c.q, prepared, got)
			}
			if got := statementResult(sc, c.q, prepared); got != "ERROR 1264 22003 "+c.words {
				t.Errorf("%s (prepared %v) on seqd: %s, want 1264 %s", c.q, prepared, got, c.words)
			}
		}
	}
}
