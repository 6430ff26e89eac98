package mysqlwire

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// selects are SELECTs as MySQL clients write them, run after selectsSetup
// on MariaDB 10.11 and on seqd as the corpus is (oracle): the statements
// PostgreSQL's parser once read again as restored text (COALESCE, NULLIF,
// GREATEST, CAST, subqueries of UNION, ...), which the builder makes now,
// and the constructs of a SELECT it builds besides: FROM a sequence, a
// derived table or information_schema, joins, WHERE, GROUP BY, HAVING,
// ORDER BY, LIMIT with an offset, UNION, DIV, MOD, XOR, <=>, IF, IFNULL,
// GROUP_CONCAT, the session's functions in an expression; and, for the
// result columns' types (exprtypes.go), integer arithmetic either side
// of LONG's nine digits, DECIMAL and DOUBLE operands, signed and
// unsigned integers in IF, COALESCE and UNION, CAST AS UNSIGNED of
// values that may or may not be negative, aggregates of each type,
// subqueries that may find no row, derived tables merged or not,
// GROUP BY and DISTINCT over constant rows and over rows, NULL in
// arithmetic, CONCAT, IF and a derived table's column; DECIMAL values
// shown at their column's scale (AVG, SUM and MAX of quotients, an
// integer in a UNION or GREATEST with DECIMALs); UPPER and LOWER of
// binary strings, a string function's NULL, REPEAT (a BLOB, MEDIUMBLOB
// or LONGBLOB by the length a count written as a literal gives it, a LONGBLOB for a
// count read with the rows, passed on by the functions and aggregates
// that take it, a BLOB where a temporary table holds it); -NULL and SUM or
// AVG of NULL and of strings (DOUBLEs); a UNION of numbers and strings,
// quotients in it written with the digits MariaDB holds; strings
// compared by utf8mb4_general_ci (=, <=>, <, IN, BETWEEN, GREATEST,
// LEAST, NULLIF, CASE x WHEN, MIN, MAX, IN and = ANY of a subquery,
// ORDER BY, GROUP BY, DISTINCT, UNION, INTERSECT, EXCEPT, COUNT and
// GROUP_CONCAT of DISTINCT, LIKE),
// binary
// strings and information_schema's names by their bytes; a quotient a
// subquery, ABS, IF, IFNULL, COALESCE, CASE, GREATEST, LEAST, NULLIF or
// an aggregate passes to a UNION's string column (at its type's digits
// where MariaDB writes it into a table first: grouped, beside an
// aggregate, a DISTINCT aggregate's values), NULLIF's comparison of one
// at the digits it shows; a number compared with a subquery of NULL (IN, = ANY,
// =, <=>); a subquery that reads a table, typed over its FROM clause (in
// a UNION with a string, IN of strings); MIN and MAX of a derived
// table's string column; IF, IFNULL, COALESCE and CASE of a string and
// a number of any kind (a column, a subquery, a truth: its text); a truth
// as a number: in arithmetic, CONCAT and aggregates (TRUE + 1 is 2);
// GREATEST and LEAST of arithmetic of columns and of functions that
// read the same again; CONCAT_WS (NULLs left
// out, NULL for a NULL separator); a number where a function of strings
// takes a string (LENGTH, LOCATE, REPLACE, UPPER, TRIM: its text); ELT;
// FIELD (strings by the collation, else numbers, else DOUBLEs); a truth
// compared, in IN, BETWEEN, CASE, a function's argument and a UNION's
// string column as 1 or 0; COALESCE and IFNULL of NULL and an unsigned
// integer (a DECIMAL); LEFT, RIGHT, SUBSTRING, SUBSTR and MID, LPAD and
// RPAD (a count negative, zero, huge, NULL, a string, a decimal, a
// double; an empty pad; a sequence's number padded), REVERSE of
// multi-byte text, LTRIM, RTRIM, TRIM of a string; FLOOR, CEIL and ROUND
// of an integer, a DECIMAL, a DOUBLE and a string (their types by the
// kind of number: LONG, LONGLONG, DECIMAL or DOUBLE).
var selects = []string{
	"SELECT COALESCE(NULL, 1), NULLIF(1, 1), NULLIF(1, 2)",
	"SELECT GREATEST(1, 2), LEAST(3, 2), GREATEST(1, NULL), LEAST(NULL, 1)",
	"SELECT TRIM('  a  '), POSITION('b' IN 'abc'), LOCATE('c', 'abc')",
	"SELECT (SELECT 1 UNION SELECT 2 ORDER BY 1 DESC LIMIT 1), 2 IN (SELECT 1 UNION SELECT 2), EXISTS (SELECT 1 FROM s1)",
	"SELECT CAST(1 AS DECIMAL(5,2)), CAST('abc' AS CHAR), CAST('abc' AS CHAR(2)), CAST(1.5 AS FLOAT), CAST(1.5 AS DECIMAL)",
	"SELECT CAST('12' AS SIGNED), CAST(-1 AS UNSIGNED), CAST(7 AS DOUBLE), CONVERT(3, SIGNED), CONVERT('x' USING utf8mb4)",
	"SELECT x'41', 0x42, 'a' 'b', CONCAT(x'41', 'c')",
	"SELECT 'ab' LIKE 'A%', 'ab' LIKE BINARY 'A%', 'ab' NOT LIKE 'b%'",
	"SELECT CURRENT_USER() = USER(), DATABASE(), CONCAT(SCHEMA(), '!'), CONNECTION_ID() > 0",
	"SELECT 1 WHERE 1 = 1", "SELECT 1 FROM dual WHERE 0",
	"SELECT 7/2, 7 DIV 2, 7 MOD 0, 1/0, -7 DIV 2, 7 % 3, 1.5/3, 2 * 3 - 1, 1/3/3, 1.25 * 2 / 4, CAST(1 AS DECIMAL(4,2)) / 3",
	"SELECT CONCAT(1/3), 1/3 = 0.3333, ROUND(1/3, 6), 1.50 / 3 / 3, (SELECT 2/3), -(1/3)",
	"SELECT 'abc', 'a' 'b', \"dq\", NULL, -1, 1.50, x'41', TRUE",
	"SELECT 1 XOR 1, 1 XOR 0, NULL XOR 1, NULL <=> NULL, 1 <=> NULL, 1 <=> 1",
	"SELECT IF(1, 'a', 'b'), IFNULL(NULL, 'c'), IF(NULL, 1, 2), IF(0, 1, NULL)",
	"SELECT CONCAT('a', NULL), CONCAT('a', 1, 'b'), CONCAT(1, 2), LENGTH('é'), CHAR_LENGTH('é'), UPPER('é')",
	"SELECT 1 IS TRUE, 0 IS FALSE, NULL IS NOT TRUE, 2 AND 3, 0 OR 0, NOT 0, !1",
	"SELECT CASE WHEN 0 THEN 'a' WHEN 2 THEN 'b' END, CASE 2 WHEN 1 THEN 'x' ELSE 'y' END",
	"SELECT 2 BETWEEN 1 AND 3, 5 NOT BETWEEN 1 AND 3, 3 IN (1, 2), 3 NOT IN (1, 2), NULL IS NULL",
	"SELECT next_not_cached_value, minimum_value, Increment FROM s1",
	"SELECT * FROM s2",
	"SELECT start_value FROM s1 WHERE increment = 2 AND cycle_option = 0 ORDER BY start_value LIMIT 1",
	"SELECT s1.next_not_cached_value, s1.start_value + 1 AS n FROM s1 ORDER BY n DESC",
	"SELECT a.start_value, b.cache_size FROM s1 a JOIN s2 b ON a.cycle_option < b.cycle_option",
	"SELECT a.start_value, b.cache_size FROM s1 a, s2 b WHERE a.increment = 2",
	"SELECT * FROM s1 AS a LEFT JOIN s2 AS b ON a.cycle_option = b.cycle_option",
	"SELECT COALESCE(cycle_option, 9), IF(cycle_option, 'cycles', 'no') FROM s2",
	"SELECT x FROM (SELECT start_value AS x FROM s1) AS t", "SELECT * FROM (SELECT start_value, increment FROM s1) t",
	"SELECT * FROM (SELECT 1 AS a, 'b' AS B) t WHERE A = 1", "SELECT t.* FROM (SELECT 2 AS x UNION ALL SELECT 1) t ORDER BY x",
	"SELECT COUNT(*), MAX(start_value), SUM(increment), MIN(maximum_value) FROM s1",
	"SELECT start_value FROM s1 UNION SELECT start_value FROM s2 ORDER BY 1",
	"SELECT start_value FROM s1 UNION ALL SELECT 5 ORDER BY 1 LIMIT 1 OFFSET 1", "SELECT 1 UNION SELECT 1", "SELECT 1 UNION ALL SELECT 1",
	"SELECT 1 INTERSECT SELECT 1", "SELECT 1 EXCEPT SELECT 2", "SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 ORDER BY 1",
	"SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'S%' ORDER BY 1",
	"SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	"SELECT GROUP_CONCAT(table_name ORDER BY table_name DESC SEPARATOR ';') FROM information_schema.tables WHERE table_schema = DATABASE()",
	"SELECT GROUP_CONCAT(table_name) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name < 's2'",
	"SELECT GROUP_CONCAT(DISTINCT table_type) AS t FROM information_schema.tables WHERE table_schema = DATABASE()",
	"SELECT table_type, COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() GROUP BY table_type HAVING COUNT(*) > 1",
	"SELECT TABLE_NAME, t.TABLE_TYPE FROM information_schema.TABLES AS t WHERE t.table_schema = DATABASE() ORDER BY 1 LIMIT 1, 1",
	"SELECT schema_name FROM information_schema.schemata WHERE schema_name IN (DATABASE(), 'nope')",
	"SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'information_schema'",
	"SHOW TABLES LIKE 's1'", "SHOW FULL TABLES LIKE 's%'", "SHOW TABLES LIKE 'none%'",
	"SELECT * FROM nope", "SELECT * FROM nodb.s1", "SELECT a.start_value FROM s1 a JOIN nope b ON 1",
	"SELECT start_value FROM s1 JOIN (SELECT 1) t", "SELECT NEXTVAL(s1) FROM dual",
	"SELECT 7.5 MOD 2, -1e0, -(1.5), IF(1, CAST(1 AS FLOAT), CAST(2 AS FLOAT)), IF(1, CAST(1 AS FLOAT), 2), COALESCE(NULL, NULL), IF(1, NULL, NULL)",
	"SELECT 1 + NULL, NULL * 2, NULL DIV 2, 2 DIV NULL, CAST(NULL AS DECIMAL(3,1)), CONCAT(NULL), IFNULL(NULL, NULL)",
	"SELECT 12345678 + 1, 123456789 * 1, 1234 * 12345, 9 DIV 1, 123456789012 DIV 2, 18446744073709551615, 18446744073709551615 + 0",
	"SELECT start_value + 0.5, cache_size * 2, cache_size DIV 3, cycle_option + 1, -cycle_option, cycle_option * cycle_option FROM s2",
	"SELECT IF(0, 1, 'a'), IF(0, 1.5, 'a'), IF(0, x'41', 'a'), COALESCE(1, 2.5, 3e0), CASE WHEN 0 THEN 1 WHEN 1 THEN 2.25 ELSE 3 END",
	"SELECT GREATEST(1, 2.5), LEAST(1, '2'), GREATEST('a', NULL), GREATEST(1, 1e0), LEAST(cycle_option, cache_size) FROM s2",
	"SELECT MIN(start_value + 1), MAX(CAST(start_value AS CHAR)), MIN(-start_value), SUM(-cycle_option) FROM s2",
	"SELECT COUNT(start_value), COUNT(DISTINCT start_value), GROUP_CONCAT(start_value, 'x' SEPARATOR '') FROM s2",
	"SELECT x * 2, y FROM (SELECT 1.5 AS x, CONCAT('a', 'b') AS y UNION ALL SELECT 2.5, 'c') t",
	"SELECT * FROM (SELECT 1e0 AS d, 1.25 AS n, -5 AS i, CAST(1 AS UNSIGNED) AS u, NULL AS z) t",
	"SELECT x + 1, x * 2, SUM(x), MAX(x), COUNT(*) FROM (SELECT 1 AS x UNION ALL SELECT 2) t GROUP BY x",
	"SELECT DISTINCT x + 1 FROM (SELECT 1 AS x UNION ALL SELECT 2) t",
	"SELECT a, COUNT(*), a + 1 FROM (SELECT 1 AS a) t GROUP BY a",
	"SELECT 123456789 + 1, 12345678 * 10, 99999999 + 1, 1234567890, -123456789, 2147483647 + 0, 9999 * 9999, 99999 * 9999",
	"SELECT 1.5 + 1, 1.5 * 1.25, 10 MOD 3.5, -1.5, 2.50 - 1, 1 + 1e0, 1.5 + '1', 1.5 / 0.25, 100 DIV 7, 1234567890 DIV 3",
	"SELECT IF(1, cycle_option, 2), COALESCE(cycle_option, cache_size), IFNULL(cache_size, 1), GREATEST(cycle_option, 1), LEAST('a', 'b'), GREATEST(1e0, 2), GREATEST('1', 2) FROM s2",
	"SELECT SUM(1.5), SUM(1e0), MIN('a'), MAX(1.5), SUM(cache_size), MAX(cycle_option) FROM s1",
	"SELECT ROUND(1.2345, 2), ROUND(2.5), ROUND(7, 0), ROUND(1e0, 1), ABS(-2), ABS(-1.5), ABS(start_value) FROM s1",
	"SELECT CAST(cycle_option AS UNSIGNED), CAST(1 AS UNSIGNED), CAST(12 AS UNSIGNED), CAST('5' AS UNSIGNED), CAST(1.5 AS DECIMAL(10,3)) * 2, CAST(1 AS CHAR(3)), CAST(NULL AS SIGNED), CAST(cache_size AS SIGNED) FROM s2",
	"SELECT CONCAT(start_value, 'x'), LOWER(CONCAT('A', 1)), LENGTH(NULL), CHAR_LENGTH(CONCAT('a')), REPLACE('abc', 'b', 'x') FROM s1",
	"SELECT (SELECT 'a'), (SELECT 1.5), (SELECT NULL), (SELECT 1 FROM dual WHERE 1), (SELECT 2 UNION ALL SELECT 2 LIMIT 1), 1 IN (SELECT 1 WHERE 0), NULL IN (SELECT 1), 1 IN (SELECT 1)",
	"SELECT 'a' UNION ALL SELECT 'bc'",
	"SELECT 1e0 AS x UNION ALL SELECT 2e0",
	"SELECT cycle_option FROM s1 UNION ALL SELECT -1 FROM s2",
	"SELECT start_value, 'a' FROM s1 UNION SELECT 2, NULL",
	"SELECT CASE cycle_option WHEN 0 THEN 1.5 ELSE 2 END, CASE WHEN 1 THEN NULL ELSE 'a' END, NULLIF(1.5, 1) FROM s1",
	"SELECT -start_value, -cache_size, -(7 DIV 2), start_value DIV 2, cache_size + 1, start_value * 1.5, start_value / 3, start_value MOD 2.5 FROM s2",
	"SELECT GROUP_CONCAT(x'41'), GROUP_CONCAT(start_value), MAX(CONCAT(start_value, 'x')) FROM s1",
	"SELECT x, y FROM (SELECT start_value + 1 AS x, CONCAT('a', start_value) AS y FROM s1) t",
	"SELECT x + 1, y FROM (SELECT start_value AS x, 'a' AS y FROM s1 LIMIT 1) t",
	"SELECT table_type, CONCAT(table_type, 'x'), LENGTH(table_type), 1 + 1, MAX(table_name) FROM information_schema.tables WHERE table_schema = DATABASE() GROUP BY table_type",
	"SELECT DISTINCT CONCAT(table_type, 'x'), 2 * 3 FROM information_schema.tables WHERE table_schema = DATABASE()",
	"SELECT 'a' LIKE NULL, NULL BETWEEN 1 AND 2, 1 IN (1, NULL), NOT NULL, 1 AND NULL, start_value IN (5, 6) FROM s1",
	"SELECT AVG(1), SUM(1/1), MAX(1/1), AVG(1.5), AVG(1/3), SUM(2/3), AVG(CAST(1 AS DECIMAL(5,2)))",
	"SELECT AVG(x), SUM(x / 3), MAX(x / 3), AVG(x * 1.25), MIN(x / 7) FROM (SELECT 1 AS x UNION ALL SELECT 2) t",
	"SELECT AVG(start_value), SUM(start_value / 4), MAX(cache_size / 3) FROM s2",
	"SELECT 1 UNION SELECT 1.0", "SELECT 1.25 UNION ALL SELECT 2 UNION ALL SELECT -3",
	"SELECT GREATEST(1.5, 2), LEAST(1, 2.25), GREATEST(3, 1.5), LEAST(2.5, 10)",
	"SELECT UPPER(x'61'), LOWER(x'41'), UPPER('a'), LOWER(CONCAT(x'41')), UPPER(CONCAT(x'61', 'b'))",
	"SELECT -NULL, SUM(NULL), AVG(NULL), -(NULL)",
	"SELECT AVG('2'), SUM('2'), AVG('1.5')",
	"SELECT REPEAT('ab', 3), REPEAT('a', 0), REPEAT(NULL, 2), REPEAT(x'41', 2), REPEAT('a', NULL), REPEAT(5, 2), REPEAT('a', 1.6)",
	"SELECT UPPER(NULL), LOWER(NULL), REPLACE(NULL, 'a', 'b'), TRIM(NULL), REPLACE('a', NULL, 'b'), REPEAT('é', 2)",
	"SELECT 'a' = 'A', 'a' = 'a ', 'a' <=> 'A', 'a' < 'B', 'a\\t' < 'a', 'é' = 'E', 'ß' = 's', 'Æ' = 'æ', 'ÿ' = 'Y', CONCAT('a', 'B') = 'Ab', 'a' = x'41', BINARY 'a' = 'A', UPPER(x'61') = 'a'",
	"SELECT 'a' IN ('A', 1), 'a' IN ('B', 'A'), 'a' NOT IN ('B', 'A'), 'b' BETWEEN 'A' AND 'C', 'b' NOT BETWEEN 'A' AND 'C', 'A' IN ('a', NULL), 'a' BETWEEN NULL AND 'b', 'a' = NULL",
	"SELECT x FROM (SELECT 'abc' AS x UNION ALL SELECT 'abd') t WHERE x = 'ABC' OR x > 'ABC '",
	"SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN ('S1', 'x')",
	"SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'S1'",
	"SELECT GREATEST('a', 'B'), LEAST('a', 'B'), GREATEST('a', 'A'), GREATEST('A', 'a'), LEAST('b', 'B', 'c'), GREATEST('é', 'f'), GREATEST('a', x'42'), LEAST('a', NULL)",
	"SELECT NULLIF('a', 'A'), NULLIF('a', 'b'), NULLIF(x'41', 'a'), NULLIF('a', NULL), CASE 'a' WHEN 'A' THEN 1 ELSE 0 END, CASE 'a' WHEN 'b' THEN 1 WHEN 'A ' THEN 2 END, CASE x'61' WHEN 'A' THEN 1 ELSE 0 END, CASE NULL WHEN 'a' THEN 1 ELSE 2 END",
	"SELECT y, MIN(x), MAX(x) FROM (SELECT 1 AS y, 'a' AS x UNION ALL SELECT 1, 'A' UNION ALL SELECT 1, 'b' UNION ALL SELECT 1, 'C') t GROUP BY y HAVING MAX(x) = 'c'",
	"SELECT x FROM (SELECT 'b' x UNION ALL SELECT 'C' UNION ALL SELECT 'a' UNION ALL SELECT 'D') t ORDER BY x",
	"SELECT x AS y FROM (SELECT 'b' x UNION ALL SELECT 'C' UNION ALL SELECT 'a') t ORDER BY y DESC, CONCAT(x, '')",
	"SELECT 'b' AS x UNION ALL SELECT 'C' UNION ALL SELECT 'a' ORDER BY x", "SELECT 'b' AS x UNION SELECT 'C' UNION SELECT 'a' ORDER BY 1 DESC",
	"SELECT x, y FROM (SELECT 'b' x, 1 y UNION ALL SELECT 'A', 2 UNION ALL SELECT 'a', 3 UNION ALL SELECT 'B', 4 UNION ALL SELECT 'á', 5) t ORDER BY x, y DESC",
	"SELECT 'a' UNION SELECT 'A'", "SELECT 'A' UNION SELECT 'a' UNION SELECT 'á' UNION SELECT 'b'", "SELECT 'a ' UNION SELECT 'a'",
	"SELECT 'a', 1 UNION SELECT 'A', 1 UNION SELECT 'A', 2", "SELECT 'a' INTERSECT SELECT 'A'", "SELECT 'a' EXCEPT SELECT 'A'",
	"SELECT 1 UNION SELECT 'a' UNION SELECT 'A'", "SELECT COUNT(*) FROM (SELECT 'a' AS x UNION SELECT 'A') t",
	"SELECT DISTINCT x FROM (SELECT 'b' x UNION ALL SELECT 'A' UNION ALL SELECT 'a' UNION ALL SELECT 'B') t",
	"SELECT DISTINCT x, y FROM (SELECT 'b' x, 1 y UNION ALL SELECT 'B', 1 UNION ALL SELECT 'B', 2) t",
	"SELECT x, COUNT(*) FROM (SELECT 'b' AS x UNION ALL SELECT 'A' UNION ALL SELECT 'a' UNION ALL SELECT 'B') t GROUP BY 1 ORDER BY 1 DESC",
	"SELECT x AS y, COUNT(*) FROM (SELECT 'a' AS x UNION ALL SELECT 'A' UNION ALL SELECT 'a ') t GROUP BY y",
	"SELECT CONCAT(x, ''), COUNT(*) FROM (SELECT 'a' AS x UNION ALL SELECT 'A') t GROUP BY CONCAT(x, '')",
	"SELECT x, COUNT(*) FROM (SELECT 'b' AS x UNION ALL SELECT 'A' UNION ALL SELECT 'a' UNION ALL SELECT 'B') t GROUP BY x",
	"SELECT x, y, COUNT(*) FROM (SELECT 2 AS x, 'b' y UNION ALL SELECT 1, 'a' UNION ALL SELECT 2, 'A') t GROUP BY x, y",
	// A column neither grouped nor aggregated, that depends on the
	// grouped ones (mariadb-dump's read of information_schema.FILES).
	"SELECT x, y, COUNT(*) FROM (SELECT 2 AS x, 'b' y UNION ALL SELECT 1, 'a' UNION ALL SELECT 2, 'b') t GROUP BY x",
	"SELECT t.y, x AS z FROM (SELECT 2 AS x, 5 y UNION ALL SELECT 1, 4 UNION ALL SELECT 2, 5) t GROUP BY z ORDER BY 1 DESC",
	"SELECT table_name, table_type, engine FROM information_schema.tables WHERE table_schema = DATABASE() GROUP BY 1",
	"SELECT x + 1 AS z FROM (SELECT 2 AS x UNION ALL SELECT 1) t GROUP BY z", "SELECT x FROM (SELECT 2 AS x UNION ALL SELECT 1) t GROUP BY x ORDER BY NULL",
	"SELECT x FROM (SELECT 2 AS x UNION ALL SELECT 1 UNION ALL SELECT 3) t GROUP BY -x LIMIT 2",
	"SELECT COUNT(DISTINCT x), GROUP_CONCAT(DISTINCT x), GROUP_CONCAT(DISTINCT x ORDER BY x DESC) FROM (SELECT 'b' AS x UNION ALL SELECT 'A' UNION ALL SELECT 'a' UNION ALL SELECT 'B' UNION ALL SELECT 'c') t",
	"SELECT GROUP_CONCAT(x ORDER BY x) FROM (SELECT 'b' AS x UNION ALL SELECT 'C' UNION ALL SELECT 'a') t", "SELECT GROUP_CONCAT(DISTINCT x'61', 'A'), COUNT(DISTINCT 1)",
	"SELECT GROUP_CONCAT(DISTINCT x, y) FROM (SELECT 'a' AS x, 1 y UNION ALL SELECT 'A', 1 UNION ALL SELECT 'a', 2) t",
	"SELECT 'é' LIKE 'e', 'a ' LIKE 'a', 'ß' LIKE 's', 'É' LIKE 'é%', 'ab' LIKE 'A_', 'a%' LIKE 'A\\\\%', 'ax' LIKE 'A\\\\%', 'é' NOT LIKE 'E', x'61' LIKE 'A', 'a' LIKE x'41', CONCAT('É', 'x') LIKE 'ex'",
	"SELECT 1 LIKE '1', 12 LIKE '1%', 1.50 LIKE '1.5%', 'ab' LIKE BINARY 'A%', NULL LIKE 'a', 'a' LIKE NULL",
	"SELECT (SELECT 1 UNION SELECT 2)", "SELECT 1 FROM s1 WHERE start_value = (SELECT 5 UNION ALL SELECT 5)",
	"SELECT 'a' IN (SELECT 'A'), 'a' NOT IN (SELECT 'A'), 'a' = ANY (SELECT 'A'), 'a' IN (SELECT 'b' UNION SELECT 'A '), 'a' IN (SELECT x'41'), x'61' IN (SELECT 'A'), 'a' IN (SELECT 'b'), 'ß' IN (SELECT 's'), 2 = ANY (SELECT 1 UNION SELECT 2)",
	"SELECT (SELECT 1/3) UNION SELECT 'a'", "SELECT -(1/3) UNION SELECT 'a'",
	"SELECT -(SELECT 1/3), ABS(1/3), IFNULL(1/3, 0), IF(1, 1/3, 2), CASE WHEN 1 THEN 1/3 END UNION SELECT 'a', 'b', 'c', 'd', 'e'",
	"SELECT (SELECT 2/3) * 2, (SELECT (SELECT 1/3)), (SELECT 1/7 FROM dual WHERE 1), COALESCE(NULL, 1/3), -(-(1/3)) UNION ALL SELECT 'a', 'b', 'abcdefghijklmnop', 'd', 'e'",
	"SELECT CASE 2 WHEN 1 THEN 2 ELSE 2/3 END, ABS((SELECT 1/3) / 7), IF(0, 1/3, NULL), (SELECT 2/7 FROM dual) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'a', 'b', 'abcdefghijklmnop'",
	"SELECT 1 UNION SELECT 'a'", "SELECT 'b' UNION ALL SELECT 2.5",
	"SELECT 1.5 UNION SELECT 'a'", "SELECT 1e0, 2 UNION ALL SELECT 'a', NULL", "SELECT start_value FROM s1 UNION SELECT 'x' UNION SELECT 1.5",
	"SELECT UPPER(b), LOWER(c) FROM (SELECT x'61' AS b, 'A' AS c) t",
	"SELECT AVG(CONCAT('1', 'x')), SUM(-NULL), AVG(DISTINCT '3'), SUM(CONCAT('2'))",
	"SELECT 1/3 UNION SELECT 'a'", "SELECT 'a' UNION ALL SELECT 2/3 UNION ALL SELECT 1/7 UNION ALL SELECT 10/3 UNION ALL SELECT -1/3",
	"SELECT 1/3 AS x, 100/7 UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'a'",
	"SELECT 1/3/3 AS x UNION ALL SELECT 'abcdefghijklmnopqrstuvwxyz' UNION ALL SELECT (1/3)/7 UNION ALL SELECT 1.5/3 UNION ALL SELECT 1/0.3",
	"SELECT 1/3 * 2, 1/3 + 1, 1.25/3 - 0.5, 7 MOD 3 / 2, 7 DIV 2 / 3, 1/3 MOD 0.1 UNION SELECT 'a', 'b', 'c', 'd', 'e', 'f'",
	"SELECT start_value / 3 AS x FROM s1 UNION SELECT 'abcdefghijklmnopqrstuvwxyz' UNION SELECT cache_size / 7 FROM s2",
	"SELECT 1/3 UNION SELECT 1.5 UNION SELECT 'a' ORDER BY 1", "SELECT * FROM (SELECT 1/3 AS x UNION SELECT 'a') t",
	"SELECT 1 IN (SELECT NULL), 1 = ANY (SELECT NULL), 1 NOT IN (SELECT NULL), 1.5 IN (SELECT NULL UNION SELECT NULL), 1 IN (SELECT NULL UNION SELECT 1), 'a' IN (SELECT NULL)",
	"SELECT 1 IN (SELECT NULL FROM s1), 1 IN (SELECT NULL FROM s1 WHERE 0), 2 = ANY (SELECT NULL FROM s1), start_value IN (SELECT NULL) FROM s1",
	"SELECT 1 = (SELECT NULL), (SELECT NULL) < 2, 1 <=> (SELECT NULL), (SELECT NULL) <=> (SELECT NULL), 1 = (SELECT NULL FROM s1 WHERE 0), start_value <> (SELECT NULL) FROM s1",
	"SELECT x IN (SELECT NULL), x = (SELECT NULL) FROM (SELECT 1 AS x) t",
	"SELECT (SELECT start_value FROM s1) UNION SELECT 'a'", "SELECT 'a' UNION SELECT (SELECT start_value FROM s1)",
	"SELECT (SELECT start_value FROM s1), (SELECT start_value FROM s1 WHERE 0), (SELECT CONCAT(increment, 'x') FROM s1)",
	"SELECT (SELECT start_value / 3 FROM s1) UNION SELECT 'a'", "SELECT (SELECT MAX(start_value) FROM s1) UNION ALL SELECT 'a'",
	"SELECT 5 IN (SELECT start_value FROM s1), 'A' IN (SELECT 'a' FROM s1), 'A' = ANY (SELECT CONCAT('a') FROM s1)",
	"SELECT MIN(x), MAX(x) FROM (SELECT 'a' AS x) t", "SELECT MIN(x), MAX(x), MIN(y) FROM (SELECT 'a' AS x, 1 AS y UNION ALL SELECT 'b', 2) t",
	"SELECT MIN(x) FROM (SELECT 'a' AS x UNION SELECT 'b') t GROUP BY x", "SELECT MIN(x), MAX(x), MIN(x'41') FROM (SELECT x'41' AS x) t",
	"SELECT MAX(x), MIN(y) FROM (SELECT CONCAT(x'41', 'b') AS x, 'c' AS y FROM s1) t",
	"SELECT REPEAT('a', start_value), REPEAT(x'61', increment), REPEAT('a', 2), REPEAT(NULL, start_value) FROM s1",
	"SELECT CONCAT(REPEAT('a', start_value), 'b'), IFNULL(REPEAT('a', start_value), 'b'), LOWER(REPEAT('a', start_value)), IF(1, REPEAT('a', start_value), 'b'), COALESCE(REPEAT('a', start_value)), CASE WHEN 1 THEN REPEAT('a', start_value) END, NULLIF(REPEAT('a', start_value), 'b') FROM s1",
	"SELECT DISTINCT REPEAT('a', start_value) FROM s1", "SELECT MAX(REPEAT('a', start_value)), MIN(REPEAT(x'61', increment)) FROM s1 GROUP BY cycle_option",
	"SELECT REPEAT('a', start_value) FROM s1 UNION ALL SELECT 'x'", "SELECT REPEAT('a', start_value) FROM s1 UNION SELECT 'x'",
	"SELECT * FROM (SELECT REPEAT('a', start_value) a FROM s1) t", "SELECT * FROM (SELECT REPEAT('a', start_value) a FROM s1 LIMIT 1) t",
	"SELECT REPEAT('a', x) FROM (SELECT 1 AS x UNION ALL SELECT 2) t", "SELECT DISTINCT REPEAT('a', x) FROM (SELECT 1 AS x UNION ALL SELECT 2) t",
	"SELECT REPEAT('a', x) FROM (SELECT 1 AS x UNION ALL SELECT 2) t GROUP BY x",
	"SELECT (SELECT REPEAT('a', start_value) FROM s1), REPEAT('a', (SELECT '2x' FROM s1)), REPEAT('b', (SELECT 2)), REPEAT('c', (SELECT increment FROM s1))",
	"SELECT REPEAT('a', 16382), REPEAT('a', 16383), REPEAT('a', 16384), REPEAT('a', 4194304), REPEAT(x'61', 65531), REPEAT(x'61', 65532), REPEAT(x'61', 65536), REPEAT(x'61', 16777216), REPEAT('ab', -1) LIMIT 0",
	"SELECT CAST('a' AS CHAR(16383)), CAST('a' AS CHAR(20000)), CAST('a' AS CHAR(5000000)), LENGTH(CONCAT(REPEAT('a', 10000), REPEAT('b', 10000)))",
	"SELECT CONCAT(REPEAT('a', 10000), REPEAT('b', 10000)) LIMIT 0",
	"SELECT REPEAT('a', 10000 * 2), REPEAT('a', (SELECT 20000)), REPEAT('a', 16384 - 1), REPEAT('a', -(2) * -8192), REPEAT('a', (SELECT 5 * 4000)), REPEAT('a', ((SELECT '20000'))), REPEAT(x'61', 65535 + 1), REPEAT('a', 2 * 3) LIMIT 0",
	"SELECT REPEAT('ab', 2 * 3), REPEAT('c', (SELECT 2 + 1))",
	"SELECT REPEAT('a', TRUE), REPEAT('b', FALSE), REPEAT('c', 1 = 1), REPEAT('d', 2 > 3), REPEAT('e', start_value > 1) FROM s1",
	"SELECT REPEAT('a', '20000'), REPEAT('a', 20000.4), REPEAT('a', 16383.5), REPEAT('a', ' 16384x'), REPEAT('a', '-5'), REPEAT('a', 'abc'), REPEAT('a', 2.5), REPEAT('a', -20000), REPEAT('a', '4194304'), REPEAT('a', -(16384)) LIMIT 0",
	"SELECT 1 UNION ALL SELECT 2 LIMIT 1", "SELECT 1/3 UNION ALL SELECT 'a' LIMIT 2", "SELECT REPEAT('a', 16384) UNION ALL SELECT 'b' LIMIT 0",
	"SELECT 1 UNION ALL SELECT 2.5 LIMIT 1 OFFSET 1", "SELECT start_value FROM s1 UNION ALL SELECT 2 LIMIT 1",
	"SELECT (SELECT 1 UNION ALL SELECT 2 LIMIT 1), 3 UNION ALL SELECT 4, 5 LIMIT 1", "(SELECT 1 UNION ALL SELECT 2 LIMIT 1) UNION ALL SELECT 3",
	"SELECT GREATEST(1/3, 0.1) UNION SELECT 'a'",
	"SELECT LEAST(1/3, 0.5) UNION SELECT 'a'",
	"SELECT SUM(1/3) UNION SELECT 'a'",
	"SELECT GREATEST(1/3, 2/3), LEAST(1/3, 2/3), GREATEST(1/3, 1), GREATEST(1/3, 0.12345678901), NULLIF(1/3, 0), NULLIF(1/3, 1/3) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd', 'e', 'f'",
	"SELECT SUM(1/3), AVG(1/3), MAX(1/3), MIN(2/3), AVG(1), AVG(1.5) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd', 'e', 'f'",
	"SELECT SUM(x/3), AVG(x), MAX(x/7), AVG(x/3) FROM (SELECT 1 AS x UNION ALL SELECT 2) t UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd'",
	"SELECT NULLIF(1/3, 0.3333), GREATEST(1/3, 0.3333), LEAST(1/3, 0.3333), GREATEST(0.3333, 1/3), NULLIF(1/3, 0.333333333), NULLIF(1/3, 0.33333) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd', 'e', 'f'",
	"SELECT NULLIF(start_value/3, 0.3333), NULLIF(start_value/3, 0.333333333), NULLIF(0.3333, start_value/3) FROM s1 UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c'",
	"SELECT NULLIF(1/3, 1/3 + 0), NULLIF(2/3, 0.6667), NULLIF(2/3, 0.6666) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c'",
	"SELECT GREATEST(0.5, 1/2), GREATEST(1/2, 0.5), LEAST(1/3, NULL), GREATEST(NULL, 1/3) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd'",
	"SELECT GREATEST(1/3, 2/3, 1/7), LEAST(1/3, 2/3, 1/7), GREATEST(-(1/3), 0) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c'",
	"SELECT GREATEST(1/3, 0.1), SUM(1/3) UNION ALL SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT GREATEST(1/3, 0.1), SUM(1/3) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT IF(1, SUM(1/3), 0), IFNULL(AVG(1), 0), (SELECT AVG(1)), (SELECT MAX(2/3)), -AVG(1), AVG(1) * 2 UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd', 'e', 'f'",
	"SELECT (SELECT SUM(1/3)), (SELECT GREATEST(1/3, 0.1)), (SELECT NULLIF(1/3, 0)), (SELECT AVG(1)), (SELECT MAX(2/3)) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd', 'e'",
	"SELECT IF(1, AVG(1), 0), CASE WHEN 1 THEN MAX(2/3) END, COALESCE(SUM(1/3)), ABS(SUM(1/3)) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd'",
	"SELECT AVG(x) FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 2) t UNION SELECT 'abcdefghijklmnopqrstuvwxyz'",
	"SELECT SUM(DISTINCT x/3), AVG(DISTINCT x/3), MAX(DISTINCT x/3), AVG(DISTINCT x), MIN(DISTINCT x/7) FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 2) t UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd', 'e'",
	"SELECT SUM(DISTINCT 1/3), AVG(DISTINCT 1), AVG(DISTINCT 1/3) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c'",
	"SELECT 1/3, SUM(1) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT 1/3, COUNT(*) UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT 1/3, COUNT(*) FROM s1 UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT 1/3, SUM(1) FROM s1 UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT 1/3, SUM(start_value) FROM s1 UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT 1/3, MAX(x) FROM (SELECT 1 AS x UNION ALL SELECT 2) t UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT GREATEST(1/3, 0.1), COUNT(*) FROM s1 UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT 1/3, MAX(1/3) FROM (SELECT 1 AS x UNION ALL SELECT 2) t GROUP BY x UNION ALL SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT SUM(x/3), AVG(x), MIN(x/3), x/3 FROM (SELECT 1 AS x UNION ALL SELECT 2) t GROUP BY x UNION ALL SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c', 'd'",
	"SELECT DISTINCT x/3, 1/3 FROM (SELECT 1 AS x UNION ALL SELECT 2) t UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b'",
	"SELECT NULLIF(1/3, 0.3333), NULLIF(2/3, 0.6667), NULLIF(start_value/3, 0.3333), NULLIF(0.3333, 1/3), NULLIF(1/3, 0.333333333), NULLIF(1/3, 0) * 3 FROM s1",
	"SELECT GREATEST(1/3, 0.3333) = 0.3333, LEAST(2/3, 1) = 0.6667, NULLIF(1/3, 0) = 0.3333",
	"SELECT GREATEST(1/3, 0) * 3, NULLIF(1/3, 0) * 3, LEAST(2/3, 1) + 0, GREATEST(1/3, 0.5), CONCAT(GREATEST(1/3, 0.1)), GREATEST(1/3, 0.1) IN (0.3333)",
	"SELECT IFNULL(cache_size, 'x'), COALESCE(cache_size, 'x'), IF(1, cache_size, 'x'), CASE WHEN 1 THEN cache_size ELSE 'x' END, IFNULL(NULL, 3) + IFNULL(cache_size, 'a') FROM s2",
	"SELECT IFNULL(start_value/3, 'x'), IF(0, start_value, 'x'), IF(1, (SELECT start_value FROM s1), 'x'), IFNULL(1 = 1, 'x'), IF(1, 1 < 2, 3), COALESCE(increment, cycle_option, 'z') FROM s1",
	"SELECT IFNULL(table_name, 1), COALESCE(table_name, 1.5), IF(1, table_name, 2) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	"SELECT TRUE + 1, FALSE - 1, (1 = 1) + 1, TRUE * 2.5, -TRUE, -(1 < 2), TRUE / 2, TRUE DIV 1, 5 MOD TRUE, CONCAT(TRUE), CONCAT(1 = 1, 'x', FALSE)",
	"SELECT cycle_option + TRUE, (start_value > 1) + start_value, (start_value IN (5, 6)) * 10, -(start_value IS NULL), CONCAT(start_value = 5) FROM s1",
	"SELECT SUM(TRUE), SUM(start_value > 1), AVG(1 = 1), MAX(1 < 2), MIN(start_value IS NULL) FROM s1",
	"SELECT GREATEST(start_value / 3, 1), LEAST(start_value * 2, increment + 1), GREATEST(-start_value, cycle_option), LEAST(cache_size, '20') FROM s1",
	"SELECT CONCAT_WS('-', 'a', cache_size, 2), CONCAT_WS(',', NULL, 'a'), CONCAT_WS('-', 1, 2), CONCAT_WS(NULL, 'a'), CONCAT_WS('', 'a', 'b'), CONCAT_WS(',', NULL, NULL) FROM s2",
	"SELECT CONCAT_WS(',', 1/3, 1.50, 1e0, TRUE, x'41'), CONCAT_WS(1, 2, 3), CONCAT_WS(x'2c', 'a', 'b'), CONCAT_WS(',', start_value, start_value / 7, start_value > 1, NULL) FROM s1",
	"SELECT concat_ws('a')", "SELECT CONCAT_WS(',', 'a'), CONCAT_WS(',', CONCAT_WS('-', 'a', 'b'), 'c') UNION SELECT 'x', 'y'",
	"SELECT REPLACE(cache_size, 0, 9), REPLACE(123, '2', 'x'), UPPER(start_value), LOWER(1.5), UPPER(1 = 1), LOWER(start_value / 3), TRIM(start_value), TRIM(1e0), UCASE(7), LCASE(cycle_option) FROM s1",
	"SELECT LENGTH(start_value), CHAR_LENGTH(cache_size), LENGTH(1.50), LOCATE(5, start_value), LOCATE('5', 15), POSITION(1 IN 213), LENGTH(TRUE), LENGTH(1/3) FROM s1",
	"SELECT ELT(1, 'a', 'b'), ELT(0, 'a'), ELT(3, 'a', 'b'), ELT(NULL, 'a'), ELT(1.5, 'a', 'b'), ELT(2, 'a', 5), ELT(1, NULL, 'b'), ELT(TRUE, 'a'), ELT(-1, 'a')",
	"SELECT ELT(cycle_option + 1, 'a', 'b'), ELT(start_value - 3, start_value, cache_size / 3, 'z'), ELT(1, 1e0, 2), ELT(1 = 1, x'41'), ELT(2, 1, 2), ELT(1, NULL), ELT(1, NULL, 'a') FROM s1",
	"SELECT ELT(1)",
	"SELECT FIELD('b', 'a', 'b'), FIELD(5, 1, 5), FIELD('5', 1, 5), FIELD('B', 'a', 'b'), FIELD(NULL, 'a', NULL), FIELD('x', 'y'), FIELD(1.5, '1.5', 2), FIELD(2, 1e0, 2.0), FIELD('é', 'e'), FIELD('a ', 'a')",
	"SELECT FIELD(table_name, 'S2', 'S1'), FIELD(table_name, x'7331'), FIELD(x'7331', 'S1', table_name) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	"SELECT FIELD('a')",
	"SELECT start_value IN (TRUE, 5), TRUE IN (1, 2), (1 = 1) BETWEEN 0 AND 2, CASE TRUE WHEN 1 THEN 'y' END, CASE 1 WHEN start_value > 1 THEN 'z' END, (1 = 1) = 1, (start_value > 1) = 1, start_value = TRUE FROM s1",
	"SELECT GREATEST(TRUE, 2), LEAST(1 = 1, 0), GREATEST(start_value > 1, 0.5), NULLIF(1 = 1, 1), ABS(TRUE), ROUND(1 = 1) FROM s1",
	"SELECT 1 = 1 UNION SELECT 'x'", "SELECT 'x' UNION ALL SELECT start_value > 1 FROM s1 UNION ALL SELECT TRUE UNION ALL SELECT NOT 1",
	"SELECT REPEAT(1 = 1, 3), REPEAT(TRUE, 2), LOWER(2 > 1) FROM s1",
	"SELECT COALESCE(NULL, cache_size), IFNULL(NULL, cache_size), IF(0, NULL, cache_size), IF(1, cycle_option, NULL), COALESCE(cache_size, NULL), CASE WHEN 1 THEN cache_size END FROM s1",
	"SELECT COALESCE(NULL, CAST(1 AS UNSIGNED)), IF(1, NULL, 18446744073709551615), COALESCE(NULL, 1), IFNULL(cycle_option, NULL) FROM s1",
	"SELECT IF(0, 'a', start_value / 3) FROM s1 UNION SELECT 'b'", "SELECT IFNULL(cache_size, 'x') AS c, COUNT(*) FROM s1 GROUP BY c ORDER BY c",
	"SELECT DISTINCT IF(1, start_value, 'z') FROM s1", "SELECT CONCAT_WS('-', start_value / 3, 'a'), ELT(1, start_value / 3) FROM s1 UNION SELECT 'b', 'c'",
	"SELECT GREATEST(ABS(start_value), 1), LEAST(UPPER('a'), 'b'), GREATEST(LENGTH(start_value), 0), LEAST(ROUND(start_value / 3, 1), 2) FROM s1",
	"SELECT GREATEST(LENGTH(table_name), 1), LEAST(LOWER(table_name), 'S2') FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	// 0x41, b'1000001' and 0b1000001 read as numbers: their bytes' unsigned integer.
	"SELECT 0x31*2, CAST(0x41 AS UNSIGNED), 0x41+0, 0x41 = 65, CONCAT(0x41), -0x41, 0x41 DIV 1, 0x41 MOD 7, 0x41/1",
	"SELECT b'0101'+0, 0b0101*2, B'0101' = 5, CONCAT(b'01000010'), 0x4142434445464748494a+0, CAST(0x41 AS SIGNED), CAST(0x41 AS DECIMAL), CAST(0x41 AS DOUBLE)",
	"SELECT 0x41 IN (65, 66), 65 IN (0x41, 1), 0x41 = 'A', 0x41 < 100, (0x41) + 1", "SELECT 0x41 <=> 65", "SELECT SUM(0x41), AVG(b'11')",
	"SELECT start_value = 0x05, 0x05 + start_value, start_value IN (0x05, 7) FROM s1",
	"SELECT HEX(0x41), HEX(x'4142'), HEX(b'01000001'), HEX(65), HEX('A'), HEX(-1), HEX(1.5), HEX(2.5e0), HEX(-1.5), HEX(NULL), HEX('é'), HEX('')",
	"SELECT HEX(18446744073709551615), HEX(-9223372036854775808), HEX(2.4999), HEX((0x41)), HEX(0b0)", "SELECT HEX()", "SELECT HEX(1, 2)",
	"SELECT MAX(0x41), MIN(b'01000010'), COUNT(0x41), 0x41 LIKE 'A', CAST(0x41 AS CHAR)", "SELECT 0x41 = start_value, 0x35 = cycle_option FROM s1",
	// LEFT, RIGHT, SUBSTRING (SUBSTR, MID, FROM ... FOR), LPAD, RPAD,
	// REVERSE, LTRIM, RTRIM, TRIM of a string, FLOOR, CEIL and ROUND of
	// each kind of number, as MariaDB 10.11 answers them.
	"SELECT LEFT('abc', 2), RIGHT('abc', -1), SUBSTRING('abcdef', 2), SUBSTRING('abcdef' FROM -3 FOR 2), MID('abc', 2, 1), SUBSTR('abc', 0), MID('abc', 2), SUBSTR('abc' FROM 2)",
	"SELECT LEFT('abc', 18446744073709551615), LEFT('abc', 9223372036854775808), LEFT('abc', 1.5), LEFT('abc', 1.5e0), LEFT('abc', 2.5e0), LEFT('abc', -0.5), LEFT('abc', 1e30), LEFT('abc', -1e30)",
	"SELECT LEFT('abc', NULL), LEFT(NULL, 1), RIGHT('abc', 0), RIGHT('abc', 5), LEFT(12345, 2), RIGHT(1.50, 2), LEFT('abc', TRUE), LEFT('abc', ' 2'), LEFT('abc', '-5'), LEFT('abc', '9223372036854775808')",
	"SELECT SUBSTRING('abcdef', -2), SUBSTRING('abcdef', -7), SUBSTRING('abcdef', 0, 2), SUBSTRING('abcdef', 2, -1), SUBSTRING('abcdef', 2, 0), SUBSTRING('abcdef', 5, 99), SUBSTRING('abcdef', NULL), SUBSTRING('abcdef', 2, NULL)",
	"SELECT SUBSTRING('añbc', 2, 2), SUBSTRING(12345, 2, 3), SUBSTRING('abc', 18446744073709551615), SUBSTRING('abc', 1, 18446744073709551615), SUBSTR(NULL, 1), MID('añb', -2, 1)",
	"SELECT LPAD('abc', 5, 'xy'), LPAD('abc', 2, 'x'), LPAD('abc', 0, 'x'), LPAD('abc', -1, 'x'), LPAD('abc', 3, ''), LPAD('abc', 5, ''), LPAD('abc', NULL, 'x'), LPAD('abc', 5, NULL), LPAD(NULL, 5, 'x')",
	"SELECT RPAD('añ', 4, 'ü'), LPAD(7, 3, 0), RPAD(1.5, 6, 0), LPAD('a', 4), RPAD('a', 3), LPAD('abc', 2), RPAD('abcdef', 3, 'x'), LPAD('a', 70000, 'x') IS NULL",
	"SELECT REVERSE('añb'), REVERSE(123), REVERSE(NULL), LTRIM('  a '), RTRIM(' a  '), LTRIM(NULL), RTRIM(5), LTRIM(1.50)",
	"SELECT TRIM('x' FROM 'xxaxx'), TRIM(LEADING 'xy' FROM 'xyxyaxy'), TRIM(TRAILING FROM ' a  '), TRIM(BOTH 'a' FROM 'aaba'), TRIM(LEADING 'x' FROM NULL), TRIM(NULL FROM 'a'), TRIM('' FROM 'a'), TRIM(1 FROM 1121)",
	"SELECT LPAD(NEXT VALUE FOR s1, 8, '0'), RIGHT(start_value, 2), LPAD(start_value, 4, 0), CONCAT('INV-', LPAD(NEXTVAL(s2), 6, '0')), SUBSTRING(cache_size, 1, 1), MID(start_value, 1, 5) FROM s1",
	"SELECT LPAD(start_value, 30, 'ab'), RPAD(NULL, 2, NULL), LPAD('a', start_value, '0'), RPAD('abc', cache_size, 'x'), SUBSTRING('abcdef', start_value - 3), LEFT('abc', (SELECT 2)) FROM s1",
	"SELECT FLOOR(start_value), CEIL(cache_size), FLOOR(start_value / 3), CEILING(1.5), FLOOR(-1.5), FLOOR(12345678901.5), FLOOR(123456789012345678901.5), FLOOR(123456789.5), FLOOR(-12345678.5), CEIL(99999999.5) FROM s1",
	"SELECT FLOOR(1.5e0), FLOOR(NULL), FLOOR(TRUE), FLOOR(1e20), CEIL(-0.5), FLOOR(-0.5e0), FLOOR(cache_size / 3), CEIL(cache_size + 0.5), FLOOR(cache_size * 1.5) FROM s1",
	"SELECT ROUND(start_value, 1), ROUND(2.55, 1), ROUND(start_value / 3, 2), ROUND(2.5e0), ROUND(3.5e0), ROUND(-2.5), ROUND(-2.5e0), ROUND(2.5), ROUND(0.5e0) FROM s1",
	"SELECT ROUND(start_value, -1), ROUND(5, -1), ROUND(cache_size, -2), ROUND(start_value, 0), ROUND(12345, -1), ROUND(1.5, -1), ROUND(NULL, 1), ROUND(1.5, NULL), ROUND(5, NULL) FROM s1",
	"SELECT ROUND(1.55e0, 1), ROUND(5, 40), ROUND(2.5, 40), ROUND(1.5e0, 40), ROUND(5, 1.5), GREATEST(ROUND(start_value, -1), FLOOR(1.5)) FROM s1",
	"SELECT LEFT(x'41', 1), RIGHT(x'4142', 1), REVERSE(x'4142'), LPAD(x'41', 3, x'42'), SUBSTRING(x'414243', 2), LTRIM(x'2041'), TRIM(x'41' FROM x'414241')",
	"SELECT ROUND(1.5, start_value), ROUND(2.5e0, start_value), ROUND(start_value, cycle_option), ROUND('2.5', start_value), ROUND(1.55, cycle_option), ROUND(NULL, start_value) FROM s1",
	"SELECT FLOOR(start_value) FROM s1 UNION SELECT ROUND(2.5)",
	"SELECT FLOOR(1.5) UNION SELECT CEIL(2.5e0)",
	"SELECT LEFT(start_value, 1) AS a, FLOOR(start_value / 2) AS b, COUNT(*) FROM s1 GROUP BY a, b",
	"SELECT DISTINCT LPAD(start_value, 3, '0'), ROUND(start_value, -1), CEIL(start_value / 3) FROM s1",
	"SELECT start_value FROM s1 WHERE LEFT(start_value, 1) = '5' AND ROUND(start_value / 3, 1) > 1 ORDER BY LPAD(start_value, 3, '0')",
	"SELECT MAX(LEFT(start_value, 1)), MIN(FLOOR(start_value / 2)), SUM(ROUND(start_value, -1)), AVG(CEIL(1.5)) FROM s1",
	"SELECT LPAD('a', (SELECT start_value FROM s1), '-'), RPAD('a', (SELECT 3), '-'), ROUND(1.234, (SELECT 2))",
	"SELECT ROUND(start_value), ROUND(1.5), ROUND(-1.5), ROUND(1e0), ROUND(NULL), ROUND(TRUE), FLOOR(start_value > 1) FROM s1",
	"SELECT x, LEFT(x, 2), FLOOR(y) FROM (SELECT 'abc' AS x, 2.5 AS y UNION ALL SELECT 'de', -1.5) t",
	"SELECT LEFT(CONCAT('a', start_value), 2), SUBSTRING(CONCAT_WS('-', 'x', start_value), 3), REVERSE(LPAD(start_value, 3, 0)), FLOOR(LENGTH('abc') / 2) FROM s1",
	"SELECT IF(1, LEFT('ab', 1), 2), COALESCE(LPAD(NULL, 2, 'x'), 'z'), IFNULL(ROUND(NULL, 1), 5), CASE WHEN 1 THEN FLOOR(2.5) ELSE 1.5 END",
	"SELECT LEFT('abc', 2) = 'AB', LPAD('a', 3, 'x') LIKE 'xx%', FLOOR(2.5) IN (2, 3), ROUND('2.5') BETWEEN 1 AND 3",
	"SELECT TRIM(LEADING '0' FROM LPAD(start_value, 6, '0')), RIGHT(CONCAT('000000', NEXTVAL(s2)), 6) FROM s1",
	"SELECT SUBSTRING('abc', 1.5e0), SUBSTRING('abcdef', -9223372036854775808), SUBSTRING('abcdef', 2147483648), SUBSTRING('abcdef', -2147483648), SUBSTRING('abcdef', 1, 2147483648), SUBSTRING('abc', 2, 9223372036854775807)",
	"SELECT FLOOR(-9223372036854775808), CEIL(18446744073709551615), FLOOR(18446744073709551615.5), ROUND(18446744073709551615, -1), FLOOR(-0.0), CEIL(1e308)",
	// A hexadecimal or bit literal: 0x41 a number where a count or a
	// number is read, a string where a string is (a binary one, whose
	// character set the result takes).
	"SELECT LEFT('abc', 0x2), RIGHT('abc', b'10'), SUBSTRING('abcdef', 0x2, 0x3), LPAD('a', 0x3, 'x'), ROUND(1.2345, 0x2), MID('abc', x'32')",
	"SELECT LEFT(0x4142, 1), LPAD(0x41, 3, 0x42), REVERSE(0x4142), LTRIM(0x2041), RPAD('a', 3, b'1000010'), REPLACE('abc', 'b', x'43'), LPAD('a', 3, NULL), TRIM(x'44' FROM 'DbD')",
	"SELECT FLOOR(0x41), CEIL(b'101'), ROUND(0x41), ROUND(0x41, 1)",
	"SELECT ROUND(x'32'), ROUND(x'32', start_value), ROUND(b'1', 1), ROUND('2', 1), ROUND(CONCAT(x'32'), 1) FROM s1",
	// LEFT and RIGHT of another number of arguments: MariaDB's grammar's
	// 1064, near the text where its parser stops.
	"SELECT LEFT('abc')", "SELECT RIGHT('a', 1, 2, 3) FROM dual", "SELECT 1,\n LEFT('a' ) + 1", "SELECT LEFT()", "SELECT LEFT('a', (1), 'x,y')",
	"SELECT LEFT('a)' /* ) */ ) + 1 FROM dual WHERE 1 = 1 AND 2 = 2 AND 3 = 3 AND 4 = 4 AND 5 = 5 AND 6 = 6 AND 7 = 7",
	"SELECT RIGHT(LEFT('a'), 1)", "SELECT start_value FROM s1 WHERE RIGHT(start_value) = 1", "SELECT left ( 5 ,6,7)",
	"SELECT NEXT VALUE FOR s1, LEFT(NEXT VALUE FOR s1)",
	"SELECT LPAD('a')", "SELECT SUBSTRING('a')", "SELECT REVERSE('a', 'b')", "SELECT FLOOR(1, 2)", "SELECT ROUND(1, 2, 3)", "SELECT LTRIM()",
	// ANY, SOME and ALL of a subquery with each operator: three-valued
	// over NULLs, an empty subquery (ALL true, ANY false, whatever the
	// operand), strings by the collation, a string and a number as
	// numbers (1292), over a sequence's rows; 1241 for two columns.
	"SELECT 1 > ANY (SELECT 0), 1 < ALL (SELECT 2 UNION SELECT 3), 1 <> ALL (SELECT 1), 1 != ANY (SELECT 1 UNION SELECT 2), 2 >= SOME (SELECT 2), 2 <= ALL (SELECT 1)",
	"SELECT 1 > ALL (SELECT NULL), 1 > ANY (SELECT NULL UNION SELECT 0), 1 > ALL (SELECT NULL UNION SELECT 0), 1 < ALL (SELECT NULL UNION SELECT 0)",
	"SELECT 2 > ALL (SELECT 1 UNION SELECT NULL), 0 > ALL (SELECT 1 UNION SELECT NULL), 2 > ANY (SELECT NULL UNION SELECT 3), 2 < ANY (SELECT NULL UNION SELECT 3)",
	"SELECT 1 <> ALL (SELECT NULL), 1 = ALL (SELECT NULL), 1 <> ANY (SELECT NULL), 1 < ALL (SELECT NULL UNION ALL SELECT NULL), 1 > ANY (SELECT 1/0)",
	"SELECT 1 > ALL (SELECT 1 FROM s1 WHERE 0), 1 > ANY (SELECT 1 FROM s1 WHERE 0), NULL > ALL (SELECT 1 FROM s1 WHERE 0), NULL < ANY (SELECT 1 FROM s1 WHERE 0), NULL = ALL (SELECT 1 FROM s1 WHERE 0), NULL > ANY (SELECT 1)",
	"SELECT 1 = ALL (SELECT 1 UNION SELECT 1), 1 = ALL (SELECT 1 UNION SELECT 2), 1 = ALL (SELECT 1 UNION SELECT NULL), 1 = ALL (SELECT NULL FROM s1), 1 > ALL (SELECT NULL FROM s1)",
	"SELECT 'a' < ANY (SELECT 'B'), 'a' = ALL (SELECT 'A'), 'b' >= ALL (SELECT 'A' UNION SELECT 'B'), 'a' <> ANY (SELECT 'A'), 'ß' <= ANY (SELECT 's'), 'a ' = ALL (SELECT 'A')",
	"SELECT 'b' > ALL (SELECT 'A' UNION SELECT 'a'), 'a' > ANY (SELECT 'B' FROM s1), 'B' <= ALL (SELECT 'b' FROM s1 UNION SELECT 'C'), x'61' < ALL (SELECT 'B')",
	"SELECT 5 > ANY (SELECT '4x')", "SELECT '6y' > ALL (SELECT start_value FROM s1)", "SELECT 1.5 < SOME (SELECT '2z')", "SELECT 1e0 <> ALL (SELECT '1a')",
	"SELECT next_not_cached_value > ALL (SELECT start_value FROM s2) FROM s1", "SELECT next_not_cached_value <= ANY (SELECT start_value FROM s3) FROM s1",
	"SELECT start_value > ALL (SELECT 1 FROM s1 WHERE 0), start_value < ANY (SELECT NULL FROM s1), start_value > ALL (SELECT NULL) FROM s1",
	"SELECT start_value >= ALL (SELECT start_value FROM s1), start_value <> ANY (SELECT 1 UNION SELECT start_value), 1 > ALL (SELECT MAX(start_value) FROM s1) FROM s1",
	"SELECT x > ALL (SELECT start_value FROM s1), x < ANY (SELECT start_value FROM s1 UNION SELECT 20) FROM (SELECT 1 AS x UNION ALL SELECT 10 UNION ALL SELECT NULL) t",
	"SELECT start_value FROM s1 WHERE start_value < ALL (SELECT start_value FROM s3)",
	"SELECT 1 > ANY (SELECT 1, 2)", "SELECT 1 IN (SELECT 1, 2)", "SELECT (SELECT 1, 2)", "SELECT 1 = ALL (SELECT start_value, increment FROM s1)",
	"SELECT 1 IN (SELECT * FROM s1)", "SELECT 1 > ALL (SELECT * FROM s1)", "SELECT (SELECT * FROM s1)", "SELECT 1 = ANY (SELECT * FROM (SELECT 1) t)",
	// Column references that name no column, or several: 1054 and 1052
	// in MariaDB's words, naming the reference as written and its clause.
	"SELECT nope FROM s1", "SELECT s.nope FROM s1 s", "SELECT nope", "SELECT COUNT(nope) FROM s1", "SELECT x.start_value FROM s1",
	"SELECT start_value FROM s1 WHERE nope = 1", "SELECT start_value FROM s1 s WHERE s.nope = 1", "SELECT 1 WHERE nope = 1",
	"SELECT start_value FROM s1 ORDER BY nope", "SELECT 1 ORDER BY nope", "SELECT start_value FROM s1 ORDER BY 2",
	"SELECT start_value FROM s1 GROUP BY nope", "SELECT start_value FROM s1 GROUP BY 2",
	"SELECT start_value FROM s1 GROUP BY start_value HAVING nope > 1",
	"SELECT a.start_value FROM s1 a JOIN s2 b ON a.nope = b.start_value", "SELECT 1 FROM s1 a JOIN s2 b USING (start_value, nope)",
	"SELECT (SELECT nope FROM s1)", "SELECT start_value FROM s1 WHERE start_value IN (SELECT nope FROM s2)",
	"SELECT 1 FROM s1 WHERE EXISTS (SELECT 1 FROM s2 WHERE nope = 1)", "SELECT (SELECT 1 FROM s2 ORDER BY nope)",
	"SELECT t.nope FROM (SELECT 1 AS x) t", "SELECT x FROM (SELECT nope FROM s1) t", "SELECT other.s1.start_value FROM s1",
	"SELECT start_value FROM s1 UNION SELECT start_value FROM s2 ORDER BY nope", "SELECT start_value FROM s1 UNION SELECT nope FROM s2",
	"SELECT start_value FROM s1 UNION SELECT start_value FROM s2 ORDER BY 2",
	"SELECT start_value FROM s1, s2", "SELECT 1 FROM s1 a, s2 b WHERE start_value = 1", "SELECT 1 FROM s1 a, s2 b ORDER BY start_value",
	"SELECT 1 FROM s1 a, s2 b GROUP BY start_value", "SELECT 1 FROM s1 a JOIN s2 b ON start_value = 1",
	"SELECT 1 FROM s1 a JOIN s2 b ON 1 JOIN s1 c USING (start_value)", "SELECT a.start_value AS x FROM s1 a JOIN s1 b ON 1 ORDER BY start_value",
	// Calls of functions that are not there (1305, named as written in
	// the current database or the one written) or not with that many
	// arguments (1582).
	"SELECT nofunc(1)", "SELECT NoFunc(start_value) FROM s1", "SELECT 1 FROM s1 WHERE nofunc(start_value) = 1", "SELECT nodb.nofunc(1)",
	"SELECT test.f(1)", "SELECT pg_sleep(0)", "SELECT ABS(1, 2)", "SELECT abs(1, 2)", "SELECT LENGTH()", "SELECT Length(1, 2)", "SELECT upper()",
	"SELECT ROUND(1, 2, 3)",
	// An alias twice (1066), an aggregate where none may be (1111), a
	// column HAVING may not read (1054), a subquery of two columns as a
	// value (1241).
	"SELECT 1 FROM s1 a, s1 a", "SELECT 1 FROM s1, s1", "SELECT 1 FROM s1 a JOIN s2 a ON 1",
	"SELECT SUM(start_value) FROM s1 WHERE SUM(start_value) > 1", "SELECT SUM(SUM(start_value)) FROM s1",
	"SELECT start_value FROM s1 GROUP BY SUM(start_value)", "SELECT 1 FROM s1 a JOIN s2 b ON SUM(a.start_value) = 1",
	"SELECT COUNT(*) FROM s1 HAVING SUM(COUNT(*)) > 0", "SELECT start_value FROM s1 GROUP BY increment HAVING cache_size > 0",
	"SELECT (SELECT 1, 2)", "SELECT 1 IN (SELECT 1, 2)", "SELECT 1 FROM s1 WHERE start_value IN (SELECT start_value, increment FROM s2)",
	"SELECT 1 = ANY (SELECT 1, 2)", "SELECT EXISTS (SELECT 1, 2)", "SELECT (SELECT start_value FROM s2 UNION ALL SELECT start_value FROM s2)",
	// A qualifier in a query of no tables (1109), DO's list, SHOW's and
	// information_schema's columns, a column under functions, IN,
	// BETWEEN, DISTINCT, GROUP_CONCAT's ORDER BY.
	"SELECT s.nope", "SELECT 1 WHERE s.nope = 1", "SELECT 1 ORDER BY s.nope", "SELECT db.s.nope", "SELECT (SELECT s.nope)",
	"DO nope", "DO 1, s.nope", "DO NEXTVAL(s1), nope", "DO nofunc(1)",
	"SHOW COLUMNS FROM s1 WHERE nope = 1", "SHOW TABLE STATUS WHERE nope = 1", "SHOW FUNCTION STATUS WHERE nope = 1",
	"SELECT nope FROM information_schema.tables", "SELECT table_name FROM information_schema.tables WHERE nope = 1",
	"SELECT start_value FROM s1 s1a WHERE s1.start_value = 1", "SELECT DISTINCT nope FROM s1", "SELECT GROUP_CONCAT(start_value ORDER BY nope) FROM s1",
	"SELECT CAST(nope AS SIGNED) FROM s1", "SELECT start_value FROM s1 WHERE start_value IN (1, nope)", "SELECT start_value FROM s1 WHERE start_value BETWEEN nope AND 2",
	"SELECT start_value AS x FROM s1 GROUP BY x HAVING nope2 > 0", "SELECT * FROM (SELECT 1 AS a) t JOIN s1 USING (a)", "SELECT 1 FROM s1 ORDER BY SUM(nope)",
	// Set operations of sides of different widths (1222), a derived
	// table of a column name twice (1060), the session's functions and
	// LOCATE with a wrong number of arguments (1582).
	"SELECT 1 UNION SELECT 1, 2", "SELECT 1, 2 UNION ALL SELECT 1", "SELECT 1 INTERSECT SELECT 1, 2", "SELECT 1 EXCEPT SELECT 1, 2",
	"SELECT (SELECT 1 UNION SELECT 1, 2)", "SELECT * FROM (SELECT 1, 1) t", "SELECT * FROM (SELECT 1 AS a, 2 AS A) t",
	"SELECT * FROM (SELECT start_value, start_value FROM s1) t", "SELECT * FROM (SELECT 1 AS a, 1 AS a UNION SELECT 1, 1) t",
	"SELECT * FROM (SELECT s.start_value, t.start_value FROM s1 s, s2 t) x", "SELECT * FROM (SELECT 1 AS a, 2 AS b UNION SELECT 1, 1) t",
	"SELECT DATABASE(1)", "SELECT CONNECTION_ID(1)", "SELECT VERSION(1)", "SELECT LOCATE('a')", "SELECT LOCATE(1, 2, 3, 4)",
	"SELECT COUNT(*) FROM s1 GROUP BY 0", "SELECT ABS()", "SELECT NULLIF(1)", "SELECT IFNULL(1, 2, 3)", "SELECT LENGTH(start_value, 1) FROM s1",
	// Names as written, in any case; GROUP BY an aggregate's name (1056).
	"SELECT Nope FROM s1", "SELECT s1.NoPe FROM s1", "SELECT 1 FROM s1 WHERE NOPE = 1", "SELECT START_VALUE FROM s1 a, s2 b", "DO Nope",
	"SELECT start_value FROM s1 GROUP BY increment HAVING Cache_Size > 0", "SELECT S1.start_value FROM s1",
	"SELECT COUNT(*) AS c FROM s1 GROUP BY c", "SELECT SUM(start_value) AS X FROM s1 GROUP BY X",
	// t.* of a table the FROM clause has not (1051).
	"SELECT x.* FROM s1", "SELECT X.* FROM s1", "SELECT s1.* FROM s1 a", "SELECT q.* FROM (SELECT 1) t", "SELECT nodb.x.* FROM s1",
	// NULL in some queries of a set operation takes the others' number type.
	"SELECT NULL UNION SELECT NULL UNION SELECT 1", "SELECT NULL UNION ALL SELECT NULL UNION ALL SELECT 1.5",
	"(SELECT NULL UNION SELECT NULL) UNION SELECT 2e0", "SELECT NULL UNION SELECT NULL UNION SELECT 'a'", "SELECT IF(1, NULL, NULL) UNION SELECT 2",
	"SELECT a FROM (SELECT NULL a UNION SELECT NULL) t UNION SELECT 2", "SELECT IF(1, a, 2) FROM (SELECT NULL a UNION SELECT NULL) t",
	"SELECT NULL UNION SELECT CAST(1 AS UNSIGNED)", "SELECT CAST(1 AS UNSIGNED) UNION ALL SELECT NULL",
	// ABS of a string reads it as a DOUBLE, as far as it is a number.
	"SELECT ABS('12x'), ABS('-1.5'), ABS(CONCAT('1', '2x')), ABS(NULL), ABS(x'41'), ABS(1 = 1)", "SELECT ABS(start_value), ABS(-2.50), ABS(-1e0) FROM s1",
	// A quotient as text, CAST or LIKE: the digits it shows.
	"SELECT CAST(1/3 AS CHAR), CAST(2/3 AS CHAR(3)), CAST(1/3 AS CHAR(10)), CAST(1/3 + 1 AS CHAR), CAST(-1/3 AS CHAR), CAST(1/3*3 AS CHAR), CAST((SELECT 1/3) AS CHAR)",
	"SELECT 1/3 LIKE '0.3333', 2/3 LIKE '%667', 10/4 LIKE '2.5000', (1=1) LIKE '1', CAST(start_value/3 AS CHAR) FROM s1",
	// A DOUBLE's text as MariaDB writes it: in exponent form from 1e15
	// and past 14 zeros, without a +; 0 unsigned.
	"SELECT 1e-5, 1e20, 1e15, 1e14, 123456789012345678e0, 0.1e0 + 0.2e0, 1/3e0, -1e-300, 2e0, 1.5e16, 1e-4, 12345678901234567e0",
	"SELECT 1.2345678901234567e-10, 1.25e-10, 1.2345678901234567e14, 1e0/3e-300, -1.2345678901234567e-5, -0e0, -1e0 * 0, 1e-15, 1e-16, 1.5e-15, 999e12",
	"SELECT CONCAT(1e20, ''), CAST(1e20 AS CHAR), CONCAT(1.5e16 + 0, ''), LENGTH(1e20), 1e20 LIKE '1e20', CONCAT(-1e0 * 0), CAST(1e-16 AS CHAR(5)), REPLACE(2.5e-20, 'e', 'E')",
	"SELECT IF(1, 1e20, 'a'), COALESCE(NULL, 1.5e16, 'x'), 1e20 UNION SELECT 'a'",
	// BINARY x: a binary string, compared by its bytes.
	"SELECT BINARY 'a', BINARY 'ab' = 'AB', BINARY CONCAT('a', 'é'), BINARY NULL, BINARY x'61'",
	// A * among a set operation's columns that must be cast.
	"SELECT * FROM s1 UNION ALL SELECT 'a', 2, 3, 4, 5, 6, 7, 8", "SELECT 'x', s1.* FROM s1 UNION ALL SELECT 1, 'a', 2, 3, 4, 5, 6, 7, 8",
	"SELECT * FROM s1 UNION SELECT * FROM s1 a UNION SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'z'",
	"SELECT a.*, 'k' FROM s1 a UNION ALL SELECT 1, 2, 3, 4, 5, 6, 7, 8, 9",
	"SELECT * FROM s1 a JOIN s1 b UNION ALL SELECT 'q', 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8",
	"SELECT NULL x UNION SELECT NULL UNION SELECT 1 ORDER BY x DESC", "SELECT NULL UNION SELECT NULL INTERSECT SELECT 1 UNION SELECT 3",
	"SELECT NULL UNION SELECT NULL UNION SELECT CAST(1 AS UNSIGNED)", "SELECT (SELECT NULL) UNION SELECT NULL UNION SELECT 7",
	"SELECT NULL, 'a' UNION SELECT NULL, NULL UNION SELECT start_value, increment FROM s1",
	"SELECT * FROM (SELECT NULL a UNION SELECT NULL UNION SELECT 4) t WHERE a IS NOT NULL",
	// A set operation's ORDER BY naming a table's column (1250).
	"SELECT start_value FROM s1 UNION SELECT start_value FROM s2 ORDER BY s1.start_value",
	"SELECT start_value FROM s1 UNION SELECT start_value FROM s2 ORDER BY x.start_value", "SELECT 1 AS a UNION SELECT 2 ORDER BY t.a",
	// HAVING without GROUP BY or an aggregate filters the rows by the
	// select list's names; GROUP BY, ORDER BY and HAVING naming two of its
	// columns are 1052.
	"SELECT start_value FROM s1 HAVING start_value > 0", "SELECT start_value + 1 AS n FROM s1 HAVING n > 0 ORDER BY n DESC",
	"SELECT start_value FROM s1 HAVING s1.start_value > 0", "SELECT start_value FROM s1 HAVING nope.start_value > 0", "SELECT 1 FROM s1 HAVING start_value > 0",
	"SELECT start_value AS x, increment AS x FROM s1 HAVING x > 0", "SELECT start_value AS x, increment AS x FROM s1 HAVING 1 = 1",
	"SELECT start_value, start_value FROM s1 HAVING start_value > 0", "SELECT 1 AS one HAVING one = 1",
	"SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() HAVING table_name LIKE 's_' ORDER BY table_name",
	"SELECT start_value, increment FROM s1 HAVING start_value > 0 AND increment = 2 ORDER BY increment LIMIT 1",
	"SELECT start_value FROM s1 HAVING start_value IN (SELECT start_value FROM s1)",
	"SELECT increment FROM s1 HAVING increment > 0 ORDER BY start_value", "SELECT increment FROM s1 HAVING increment > 0 ORDER BY s1.start_value DESC, increment",
	"SELECT increment FROM s1 HAVING increment > 0 ORDER BY nope", "SELECT start_value FROM s1 HAVING start_value > 0 ORDER BY s1.start_value",
	"SELECT start_value AS x, increment AS x FROM s1 HAVING 1 = 1 ORDER BY x", "SELECT x FROM s1, (SELECT 3 AS x) t HAVING x > 0 ORDER BY t.x, s1.increment",
	"SELECT start_value x, increment x FROM s1 GROUP BY start_value HAVING x > 0", "SELECT start_value x, increment x FROM s1 GROUP BY start_value HAVING COUNT(x) > 0",
	"SELECT 1 x, 2 x FROM s1 GROUP BY start_value HAVING x > 0", "SELECT start_value x, increment x FROM s1 GROUP BY start_value HAVING start_value > 0",
	"SELECT start_value AS x, increment AS X FROM s1 ORDER BY x", "SELECT start_value AS increment, increment FROM s1 GROUP BY increment",
	"SELECT a.start_value, b.start_value FROM s1 a, s1 b ORDER BY start_value", "SELECT start_value, s1.start_value FROM s1 ORDER BY start_value",
	"SELECT a.start_value, b.start_value FROM s1 a JOIN s1 b USING (start_value) GROUP BY start_value", "SELECT start_value, 1 AS start_value FROM s1 ORDER BY start_value",
	// HAVING's name two items take: the first that is not a column.
	"SELECT 1 AS x, 2 AS x HAVING x = 1", "SELECT start_value AS x, 2 AS x FROM s1 HAVING x = 2 ORDER BY x",
	"SELECT 1 AS x, increment AS x FROM s1 HAVING x > 0", "SELECT start_value AS x, 1 AS x, increment AS x FROM s1 HAVING x = 1",
	"SELECT start_value AS x, increment AS x, 1 AS x FROM s1 HAVING x > 0", "SELECT MAX(start_value) AS x, MIN(increment) AS x FROM s1 HAVING x > 1",
}

