package mysqlwire

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestDivOfDoubleTyped: DIV of a DOUBLE is as long as the DOUBLE's
// characters, as MariaDB types it: a product's 22, LONGLONG, where it
// was a LONG of the integer digits a DOUBLE does not have, so that a
// prepared statement's quotient past LONG's range was refused (1690)
// where MariaDB answers; a literal's the length of its text.
func TestDivOfDoubleTyped(t *testing.T) {
	oracleScript(t, "seqd_a67_div_typed", []string{
		"CREATE SEQUENCE d2 START WITH 5",
		"SELECT (start_value * 1e9) DIV 1, (start_value * 1e0) DIV 2, CAST(start_value AS DOUBLE) DIV 1 FROM d2",
		"SELECT -'5.5' DIV 2, (1e0/3) DIV 1e-10, 1e1 DIV 3, -1.5e0 DIV 1, 123456789e0 DIV 1, 1234567890e0 DIV 1",
	})
}

// TestDivDecimalOracle: DIV of numbers not both integers reads its
// operands as MariaDB's DECIMAL holds them: a DOUBLE by its shortest
// text, not PostgreSQL's 15 digits (12345678901234567e0 DIV 1 answered
// 12345678901234600), a string with its digits, not through a DOUBLE
// ('123456789012345678' DIV 1 answered 123456789012346000), and a
// fraction past the decimal's 81 digits cut as MariaDB cuts it (0 DIV
// 1e-82 answered 0, 1 DIV 1e-300 1690, where MariaDB divides by 0).
func TestDivDecimalOracle(t *testing.T) {
	oracleScript(t, "seqd_a67_div", []string{
		"SELECT 12345678901234567e0 DIV 1, 1.2345678901234567e0 DIV 1e-16, 9007199254740993e0 DIV 1, (1e0/3) DIV 1e-16, 0.1e0 DIV 1e-8",
		"SELECT '9007199254740993' DIV 1, '9007199254740993.7' DIV 1, '123456789012345678' DIV 1, -'5.5' DIV 2, '-5.5' DIV 2",
		"SELECT ' 12' DIV 5, '1e3' DIV 7, '0x10' DIV 1, '12abc' DIV 5.0",
		"SELECT 'abc' DIV 1, 1 DIV 'abc'", "SELECT '1e300' DIV '1e-300'", "SELECT '18446744073709551616' DIV 1",
		"SELECT 0 DIV 1e-82", "SELECT 1 DIV 1e-300", "SELECT 1e308 DIV 1e-308", "SELECT 1.7976931348623157e308 DIV 1e-308",
		// Quotients within LONG's range: MariaDB's binary protocol sends
		// a LONG column's value past it cut to 32 bits.
		"SELECT 1e-75 DIV 1.5e-81, 1e-75 DIV 9e-82, 1e-75 DIV 9.6e-81, 1e-72 DIV 1.2345e-78, 1e-75 DIV 1e-81",
		"SELECT 1e-75 DIV '1.5e-81', 1e-75 DIV '9e-82', '1e-90' DIV 1, 1 DIV '1e-90'",
		"SELECT 1e-70 DIV '0.0000000000000000000000000000000000000000000000000000000000000000000000000000001'",
		"SELECT 1e-66 DIV '0.000000000000000000000000000000000000000000000000000000000000000000000001'",
		"SELECT 1e-66 DIV '0.000000000000000000000000000000000000000000000000000000000000000000000019'",
		// A string's digits as written, then shifted by its exponent.
		"SELECT '" + strings.Repeat("9", 100) + "e-90' DIV 7", "SELECT '0." + strings.Repeat("0", 90) + "5e100' DIV 1",
		"SELECT '" + strings.Repeat("9", 81) + "e-75' DIV 7, '1.5e-81' DIV 1e-82, '-1e500' DIV 1",
		"SELECT 1 DIV '1e-99999999999', '1e-99999999999' DIV 1, '0.5e1' DIV 2, '+12.5e-1' DIV 1",
		"CREATE SEQUENCE d1 START WITH 5", "SELECT start_value DIV '2.5', '123456789012345678' DIV start_value FROM d1",
		"SELECT NEXTVAL(d1) DIV 1e-300, NEXTVAL(d1) DIV '1e-90'", "SELECT LASTVAL(d1)",
	})
}

