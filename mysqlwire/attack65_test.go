package mysqlwire

import (
	"database/sql"
	"fmt"
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

// TestHavingAloneNextvalRefused: HAVING without GROUP BY or an aggregate
// that reads an item taking a sequence's value is refused (1235) and
// takes none; MariaDB computes the item again for HAVING's reference and
// for the row (SELECT NEXTVAL(s) v HAVING v > 0 is 2 on a new sequence),
// which the derived table HAVING is built over does not.
func TestHavingAloneNextvalRefused(t *testing.T) {
	_, sc, _ := oracleConns(t, "seqd_having_nextval")
	if got := statementResult(sc, "CREATE SEQUENCE sh", false); strings.HasPrefix(got, "ERROR") {
		t.Fatal(got)
	}
	for _, q := range []string{"SELECT NEXTVAL(sh) v HAVING v > 0", "SELECT NEXTVAL(sh) + 1 AS v FROM (SELECT 1 UNION ALL SELECT 2) t HAVING v > 0"} {
		for _, prepared := range []bool{false, true} {
			if got := statementResult(sc, q, prepared); !strings.HasPrefix(got, "ERROR 1235 42000 ") {
				t.Errorf("%s (prepared %v): %s, want 1235", q, prepared, got)
			}
		}
	}
	if got := statementResult(sc, "SELECT NEXTVAL(sh), NEXTVAL(sh) v HAVING 1 = 1", false); !strings.Contains(got, "1 | 2") {
		t.Errorf("a HAVING reading no such item: %q, want 1 | 2", got)
	}
}

// TestBoundDoublePrinted: a parameter bound to a DOUBLE (go-sql-driver
// sends a float64 as one) is printed in 1690's words as MariaDB writes
// its value, not refused as a DOUBLE literal's text is (1264).
func TestBoundDoublePrinted(t *testing.T) {
	mc, sc := pairedConns(t, "seqd_bound_double")
	for _, c := range []struct {
		q    string
		args []any
	}{
		{"SELECT ? * ?", []any{1e308, 10.0}},
		{"SELECT ? * ?", []any{1.5e300, 1e10}},
		{"SELECT ? * ?", []any{1e300, 123456789012345678.0}},
		{"SELECT ? / ?", []any{-1e308, 1e-308}},
		{"SELECT ? * ? * 1", []any{1e200, 1e200}},
	} {
		var got [2]string
		for i, db := range []*sql.Conn{mc, sc} {
			rows, err := db.QueryContext(ctx, c.q, c.args...)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			got[i] = fmt.Sprint(err)
		}
		if want := "Error 1690 (22003): DOUBLE value is out of range in '"; !strings.HasPrefix(got[0], want) || got[0] != got[1] {
			t.Errorf("%s %v:\n  MariaDB: %s\n  seqd:    %s", c.q, c.args, got[0], got[1])
		}
	}
}
