package mysqlwire

import (
	"fmt"
	"strings"
	"testing"
)

// userVarScript is run in order on one connection to MariaDB 10.11 and
// one to seqd, as text and prepared: user variables set by SET (= and
// :=, several at once, each value computed before any is set), read in
// select lists, arithmetic, comparisons and WHERE, never set (NULL),
// of each kind (their columns' types are MariaDB's: BIGINT, DECIMAL,
// DOUBLE, LONGBLOB), a sequence's value taken once by SET and read
// again, mariadb-dump's preamble, and assignments in a select list
// (SELECT @v := expr).
var userVarScript = []string{
	"CREATE SEQUENCE s1 START WITH 5 INCREMENT BY 2 NOCACHE",
	"SELECT @unset, @unset + 1, @unset IS NULL, CONCAT('a', @unset), COALESCE(@unset, 'x')",
	"SET @a = 1, @b = 'abc', @c = 1.50, @d = 1e0, @e = NULL, @h = 1 = 1, @i = -5, @j = 18446744073709551615",
	"SELECT @a", "SELECT @b", "SELECT @c", "SELECT @d", "SELECT @e", "SELECT @h", "SELECT @i", "SELECT @j",
	"SELECT @a, @b, @c, @d, @e, @h, @i, @j, @A, @B",
	"SELECT @a + 1, CONCAT(@b, 'x'), @A, @c * 2, @d / 3, @i - 1, -@a, @a = 1, @b = 'ABC', @b LIKE 'a%'",
	"SET @n = NEXT VALUE FOR s1",
	"SELECT @n, @n + 1, PREVIOUS VALUE FOR s1",
	"SELECT @n",
	"SELECT NEXT VALUE FOR s1, @n",
	"SELECT start_value FROM s1 WHERE start_value < @n + 1",
	"SELECT start_value, @n FROM s1 WHERE start_value > @n",
	"SELECT @c, @c * 2, @c + 0, COALESCE(@c, 1)", "SELECT @c, start_value FROM s1", "SELECT @c UNION SELECT 2", "SELECT @i UNION SELECT 'a'",
	"SELECT @i FROM s1 ORDER BY @i", "SELECT @i, COUNT(*) FROM s1 GROUP BY @i", "SELECT GREATEST(@i, 2), IFNULL(@unset, 'z'), CAST(@i AS CHAR)",
	"SELECT MAX(@i), COUNT(@b), SUM(@c), @d, @b, @i FROM s1",
	"SET @x = 'B'",
	"SELECT 'b' = @x, @x < 'a', @x IN ('b', 'c'), @x > ALL (SELECT 'a')",
	"SET @a = 10, @b = @a + 1",
	"SELECT @a, @b",
	"SET @a := 7, @s = CONCAT('a', 'b'), @u = (SELECT start_value FROM s1)",
	"SELECT @a, @s, @u",
	"SET @w = '12x' + 0",
	"SELECT @w",
	"SET @bad = (SELECT 1, 2)",
	"SELECT @bad",
	"SET @big = REPEAT('a', 300), @hs = x'41', @hx = 0x42 + 0",
	"SELECT LENGTH(@big), @hs, @hx",
	"SET @e = 3, @a = NULL",
	"SELECT @e, @a, @e + @a",
	"SET @new1 = NULL, @new2 = NULL + 1, @new3 = UPPER('a')", "SELECT @new1, @new2, @new3",
	"SET @OLD_TIME_ZONE=@@TIME_ZONE", "SET TIME_ZONE='+00:00'", "SELECT @@time_zone, @OLD_TIME_ZONE",
	"SET TIME_ZONE=@OLD_TIME_ZONE", "SELECT @@time_zone",
	"SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0", "SELECT @OLD_SQL_NOTES", "SET SQL_NOTES=@OLD_SQL_NOTES",
	// Assignments in a select list: each computed once, in order, read
	// after as set, typed as MariaDB types the statement before it runs.
	"SELECT @p := 3", "SELECT @p",
	"SELECT @q := 1, @q + 1, @q := @q + 10, @q", "SELECT @q, @p",
	"SELECT @r := NEXT VALUE FOR s1, @r, PREVIOUS VALUE FOR s1", "SELECT @r",
	"SELECT @t := 'abc', @t, @m2 := 1.5, @m2", "SELECT @t, @m2",
	"SELECT @p := @p * 2 AS doubled, @p", "SELECT @u2 := (SELECT 1, 2)", "SELECT @u2",
	// A quotient kept with all the digits MariaDB holds of it, not the
	// four it shows.
	"SET @m = 1/3, @m2 = 2/3 + 1, @m3 = (SELECT 1/7), @m4 = 10/4, @m5 = -1/3 * 1/3, @m6 = IF(1, 1/3, 2), @m7 = 1/3e0",
	"SELECT @m, @m * 3, @m2, @m3, @m4, @m5, @m6, @m7", "SELECT @q2 := 1/3, @q2, @q2 * 3",
	"SET @m = 123456789012345678901234567890/7, @m2 = ABS(-2/3), @m3 = 7 DIV 2, @m4 = 1/0", "SELECT @m, @m2, @m3, @m4",
	// A binary string kept as one: compared by its bytes.
	// A string variable read as a number: as far as it is one, without
	// the 1292 a string literal gets (but CAST's).
	"SET @sb = '12x', @sa = 'abc', @sd = '2.5x', @se = '1e400', @ss = ' 7 '",
	"SELECT @sa + 1, @sb + 1, @sb * 2, -@sb, @sb = 12, @sb > 5, ABS(@sb), FLOOR(@sb), ROUND(@sb), @se + 0, @ss + 1, @ss = 7",
	"SELECT @sd = 2.5, @sd BETWEEN 2 AND 3, GREATEST(@sd, 1e0), CAST(@sb AS SIGNED)",
	"SELECT start_value FROM s1 WHERE @sb = start_value + 6",
	"SET @hb = x'61', @bb = BINARY 'a', @cb = CONCAT(x'61', 'b')", "SELECT @hb, @bb, @cb", "SELECT @hb = 'A', @bb = 'A', @cb = 'AB', @hb LIKE 'A', @bb < 'B'",
	// So in IN and CASE too; read as a DECIMAL, one no number begins is
	// 1918, one past the digits a decimal holds 1916.
	"SET @qa = 'abc', @qb = '2x', @qe = '1e400', @qn = ''",
	"SELECT @qb IN (2, 3), 2 IN (@qb, 3), @qb IN (2.0, 'a', 3e0), @qb NOT IN (3, 4), CASE @qb WHEN 2 THEN 'y' ELSE 'n' END",
	"SELECT @qa = 0, @qa IN (0, 1), @qn BETWEEN 0 AND 1, CASE @qa WHEN 0 THEN 1 END, @qa = 0e0, @qa + 0",
	"SELECT @qe < 1, @qe IN (0e0, 1), -@qe", "SELECT start_value FROM s1 WHERE start_value > @qa",
}