// exprWarnings are expressions that raise MariaDB's warnings: a division
// by zero (1365, NULL), a CAST that reads part of a string or cuts it
// (1292, a Note where only spaces are left out), a negative integer cast
// AS UNSIGNED or one past 2^63 - 1 AS SIGNED (a Note, 1105), a string's
// integer past 64 bits (1292), a number out of SIGNED's or UNSIGNED's
// range (1916, a Note for a DOUBLE), a number out of DECIMAL(p,s)'s
// range (1264 naming its column and row, 1916 past 81 digits) or a
// string's out of DOUBLE's (1292), clamped; a string compared with a
// number or in arithmetic or an aggregate's argument (1292), in IN and
// BETWEEN too (a constant string compared with a column once a
// statement, an IN list up to its first match, its operand once for
// each type it is compared in, BETWEEN's once); a REPEAT past
// max_allowed_packet (NULL, 1301), a REPEAT's constant count (a
// subquery of constants too) read once as the statement starts (where
// it has no row too) and once a row; the
// items of a result that ORDER BY sorts or OFFSET skips computed as each
// row is sent (a 1264 names it, a NEXTVAL's values follow it); per
// row, in the order raised, kept by a statement that uses no table and
// raises none (CASE and COALESCE do not read what they do not need, a
// comparison its right side after a NULL left, a constant WHERE of one
// predicate once a statement); a simple CASE of strings and numbers,
// each WHEN compared as IN compares it, up to the first match (1292);
// NULLIF's first argument read again to be returned where it is not
// equal (1365, 1292 twice); a subquery's or function's string in
// arithmetic, negated too (1292, 0 where none); NULLIF of a string and
// a number compared as = compares them, GREATEST and LEAST as DOUBLEs
// (1292); ELT's count, FIELD's strings among numbers (1292); a string
// compared with a subquery, arithmetic, a function's number or a truth;
// SUM and AVG of a string the builder types (a column's, a subquery's);
// a number or a string as a truth value (IF, CASE WHEN, AND, OR, XOR,
// NOT, WHERE): a BIGINT, DECIMAL or DOUBLE true where not 0, a string
// read as a DOUBLE (1292); a number IN or = ANY a subquery of a string
// and a string IN one of a number (1292); a count of LEFT, RIGHT,
// SUBSTRING, LPAD and RPAD and ROUND's digits read as MariaDB's val_int
// reads them (1292, 1916; twice where constant); FLOOR, CEIL and ROUND of
// a string (1292); LPAD and RPAD past max_allowed_packet (1301);
// past max_error_count (64) counted, not kept.
var exprWarnings = []string{
	"SELECT 1/0, 2/0",
	"SELECT 7 MOD 0, 7 DIV 0, 7 % 0, 5 MOD 0.0, 5.5 DIV 0",
	"SELECT NULL/0, 0/NULL, 1.5/0, 1/0.0, NULL DIV 0, NULL MOD 0",
	"SELECT 2 MOD '0', 7 / '0', '7' DIV 0",
	"SELECT IF(0, 1/0, NULL)",
	"SELECT CASE WHEN 1 THEN 'x' ELSE CONCAT(1/0) END, COALESCE('y', CONCAT(2/0))",
	"SELECT 1 WHERE 1/0 IS NULL",
	"SELECT 1/0 FROM s1",
	"SELECT start_value/0, increment DIV 0, cache_size MOD 0 FROM s1",
	"SELECT 1/0 FROM (SELECT 1 UNION ALL SELECT 2) t",
	"SELECT (SELECT 1/0)",
	"SELECT CAST(1 AS DECIMAL(5,2)) / 0, 1 / CAST(0 AS DECIMAL(5,2))",
	"SELECT CAST('abc' AS CHAR(2)), CAST('abcd' AS CHAR(3)), 1/0",
	"SELECT CONVERT('abc', CHAR(1)), CAST(12345 AS CHAR(2)), CAST(1.5 AS CHAR(1)), CAST('é€x' AS CHAR(2)), CAST('ab' AS CHAR(2))",
	"SELECT CAST('12abc' AS SIGNED), CAST('abc' AS SIGNED), CAST('' AS SIGNED), CAST('1.5' AS SIGNED), CAST('1e3' AS SIGNED)",
	"SELECT CAST(' 12' AS SIGNED), CAST('12 ' AS SIGNED), CAST('+7' AS SIGNED), CAST('0x10' AS SIGNED), CONVERT('-3z', SIGNED)",
	"SELECT CAST('12abc' AS UNSIGNED), CAST(-1 AS UNSIGNED), CAST(-5 AS UNSIGNED), CAST('-5' AS UNSIGNED), CAST('-5x' AS UNSIGNED)",
	"SELECT CAST('1.5x' AS DECIMAL(5,2)), CAST('abc' AS DECIMAL), CAST(' 2.5 ' AS DECIMAL(4,1)), CAST('-.5' AS DECIMAL(3,1))",
	"SELECT CAST('x' AS DOUBLE), CAST('1.5e1x' AS DOUBLE), CAST('2e' AS DOUBLE), CAST('x' AS FLOAT)",
	"SELECT CAST('12abc' AS SIGNED) + 1",
	"SELECT CAST(-1 AS UNSIGNED) FROM s1",
	"SELECT 2",
	"SHOW WARNINGS LIMIT 1",
	"SELECT 3 FROM s1",
	"SELECT CAST(start_value AS CHAR(0)), CAST(-start_value AS UNSIGNED) FROM s1",
	"SELECT 1/0, NEXTVAL(nope)",
	"SELECT CAST('9223372036854775808' AS SIGNED), CAST('18446744073709551615' AS SIGNED), CAST('99999999999999999999' AS SIGNED)",
	"SELECT CAST('-99999999999999999999' AS SIGNED), CAST('-9223372036854775809' AS SIGNED), CAST('9223372036854775808x' AS SIGNED)",
	"SELECT CAST('99999999999999999999' AS UNSIGNED), CAST('-99999999999999999999' AS UNSIGNED), CAST('18446744073709551615' AS UNSIGNED)",
	"SELECT CAST(-1.5 AS UNSIGNED), CAST(18446744073709551616 AS UNSIGNED), CAST(1.5 AS UNSIGNED), CAST(2.5 AS SIGNED), CAST(-2.5 AS SIGNED)",
	"SELECT CAST(-1e30 AS SIGNED), CAST(1e30 AS UNSIGNED), CAST(-1e0 AS UNSIGNED), CAST(1.5e0 AS SIGNED), CAST(2.5e0 AS SIGNED), CAST(-2.5e0 AS UNSIGNED)",
	"SELECT CAST(99999999999999999999 AS SIGNED), CAST(-99999999999999999999.5 AS SIGNED), CAST(9223372036854775807.5 AS SIGNED)",
	"SELECT CAST(18446744073709551615 AS SIGNED), CAST(9223372036854775808 AS SIGNED), CAST(9223372036854775807 AS SIGNED)",
	"SELECT 'abc' + 1, '1.5' + 1, '5' * '2', 1 - ' 3x', '12' DIV '5', '7' MOD '2', '1e1' + 0, '7.5' MOD 2",
	"SELECT '6' / '4', '1' / '0', 1e0 / 3, 2.5e0 * 2, -'5', -'abc', '0.1' + '0.2', 10 DIV 4e0",
	"SELECT start_value + '1x', start_value / '2' FROM s1",
	"SELECT CAST(-start_value AS UNSIGNED), CAST(start_value - 7 AS SIGNED), CAST(CONCAT(start_value, 'x') AS SIGNED) FROM s1",
	"SELECT CAST(123.456 AS DECIMAL(4,2)), CAST(-123.456 AS DECIMAL(4,2)) AS x, CONVERT('123.456', DECIMAL(4,2)), CAST(12345 AS DECIMAL(3))",
	"SELECT CAST(99.995 AS DECIMAL(4,2)), CAST(1.005 AS DECIMAL(4,2)), CAST(1.5 AS DECIMAL(2,2)), CAST(1e3 AS DECIMAL(2,0)), CAST(123.456e0 AS DECIMAL(4,2))",
	"SELECT CAST('123abc' AS DECIMAL(4,2)), CAST('123 ' AS DECIMAL(4,2)), CAST('1e70' AS DECIMAL(4,2)), CAST('1e90' AS DECIMAL(4,2))",
	"SELECT CAST(1e80 AS DECIMAL(4,2)), CAST(1e81 AS DECIMAL(4,2)), CAST(-1e300 AS DECIMAL(4,2)), CAST(1e81 AS DECIMAL(65,0)), CAST(1e70 AS DECIMAL(65,0))",
	"SELECT CAST(start_value * 100 AS DECIMAL(2,0)), CAST(123.456 AS DECIMAL(4,2)) + 1 FROM s1",
	"SELECT 1 FROM s1 WHERE CAST(123 AS DECIMAL(2,0)) > 0",
	"SELECT CAST(x * 1000 AS DECIMAL(2,0)) AS c FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3) t",
	"SELECT x, CAST(x * 1000 AS DECIMAL(2,0)) + 1 FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3) t WHERE x > 1",
	"SELECT CAST(x * 100 AS DECIMAL(2,0)) FROM (SELECT 0 AS x UNION ALL SELECT 1 UNION ALL SELECT 0 UNION ALL SELECT 2) t",
	"SELECT CAST('1e400' AS DOUBLE), CAST('-1e400' AS DOUBLE), CAST('1e400abc' AS DOUBLE), CAST('1.5' AS DOUBLE)",
	"SELECT 'abc' = 0, '1x' = 1, '1.5' > 1, 2 < '10', '1e1' = 10, 'abc' = 'abc', '2' <=> 2",
	"SELECT 'abc' = 0.0, '0.1' = 0.1, ' 1' = 1, '1 ' = 1, '1e400' > 1e0",
	"SELECT CONCAT('1', 'x') + 1, CONCAT('2', '3') * 2, -CONCAT('5'), CONCAT('7') DIV 2, CONCAT('7') MOD 4, LOWER('2E0') * 1.5",
	"SELECT CONCAT('1', 'x') = 1, UPPER('abc') < 1.5, CONCAT(1) = 1",
	"SELECT start_value = '5x', '7' < start_value, CONCAT(start_value, 'x') + 1, CONCAT(start_value) = 5 FROM s1",
	"SELECT 1 FROM s1 WHERE start_value = '5'",
	"SELECT CONCAT('1') / 3, 7 / CONCAT('2'), CONCAT('7') / 0",
	"SELECT IF(1, 1, 1/0), IFNULL(NULL, 1/3), IFNULL(2, 1/3), COALESCE(2/4, 1/0), CASE WHEN 1 THEN 2 ELSE 1/3 END, IF(1, 1.5, 1/3)",
	"SELECT IF(1, 'a', 1/3), IF(0, 'a', 1/3), IF(0, 1, 1/3), CASE 1 WHEN 1 THEN 1/3 END, IF(1, 1, 1/7) * 3, IF(1, 1e0, 1/3), IF(1, 1.12345, 1/3)",
	"SELECT IF(1, start_value, 1/3), COALESCE(NULL, 1/4, 2), IF(1, 2, 1/3) = 2, CASE WHEN 0 THEN 1 END FROM s1",
	"SELECT 1/0 = 1/0, 1/0 < 2/0, 1/0 + 2/0, 1/0 <=> 2/0, NULL <> CAST('x' AS SIGNED), 1 = CAST('x' AS SIGNED)",
	"SELECT 1 FROM (SELECT 1 UNION ALL SELECT 2) t WHERE 1/0 IS NULL",
	"SELECT start_value FROM s1 WHERE CAST('x' AS SIGNED) = 0",
	"SELECT 2 FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) t WHERE (7 DIV 0 IS NULL)",
	"SELECT 1 IN ('1x', 2), '5' BETWEEN 1 AND 9, '5' IN (5, 6), 2 BETWEEN '1' AND '3x', 'b' IN ('a', 'b'), 1.5 IN ('1.5x', 2)",
	"SELECT 3 NOT IN ('3 ', 4), 1.5 NOT BETWEEN 1e0 AND '2x', 2 IN (1, '2z'), 'a' BETWEEN 'a' AND 'b'",
	"SELECT AVG('1x'), SUM('2y')",
	"SELECT LENGTH(REPEAT('ab', 10000000)), REPEAT('a', 16777216) IS NULL, LENGTH(REPEAT('a', 16777215))",
	"SELECT 1/0 FROM (SELECT 1" + strings.Repeat(" UNION ALL SELECT 1", 69) + ") t",
	"SELECT REPEAT('a', '2x'), REPEAT('b', CONCAT('3y')), REPEAT('c', ' 2'), REPEAT('d', '2 ')",
	"SELECT 1/0, REPEAT('a', '2x'), REPEAT('a', 1/0), REPEAT('a', CAST('2z' AS SIGNED)), REPEAT('a', '2w' + 0)",
	"SELECT REPEAT('a', '2x') FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) t",
	"SELECT REPEAT('a', '2x') FROM (SELECT 1 AS a UNION ALL SELECT 2) t WHERE a > 5",
	"SELECT REPEAT('a', '2x') FROM s1 WHERE 1/0 IS NULL",
	"SELECT LENGTH(REPEAT('a', CONCAT(start_value, 'x'))), REPEAT(start_value, '2v') FROM s1",
	"SELECT LENGTH(REPEAT('a', x)) FROM (SELECT '2x' AS x UNION ALL SELECT '3y') t",
	"SELECT 1 FROM s1 WHERE REPEAT('a', '2x') = 'aa'",
	"SELECT LENGTH(REPEAT('a', x)) FROM (SELECT '2x' AS x) t", "SELECT REPEAT('a', (SELECT 2)), REPEAT('b', (SELECT NULL))",
	"SELECT REPEAT('a', (SELECT '2x'))", "SELECT REPEAT('a', ((SELECT '2x'))), REPEAT('b', (SELECT 1/0))",
	"SELECT REPEAT('a', (SELECT '2x' FROM dual WHERE 1 = 1)) FROM s1", "SELECT REPEAT('a', (SELECT CONCAT('3', 'y'))) FROM (SELECT 1 UNION ALL SELECT 2) t",
	"SELECT REPEAT('a', (SELECT '2x' WHERE 0))",
	"SELECT 2 IN (1, 2, '2z'), 3 IN (1, 2, '2z'), 2 IN (1.5, '2z'), 2 IN (1e0, '2z'), 2.5 IN ('2.5z', 1), 2 NOT IN (1, NULL, '2x'), 3 NOT IN (1, NULL, '2x'), 5 IN (NULL, '5')",
	"SELECT 'a' BETWEEN 0 AND 1, 'a' BETWEEN 'a' AND 1, 2 BETWEEN 1.5 AND '3x', 2 BETWEEN '1x' AND 3, 2.0 BETWEEN '1x' AND 3, '2' BETWEEN '1x' AND 3",
	"SELECT NULL BETWEEN 1/0 AND 2, 1 BETWEEN NULL AND 1/0, 5 BETWEEN 6 AND 1/0, 1/0 BETWEEN 1 AND 2, NULL IN (1/0, '2z'), NULL NOT IN (1), 1/0 IN (1, '2z'), 2 IN (1, 2, 1/0)",
	"SELECT start_value BETWEEN '1x' AND 9, start_value IN ('5x', 5), CONCAT(start_value) BETWEEN 1 AND 9 FROM s1",
	"SELECT start_value IN ('5x'), start_value NOT IN ('6x') FROM s1",
	"SELECT start_value IN (1, start_value, '7z'), start_value IN ('7z', start_value), increment NOT IN ('2x', 3), cycle_option BETWEEN '0' AND '1y' FROM s1",
	"SELECT x NOT IN ('1x'), '1x' IN (x), x IN ('1x', 2, '3y'), x BETWEEN '1x' AND x + '1z', x NOT BETWEEN 0 AND '1.5w' FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3) t",
	"SELECT x = '5x', x < '3y', CONCAT('4z') <> x FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 5) t",
	"SELECT 1/0, x IN ('5x') FROM (SELECT 1 AS x UNION ALL SELECT 2) t",
	"SELECT table_name IN (1, 's1'), table_name NOT IN ('s2', 0), table_name BETWEEN 0 AND 's2' FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name < 's3'",
	"SELECT LENGTH(table_name) BETWEEN '1x' AND 9, LENGTH(table_name) = '2y' FROM information_schema.tables WHERE table_schema = DATABASE()",
	"SELECT NEXTVAL(s3) IN (1, '2z'), LASTVAL(s3)", "SELECT 13 IN (1, 13, NEXTVAL(s3)), LASTVAL(s3), NEXTVAL(s3) BETWEEN 1 AND 1000, LASTVAL(s3)",
	"SELECT NEXTVAL(s3) IN ('2z', '3z', 5), LASTVAL(s3), NEXTVAL(s3)",
	"SELECT 1/0 UNION SELECT 'a' UNION SELECT 1/3 MOD 0",
	"SELECT x, CAST(x * 1000 AS DECIMAL(2,0)) AS c, 1/0 FROM (SELECT 1 AS x UNION ALL SELECT 0 UNION ALL SELECT 3) t ORDER BY x DESC",
	"SELECT x, CAST(x * 1000 AS DECIMAL(2,0)) AS c FROM (SELECT 1 AS x UNION ALL SELECT 0 UNION ALL SELECT 3) t ORDER BY c, x",
	"SELECT x, CAST(x * 1000 AS DECIMAL(2,0)) AS c FROM (SELECT 1 AS x UNION ALL SELECT 0 UNION ALL SELECT 3) t ORDER BY x LIMIT 2",
	"SELECT x FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 0) t ORDER BY CAST(x * 1000 AS DECIMAL(2,0)), x",
	"SELECT x, CAST(x * 1000 AS DECIMAL(2,0)) AS c FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 0) t WHERE x > 0 ORDER BY x DESC",
	"SELECT x, NEXTVAL(s3) FROM (SELECT 1 AS x UNION ALL SELECT 3 UNION ALL SELECT 2) t ORDER BY x DESC",
	"SELECT x, NEXTVAL(s3), CAST(x * 100 AS DECIMAL(2,0)) FROM (SELECT 1 AS x UNION ALL SELECT 3 UNION ALL SELECT 2) t ORDER BY x DESC LIMIT 1 OFFSET 1",
	"SELECT NEXTVAL(s3)",
	"SELECT NULLIF(NEXTVAL(s3), 0), LASTVAL(s3), NEXTVAL(s3)", "SELECT NULLIF(NEXTVAL(s3), LASTVAL(s3)), LASTVAL(s3)",
	"SELECT NULLIF(NEXT VALUE FOR s3 * 2, 1), LASTVAL(s3), NULLIF(NEXTVAL(s3), 'x'), LASTVAL(s3)",
	"SELECT x, CAST(x * 1000 AS DECIMAL(2,0)) AS c FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) t LIMIT 2 OFFSET 1",
	"SELECT x, NEXTVAL(s3) FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3) t LIMIT 1, 1", "SELECT LASTVAL(s3)",
	"SELECT CASE 'a' WHEN 1 THEN 1 ELSE 0 END",
	"SELECT CASE '2x' WHEN 1 THEN 'one' WHEN 2 THEN 'two' WHEN 'a' THEN 'a' END, CASE 1 WHEN 'a' THEN 1 WHEN '1' THEN 2 END, CASE 2.5 WHEN '2.5z' THEN 1 END, CASE 'b' WHEN 'B' THEN 1 WHEN 0 THEN 2 END, CASE 'b' WHEN NULL THEN 1 WHEN 0 THEN 2 ELSE 3 END",
	"SELECT CASE start_value WHEN '5x' THEN 'five' ELSE 'no' END, CASE 'q' WHEN increment THEN 1 END FROM s1",
	"SELECT CASE x WHEN 'a' THEN 1 WHEN 2 THEN 2 ELSE 0 END FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3) t",
	"SELECT SUM(x / 0), AVG(x / 0), MAX(x / 0) FROM (SELECT 1 AS x UNION ALL SELECT 2) t UNION SELECT 'abcdefghijklmnopqrstuvwxyz', 'b', 'c'",
	"SELECT NULLIF(1/0, 1)",
	"SELECT NULLIF(CAST('1x' AS SIGNED), 1)",
	"SELECT NULLIF(CAST('1x' AS SIGNED), 2)",
	"SELECT NULLIF(x/0, 1) FROM (SELECT 1 AS x UNION ALL SELECT 2) t",
	"SELECT NULLIF(1, 1/0)",
	"SELECT NULLIF('1x' + 0, 1)",
	"SELECT NULLIF('1x' + 0, 2), NULLIF(1/3, 0.3333), NULLIF(x DIV 0, 1) FROM (SELECT 1 AS x) t",
	"SELECT NULLIF(1/0, 1) UNION SELECT 'a'",
	"SELECT NULLIF(start_value / 0, 1), NULLIF(increment * 2, 4) FROM s1",
	"SELECT IFNULL(NULL, 3) + IFNULL(NULLIF(cache_size, 10), 'a'), IF(0, cache_size, 'b') * 2 FROM s2",
	"SELECT REPEAT('a', (SELECT '2x' FROM s1) + 0), (SELECT '3' FROM s1) * 2, -(SELECT 'abc' FROM s1), (SELECT '6' FROM s1) / 4, TRUE + '1x'",
	"SELECT -CONCAT('abc'), -UPPER('5x'), -CONCAT(start_value) FROM s1",
	"SELECT NULLIF(cache_size, 'x'), GREATEST(cache_size, 'x') FROM s2",
	"SELECT NULLIF(start_value, '5'), NULLIF('5y', start_value), NULLIF(start_value, '6z'), GREATEST(start_value, '7y'), LEAST(start_value, 'a', 3), GREATEST(1.5, '2x') FROM s1",
	"SELECT NULLIF('5x', 5), NULLIF(2, '2.0'), NULLIF(1.5, '1.5x'), GREATEST(1, 'x')",
	"SELECT CONCAT_WS(',', 'a', 1/0), CONCAT_WS(1/0, 'a')",
	"SELECT ELT('2x', 'a', 'b'), ELT(start_value, 'a', 'b', 'c', 'd', 'e'), ELT(CONCAT(start_value, 'y'), 1, 2, 3, 4, 5) FROM s1",
	"SELECT FIELD(start_value, 1, 5), FIELD(cache_size, '1000', 2), FIELD(start_value, '5x'), FIELD('5y', 1, start_value), FIELD(start_value / 5, 1, 2), FIELD(1 = 1, 0, 1) FROM s1",
	"SELECT FIELD(start_value, 1, 5, 7), FIELD(CONCAT(start_value, 'x'), '5X', 2), FIELD(-start_value, -5), FIELD(start_value + '1x', 6, 7) FROM s1",
	"SELECT FIELD(x, 1, 2, 3), FIELD(x, '2x', '3y', 1) FROM (SELECT 1 AS x UNION ALL SELECT 3) t",
	"SELECT FIELD(1, 1/0, 1), FIELD(1/0, 1), FIELD(5, 1, '5x'), FIELD(TRUE, 'x', 1)",
	"SELECT FIELD(1, table_name, 1) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	"SELECT (SELECT start_value FROM s1) = '5x', start_value + 1 = '6x', ABS(start_value) = '5', cycle_option = 'a', IFNULL(cache_size, 0) = '1000x' FROM s1",
	"SELECT '5' = TRUE, TRUE = 'x', (1 = 1) IN ('1', 2), TRUE BETWEEN '0x' AND 1, CASE TRUE WHEN '1x' THEN 'a' END",
	"SELECT SUM(table_name), AVG(table_name), SUM((SELECT '2x')), AVG(CONCAT(table_name, '1')) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	"SELECT SUM(IF(start_value > 1, 1, 'x')), AVG(IF(start_value > 1, 'y', 2)), SUM(x) FROM s1, (SELECT '3z' AS x) t",
	"SELECT IF(0.5, 1, 2), IF(1e0, 1, 2), IF('', 1, 2), 0.0 OR 0, NOT 0.5, IF(NULL, 1, 2), CASE WHEN start_value THEN 1 END, CASE WHEN 'a' THEN 1 ELSE 2 END FROM s1",
	"SELECT start_value AND 'x', (SELECT 'y') OR 0, CONCAT('1') XOR 1, NOT UPPER('a'), IF(start_value, 'a', 'b'), IF(start_value / 7, 'y', 'n') FROM s1",
	"SELECT IF(table_name, 1, 2), IF('0x', 1, 2) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	"SELECT start_value FROM s1 WHERE start_value AND cache_size = 0 OR start_value / 7",
	"SELECT start_value IN (SELECT '5x') FROM s1",
	"SELECT start_value NOT IN (SELECT '6x'), start_value / 1 IN (SELECT '5'), '5y' IN (SELECT start_value FROM s1), 1e0 IN (SELECT '1z') FROM s1",
	"SELECT start_value = ANY (SELECT '5x'), '5z' = ANY (SELECT start_value FROM s1) FROM s1",
	"SELECT GREATEST(start_value, 'x') FROM s1 UNION SELECT 'y'", "SELECT NULLIF(start_value, '5x') + 1, NULLIF(cache_size, 'q') * 2 FROM s1",
	"SELECT IFNULL(x, 1), x + 1, x = 1, FIELD(x, 'a', 'B'), GREATEST(x, 1), -x FROM (SELECT 'b' AS x UNION ALL SELECT '2') t",
	"SELECT table_name + 0, -table_name, GREATEST(table_name, 2), LEAST(table_name, 1.5) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	"SELECT x'41'+0, X'41'*2, x'41' = 65, CAST(x'41' AS UNSIGNED), -x'41', x'41' IN (65, 66), x'41' = 'A', CONCAT(x'41')", "SELECT SUM(x'41'), AVG(X'31')",
	// A count read as MariaDB's val_int reads it (1292, 1916), once more
	// as the statement starts where it is constant; FLOOR, CEIL and ROUND
	// of a string (1292); LPAD and RPAD past max_allowed_packet (1301).
	"SELECT LEFT('abc', 99999999999999999999), LEFT('abc', -99999999999999999999), RIGHT('abc', '2x'), MID('abc', '2x', 1.5), SUBSTRING('abc', -99999999999999999999)",
	"SELECT LEFT('abc', '99999999999999999999'), LEFT('abc', 'x'), RIGHT('abc', (SELECT '1x')), LPAD('abc', '5x', '-'), ROUND(1.25, '1x')",
	"SELECT FLOOR('2.5x'), CEIL('-2.5'), CEILING('x'), ROUND('12.5'), ROUND('2.55', 1), ROUND('x', 2), ROUND('2.567x', 1), FLOOR(CONCAT(start_value, 'y')) FROM s1",
	"SELECT LPAD('abc', 99999999999999999999, 'x'), LPAD('abc', 16777217, 'x'), RPAD('abc', 18446744073709551615, 'x'), LPAD('a', 4194304, 'b') IS NULL, RPAD('a', 4194305, 'b') IS NULL",
	"SELECT LEFT(start_value, CONCAT(cycle_option, 'z')), LPAD(start_value, CONCAT(start_value, 'w'), 0) FROM s1",
	"SELECT LEFT('abc', table_name), LPAD('x', table_name, 'y'), ROUND(1.5, table_name) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	"SELECT ROUND(1.5, 99999999999999999999), ROUND(2.5e0, -400), ROUND(1.5, -100), ROUND(155, -2), ROUND(-155, -2), ROUND(9223372036854775807, -1)",
	"SELECT RPAD('a', 3, 5), TRIM(LEADING 5 FROM 551), LPAD(1e0, 4, 0), LPAD(1/3, 8, '*'), LEFT(1/3, 4), RIGHT(TRUE, 1), LEFT(x'41' + 0, 1)",
	"SELECT LPAD('abc', 4294967297, 'x'), RPAD('abc', -4294967297, 'x'), LEFT('abc', 4294967297), RIGHT('abc', -4294967296)",
	"SELECT CEILING(x'31'), FLOOR(x'41'), ROUND(x'32', 1)",
	"SELECT FLOOR(table_name), ROUND(table_name, 1), CEIL(CONCAT(table_name, '2')), LEFT(table_name, 1), LPAD(table_name, 4, '*'), REVERSE(table_name) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 's1'",
	// A string read as a DECIMAL past the digits a decimal holds: 1916,
	// then 1292; a DOUBLE's product or quotient too small to hold: 0.
	"SELECT '1e400' IN (" + strings.Repeat("9", 65) + ", 2), '-1e400x' IN (-" + strings.Repeat("9", 65) + ", 2), '1e81' < 5, '1e80' < 5",
	"SELECT 1e-200 * 1e-200, 1e-300 / 1e300, -1e-200 * 1e-200, 1e-200 * -1e-200 * 5",
	// A string read as a DECIMAL holds 81 digits past its point (IN of
	// two values, CASE), compared 39 (=, <, IN of one value).
	"SELECT '1e-40' = 0, '5e-40' = 0, '-4.9e-40' = 0, '-5e-40' < 0, '1e-40' IN (0), '1e-400' <=> 0, '1e-40' > 0",
	"SELECT '1e-40' IN (0, 2), '1e-81' IN (0, 2), '5e-82' IN (0, 2), '1e-400' IN (0, 1), CASE '1e-82' WHEN 0 THEN 'z' END, CASE '1e-40' WHEN 0 THEN 'z' END",
	"SET @q1 = '1e-40', @q2 = '5e-82', @q3 = '1e-400'",
	"SELECT @q1 = 0, @q1 IN (0), @q1 IN (0, 1), @q2 IN (0, 1), @q3 IN (0, 1), @q3 = 0, CASE @q2 WHEN 0 THEN 'z' END, @q1 > 0",
	// An exponent past what apd reads: 0, or DECIMAL's bound with 1916.
	"SELECT '1e-2147483649' = 0, '1e-99999999999999999999' IN (0, 1), '0e99999999999999999999' = 0, '1e99999999999999999999' = 0, '-1e200000' < 0, '1e200000' IN (1, 2)",
	"SET @h = CONCAT('0.', REPEAT('0', 200000), '1'), @p = '1e200000'",
	"SELECT @h = 0, @h IN (0, 1), @p = 1, @p IN (1, 2)",
}