// boundOracle runs each statement prepared once on MariaDB and on seqd
// and executed with each group of its arguments, comparing rows, column
// types, errors and warnings.
func boundOracle(t *testing.T, name string, cases []boundCase) {
	t.Helper()
	mc, sc := pairedConns(t, name)
	for _, c := range cases {
		n := strings.Count(c.q, "?")
		var got [2][]string
		for i, db := range []*sql.Conn{mc, sc} {
			st, err := db.PrepareContext(ctx, c.q)
			if err != nil {
				got[i] = append(got[i], "PREPARE ERROR "+errCode(err))
				continue
			}
			for k := 0; k+n <= len(c.args); k += n {
				args := c.args[k : k+n]
				rows, err := st.QueryContext(ctx, args...)
				if err != nil {
					got[i] = append(got[i], fmt.Sprint(args, " ERROR ", errCode(err), " warnings: ", queryResult(db, "SHOW WARNINGS", false)))
					continue
				}
				var types []string
				cts, _ := rows.ColumnTypes()
				for _, ct := range cts {
					types = append(types, ct.DatabaseTypeName())
				}
				cols, vals, err := testenv.RowStrings(rows)
				rows.Close()
				if err != nil { // MariaDB's error may follow the columns
					got[i] = append(got[i], fmt.Sprint(args, " ERROR ", errCode(err), " warnings: ", queryResult(db, "SHOW WARNINGS", false)))
					continue
				}
				got[i] = append(got[i], fmt.Sprint(args, cols, types, vals, " warnings: ", queryResult(db, "SHOW WARNINGS", false)))
			}
			st.Close()
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("%s:\n  MariaDB: %q\n  seqd:    %q", c.q, got[0], got[1])
		}
	}
}

type boundCase struct {
	q    string
	args []any
}

// TestDivAbsBound: DIV and ABS of ? markers follow the values bound, as
// the same statement written with them does: the plan prepared computed
// DIV as PostgreSQL's numeric quotient cast to bigint (CAST(5 AS
// UNSIGNED) DIV -1's -5 where MariaDB refuses, 1.5 DIV 1e-16 1690 where
// MariaDB answers 15000000000000000, DOUBLEs read to 15 digits).
func TestDivAbsBound(t *testing.T) {
	boundOracle(t, "seqd_a67_bound", []boundCase{
		{"SELECT ? DIV ?", []any{uint64(5), -1, uint64(18446744073709551615), 1, int64(-9223372036854775808), int64(-1),
			1.5, 1e-16, 1.2345678901234567, 1e-16, 7, 2, "7.5", "0.5", "123456789012345678", 1, nil, 2, 5, 0, 7.5, 0.5, "1e300", "1e-300"}},
		{"SELECT ? DIV 2, 7 DIV ?", []any{uint64(18446744073709551615), uint64(1), 1e300, 1e-300, "x", "y"}},
		{"SELECT ABS(?)", []any{int64(-9223372036854775808), -7, -7.5, "-3", nil, uint64(18446744073709551615)}},
		{"SELECT (? + 1) DIV 2", []any{int64(9223372036854775807)}},
		{"SELECT ? DIV nope", []any{1}},
		// Where DIV's type is not a column's: the plan prepared ran.
		{"SELECT 1 FROM DUAL WHERE ? DIV ? = -5", []any{uint64(5), -1, 5, -1, "123456789012345678", 1, 1.2345678901234567e16, 1}},
		{"SELECT (? DIV ?) IS NOT NULL, ABS(?) > 0", []any{uint64(5), -1, int64(-9223372036854775808), 1.5, 1e-300, 1}},
		{"SELECT 1 FROM DUAL WHERE ? DIV ? = 123456789012345678", []any{"123456789012345678", 1, 1.2345678901234567e17, 1}},
	})
}

// TestFloatFormsNoBackslashEscapes: under NO_BACKSLASH_ESCAPES a
// backslash ends no string early nor late when the statement's DOUBLE
// literals are read as written: 'a\' ends at its second quote, and the
// 1690 names the literal the statement computes with, not one in a
// string ('1.0e308 * 10' where MariaDB's is '1e308 * 10').
func TestFloatFormsNoBackslashEscapes(t *testing.T) {
	if _, floats := literalForms(`SELECT 'a\', 1e308 * 10, ' 1.0e308 '`, false); fmt.Sprint(floats) != "map[1e+308:1e308]" {
		t.Errorf("NO_BACKSLASH_ESCAPES: %v", floats)
	}
	oracleScript(t, "seqd_a67_nobackslash", []string{
		"SET sql_mode = 'NO_BACKSLASH_ESCAPES'",
		`SELECT 'a\', 1e308 * 10, ' 1.0e308 '`, `SELECT 'b\', 2.5e307 * 10.0e1, '2.5E307'`,
		"SET sql_mode = DEFAULT", `SELECT 'a\', 1e308 * 10, ' 1.0e308 '`,
	})
}

