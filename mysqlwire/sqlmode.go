package mysqlwire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	tmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
	"github.com/seqd/seqd/internal/vitess/mysql"
)

// sql_mode, as MariaDB 10.11 keeps it: a set of flags, SET by their
// names (any case, comma-separated, empty items skipped; a hexadecimal
// or bit literal is the bytes of the names) or by the number whose bits
// they are, shown by their names in the order of their bits.
// A mode that names others (ANSI, TRADITIONAL, POSTGRESQL, ...) sets them
// too. Anything else is 1231 (a name or number not a mode's, NULL) or
// 1232 (a number not an integer), and the mode is left as it was.
//
// What seqd does with each:
//
//   - PIPES_AS_CONCAT, ANSI_QUOTES, IGNORE_SPACE, HIGH_NOT_PRECEDENCE and
//     NO_BACKSLASH_ESCAPES change how a statement is read: the
//     connection's parser reads with them, as MariaDB's does (|| is
//     CONCAT, "x" a name, ...), and a translation kept for a text is
//     kept for the modes it was read with (planKey).
//   - ANSI_QUOTES, NO_TABLE_OPTIONS, MYSQL323 and MYSQL40 change SHOW
//     CREATE's text (showCreate), as MariaDB's.
//   - ORACLE and EMPTY_STRING_IS_NULL change what statements mean beyond
//     their reading (CONCAT of NULL, '' read as NULL, Oracle's grammar):
//     seqd refuses them (1235) rather than answer otherwise than MariaDB.
//   - The others are kept and shown and change nothing seqd answers:
//     they concern writing tables (the strict modes, zero dates,
//     division by zero, NO_AUTO_VALUE_ON_ZERO, SIMULTANEOUS_ASSIGNMENT),
//     CREATE TABLE (NO_DIR_IN_CREATE, IGNORE_BAD_TABLE_OPTIONS,
//     NO_ENGINE_SUBSTITUTION, REAL_AS_FLOAT, PAD_CHAR_TO_FULL_LENGTH)
//     or accounts (NO_AUTO_CREATE_USER). Without a strict mode MariaDB
//     types a string function of NOT NULL arguments NOT NULL (its value
//     past max_allowed_packet is NULL still), and so does seqd
//     (stmtEnv's lenient).
//     TIME_ROUND_FRACTIONAL has no temporal values here to act on,
//     NO_KEY_OPTIONS and NO_FIELD_OPTIONS nothing in a sequence's SHOW
//     CREATE.
//   - ONLY_FULL_GROUP_BY has the builder refuse a column of the select
//     list neither grouped nor aggregated, as MariaDB does (1055, 1140:
//     build_select.go's fullGroupBy), and NO_UNSIGNED_SUBTRACTION types
//     a subtraction of an unsigned integer signed (arithmeticType), which
//     eval's seqd_mariadb_arith then refuses past BIGINT's range, not
//     below 0; a translation is kept for them as for the modes the parser
//     reads with.

// sqlModeNames are the flags, bit i named sqlModeNames[i].
var sqlModeNames = [...]string{
	"REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "IGNORE_BAD_TABLE_OPTIONS", "ONLY_FULL_GROUP_BY",
	"NO_UNSIGNED_SUBTRACTION", "NO_DIR_IN_CREATE", "POSTGRESQL", "ORACLE", "MSSQL", "DB2", "MAXDB", "NO_KEY_OPTIONS",
	"NO_TABLE_OPTIONS", "NO_FIELD_OPTIONS", "MYSQL323", "MYSQL40", "ANSI", "NO_AUTO_VALUE_ON_ZERO", "NO_BACKSLASH_ESCAPES",
	"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ALLOW_INVALID_DATES",
	"ERROR_FOR_DIVISION_BY_ZERO", "TRADITIONAL", "NO_AUTO_CREATE_USER", "HIGH_NOT_PRECEDENCE", "NO_ENGINE_SUBSTITUTION",
	"PAD_CHAR_TO_FULL_LENGTH", "EMPTY_STRING_IS_NULL", "SIMULTANEOUS_ASSIGNMENT", "TIME_ROUND_FRACTIONAL",
}

// sqlMode is a set of sql_mode's flags.
type sqlMode uint64