// selectsLen and exprWarningsLen pin the lists' lengths: a statement
// left out is a failure, not a smaller test.
const (
	selectsLen      = 544
	exprWarningsLen = 174
)

// selectsSetup makes the sequences selects read.
var selectsSetup = []string{
	"CREATE SEQUENCE s1 START WITH 5 INCREMENT BY 2 NOCACHE", "CREATE SEQUENCE s2 CACHE 10 CYCLE MAXVALUE 100",
	"SELECT NEXTVAL(s1)", "CREATE SEQUENCE s3 START WITH 3 NOCACHE", "ALTER SEQUENCE s3 RESTART WITH 7", "SELECT * FROM s3",
}

// TestSelectsOracle runs selects on MariaDB and on seqd, as text and
// prepared, and compares, the result columns' types too (types.go,
// exprtypes.go).
func TestSelectsOracle(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		name := "seqd_selects"
		if prepared {
			name += "_prep"
		}
		mc, sc, _ := oracleConns(t, name)
		if len(selects) != selectsLen || len(exprWarnings) != exprWarningsLen {
			t.Fatalf("the lists have %d and %d statements, not %d and %d", len(selects), len(exprWarnings), selectsLen, exprWarningsLen)
		}
		var diffs []string
		ran := 0
		all := append(append(append([]string{}, selectsSetup...), selects...), exprWarnings...)
		for _, q := range all {
			ran++
			want, got := outcome(mc, q, prepared), outcome(sc, q, prepared)
			if want != got {
				diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, strings.ReplaceAll(want, "\n", "\n           "),
					strings.ReplaceAll(got, "\n", "\n           ")))
			}
		}
		if ran != len(selectsSetup)+selectsLen+exprWarningsLen {
			t.Errorf("ran %d statements of %d", ran, len(selectsSetup)+selectsLen+exprWarningsLen)
		}
		if len(diffs) > 0 {
			t.Errorf("prepared %v: seqd differs from MariaDB 10.11 in %d statements:\n%s", prepared, len(diffs), strings.Join(diffs, "\n"))
		}
	}
}

