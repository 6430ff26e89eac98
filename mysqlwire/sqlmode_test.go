package mysqlwire

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestSQLModeOracle runs SET sql_mode and statements it changes the
// reading of on MariaDB 10.11 and on seqd, one connection each, in turn:
// the modes shown (names in any case, numbers, modes that name others,
// DEFAULT, CONCAT), the errors for what is not a mode (1231, 1232, the
// mode left as it was), and PIPES_AS_CONCAT, ANSI_QUOTES,
// NO_BACKSLASH_ESCAPES, HIGH_NOT_PRECEDENCE and IGNORE_SPACE as the
// parser reads them.
func TestSQLModeOracle(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_sqlmode")
	var diffs []string
	for _, q := range []string{
		"SELECT @@sql_mode",
		"SET sql_mode = 'ansi_quotes,,strict_trans_tables'",
		"SELECT @@sql_mode, @@SESSION.sql_mode",
		`SELECT "nope"`,
		`CREATE SEQUENCE "sq" START WITH 5`,
		`SELECT NEXTVAL("sq"), 'x' "y"`,
		`DROP SEQUENCE "sq"`,
		"SET sql_mode = 'PIPES_AS_CONCAT,STRICT_TRANS_TABLES'",
		"SELECT 'a' || 'b', 1 || 0, 'a' || NULL",
		"SELECT CONCAT('a', 'b'), 'a' || 'b' || 'c', 'a' || 1.5, CONCAT(1, 0)",
		"SET sql_mode = ''",
		"SELECT 'a' || 'b', 1 || 0",
		// Without STRICT_TRANS_TABLES or STRICT_ALL_TABLES, a string
		// function of NOT NULL arguments is NOT NULL (the flag only).
		"CREATE SEQUENCE ns",
		"SELECT CONCAT('a', 'b'), UPPER('a'), LOWER('A'), REPEAT('a', 3), LPAD('a', 3, 'b'), RPAD('a', 3, 'b'), SUBSTRING('abc', 1, 2), LEFT('abc', 1), RIGHT('abc', 1)",
		"SELECT REPLACE('a', 'a', 'b'), TRIM(' a '), REVERSE('ab'), CONCAT_WS(',', 'a', 'b'), MID('abc', 2, 1), CONCAT(start_value, 'x'), HEX('a'), CAST(1 AS CHAR), ELT(1, 'a') FROM ns",
		"SELECT CONCAT(NULL, 'a'), CONCAT_WS(',', NULL, 'a'), UPPER(NULL), REPEAT('a', NULL), CAST(NULL AS CHAR)",
		"SET sql_mode = 'STRICT_ALL_TABLES'",
		"SELECT CONCAT('a', 'b'), UPPER('a'), LOWER('A'), REPEAT('a', 3), LPAD('a', 3, 'b'), RPAD('a', 3, 'b'), SUBSTRING('abc', 1, 2), LEFT('abc', 1), RIGHT('abc', 1)",
		"DROP SEQUENCE ns",
		"SET sql_mode = ''",
		"SELECT @@sql_mode",
		`SELECT "x", 'it\'s'`,
		"SET sql_mode = 'NO_BACKSLASH_ESCAPES'",
		`SELECT 'a\nb', LENGTH('\'), 'it''s'`,
		"CREATE SEQUENCE nb",
		`SELECT 'x\', NEXTVAL(nb), 'y\'`,
		`SELECT 'x\', PREVIOUS VALUE FOR nb, 'y\'`,
		`SELECT 'x\', SETVAL(nb, 10), 'y\'`,
		`SELECT 'x\', LASTVAL(nb), 'y\'`,
		"DROP SEQUENCE nb",
		"SET sql_mode = 'HIGH_NOT_PRECEDENCE'",
		"SELECT NOT 1 BETWEEN -5 AND 5",
		"SET sql_mode = DEFAULT",
		"SELECT NOT 1 BETWEEN -5 AND 5",
		"SET sql_mode = 'IGNORE_SPACE'",
		"SELECT ABS (-2)",
		"SET sql_mode = ANSI",
		"SELECT @@sql_mode",
		"SET sql_mode = TRADITIONAL",
		"SELECT @@sql_mode",
		"SET sql_mode = 'postgresql'",
		"SELECT @@sql_mode",
		"SET sql_mode = 8",
		"SELECT @@sql_mode",
		"SET sql_mode = 2097152",
		"SELECT @@sql_mode",
		"SET sql_mode = 0",
		"SELECT @@sql_mode",
		"SET sql_mode = 'STRICT_TRANS_TABLES'",
		"SET sql_mode = 'NOPE'",
		"SET sql_mode = 'ANSI,NOPE'",
		"SET sql_mode = ' ansi_quotes'",
		"SELECT @@sql_mode",
		"SET sql_mode = 'ansi_quotes '",
		"SELECT @@sql_mode",
		"SET sql_mode = 99999999999",
		"SET sql_mode = 34359738368",
		"SET sql_mode = -1",
		"SET sql_mode = 1.5",
		"SET sql_mode = NULL",
		"SELECT @@sql_mode",
		"SET sql_mode = DEFAULT",
		"SET sql_mode = CONCAT(@@sql_mode, ',STRICT_ALL_TABLES')",
		"SELECT @@sql_mode",
		"SET @@SESSION.sql_mode = 'ONLY_FULL_GROUP_BY,MYSQL40'",
		"SELECT @@sql_mode",
		// SHOW CREATE as the mode words it.
		`CREATE SEQUENCE sc COMMENT='he"l''lo'`,
		"SHOW CREATE SEQUENCE sc",
		"SHOW CREATE TABLE sc",
		"SET sql_mode = 'NO_TABLE_OPTIONS'",
		"SHOW CREATE SEQUENCE sc",
		"SHOW CREATE TABLE sc",
		"SET sql_mode = 'ANSI_QUOTES'",
		"SHOW CREATE SEQUENCE sc",
		"SHOW CREATE TABLE sc",
		"SET sql_mode = 'MYSQL323,ANSI_QUOTES'",
		"SHOW CREATE SEQUENCE sc",
		"SHOW CREATE TABLE sc",
		"SET sql_mode = DEFAULT",
		"SHOW CREATE SEQUENCE sc",
		"DROP SEQUENCE sc",
	} {
		want, got := outcome(mc, q, false), outcome(sc, q, false)
		if want != got {
			diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, strings.ReplaceAll(want, "\n", "\n           "), strings.ReplaceAll(got, "\n", "\n           ")))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

// TestOnlyFullGroupByOracle: under ONLY_FULL_GROUP_BY, a column neither
// grouped nor aggregated is MariaDB's 1055 in the select list, named as
// MariaDB names it, and 1140 where a query aggregates without GROUP BY;
// ORDER BY may read one; an item written as a GROUP BY expression is
// grouped; a subquery's reference to such a column is one. Run on MariaDB 10.11 and on seqd, as text and prepared, the
// same statements answered otherwise once the mode is gone.
func TestOnlyFullGroupByOracle(t *testing.T) {
	script := []string{
		"CREATE SEQUENCE s1 START WITH 5 INCREMENT BY 2",
		"SET sql_mode = CONCAT(@@sql_mode, ',ONLY_FULL_GROUP_BY')",
		"SELECT start_value, COUNT(*) FROM s1 GROUP BY increment", "SELECT start_value + 1, COUNT(*) FROM s1 GROUP BY increment",
		"SELECT start_value, COUNT(*) FROM s1", "SELECT COUNT(*) FROM s1 GROUP BY increment ORDER BY start_value",
		// A subquery's correlated reference is the query's column.
		"SELECT (SELECT start_value) FROM s1 GROUP BY increment", "SELECT (SELECT start_value FROM s1 b LIMIT 1) FROM s1 GROUP BY increment",
		"SELECT (SELECT s1.start_value FROM s1 b LIMIT 1) FROM s1 GROUP BY increment",
		"SELECT (SELECT b.start_value + s1.increment FROM s1 b LIMIT 1) FROM s1 GROUP BY increment",
		"SELECT (SELECT MAX(s1.start_value) FROM s1 b) FROM s1 GROUP BY increment", "SELECT (SELECT start_value) FROM s1",
		"SELECT COUNT(*), (SELECT start_value) FROM s1", "SELECT increment FROM s1 GROUP BY increment ORDER BY (SELECT start_value)",
		"SELECT EXISTS (SELECT start_value) FROM s1 GROUP BY increment", "SELECT start_value IN (SELECT 1) FROM s1 GROUP BY increment",
		"SELECT COUNT(*) FROM s1 ORDER BY (SELECT start_value)",
		"SELECT (SELECT 1 FROM s1 b WHERE b.start_value = s1.start_value) FROM s1 GROUP BY increment",
		"SELECT (SELECT MAX(b.start_value) + s1.start_value FROM s1 b) FROM s1 GROUP BY increment",
		"SELECT (SELECT COUNT(*) FROM s1 b GROUP BY b.start_value HAVING b.start_value > s1.increment) FROM s1 GROUP BY increment",
		"SELECT (SELECT (SELECT start_value)) FROM s1 GROUP BY increment", "SELECT (SELECT (SELECT start_value) FROM s1 c) FROM s1 GROUP BY increment",
		"SELECT (SELECT increment) FROM s1 GROUP BY increment",
		"SELECT COUNT(*) FROM s1 GROUP BY increment HAVING start_value > 0", "SELECT increment, COUNT(*) FROM s1 GROUP BY increment HAVING increment > 0",
		"SELECT a.start_value FROM s1 a GROUP BY a.increment", "SELECT x FROM (SELECT 1 x, 2 y) t GROUP BY y",
		"SELECT x FROM (SELECT 1 x, 2 y) t GROUP BY x+0", "SELECT X + 0, (x+0)*2 FROM (SELECT 1 x, 2 y) t GROUP BY x+0",
		"SELECT MAX(x), y FROM (SELECT 1 x, 2 y) t", "SELECT x AS z FROM (SELECT 1 x, 2 y) t GROUP BY z",
		"SELECT COUNT(*) FROM s1 ORDER BY start_value", "SELECT table_name FROM information_schema.tables GROUP BY table_schema",
		"SELECT Start_Value FROM s1 GROUP BY increment", "SELECT x.start_value FROM s1 AS x GROUP BY increment",
		"SELECT IF(start_value, 1, 2) FROM s1 GROUP BY increment", "SELECT COUNT(start_value), increment FROM s1",
		"SELECT COUNT(*), 1 FROM s1", "SELECT COUNT(*) c FROM s1 ORDER BY c", "SELECT increment FROM s1 GROUP BY increment ORDER BY start_value",
		"SELECT start_value FROM s1 GROUP BY start_value, increment", "SELECT start_value FROM s1 GROUP BY 1",
		"SELECT b.start_value FROM s1 a JOIN s1 b GROUP BY a.start_value", "SELECT * FROM s1 GROUP BY increment",
		"SELECT increment, s1.* FROM s1 GROUP BY increment", "SELECT CONCAT(start_value) FROM s1 GROUP BY CONCAT(start_value)",
		"SELECT start_value FROM s1 GROUP BY s1.start_value", "SELECT s1.start_value FROM s1 GROUP BY start_value",
		"SET sql_mode = DEFAULT",
		"SELECT start_value, COUNT(*) FROM s1 GROUP BY increment", "SELECT start_value + 1, COUNT(*) FROM s1",
	}
	oracleScript(t, "seqd_fullgroupby", script)
}

// TestSQLModeRefused: ORACLE and EMPTY_STRING_IS_NULL, which change what
// statements mean in ways seqd does not follow, are refused with 1235,
// by name, as part of another mode, or by number, and the mode stays as
// it was; COM_RESET_CONNECTION reads as no mode does again.
func TestSQLModeRefused(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "app", "")
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("SET sql_mode = 'PIPES_AS_CONCAT'"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SET sql_mode = 'ORACLE'", "SET sql_mode = 'ansi,oracle'", "SET sql_mode = 512", "SET sql_mode = 'EMPTY_STRING_IS_NULL'", "SET sql_mode = ~1"} {
		if _, err := db.Exec(q); number(err) != 1235 || sqlState(err) != "42000" {
			t.Errorf("%s: %v, want 1235", q, err)
		}
	}
	var mode, ab string
	if err := db.QueryRow("SELECT @@sql_mode").Scan(&mode); err != nil || mode != "PIPES_AS_CONCAT" {
		t.Fatalf("the mode after the refusals: %q, %v", mode, err)
	}
	if err := db.QueryRow("SELECT 'a' || 'b'").Scan(&ab); err != nil || ab != "ab" {
		t.Fatalf("|| after the refusals: %q, %v", ab, err)
	}

	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	quoted := func() []byte { // its first packet: an error, or a result's column count (the last thing read)
		c.command(append([]byte{comQuery}, `SELECT "nope"`...)...)
		return c.mustRead()
	}
	c.command(append([]byte{comQuery}, "SET sql_mode = 'ANSI_QUOTES'"...)...)
	if p := c.mustRead(); p[0] != 0 {
		t.Fatal(describe(p))
	}
	if p := quoted(); !isError(p, 1054, "42S22", "Unknown column 'nope' in 'SELECT'") {
		t.Fatalf(`SELECT "nope" with ANSI_QUOTES: %s`, describe(p))
	}
	c.command(comResetConnection)
	if p := c.mustRead(); p[0] != 0 {
		t.Fatal(describe(p))
	}
	if p := quoted(); p[0] == 0xff {
		t.Fatalf(`SELECT "nope" after COM_RESET_CONNECTION: %s`, describe(p))
	}
}

