package mysqlwire

import (
	"strings"
	"testing"
)

// TestLocateOracle: LOCATE, POSITION and INSTR find a string by the
// connection's collation ('B' in 'abc'), by its bytes where one is a
// binary string, from a start read as MariaDB's val_int reads it (once);
// ISNULL(x) is x IS NULL; ASCII, ORD and BIT_LENGTH of a string's bytes;
// SUBSTRING_INDEX, its occurrences counted as MariaDB's multi-byte path
// counts them (a binary string's as its single-byte one); FIND_IN_SET and
// STRCMP by the collation; SPACE, NULL past max_allowed_packet:
// on MariaDB 10.11 and on seqd, as text and prepared.
func TestLocateOracle(t *testing.T) {
	script := []string{
		"CREATE SEQUENCE ls1",
		"SELECT LOCATE('B', 'abc'), POSITION('B' IN 'abc'), INSTR('abc', 'C'), LOCATE('b', x'616263'), LOCATE(1, 123), LOCATE('B', x'616263'), LOCATE(x'42', 'abc'), LOCATE('', 'abc', 3), LOCATE('', 'ébc', 3), LOCATE('c', 'ébc', 3)",
		"SELECT LOCATE('ss', 'aß'), LOCATE('ß', 'ass'), LOCATE('E', 'éa'), LOCATE('é', 'Éa'), LOCATE('ab ', 'ab'), LOCATE('a', 'A'), LOCATE('Ä', 'xä'), LOCATE(' ', 'a b'), LOCATE('b', NULL), POSITION('' IN 'x')",
		"SELECT LOCATE('', 'abc', 4), LOCATE('', 'abc', 5), LOCATE('', 'abc', 0), LOCATE('b', 'abcb', 0), LOCATE('b', 'abcb', -1), LOCATE('b', 'abcb', 5), LOCATE('B', 'abcb', 3), LOCATE('b', 'abcb', NULL), LOCATE('b', 'abcb', 2.6), LOCATE('', ''), LOCATE('a', ''), INSTR('', ''), LOCATE('b', 'ébcb', 2)",
		"SELECT LOCATE('b', 'abcb', '2x'), LOCATE('b', 'abcb', 99999999999999999999), LOCATE('b', 'abcb', 2.5e0)",
		"SELECT LOCATE('S', table_name), INSTR(table_name, '1'), LOCATE('s', table_name, 2) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'ls1'",
		"SELECT LOCATE(x, 'aXb'), INSTR('aXb', x) FROM (SELECT 'x' AS x UNION ALL SELECT 'B' UNION ALL SELECT NULL) t",
		"SELECT INSTR('a'), LOCATE('a'), LOCATE('a', 'b', 1, 2)",
		"SELECT ISNULL(NULL), ISNULL(1), ISNULL(1/0), isnull(start_value) FROM ls1", "SELECT 1 FROM ls1 WHERE ISNULL(NULL)",
		"SELECT ISNULL(1, 2)", "SELECT COUNT(*) FROM ls1 GROUP BY ISNULL(increment)", "SELECT NOT ISNULL(NULL), ISNULL(NULL) + 1",
		"SELECT SUBSTRING_INDEX('a.b.c', '.', 2), SUBSTRING_INDEX('a.b.c', '.', -2), SUBSTRING_INDEX('a.b.c', '.', 0), SUBSTRING_INDEX('a.b.c', '.', 5), SUBSTRING_INDEX('a.b.c', '.', -5), SUBSTRING_INDEX('a.b.c', '', 1), SUBSTRING_INDEX('aaa', 'aa', 1), SUBSTRING_INDEX('aaa', 'aa', -1), SUBSTRING_INDEX('aaaa', 'aa', 2), SUBSTRING_INDEX('aaaa', 'aa', -2), SUBSTRING_INDEX('A.b', 'a', 1)",
		"SELECT SUBSTRING_INDEX('x', '.', '1x'), SUBSTRING_INDEX(NULL, '.', 1), SUBSTRING_INDEX('a.b', NULL, 1), SUBSTRING_INDEX('a.b', '.', NULL), SUBSTRING_INDEX('é.ü.x', '.', -1), SUBSTRING_INDEX(12.34, '.', 1), SUBSTRING_INDEX('a.b.c', '.', 18446744073709551615), SUBSTRING_INDEX('a.b.c', '.', -9223372036854775808)",
		"SELECT SUBSTRING_INDEX(x'612e622e63', '.', -1), SUBSTRING_INDEX(x'616161', 'aa', -1), SUBSTRING_INDEX('a.b.c', '.', 4294967297), SUBSTRING_INDEX('a.b', '.', 1.5), SUBSTRING_INDEX(table_name, '1', 1) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'ls1'",
		"SELECT SUBSTRING_INDEX('a.b')",
		"SELECT FIND_IN_SET('B', 'a,b,c'), FIND_IN_SET('b,', 'a,b,c'), FIND_IN_SET('', 'a,,c'), FIND_IN_SET('', ''), FIND_IN_SET('a', ''), FIND_IN_SET(NULL, 'a'), FIND_IN_SET('é', 'e,é'), FIND_IN_SET('c ', 'a,c'), FIND_IN_SET(2, '1,2')",
		"SELECT STRCMP('a', 'B'), STRCMP('b', 'A'), STRCMP('a', 'A'), STRCMP('a ', 'a'), STRCMP(NULL, 'a'), STRCMP('é', 'e'), STRCMP(2, 10), STRCMP('', 'a')",
		"SELECT SPACE(3), SPACE(0), SPACE(-1), SPACE(NULL), SPACE('2x'), LENGTH(SPACE(20000000)), CONCAT('[', SPACE(start_value), ']') FROM ls1",
		"SELECT ASCII('é'), ASCII(''), ASCII(NULL), ASCII(12), ORD('é'), ORD('a'), ORD(''), ORD('€x'), ORD(NULL), BIT_LENGTH('é'), BIT_LENGTH(12), ASCII(x'41'), ORD(x'43'), ASCII(start_value), ORD(1.5), ASCII(1e0) FROM ls1",
	}
	oracleScript(t, "seqd_locate", script)
}

// TestParserNamedFunctions: a function TiDB's parser names otherwise
// (CHAR is its char_func, INSERT its insert_func), which seqd does not
// offer, is named as written in MariaDB's words in 1305, not by the
// parser's name.
func TestParserNamedFunctions(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE DATABASE d"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("USE d"); err != nil {
		t.Fatal(err)
	}
	for q, name := range map[string]string{"SELECT CHAR(65)": "CHAR", "SELECT INSERT('abc', 2, 1, 'x')": "INSERT"} {
		_, err := db.Exec(q)
		if number(err) != 1305 || !strings.Contains(err.Error(), "FUNCTION d."+name+" does not exist") {
			t.Errorf("%s: %v, want 1305 naming %s", q, err, name)
		}
	}
}