// TestSelectsRefused: what the builder cannot build as MySQL means it is
// refused with ER_NOT_SUPPORTED_YET (1235) naming it, never answered with
// PostgreSQL's meaning; a ? sent as text is MariaDB's syntax error.
func TestSelectsRefused(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, what string }{
		{"SELECT NOW()", "NOW()"}, {"SELECT CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP()"}, {"SELECT DATE '2020-01-01'", "()"},
		{"SELECT CAST(1 AS DATE)", "CAST AS DATE"}, {"SELECT CAST('a' AS BINARY)", "CAST AS BINARY"},
		{"WITH x AS (SELECT 1) SELECT * FROM x", "WITH"}, {"SELECT 1 REGEXP 'a'", "REGEXP"},
		{"SELECT ROW_NUMBER() OVER () FROM s", "window functions"}, {"SELECT @@version, 1 + 1", "variables in an expression"},
		{"SELECT 'a|%' LIKE 'a||%' ESCAPE '|'", "LIKE with ESCAPE"}, {"SELECT SQL_CALC_FOUND_ROWS 1 FROM s", "SQL_CALC_FOUND_ROWS"},
		{"SELECT GREATEST(NEXTVAL(s), 1)", "GREATEST() of a function's call"}, {"SELECT start_value FROM s FOR UPDATE", "FOR UPDATE"},
		{"SELECT * FROM mysql.user", "the tables of mysql"},
		{"SELECT CONVERT('a' USING latin1)", "USING latin1"},
		{"SELECT (1, 2) = (1, 2)", "row constructors"}, {"VALUES ROW(1)", "VALUES"},
		{"SELECT HEX(start_value) FROM s", "HEX() of what is not a literal"}, {"SELECT IF(0x30, 'y', 'n')", "hexadecimal or bit literal"},
		{"SELECT GREATEST(0x41, 1)", "hexadecimal or bit literal"}, {"SELECT (SELECT b'1') + 0", "hexadecimal or bit literal"},
		{"SELECT 0x41 UNION SELECT 1", "hexadecimal or bit literal"}, {"DO 0x41 + 0", "hexadecimal literal here"}, {"SELECT 0x41 + 1, x'41'", "both 0x.. and x'..'"},
		{"SELECT LEFT(x'C3B1', 1)", "binary string"}, {"SELECT LPAD('a', 3, x'C3B1')", "binary string"},
		{"SELECT @r := start_value FROM s", "assigning a user variable"}, {"DO @r := 1", "assigning a user variable"},
	} {
		_, err := db.Exec(c.q)
		if number(err) != 1235 || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s: %v, want 1235 naming %s", c.q, err, c.what)
		}
	}
	for _, q := range []string{"SELECT GREATEST(1)", "SELECT IF(1, 2)", "SELECT IFNULL(1)"} {
		if _, err := db.Exec(q); number(err) != 1582 {
			t.Errorf("%s: %v, want 1582 (a wrong number of arguments)", q, err)
		}
	}
	for _, q := range []string{"SELECT ?", "SELECT NEXTVAL(s), ? FROM s", "SET @v = ?"} {
		_, err := db.Exec(q)
		if number(err) != 1064 || !strings.Contains(err.Error(), "near '?") {
			t.Errorf("%s as text: %v, want 1064 near the marker", q, err)
		}
	}
}