// mode is the flag named name (upper case); 0 for none.
func mode(name string) sqlMode {
	for i, n := range sqlModeNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

var (
	modePipesAsConcat   = mode("PIPES_AS_CONCAT")
	modeANSIQuotes      = mode("ANSI_QUOTES")
	modeIgnoreSpace     = mode("IGNORE_SPACE")
	modeHighNot         = mode("HIGH_NOT_PRECEDENCE")
	modeNoBackslash     = mode("NO_BACKSLASH_ESCAPES")
	modeOnlyFullGroupBy = mode("ONLY_FULL_GROUP_BY")
	modeNoUnsignedSub   = mode("NO_UNSIGNED_SUBTRACTION")
	modeStrictTrans     = mode("STRICT_TRANS_TABLES")
	modeStrictAll       = mode("STRICT_ALL_TABLES")
	modeNoTableOptions  = mode("NO_TABLE_OPTIONS")
	modeMySQL323        = mode("MYSQL323")
	modeMySQL40         = mode("MYSQL40")
	modeOracle          = mode("ORACLE")
	modeEmptyStringNull = mode("EMPTY_STRING_IS_NULL")
	allModes            = sqlMode(1)<<len(sqlModeNames) - 1
)

// modesOf are the flags each mode that names others sets besides itself.
var modesOf = func() map[sqlMode]sqlMode {
	set := func(names ...string) sqlMode {
		var m sqlMode
		for _, n := range names {
			m |= mode(n)
		}
		return m
	}
	asOthers := set("PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "NO_KEY_OPTIONS", "NO_TABLE_OPTIONS", "NO_FIELD_OPTIONS")
	return map[sqlMode]sqlMode{
		mode("POSTGRESQL"):  asOthers,
		mode("ORACLE"):      asOthers | set("NO_AUTO_CREATE_USER", "SIMULTANEOUS_ASSIGNMENT"),
		mode("MSSQL"):       asOthers,
		mode("DB2"):         asOthers,
		mode("MAXDB"):       asOthers | set("NO_AUTO_CREATE_USER"),
		mode("MYSQL323"):    set("HIGH_NOT_PRECEDENCE"),
		mode("MYSQL40"):     set("HIGH_NOT_PRECEDENCE"),
		mode("ANSI"):        set("REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE"),
		mode("TRADITIONAL"): set("STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ERROR_FOR_DIVISION_BY_ZERO", "NO_AUTO_CREATE_USER", "NO_ENGINE_SUBSTITUTION"),
	}
}()

// expand is m with what its modes name.
func (m sqlMode) expand() sqlMode {
	for k, v := range modesOf {
		if m&k != 0 {
			m |= v
		}
	}
	return m
}

// String is m as @@sql_mode shows it.
func (m sqlMode) String() string {
	var names []string
	for i, n := range sqlModeNames {
		if m&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ",")
}

// parser is the TiDB parser's mode for m: the flags that change how a
// statement is read, and ONLY_FULL_GROUP_BY, which changes what the
// builder refuses (a translation is kept by this mode: planKey).
func (m sqlMode) parser() tmysql.SQLMode {
	var p tmysql.SQLMode
	for _, f := range []struct {
		m sqlMode
		p tmysql.SQLMode
	}{
		{modePipesAsConcat, tmysql.ModePipesAsConcat}, {modeANSIQuotes, tmysql.ModeANSIQuotes},
		{modeIgnoreSpace, tmysql.ModeIgnoreSpace}, {modeHighNot, tmysql.ModeHighNotPrecedence},
		{modeNoBackslash, tmysql.ModeNoBackslashEscapes}, {modeOnlyFullGroupBy, tmysql.ModeOnlyFullGroupBy},
		{modeNoUnsignedSub, tmysql.ModeNoUnsignedSubtraction},
	} {
		if m&f.m != 0 {
			p |= f.p
		}
	}
	return p
}

// quote is name quoted as SHOW CREATE quotes it: with ", ANSI_QUOTES
// set, else with `.
func (m sqlMode) quote(name string) string {
	if m&modeANSIQuotes != 0 {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return quoteName(name)
}

// defaultSQLMode is MariaDB 10.11's default.
const defaultSQLMode = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"

// sqlModeError is MariaDB's 1231 for sql_mode set to v.
func sqlModeError(v string) error {
	return mysql.NewSQLError(1231, "42000", "Variable 'sql_mode' can't be set to the value of '%s'", v)
}

// parseSQLMode is the mode SET sql_mode = x sets: its names (text,
// as cn.setValue gives it) or its number.
func parseSQLMode(x ast.ExprNode, text string) (sqlMode, error) {
	if u, ok := x.(*ast.UnaryOperationExpr); ok {
		if v, ok := u.V.(ast.ValueExpr); ok && u.Op == opcode.Minus {
			return 0, sqlModeError(fmt.Sprint("-", v.GetValue()))
		}
		return 0, unsupported("an expression as a variable's value")
	}
	binary := false
	if v, ok := x.(ast.ValueExpr); ok {
		switch n := v.GetValue().(type) {
		case nil:
			return 0, sqlModeError("NULL")
		case int64:
			if n < 0 || sqlMode(n)&^allModes != 0 {
				return 0, sqlModeError(strconv.FormatInt(n, 10))
			}
			return sqlMode(n).expand(), nil
		case uint64:
			return 0, sqlModeError(strconv.FormatUint(n, 10))
		case string:
		case driver.BinaryLiteral: // 0x..., x'...', b'...': MariaDB reads their bytes as names
			text, binary = string(n), true
		default:
			return 0, mysql.NewSQLError(1232, "42000", "Incorrect argument type to variable 'sql_mode'")
		}
	}
	var m sqlMode
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimRight(item, " ") // MariaDB's own reading: a space before a name is not
		if item == "" {
			continue
		}
		f := mode(strings.ToUpper(item))
		if f == 0 {
			if binary {
				item = escapedBytes(item)
			}
			return 0, sqlModeError(item)
		}
		m |= f
	}
	return m.expand(), nil
}

// escapedBytes is b as MariaDB's messages show a binary string: each
// byte that is not printable ASCII as \xNN.
func escapedBytes(b string) string {
	var out strings.Builder
	for i := 0; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c >= 0x7F {
			fmt.Fprintf(&out, "\\x%02X", c)
		} else {
			out.WriteByte(c)
		}
	}
	return out.String()
}

// sqlModeRefused is the error for a mode seqd does not serve (1235).
func sqlModeRefused(m sqlMode) error {
	for _, f := range []sqlMode{modeOracle, modeEmptyStringNull} {
		if m&f != 0 {
			return mysql.NewSQLError(1235, "42000", "seqd does not support sql_mode %s over MySQL's protocol: it changes what statements mean in ways seqd does not follow", f)
		}
	}
	return nil
}