// userVarScriptLen pins userVarScript's length.
const userVarScriptLen = 79

// TestUserVariablesOracle runs userVarScript on MariaDB and on seqd, as
// text and prepared, and compares each statement's answer, diagnostics
// and columns' types.
func TestUserVariablesOracle(t *testing.T) {
	if len(userVarScript) != userVarScriptLen {
		t.Fatalf("the script has %d statements, not %d", len(userVarScript), userVarScriptLen)
	}
	for _, prepared := range []bool{false, true} {
		name := "seqd_uservars"
		if prepared {
			name += "_prep"
		}
		mc, sc, _ := oracleConns(t, name)
		var diffs []string
		ran := 0
		for _, q := range userVarScript {
			ran++
			want, got := outcome(mc, q, prepared), outcome(sc, q, prepared)
			if want != got {
				diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, strings.ReplaceAll(want, "\n", "\n           "),
					strings.ReplaceAll(got, "\n", "\n           ")))
			}
		}
		if ran != userVarScriptLen {
			t.Errorf("ran %d statements of %d", ran, userVarScriptLen)
		}
		if len(diffs) > 0 {
			t.Errorf("prepared %v: seqd differs from MariaDB 10.11 in %d statements:\n%s", prepared, len(diffs), strings.Join(diffs, "\n"))
		}
	}
}
