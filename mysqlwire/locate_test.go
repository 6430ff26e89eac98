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

// TestBinaryComparedOracle: a binary string's characters are its bytes
// (CHAR_LENGTH), and STRCMP, FIELD, FIND_IN_SET and LIKE compare by the
// bytes where MariaDB's collation aggregation makes a binary string's
// win (a literal over a literal, BINARY y or a user variable over a
// literal), not where a column's or a variable's wins over a literal's;
// they answered by utf8mb4_general_ci (STRCMP(BINARY 'a', 'A') was 0,
// BINARY 'ñ' LIKE '_' was 1).
func TestBinaryComparedOracle(t *testing.T) {
	oracleScript(t, "seqd_binary_compared", []string{
		"CREATE SEQUENCE g1",
		"SELECT CHAR_LENGTH(x'C3B1'), CHARACTER_LENGTH(x'C3B1'), CHAR_LENGTH(_binary'ab'), CHAR_LENGTH(BINARY 'ñ'), CHAR_LENGTH('ñ')",
		"SELECT STRCMP(x'61', 'A'), FIELD(x'61', 'A', 'a'), FIND_IN_SET(x'61', 'A,a'), x'61' LIKE 'A', _binary'a' LIKE 'A', BINARY 'a' LIKE 'A'",
		"SELECT STRCMP(_binary'a', 'A'), FIELD(_binary'a', 'A', 'a'), FIND_IN_SET(_binary'a', 'A,a')",
		"SELECT STRCMP(BINARY 'a', 'A'), FIELD(BINARY 'a', 'A', 'a'), FIND_IN_SET(BINARY 'a', 'A,a')",
		"SELECT BINARY 'ñ' LIKE '_', x'C3B1' LIKE '_', _binary'ñ' LIKE '__', BINARY 'ab' LIKE 'a_', BINARY 'añ' LIKE 'a%', BINARY 'a%' LIKE 'a\\%'",
		"SELECT 'ñ' LIKE BINARY '_', 'a' LIKE BINARY 'A', 'ñ' NOT LIKE BINARY '__', 12 LIKE BINARY '1_'",
		"SELECT STRCMP(BINARY 'a', 'a '), STRCMP('a', 'a '), STRCMP(BINARY 'b', 'a'), STRCMP(BINARY 'a', NULL)",
		"SELECT FIELD(table_name, x'4142') FROM information_schema.tables WHERE table_schema = DATABASE() LIMIT 1",
		"SELECT STRCMP(table_name, BINARY 'X'), table_name LIKE BINARY 'G%', FIND_IN_SET(table_name, x'4731') FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'g1'",
		"SET @b = BINARY 'A'",
		"SELECT STRCMP(@b, 'a'), FIELD(@b, 'a'), @b LIKE 'a', STRCMP(@b, x'61')",
		"SELECT 7 DIV 0 + 1, CHAR_LENGTH(BINARY 'ab') + (5 DIV 0)",
	})
}
