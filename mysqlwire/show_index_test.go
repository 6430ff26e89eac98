package mysqlwire

import (
	"fmt"
	"strings"
	"testing"
)

// TestShowIndexOracle: SHOW INDEX, INDEXES and KEYS of a sequence and of
// information_schema's tables, no rows in MariaDB's columns; a table not
// there, a WHERE over the result's columns (an unknown one), a LIKE
// MariaDB's grammar refuses: on MariaDB 10.11 and on seqd, as text and
// prepared.
func TestShowIndexOracle(t *testing.T) {
	script := []string{
		"CREATE SEQUENCE s1",
		"SHOW INDEX FROM s1", "SHOW INDEXES FROM s1", "SHOW KEYS IN s1", "SHOW INDEX FROM s1 FROM %db", "SHOW INDEX FROM %db.s1",
		"SHOW INDEX FROM nope", "SHOW INDEX FROM nodb.s1", "SHOW INDEX FROM information_schema.tables",
		"SHOW INDEX FROM information_schema.nope", "SHOW INDEX FROM s1 WHERE Key_name = 'PRIMARY'", "SHOW INDEX FROM s1 WHERE nope = 1",
		"SHOW INDEX FROM s1 LIKE 'x'", "SHOW INDEX FROM nope WHERE Key_name = 'x'",
	}
	for _, prepared := range []bool{false, true} {
		name := "seqd_show_index"
		if prepared {
			name += "_prep"
		}
		mc, sc, db := oracleConns(t, name)
		var diffs []string
		for _, q := range script {
			q = strings.ReplaceAll(q, "%db", db)
			want, got := outcome(mc, q, prepared), outcome(sc, q, prepared)
			if want != got {
				diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, strings.ReplaceAll(want, "\n", "\n           "),
					strings.ReplaceAll(got, "\n", "\n           ")))
			}
		}
		if len(diffs) > 0 {
			t.Errorf("prepared %v: seqd differs from MariaDB 10.11 in %d statements:\n%s", prepared, len(diffs), strings.Join(diffs, "\n"))
		}
	}
}