// TestOutOfRangeOracle: integer and DOUBLE arithmetic past its type's
// range is MariaDB's 1690, naming the expression as MariaDB prints it,
// UNSIGNED arithmetic too (below 0 in the default mode: BIGINT UNSIGNED;
// under NO_UNSIGNED_SUBTRACTION a subtraction is signed), as text and
// prepared, against MariaDB 10.11.
func TestOutOfRangeOracle(t *testing.T) {
	script := []string{
		"CREATE SEQUENCE s1 START WITH 5",
		"SELECT CAST(0 AS UNSIGNED) - 1", "SELECT CAST(5 AS UNSIGNED) - 3, CAST(5 AS UNSIGNED) - CAST(3 AS UNSIGNED)",
		"SELECT 18446744073709551615 - 1, 18446744073709551615 + 0", "SELECT CAST(0 AS UNSIGNED) + -1", "SELECT CAST(1 AS UNSIGNED) * -1",
		"SELECT -CAST(1 AS UNSIGNED)", "SELECT 9223372036854775807 + 1", "SELECT 4611686018427387904 * -2 * 2",
		"SELECT (1 + 2) * CAST(3 AS UNSIGNED) - 10", "SELECT CAST(-1 AS SIGNED) * 9223372036854775807 * 2",
		"SELECT start_value * 9223372036854775807 * 2 FROM s1", "SELECT a.start_value * 9223372036854775807 * 2 FROM s1 a",
		"SELECT x * 9223372036854775807 * 2 FROM (SELECT 5 x) t", "SELECT '1e400' * 1.5", "SELECT x * x FROM (SELECT 1e200 AS x) t",
		"SELECT 9223372036854775807 + TRUE", "SELECT 2 - (3 - 4), (2 - 3) - 4, 2 * (3 + 4)", "SELECT -(2 + 3) * 9223372036854775807",
		"SELECT start_value + 1, start_value * 2 - 3, x - 1 FROM s1, (SELECT CAST(7 AS UNSIGNED) x) t",
		"SET @u = CAST(3 AS UNSIGNED), @big = 9223372036854775807", "SELECT @u - 5", "SELECT @big + 1", "SELECT @u * 2, @big - 1",
		"SET sql_mode = CONCAT(@@sql_mode, ',NO_UNSIGNED_SUBTRACTION')",
		"SELECT CAST(0 AS UNSIGNED) - 1", "SELECT CAST(5 AS UNSIGNED) - 3, CAST(0 AS UNSIGNED) - CAST(3 AS UNSIGNED), 1 - CAST(3 AS UNSIGNED)",
		"SELECT CAST(18446744073709551615 AS UNSIGNED) - 1", "SELECT CAST(0 AS UNSIGNED) + -1", "SELECT 18446744073709551615 - 1",
		"SELECT @u - 5", "SELECT x - 10 FROM (SELECT CAST(7 AS UNSIGNED) x) t",
		"SET sql_mode = DEFAULT", "SELECT CAST(0 AS UNSIGNED) - 1",
		// Both operands are read before a NULL one makes the result NULL.
		"SELECT NULL + 9223372036854775807 * 2", "SELECT @nope * (18446744073709551615 + 1)", "SELECT NULL + '1e400' * 1.5",
		"SELECT x + y * 2 FROM (SELECT NULL x, 9223372036854775807 y UNION ALL SELECT NULL, 1) t",
		"CREATE SEQUENCE s2", "SELECT NULL + NEXTVAL(s2)", "SELECT NULL * NEXTVAL(s2) + 1e0", "SELECT NEXTVAL(s2)",
		// A DOUBLE literal is printed as written.
		"SELECT 1e308 + 1e308", "SELECT -1e308 - 1e308", "SELECT 1E308 * 1E1", "SELECT 1e300 / 1e-300", "SELECT 2.5e307 * 10.0e1",
		"SELECT 1e308 * 10, 1e308 * 10 FROM s1",
		// DIV: exact, BIGINT UNSIGNED where an operand is, by zero NULL.
		"SELECT -9223372036854775808 DIV -1", "SELECT -9223372036854775808 DIV 1, -9223372036854775807 DIV -1",
		"SELECT 18446744073709551615 DIV 1, 9223372036854775808 DIV 1", "SELECT 18446744073709551615 DIV -1",
		"SELECT CAST(18446744073709551615 AS UNSIGNED) DIV -1", "SELECT CAST(5 AS UNSIGNED) DIV -1", "SELECT -7 DIV CAST(2 AS UNSIGNED)",
		"SELECT CAST(5 AS UNSIGNED) DIV -10", "SELECT CAST(-9223372036854775807 AS SIGNED) DIV 0",
		"SELECT 10 DIV 3, -7 DIV 2, 7.5 DIV 2, '7' DIV 2, 7 DIV 0.5, -7 DIV -0.5, 7.9 DIV 1, -7.9 DIV 1",
		"SELECT 1e19 DIV 1", "SELECT 1.5e19 DIV 1", "SELECT -1e19 DIV 1", "SELECT 1e300 DIV 1", "SELECT '1e30' DIV 1",
		"SELECT 18446744073709551615.5 DIV 1", "SELECT 18446744073709551616 DIV 1", "SELECT 1e18 DIV 0.1",
		"SELECT NULL DIV 1, 1 DIV NULL, 5 DIV 2 * 3", "SELECT start_value DIV 0, start_value DIV 2, -start_value DIV CAST(1 AS UNSIGNED) FROM s1",
		// ABS of an integer.
		"SELECT ABS(-9223372036854775808)", "SELECT ABS(CAST(-9223372036854775808 AS SIGNED))",
		"SELECT ABS(-9223372036854775807), ABS(CAST(-5 AS SIGNED)), ABS(-5.5), ABS(-1e308), ABS(18446744073709551615)",
		"SELECT ABS(CAST(18446744073709551615 AS UNSIGNED)), ABS(NULL), ABS('-3')", "SELECT ABS(-start_value), ABS(start_value - 9) FROM s1",
	}
	oracleScript(t, "seqd_out_of_range", script)
}

