package mysqlwire

import (
	"fmt"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// builtStatements are statements and the trees built of them, written
// out as PostgreSQL text (deparsed), for a connection in database db of
// user app@host, thread 7. The executor runs the tree, never this text:
// it is how the test reads a tree.
var builtStatements = []struct{ q, want string }{
	{"SELECT NEXTVAL(s)", "SELECT seqd_mariadb_nextval(s)"},
	{"SELECT NEXT VALUE FOR db.s", "SELECT seqd_mariadb_nextval(db.s)"},
	{"SELECT nextval(`S`) AS n, LASTVAL(s)", "SELECT seqd_mariadb_nextval(\"S\") AS n, seqd_mariadb_lastval(s)"},
	{"SELECT SETVAL(s, 5, 0, 1)", "SELECT seqd_mariadb_setval(s, 5, 0, 1)"},
	{"SELECT PREVIOUS VALUE FOR s, NEXTVAL(s) + 1", "SELECT seqd_mariadb_lastval(s), seqd_mariadb_arith('+', seqd_mariadb_nextval(s), 1, 'i', '')"},
	{"SELECT 1, -5, -2147483648, 2147483648, 1.50, 1e3, 'a''b', NULL, TRUE, FALSE, x'41', 0x42",
		"SELECT 1, -5, -2147483648, 2147483648, 1.50, 1e+03, 'a''b', NULL, true, false, 'A', 'B'"},
	{"SELECT NEXTVAL(s) * 2 - 1 / 3 % 2",
		"SELECT round(seqd_mariadb_arith('*', seqd_mariadb_nextval(s), 2, 'i', '') - ((1::numeric OPERATOR(seqd_mariadb./) 3::numeric) % 2), 4)"},
	{"SELECT 1 / 0, 1 DIV NEXTVAL(s), 2 MOD '0', 3 / 0.0", // a divisor not written as a number other than 0 is read
		"SELECT round(1::numeric OPERATOR(seqd_mariadb./) seqd_mariadb_divisor(0::numeric), 4), seqd_mariadb_arith('div', 1, seqd_mariadb_nextval(s), 'i', ''), " +
			"2::numeric % seqd_mariadb_divisor(seqd_mariadb_double('0')::double precision::numeric), round(3::numeric OPERATOR(seqd_mariadb./) seqd_mariadb_divisor((0.0)::numeric), 4)"},
	{"SELECT 'a' + 1, -'5', 1e0 / 3, 2.5e0 * 2", // a string or a DOUBLE in arithmetic is a DOUBLE
		"SELECT seqd_mariadb_arith('+', seqd_mariadb_double('a')::double precision, 1, 'r', '''a'' + 1'), 0 - seqd_mariadb_double('5')::double precision, " +
			"seqd_mariadb_arith('/', (1e+00)::double precision::double precision, 3::double precision, 'r', '1e0 / 3'), seqd_mariadb_arith('*', (2.5e+00)::double precision, 2, 'r', '2.5e0 * 2')"},
	{"SELECT 1.50 / 3 / 3, CONCAT(1/3), ROUND(1/3, 6)", // computed exactly, shown to 10 and 4 digits
		"SELECT round(((1.50)::numeric OPERATOR(seqd_mariadb./) 3::numeric)::numeric OPERATOR(seqd_mariadb./) 3::numeric, 10), " +
			"round(1::numeric OPERATOR(seqd_mariadb./) 3::numeric, 4)::text, seqd_mariadb_round(1::numeric OPERATOR(seqd_mariadb./) 3::numeric, 6::bigint)"},
	{"SELECT 7 DIV 2, 7 MOD 2, 1 XOR 0, NULL <=> 1",
		"SELECT seqd_mariadb_arith('div', 7, 2, 'i', '7 DIV 2'), 7 % 2, 1::boolean <> 0::boolean, NULL IS NOT DISTINCT FROM 1"},
	{"SELECT 1 = 1 AND 2 <> 3 AND 3 != 4 OR NOT 5 > 6", "SELECT (1 = 1 AND 2 <> 3 AND 3 <> 4) OR NOT 5 > 6"},
	{"SELECT 1 AND 0, NOT 2, IF(1, 'y', 'n'), CASE WHEN 1 THEN 'x' END",
		"SELECT 1::boolean AND 0::boolean, NOT 2::boolean, CASE WHEN 1::boolean THEN 'y' ELSE 'n' END, CASE WHEN 1::boolean THEN 'x' END"},
	{"SELECT NEXTVAL(s) IS NULL, 1 IS NOT NULL, 1 IS TRUE, 0 IS NOT FALSE",
		"SELECT seqd_mariadb_nextval(s) IS NULL, 1 IS NOT NULL, 1::boolean IS TRUE, 0::boolean IS NOT FALSE"},
	{"SELECT 2 BETWEEN 1 AND 3, 2 NOT BETWEEN 1 AND 3, 1 IN (1, 2), 1 NOT IN (3)",
		"SELECT 2 BETWEEN 1 AND 3, 2 NOT BETWEEN 1 AND 3, 1 IN (1, 2), 1 <> 3"},
	{"SELECT 'a' BETWEEN 0 AND 1, 2 IN (1, '2z'), NULL IN (1, 'a'), 1/0 NOT BETWEEN 1 AND 2",
		"SELECT seqd_mariadb_between(seqd_mariadb_number('a', NULL::bigint), 0, 1), seqd_mariadb_in('iis', 2, 1, '2z'), NULL::boolean, " +
			"NOT seqd_mariadb_between(round(1::numeric OPERATOR(seqd_mariadb./) seqd_mariadb_divisor(0::numeric), 4), 1, 2)"},
	{"SELECT 'abc' LIKE 'a%', 'abc' NOT LIKE 'b%', BINARY 'abc' LIKE 'A%'", "SELECT seqd_mariadb_ci_fold('abc') LIKE seqd_mariadb_ci_fold('a%'), seqd_mariadb_ci_fold('abc') NOT LIKE seqd_mariadb_ci_fold('b%'), seqd_mariadb_bytes('abc'::text) LIKE seqd_mariadb_bytes('A%')"},
	{"SELECT CASE WHEN NEXTVAL(s) > 5 THEN 'big' ELSE 'small' END, CASE 1 WHEN 1 THEN 'one' END",
		"SELECT CASE WHEN seqd_mariadb_nextval(s) > 5 THEN 'big' ELSE 'small' END, CASE 1 WHEN 1 THEN 'one' END"},
	{"SELECT (SELECT 1), EXISTS (SELECT 1), 1 IN (SELECT 1), 2 NOT IN (SELECT 1), 1 = ANY (SELECT 1), 1 > ALL (SELECT 0)",
		"SELECT (SELECT 1), EXISTS (SELECT 1), 1 IN (SELECT 1), NOT 2 IN (SELECT 1), 1 = ANY (SELECT 1), 1 > ALL (SELECT 0)"},
	{"SELECT CONCAT('a', 'b', 1), ABS(-1), LENGTH('x'), CHAR_LENGTH('y'), UPPER('y')",
		"SELECT ('a'::text || 'b'::text) || 1::text, seqd_mariadb_arith('abs', -1, 'i', 'abs(-1)'), octet_length('x'), char_length('y'), upper('y')"},
	{"SELECT IFNULL(NULL, 1), COALESCE(NULL, 2, 3), NULLIF(1, 1), GREATEST(1, 2), LEAST(1, NULL)",
		"SELECT COALESCE(NULL, 1), COALESCE(NULL, 2, 3), NULLIF(1, 1), CASE WHEN 1 IS NULL OR 2 IS NULL THEN NULL ELSE GREATEST(1, 2) END, " +
			"CASE WHEN 1 IS NULL OR NULL IS NULL THEN NULL ELSE LEAST(1, NULL) END"},
	{"SELECT CAST('12' AS SIGNED), CONVERT(-1, UNSIGNED), CAST(1 AS CHAR), CAST('abc' AS CHAR(2)), CAST(1.5 AS DECIMAL), CAST(1 AS DECIMAL(5,2)), CAST(1 AS DOUBLE)",
		"SELECT seqd_mariadb_signed('12'), seqd_mariadb_unsigned(-1), " +
			"1::text, seqd_mariadb_chars('abc'::text, 2)::varchar(2), seqd_mariadb_decimal_cast(1.5, 10, 0, 'CAST(1.5 AS DECIMAL)')::numeric(10, 0), seqd_mariadb_decimal_cast(1, 5, 2, 'CAST(1 AS DECIMAL(5,2))')::numeric(5, 2), 1::double precision"},
	{"SELECT CAST(5 AS UNSIGNED), CAST(5 AS SIGNED), CAST('1.5' AS DECIMAL(3,1)), CONVERT('x', DOUBLE), CAST(1 AS CHAR(0))",
		"SELECT seqd_mariadb_unsigned(5), 5::bigint, seqd_mariadb_decimal_cast('1.5', 3, 1, 'CAST(''1.5'' AS DECIMAL(3,1))')::numeric(3, 1), " +
			"seqd_mariadb_double('x')::double precision, seqd_mariadb_chars(1::text, 0)::text"},
	{"SELECT DATABASE(), SCHEMA(), CURRENT_USER, USER(), CONNECTION_ID(), CONCAT(DATABASE(), '.x')",
		"SELECT 'db', 'db', 'app@host', 'app@host', 7, 'db'::text || '.x'::text"},
	{"SELECT TRIM(' a '), TRIM(LEADING 'x' FROM 'xa'), POSITION('b' IN 'abc'), CONVERT('x' USING utf8mb4)",
		"SELECT btrim(' a '), seqd_mariadb_trim('xa'::text, 'x'::text, 1), seqd_mariadb_locate('b', 'abc', 1::bigint, 'true'::boolean), 'x'"},
	{"SELECT UPPER(x'61'), LOWER('A'), -NULL, SUM(NULL), AVG('2'), REPEAT('ab', '3')",
		"SELECT 'a', lower('A'), NULL::double precision, sum(NULL::double precision), avg(seqd_mariadb_double('2')::double precision), " +
			"seqd_mariadb_repeat('ab'::text, seqd_mariadb_typed(seqd_mariadb_signed('3'))::bigint, 16777216)"},
	{"SELECT 1, 2 UNION SELECT 'a', 3", "SELECT seqd_mariadb_ci_column(1::text), 2 UNION SELECT 'a'::text, 3"},
	{"SELECT start_value, start_value + 1 AS n, NEXTVAL(s) FROM s5 ORDER BY n DESC LIMIT 1, 2",
		"SELECT start_value, seqd_mariadb_sent(seqd_mariadb_arith('+', start_value, 1, 'i', '`db`.`s5`.`start_value` + 1')) AS n, seqd_mariadb_sent(seqd_mariadb_nextval(s)) " +
			"FROM pg_seqd_mysql.s5 s5 ORDER BY n DESC NULLS LAST LIMIT 2 OFFSET 1"},
	{"SELECT 1/3, 1.5/3 * 2 UNION SELECT 'a', 'b'", "SELECT seqd_mariadb_ci_column(substr(seqd_mariadb_quotient(1::numeric, 3::numeric, 9)::text, 1, 7)), " +
		"seqd_mariadb_ci_column(substr((seqd_mariadb_quotient((1.5)::numeric, 3::numeric, 9) * 2::numeric)::text, 1, 9)) UNION SELECT 'a'::text, 'b'::text"},
	{"SELECT DISTINCT 1 LIMIT 1", "SELECT DISTINCT 1 LIMIT 1"}, {"SELECT ALL NEXTVAL(s)", "SELECT seqd_mariadb_nextval(s)"},
	{"SELECT +2, -(3), -x, !1, NOT NOT 0", "SELECT + 2, -3, - seqd_mariadb_number(x), NOT 1::boolean, NOT NOT 0::boolean"},
	{"SELECT * FROM s5", "SELECT * FROM pg_seqd_mysql.s5 s5"},
	{"SELECT next_not_cached_value, CYCLE_OPTION AS c FROM db.s5 WHERE `Increment` = 2 ORDER BY 1, c DESC LIMIT 2, 3",
		"SELECT next_not_cached_value, cycle_option AS c FROM db.pg_seqd_mysql.s5 s5 WHERE increment = 2 ORDER BY 1 ASC NULLS FIRST, c DESC NULLS LAST LIMIT 3 OFFSET 2"},
	{"SELECT t.table_name FROM information_schema.TABLES t WHERE table_schema = DATABASE() LIMIT 1 OFFSET 2",
		"SELECT t.table_name FROM information_schema.pg_seqd_mysql.tables t WHERE table_schema = 'db' LIMIT 1 OFFSET 2"},
	{"SELECT COUNT(*), GROUP_CONCAT(table_name ORDER BY table_name DESC SEPARATOR ';'), GROUP_CONCAT(DISTINCT table_schema, '.', table_name) " +
		"FROM information_schema.tables GROUP BY table_schema HAVING COUNT(*) > 1",
		"SELECT count(1), string_agg(table_name::text, ';' ORDER BY seqd_mariadb_ci(table_name) DESC NULLS LAST), " +
			"seqd_mariadb_ci(string_agg(DISTINCT (table_schema::text || '.'::text) || table_name::text, ',')) FROM information_schema.pg_seqd_mysql.tables tables " +
			"GROUP BY seqd_mariadb_ci_column(table_schema) HAVING count(1) > 1 ORDER BY seqd_mariadb_ci(table_schema) ASC NULLS FIRST"},
	{"SELECT a.start_value, b.start_value FROM s1 a JOIN s2 b ON a.increment = b.increment LEFT JOIN s3 c ON 1, s4 RIGHT JOIN s5 USING (cache_size)",
		"SELECT a.start_value, b.start_value FROM pg_seqd_mysql.s1 a JOIN pg_seqd_mysql.s2 b ON a.increment = b.increment " +
			"LEFT JOIN pg_seqd_mysql.s3 c ON 1::boolean CROSS JOIN (pg_seqd_mysql.s4 s4 RIGHT JOIN pg_seqd_mysql.s5 s5 USING (cache_size))"},
	{"SELECT X FROM (SELECT 1 AS X, 2 + 2) AS t", "SELECT x FROM (SELECT 1 AS x, seqd_mariadb_arith('+', 2, 2, 'i', '2 + 2') AS \"2 + 2\") t"},
	{"SELECT 1 UNION SELECT 2 UNION ALL SELECT 3 EXCEPT SELECT 4 INTERSECT SELECT 5 ORDER BY 1 DESC LIMIT 2",
		"((SELECT 1 UNION SELECT 2) UNION ALL SELECT 3) EXCEPT (SELECT 4 INTERSECT SELECT 5) ORDER BY 1 DESC NULLS LAST LIMIT 2"},
	{"SELECT SQL_NO_CACHE HIGH_PRIORITY STRAIGHT_JOIN NEXTVAL(s)", "SELECT seqd_mariadb_nextval(s)"},
	{"SHOW DATABASES", "SELECT schema_name FROM information_schema.pg_seqd_mysql.schemata schemata ORDER BY 1 ASC NULLS FIRST"},
	{"SHOW FULL TABLES FROM other LIKE 's%'",
		"SELECT table_name, table_type FROM information_schema.pg_seqd_mysql.tables tables WHERE table_schema = 'other' AND table_name LIKE 's%' ORDER BY 1 ASC NULLS FIRST"},
	{"CREATE SEQUENCE IF NOT EXISTS db.s START WITH -2147483648 INCREMENT BY -1 MINVALUE -9223372036854775807 NOMAXVALUE CACHE 0 NOCYCLE",
		"CREATE SEQUENCE IF NOT EXISTS db.s START -2147483648 INCREMENT -1 MINVALUE -9223372036854775807 NO MAXVALUE CACHE 1 NO CYCLE"},
	{"CREATE SEQUENCE s INCREMENT BY 3 NO MINVALUE MAXVALUE 100 CACHE 20 CYCLE ENGINE=InnoDB",
		"CREATE SEQUENCE s INCREMENT 3 NO MINVALUE MAXVALUE 100 CACHE 20 CYCLE"},
	{"CREATE SEQUENCE s", "CREATE SEQUENCE s CACHE 1000 MAXVALUE 9223372036854775806"},
	{"ALTER SEQUENCE IF EXISTS s RESTART WITH 5 NOCACHE", "ALTER SEQUENCE IF EXISTS s RESTART 5 CACHE 1"},
	{"ALTER SEQUENCE s RESTART INCREMENT BY 2", "ALTER SEQUENCE s RESTART INCREMENT 2"}, {"DROP SEQUENCE IF EXISTS a, db.b", "DROP SEQUENCE IF EXISTS a, db.b"},
	{"CREATE DATABASE x", "CREATE SCHEMA x"}, {"CREATE DATABASE IF NOT EXISTS `X y`", "CREATE SCHEMA IF NOT EXISTS \"X y\""},
	{"CREATE TEMPORARY SEQUENCE t INCREMENT BY -1", "CREATE TEMPORARY SEQUENCE t INCREMENT -1 CACHE 1000 MINVALUE -9223372036854775807"},
	{"BEGIN", "BEGIN"}, {"START TRANSACTION", "BEGIN"}, {"COMMIT", "COMMIT"}, {"ROLLBACK", "ROLLBACK"},
	{"SELECT NEXTVAL(s), ?", "SELECT seqd_mariadb_nextval(s), $1"}, {"SELECT SETVAL(s, ?)", "SELECT seqd_mariadb_setval(s, $1)"},
	{"SELECT CONCAT(?, ?, ?), ? + (? * ?)", "SELECT ($1::text || $2::text) || $3::text, $4 + ($5 OPERATOR(seqd_mariadb.*) $6)"},
}

// TestBuild: the tree built of each statement is the one written above;
// it holds no location (there is no PostgreSQL text for one to index),
// and pg_stat_activity shows it as the client's text.
func TestBuild(t *testing.T) {
	for _, c := range builtStatements {
		steps, err := translate(newParser(), c.q, stmtEnv{db: "db", user: "app@host", thread: 7})
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if len(steps) != 1 || steps[0].stmt == nil {
			t.Errorf("%s: not one statement built", c.q)
			continue
		}
		s := steps[0]
		if got := shown(t, s); got != c.want {
			t.Errorf("%s:\nbuilt  %s\nwant   %s", c.q, got, c.want)
		}
		if located(s.stmt.Node) {
			t.Errorf("%s: built with a location", c.q)
		}
		if s.stmt.Query != s.text || s.stmt.Text() != strings.TrimSpace(s.text) {
			t.Errorf("%s: shown as %q", c.q, s.stmt.Text())
		}
	}
}

// located reports whether a node of n's tree has a location: a tree
// parsed from text does (0 for the text's first token), one built here
// has none (-1: noLoc).
func located(n *pg.Node) bool {
	found := false
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		fields := m.Descriptor().Fields()
		for i := 0; i < fields.Len(); i++ {
			if fd := fields.Get(i); strings.HasSuffix(string(fd.Name()), "location") && fd.Kind() == protoreflect.Int32Kind {
				found = found || m.Get(fd).Int() >= 0
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	walk(n.ProtoReflect())
	return found
}

// shown is a step's tree written out (deparsed) as PostgreSQL text; ""
// when it is answered here.
func shown(t *testing.T, s step) string {
	if s.stmt == nil {
		return ""
	}
	one, err := pg.Parse("SELECT 1") // for the version the deparser wants
	if err != nil {
		t.Fatal(err)
	}
	text, err := pg.Deparse(&pg.ParseResult{Version: one.Version, Stmts: []*pg.RawStmt{{Stmt: s.stmt.Node}}})
	if err != nil {
		t.Fatalf("%s: %v", s.text, err)
	}
	return text
}

// TestHexForms: the forms in which a statement's text writes its
// hexadecimal literals, by their bytes; what is quoted, commented or
// part of a name is not one.
func TestHexForms(t *testing.T) {
	for _, c := range []struct {
		q     string
		forms map[string]int
	}{
		{"SELECT 0x41, x'42', X'43'", map[string]int{"41": hexNumber, "42": hexString, "43": hexString}},
		{"SELECT 0x141 + 0xAb", map[string]int{"0141": hexNumber, "ab": hexNumber}},
		{"SELECT 0x41, x'41'", map[string]int{"41": hexNumber | hexString}},
		{"SELECT '0x41', \"x'42'\", `0x43`, 'it''s 0x44', 'a\\' 0x45' -- 0x46\n # x'47'\n /* 0x48 */", map[string]int{}},
		{"SELECT /*!0x49*/ a0x4A, 0x4Bz, _binary x'4C'", map[string]int{"49": hexNumber, "4c": hexString}},
	} {
		if forms, _ := literalForms(c.q, true); fmt.Sprint(forms) != fmt.Sprint(c.forms) {
			t.Errorf("%s: %v, want %v", c.q, forms, c.forms)
		}
	}
}

// TestFloatForms: a statement's DOUBLE literals as it writes them, by
// their values; two texts of one value are neither.
func TestFloatForms(t *testing.T) {
	for _, c := range []struct {
		q      string
		floats map[float64]string
	}{
		{"SELECT 1e19 DIV 1, -1.5E-3, .5e2, 2.e1", map[float64]string{1e19: "1e19", 1.5e-3: "1.5E-3", 50: ".5e2", 20: "2.e1"}},
		{"SELECT 1e19, 10e18, 1e19", map[float64]string{1e19: ""}},
		{"SELECT 1.5, 15, 0x1e2, '1e3', `1e4`, a1e5, 1e6x -- 1e7\n", map[float64]string{}},
		{"SELECT 1e, 1e+", map[float64]string{}},
	} {
		if _, floats := literalForms(c.q, true); fmt.Sprint(floats) != fmt.Sprint(c.floats) {
			t.Errorf("%s: %v, want %v", c.q, floats, c.floats)
		}
	}
}

func TestTrailingCommentsOff(t *testing.T) {
	for in, want := range map[string]string{
		"2 /* c */":           "2",
		"6 # hash":            "6",
		"6 -- x":              "6",
		"6 --x":               "6 --x",
		"1 /* c */ + 1":       "1 /* c */ + 1",
		"'a /* b */' /* c */": "'a /* b */'",
		"'it''s' -- x\n":      "'it''s'",
		"`a#b` # c":           "`a#b`",
		"'a\\' # b' # c":      "'a\\' # b'",
		"1 /*! 2 */":          "1 /*! 2 */",
		"3 /* open":           "3",
		"x - -1 --":           "x - -1",
	} {
		if got := trailingCommentsOff(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