// TestPreparedModesAtExecute: a statement prepared under one sql_mode
// and executed under another follows ONLY_FULL_GROUP_BY and
// NO_UNSIGNED_SUBTRACTION as they are when it is executed, as MariaDB's
// does: on MariaDB 10.11 and on seqd, each prepared once and executed
// after each SET.
func TestPreparedModesAtExecute(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_prepared_modes")
	queries := []string{"SELECT CAST(0 AS UNSIGNED) - 1", "SELECT start_value FROM pm GROUP BY increment",
		"SELECT CAST(1 AS UNSIGNED) - ?, CAST(? AS UNSIGNED) - 1"}
	modes := []string{"DEFAULT", "'NO_UNSIGNED_SUBTRACTION,ONLY_FULL_GROUP_BY'", "DEFAULT", "'NO_UNSIGNED_SUBTRACTION'"}
	results := func(c *oracleConn) []string {
		if _, err := c.ExecContext(ctx, "CREATE SEQUENCE pm"); err != nil {
			t.Fatal(err)
		}
		var stmts []*sql.Stmt
		for _, q := range queries {
			st, err := c.PrepareContext(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer st.Close()
			stmts = append(stmts, st)
		}
		var out []string
		for _, m := range modes {
			if _, err := c.ExecContext(ctx, "SET sql_mode = "+m); err != nil {
				t.Fatal(err)
			}
			for i, st := range stmts {
				var args []any
				if strings.Count(queries[i], "?") == 2 {
					args = []any{5, 0}
				}
				rows, err := st.QueryContext(ctx, args...)
				if err != nil {
					out = append(out, m+" "+queries[i]+": ERROR "+errCode(err))
					continue
				}
				_, vals, err := testenv.RowStrings(rows)
				rows.Close()
				if err != nil { // MariaDB's error may follow the columns
					out = append(out, m+" "+queries[i]+": ERROR "+errCode(err))
					continue
				}
				out = append(out, fmt.Sprintf("%s %s: %v", m, queries[i], vals))
			}
		}
		return out
	}
	want, got := results(mc), results(sc)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Errorf("MariaDB:\n%s\nseqd:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	if !strings.Contains(strings.Join(want, "\n"), "1055") || !strings.Contains(strings.Join(want, "\n"), "1690") {
		t.Errorf("the modes did not show: %s", strings.Join(want, "\n"))
	}
}