// TestDoubleOverflowRefused: a DOUBLE's arithmetic past its range of a
// statement that writes one value as two DOUBLE literals (1e308 and
// 10e307), which seqd cannot tell apart to print, is an error, on
// MariaDB (1690, which words the literal as written) and on seqd (1264,
// 22003: the differences table's row), never Infinity.
func TestDoubleOverflowRefused(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_double_overflow")
	for _, q := range []string{"SELECT 1e308 * 10, 10e307", "SELECT 10e307 + 1e308 + 1e308"} {
		for _, prepared := range []bool{false, true} {
			if got := statementResult(mc, q, prepared); !strings.HasPrefix(got, "ERROR 1690 22003 DOUBLE value is out of range in '") {
				t.Errorf("%s (prepared %v) on MariaDB: %s, want 1690", q, prepared, got)
			}
			if got := statementResult(sc, q, prepared); got != "ERROR 1264 22003 value out of range: overflow" {
				t.Errorf("%s (prepared %v) on seqd: %s, want 1264 value out of range: overflow", q, prepared, got)
			}
		}
	}
}

// TestExprWarningsParams: the expressions that raise warnings, of
// parameters a prepared statement is executed with (go-sql-driver sends
// them typed: integers as BIGINT, strings as VARCHAR), on MariaDB and on
// seqd: the same rows and SHOW WARNINGS.
func TestExprWarningsParams(t *testing.T) {
	mc, sc := pairedConns(t, "seqd_exprparams")
	for _, db := range []*sql.Conn{mc, sc} {
		if _, err := db.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		q    string
		args []any
	}{
		{"SELECT 10 / ?, 10 DIV ?, 10 MOD ?", []any{0, 0, 0}},
		{"SELECT 10 / ?, ? / 0", []any{"0", nil}},
		{"SELECT CAST(? AS SIGNED), CAST(? AS SIGNED), CAST(? AS UNSIGNED)", []any{"12abc", 7, -3}},
		{"SELECT CAST(? AS CHAR(2)), CONVERT(?, CHAR(1)), CAST(? AS DECIMAL(4,1))", []any{"abc", 123, "2.5x"}},
		{"SELECT CAST(? AS DOUBLE), CAST(? AS UNSIGNED)", []any{"1.5e1x", "-5"}},
		{"SELECT REPEAT('a', ?), REPEAT(?, CONCAT(?, 'x'))", []any{"2x", "b", "3"}},
		{"SELECT IFNULL(?, 'x'), IF(1, ?, 'y'), CASE WHEN 1 THEN ? ELSE 'z' END", []any{5, 6.5, "a"}},
		{"SELECT IFNULL(?, 'x'), COALESCE(?, 'q', 1), CONCAT_WS('-', ?, ?), ELT(?, 'a', 'b')", []any{nil, 7, 1, "b", 2}},
		{"SELECT ? + TRUE, LENGTH(?)", []any{4, 123}},
		// A parameter beside a string is typed by the value bound.
		{"SELECT ? = '7z'", []any{7}},
		{"SELECT ? = '7z'", []any{"7"}},
		{"SELECT '7z' < ?, ? <> 'a'", []any{8.5, 0}},
		{"SELECT NULLIF('5y', ?), NULLIF(?, '5y')", []any{5, 5}},
		{"SELECT GREATEST(?, 'x'), LEAST(?, 'x', '2')", []any{1, 3}},
		{"SELECT GREATEST(?, 'x')", []any{"y"}},
		{"SELECT IFNULL(?, 'x'), FIELD(?, 'a', '7', 'b')", []any{7, 7}},
		{"SELECT FIELD(?, 'a', 'b'), FIELD(?, 1, 2)", []any{"b", "2"}},
		{"SELECT IFNULL(cache_size, ?), IFNULL(?, cache_size) FROM s", []any{"z", "y"}},
		{"SELECT IFNULL(cache_size, ?) FROM s", []any{5}},
		// MariaDB's string functions of a count, and FLOOR, CEIL and ROUND.
		{"SELECT LEFT(?, ?), RIGHT(?, ?), SUBSTRING(?, ?, ?), MID(?, ?)", []any{"abc", "2x", 12345, 2.5, "abcdef", -3, "2", "abc", nil}},
		{"SELECT LPAD(?, ?, ?), RPAD(?, ?, ?), LPAD(?, ?)", []any{7, 4, 0, "ab", "5x", "-", "a", 3}},
		{"SELECT REVERSE(?), LTRIM(?), RTRIM(?), TRIM(? FROM ?), TRIM(LEADING ? FROM ?)", []any{"añb", "  a", 15, "x", "xxaxx", 1, 1121}},
		{"SELECT FLOOR(?), CEIL(?), CEILING(?), ROUND(?, ?), ROUND(?, 1), ROUND(?, -1)", []any{"2.5x", 2.5, -7, "2.567x", "1x", 1.25, 15}},
		{"SELECT LPAD(NEXTVAL(s), ?, ?), RIGHT(start_value, ?) FROM s", []any{8, "0", 1}},
		{"SELECT ROUND(?, ?), ROUND(?, ?), FLOOR(?), LPAD(?, ?, ?)", []any{2.55, 1, "1.5", "0x", nil, "a", 5000000, "b"}},
	} {
		var got [2]string
		for i, db := range []*sql.Conn{mc, sc} {
			rows, err := db.QueryContext(ctx, c.q, c.args...)
			if err != nil {
				got[i] = "ERROR " + errCode(err)
				continue
			}
			cols, vals, err := testenv.RowStrings(rows)
			rows.Close()
			got[i] = fmt.Sprint(cols, vals, err, " warnings: ", queryResult(db, "SHOW WARNINGS", false))
		}
		if got[0] != got[1] {
			t.Errorf("%s %v:\n  MariaDB: %s\n  seqd:    %s", c.q, c.args, got[0], got[1])
		}
	}
}