// TestOnlyFullGroupBySubqueryJoinsAndAggregates: under
// ONLY_FULL_GROUP_BY a subquery's reference to a column neither grouped
// nor aggregated is MariaDB's 1055 in its join's ON too, and inside an
// aggregate of the subquery's own columns (SUM(b.start_value +
// s1.start_value)), which both answered a value; a derived table's
// select list stays unread, an aggregate of the query's columns alone
// is the query's.
func TestOnlyFullGroupBySubqueryJoinsAndAggregates(t *testing.T) {
	oracleScript(t, "seqd_a67_fullgroupby", []string{
		"CREATE SEQUENCE s1 START WITH 5", "CREATE SEQUENCE q2 START WITH 7",
		"SET sql_mode = CONCAT(@@sql_mode, ',ONLY_FULL_GROUP_BY')",
		"SELECT (SELECT 1 FROM q2 b JOIN q2 c ON c.start_value = s1.start_value) FROM s1 GROUP BY increment",
		"SELECT (SELECT 1 FROM q2 b JOIN q2 c ON c.start_value = s1.increment + 6) FROM s1 GROUP BY increment",
		"SELECT (SELECT 1 FROM q2 b LEFT JOIN q2 c ON c.start_value = b.start_value) FROM s1 GROUP BY increment",
		"SELECT (SELECT SUM(b.start_value + s1.start_value) FROM q2 b) FROM s1 GROUP BY increment",
		"SELECT (SELECT SUM(b.start_value + s1.increment) FROM q2 b) FROM s1 GROUP BY increment",
		"SELECT (SELECT MAX(s1.start_value) FROM q2 b) FROM s1 GROUP BY increment",
		"SELECT (SELECT (SELECT COUNT(c.start_value + s1.start_value) FROM q2 c) FROM q2 b) FROM s1 GROUP BY increment",
		"SELECT (SELECT x FROM (SELECT 1 x) d WHERE x = s1.start_value) FROM s1 GROUP BY increment",
		"SELECT (SELECT x FROM (SELECT 1 x) d WHERE x = s1.increment) FROM s1 GROUP BY increment",
		// A UNION's columns are its first SELECT's.
		"SELECT (SELECT start_value FROM (SELECT 1 start_value UNION SELECT 2) d LIMIT 1) FROM s1 GROUP BY increment",
		"SELECT (SELECT d.start_value FROM (SELECT 1 start_value UNION SELECT 2) d LIMIT 1) FROM s1 GROUP BY increment",
		"SET sql_mode = DEFAULT",
		"SELECT (SELECT 1 FROM q2 b JOIN q2 c ON c.start_value = s1.start_value + 2) FROM s1 GROUP BY increment",
		"SELECT (SELECT SUM(b.start_value + s1.start_value) FROM q2 b) FROM s1 GROUP BY increment",
	})
}

// TestOuterAggregateOracle: an aggregate in a subquery of the query
// around's columns alone is that query's, as MariaDB reads it: SELECT
// (SELECT SUM(x)) FROM t is t's sum, one row, where it answered each
// row's x (a sum over the subquery's one row); per group where the
// query is grouped. In WHERE, where the query takes no aggregate, it is
// the subquery's, as MariaDB's.
func TestOuterAggregateOracle(t *testing.T) {
	oracleScript(t, "seqd_a67_outer_agg", []string{
		"CREATE SEQUENCE q1 START WITH 5",
		"SELECT (SELECT SUM(x)) FROM (SELECT 1 x UNION ALL SELECT 2) t",
		"SELECT (SELECT SUM(t.x) FROM q1 b) FROM (SELECT 1 x UNION ALL SELECT 2) t",
		"SELECT (SELECT COUNT(t.x) + b.start_value FROM q1 b) FROM (SELECT 1 x UNION ALL SELECT 2) t",
		"SELECT g, (SELECT MAX(t.x) FROM q1 b) FROM (SELECT 1 x, 1 g UNION ALL SELECT 2, 1 UNION ALL SELECT 7, 2) t GROUP BY g",
		"SELECT (SELECT (SELECT SUM(x))) FROM (SELECT 1 x UNION ALL SELECT 2) t",
		"SELECT (SELECT SUM(x + b.start_value) FROM q1 b) FROM (SELECT 1 x UNION ALL SELECT 2) t",
		"SELECT x FROM (SELECT 1 x UNION ALL SELECT 2) t WHERE (SELECT SUM(x)) > 0",
		// The query aggregates: a column neither grouped nor aggregated is
		// one value of its rows.
		"SELECT COUNT(*), (SELECT SUM(x)) FROM (SELECT 1 x UNION ALL SELECT 2) t",
		"SELECT (SELECT SUM(x)) s FROM (SELECT 1 x UNION ALL SELECT 2) t ORDER BY x",
		"SELECT x + 1, (SELECT COUNT(t.x) FROM q1 b) FROM (SELECT 1 x UNION ALL SELECT 2) t HAVING x > 0",
	})
}