// TestParamsTypedByValue: one prepared statement, executed with an
// integer, then a string, then an integer again, answers each as
// MariaDB does, its columns' types and nullability too: a parameter is
// typed by the value bound, not by the first execution's nor by where
// it stands.
func TestParamsTypedByValue(t *testing.T) {
	mc, sc := pairedConns(t, "seqd_paramsbyvalue")
	for _, db := range []*sql.Conn{mc, sc} {
		if _, err := db.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		q    string
		args []any
	}{
		{"SELECT ? = '7z', NULLIF('5y', ?), GREATEST(?, 'x')", []any{7, "7", 7.5, "5", 1, "y", int64(7), "7z", 2}},
		{"SELECT FIELD(?, 'a', '7', 'b')", []any{7, "b", 7, "c"}},
		{"SELECT ?, ? + 1", []any{"abc", "2", 7, 8, "x", 1}},
		{"SELECT ?, ?, ?, ?, ? + 0, NULLIF(?, 'a'), GREATEST(?, 'a')", []any{"abc", 7, 7.5, nil, "1", "b", "c", "abc", 7, 7.5, nil, "1", 7, 7.5}},
		{"SELECT IFNULL(cache_size, ?) FROM s", []any{5, "z", 5}},
		{"SELECT IFNULL(?, cache_size), COALESCE(cache_size, ?) FROM s", []any{"z", "y", 7, 8}},
		{"SELECT IFNULL(?, 5), IF(1, ?, 5), CASE WHEN 1 THEN ? ELSE 5 END", []any{"z", "y", "x", 1, 2, 3}},
		{"SELECT IFNULL(?, 'x'), IFNULL('x', ?), CONCAT(?, 'a')", []any{"z", "y", "w", 1, 2, 3}},
		{"SELECT IFNULL(?, ?)", []any{"z", "y", "z", 5, 5, 6, nil, "y"}},
		{"SELECT ? FROM s UNION SELECT 'a'", []any{"z", 5}},
		{"SELECT NEXTVAL(s), ?", []any{"a", 4}},
	} {
		n := strings.Count(c.q, "?")
		var got [2][]string
		for i, db := range []*sql.Conn{mc, sc} {
			st, err := db.PrepareContext(ctx, c.q)
			if err != nil {
				t.Fatalf("%s: %v", c.q, err)
			}
			for k := 0; k+n <= len(c.args); k += n {
				args := c.args[k : k+n]
				rows, err := st.QueryContext(ctx, args...)
				if err != nil {
					got[i] = append(got[i], fmt.Sprint(args, " ERROR ", errCode(err)))
					continue
				}
				var types []string
				cts, _ := rows.ColumnTypes()
				for _, ct := range cts {
					null, _ := ct.Nullable()
					types = append(types, fmt.Sprintf("%s null=%v", ct.DatabaseTypeName(), null))
				}
				cols, vals, err := testenv.RowStrings(rows)
				rows.Close()
				got[i] = append(got[i], fmt.Sprint(args, cols, types, vals, err, " warnings: ", queryResult(db, "SHOW WARNINGS", false)))
			}
			st.Close()
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("%s:\n  MariaDB: %q\n  seqd:    %q", c.q, got[0], got[1])
		}
	}
}

// TestCorrelatedSubqueryOracle: a subquery with a FROM clause whose
// select list reads a column of the query around it answers that
// column's value (it was typed as NULL's type, and sent as NULL), in a
// grouped query too, and so does an aggregate of such a column, which is
// the query around it's.
func TestCorrelatedSubqueryOracle(t *testing.T) {
	oracleScript(t, "seqd_correlated", []string{
		"CREATE SEQUENCE g1 START WITH 5",
		"SELECT (SELECT b.start_value + g1.increment FROM g1 b LIMIT 1) FROM g1",
		"SELECT (SELECT b.start_value + g1.increment FROM g1 b LIMIT 1) FROM g1 GROUP BY increment",
		"SELECT (SELECT g1.increment FROM g1 b LIMIT 1) AS v FROM g1 GROUP BY increment",
		"SELECT (SELECT MAX(g1.start_value) FROM g1 b) FROM g1 GROUP BY increment", "SELECT (SELECT MAX(g1.start_value) FROM g1 b) FROM g1",
		"SELECT (SELECT a.x FROM (SELECT 2) b) FROM (SELECT 1 x) a",
		"SELECT (SELECT a.x FROM (SELECT 2) b) + 1, CONCAT((SELECT a.y FROM (SELECT 2) b), 'z') FROM (SELECT 1 x, 'q' y) a",
		"SELECT (SELECT a.x FROM g1 b LIMIT 1) AS v, (SELECT a.x FROM g1 b LIMIT 1) + 0.5 FROM (SELECT 1 x) a ORDER BY v DESC",
		"SELECT 1 IN (SELECT a.x FROM (SELECT 2) b), EXISTS (SELECT a.x FROM g1) FROM (SELECT 1 x) a",
		"SELECT x FROM (SELECT 1 x UNION ALL SELECT 2) a WHERE (SELECT a.x FROM g1) = 2",
	})
}

// TestBitOperatorsOracle: &, |, ^, <<, >> and ~ as MariaDB computes
// them, of unsigned 64-bit integers (they were 1235): a BIGINT as its two's
// complement, a decimal or a double rounded half away from 0 and held to
// BIGINT's or BIGINT UNSIGNED's range with 1916, a string read as a
// DECIMAL with 1292, a shift by 64 or more 0; a BIGINT UNSIGNED of 21.
func TestBitOperatorsOracle(t *testing.T) {
	oracleScript(t, "seqd_bits", []string{
		"CREATE SEQUENCE h1 START WITH 10 INCREMENT BY 5 MAXVALUE 1000",
		"SELECT 5 & 3, -1 & 1, ~0, 1.5 & 3, 2.5 | 0, NULL & 1, 1 << 64, 1 << 63, -1 >> 1, 5 ^ 3, 1 << -1, 2.4e0 | 0, ~NULL",
		"SELECT ~1.5, -2.5 | 0, 18446744073709551615 | 0, 1e19 | 0, 1 << 2.6, ~-1, ~18446744073709551615, -9223372036854775808 | 0",
		"SELECT '3x' & 1, 1e30 & 1, -1e30 | 0",
		"SELECT '-1' | 0, '0x10' | 0, 'abc' ^ 0, TRUE | 2, x'41' | 0, b'101' | 0",
		"SELECT 0x41 & 0xFF",
		"SELECT start_value & 7, start_value | 1, start_value ^ 3, start_value << 2, start_value >> 1, ~start_value, -start_value & 255 FROM h1",
		"SELECT 1 | 2 & 3, 1 << 2 + 1, ~1 & 3, 5 & 3 = 1, (5 & 3) + 1, 6 DIV 4 | 1",
		"SELECT CAST(-1 AS UNSIGNED) & 1, CAST(1 AS SIGNED) | CAST(18446744073709551615 AS UNSIGNED)",
		"SELECT 1.5e300 | 0, -1.5e300 & 0, 0.5 | 0, -0.5 | 0, 9223372036854775807.5 | 0, 18446744073709551615.4 | 0, 18446744073709551615.5 | 0",
		"SET @u = '7', @n = 7, @d = 7.5",
		"SELECT @u & 3, @n | 8, @d | 0, @nope | 1",
		"SELECT ~0x41, ~b'1'",
		"SELECT ~x'41', x'41' & 1",
	})
}

// TestVarianceOracle: STD, STDDEV, STDDEV_POP, STDDEV_SAMP, VARIANCE,
// VAR_POP and VAR_SAMP as MariaDB computes them (eval's
// seqd_mariadb_stddev_pop and the others: Welford's recurrence in
// doubles), a DOUBLE shown at an exact argument's decimals and 4 more;
// they were 1305 in PostgreSQL's words.
func TestVarianceOracle(t *testing.T) {
	oracleScript(t, "seqd_variance", []string{
		"CREATE SEQUENCE v1 START WITH 3",
		"SELECT STD(x), STDDEV(x), STDDEV_POP(x), STDDEV_SAMP(x), VARIANCE(x), VAR_POP(x), VAR_SAMP(x) FROM (SELECT 1 x UNION ALL SELECT 2 UNION ALL SELECT 4) t",
		"SELECT STD(x), VAR_SAMP(x), STDDEV_SAMP(x) FROM (SELECT 1.5 x) t",
		"SELECT STD(x), VARIANCE(x) FROM (SELECT 1.25e0 x UNION ALL SELECT 2.5e0) t",
		"SELECT STD(x), VAR_SAMP(x) FROM (SELECT NULL x) t",
		"SELECT STD(start_value), VARIANCE(increment) FROM v1",
		"SELECT STD(x) FROM (SELECT 'a' x UNION ALL SELECT '3') t",
		"SELECT g, STDDEV(x) FROM (SELECT 1 g, 10 x UNION ALL SELECT 1, 20 UNION ALL SELECT 2, 5) t GROUP BY g",
		"SELECT STDDEV(x) + 1, ROUND(VARIANCE(x), 2) FROM (SELECT 1 x UNION ALL SELECT 2) t",
		"SELECT STD(x), STDDEV_SAMP(x) FROM (SELECT 1e300 x UNION ALL SELECT -1e300) t",
	})
}

// TestBitAggregatesOracle: BIT_AND, BIT_OR and BIT_XOR as MariaDB
// computes them (they were 1235): each value as val_int reads it, a
// BIGINT UNSIGNED of 21, all ones (BIT_AND) or 0 for no row.
func TestBitAggregatesOracle(t *testing.T) {
	oracleScript(t, "seqd_bit_aggregates", []string{
		"CREATE SEQUENCE b1 START WITH 6",
		"SELECT BIT_OR(1e19), BIT_AND(-1e19), BIT_XOR(2.5e0), BIT_OR(1.5)",
		"SELECT BIT_OR(x) FROM (SELECT '3x' x) t",
		"SELECT BIT_AND(x), BIT_OR(x), BIT_XOR(x) FROM (SELECT 1 x UNION ALL SELECT 3 UNION ALL SELECT NULL) t WHERE x > 5",
		"SELECT BIT_AND(x), BIT_OR(x), BIT_XOR(x) FROM (SELECT 5 x UNION ALL SELECT 3 UNION ALL SELECT NULL UNION ALL SELECT 6) t",
		"SELECT BIT_OR(x) FROM (SELECT -1.5 x) t",
		"SELECT BIT_OR(x) FROM (SELECT 18446744073709551615 x) t",
		"SELECT BIT_OR(x), BIT_AND(x) FROM (SELECT 1.5e0 x) t",
		"SELECT BIT_OR(start_value), BIT_AND(increment), BIT_XOR(start_value) FROM b1",
		"SELECT g, BIT_XOR(x) FROM (SELECT 1 g, 5 x UNION ALL SELECT 1, 1 UNION ALL SELECT 2, 7) t GROUP BY g",
		"SELECT BIT_OR(x > 0), BIT_AND(-1) FROM (SELECT 1 x) t",
	})
}
