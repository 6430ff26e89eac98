package mysqlwire

import (
	"strconv"
	"strings"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/seqd/seqd/catalog"
)

// A result column's type is told as MariaDB 10.11 tells it, from the
// MySQL expression (exprType) or the table column it reads, not from
// the PostgreSQL type the executor computes it in: a table's column
// keeps its declared type (a sequence's BIGINT(21) NOT NULL, its
// cycle_option TINYINT(1) UNSIGNED, information_schema's VARCHAR(64)),
// described without BINARY_FLAG; an expression's carries BINARY_FLAG
// when it is a number and is nullable unless MariaDB knows it is not
// (exprtypes.go derives an operator's or function's type from its
// operands'). An expression not told there is described by its
// PostgreSQL type (fieldType).

// Types MariaDB's columns have.
var (
	// tBigint is a table's BIGINT(21) NOT NULL.
	tBigint = colType{typ: querypb.Type_INT64, length: 21, notNull: true, stored: true, known: true}
	// tSequenceValue is NEXT VALUE FOR's, LASTVAL's and SETVAL's: a
	// nullable BIGINT expression.
	tSequenceValue = colType{typ: querypb.Type_INT64, length: 20}
	// tCount is COUNT's.
	tCount = colType{typ: querypb.Type_INT64, length: 21, notNull: true}
)

// longtext is a table's LONGTEXT column in utf8mb4 (information_schema's
// COLUMN_TYPE, SHOW COLUMNS' Type and Default).
func longtext(notNull bool) colType {
	return colType{typ: querypb.Type_TEXT, length: 1<<32 - 1, notNull: notNull, stored: true, known: true}
}

// varchar is a table's VARCHAR(n) column in utf8mb4.
func varchar(n uint32, notNull bool) colType {
	return colType{typ: querypb.Type_VARCHAR, length: 4 * n, notNull: notNull, stored: true, known: true}
}

// textExpr is a string expression of n characters.
func textExpr(n uint32, notNull bool) colType {
	return colType{typ: querypb.Type_VARCHAR, length: 4 * n, decimals: decString, notNull: notNull, known: true}
}

// sequenceColumnTypes are the types of MariaDB's columns of a sequence
// read as a table (catalog.MariaDBSequenceColumns's order).
var sequenceColumnTypes = func() []colType {
	cache := tBigint
	cache.typ = querypb.Type_UINT64
	cycle := colType{typ: querypb.Type_UINT8, length: 1, notNull: true, stored: true, known: true}
	return []colType{tBigint, tBigint, tBigint, tBigint, tBigint, cache, cycle, tBigint}
}()

// infoColumnTypes are the types of the columns of information_schema's
// tables as MariaDB 10.11 declares them (its information_schema.COLUMNS),
// by table and upper-case column name. SEQUENCES is TiDB's table, which
// MariaDB has not: its columns are described by their PostgreSQL types.
var infoColumnTypes = func() map[string]map[string]colType {
	unsigned := colType{typ: querypb.Type_UINT64, length: 21, stored: true, known: true}
	datetime := colType{typ: querypb.Type_DATETIME, length: 19, stored: true, known: true, binary: true}
	m := map[string]map[string]colType{
		"schemata": {"CATALOG_NAME": varchar(512, true), "SCHEMA_NAME": varchar(64, true), "DEFAULT_CHARACTER_SET_NAME": varchar(32, true),
			"DEFAULT_COLLATION_NAME": varchar(64, true), "SQL_PATH": varchar(512, false), "SCHEMA_COMMENT": varchar(1024, true)},
		"tables": {"TABLE_CATALOG": varchar(512, true), "TABLE_SCHEMA": varchar(64, true), "TABLE_NAME": varchar(64, true),
			"TABLE_TYPE": varchar(64, true), "ENGINE": varchar(64, false), "VERSION": unsigned, "ROW_FORMAT": varchar(10, false),
			"TABLE_ROWS": unsigned, "AVG_ROW_LENGTH": unsigned, "DATA_LENGTH": unsigned, "MAX_DATA_LENGTH": unsigned,
			"INDEX_LENGTH": unsigned, "DATA_FREE": unsigned, "AUTO_INCREMENT": unsigned, "CREATE_TIME": datetime,
			"UPDATE_TIME": datetime, "CHECK_TIME": datetime, "TABLE_COLLATION": varchar(64, false), "CHECKSUM": unsigned,
			"CREATE_OPTIONS": varchar(2048, false), "TABLE_COMMENT": varchar(2048, true), "MAX_INDEX_LENGTH": unsigned,
			"TEMPORARY": varchar(1, false)},
	}
	for _, table := range catalog.MariaDBTables() {
		m[table] = map[string]colType{}
		for _, c := range catalog.MariaDBColumns(table) {
			m[table][c.Name] = declaredType(c.Type, c.NotNull)
		}
	}
	return m
}()

// declaredType is the type of a table's column MariaDB declares as decl
// (information_schema.COLUMNS' COLUMN_TYPE: varchar(n), longtext,
// bigint(n) [unsigned], int(n), datetime[(p)]).
func declaredType(decl string, notNull bool) colType {
	name, arg, _ := strings.Cut(strings.TrimSuffix(decl, " unsigned"), "(")
	n, _ := strconv.Atoi(strings.TrimSuffix(arg, ")"))
	t := colType{length: uint32(n), notNull: notNull, stored: true, known: true}
	switch name {
	case "varchar":
		return varchar(uint32(n), notNull)
	case "longtext":
		// information_schema's LONGTEXT is MariaDB's Longtext(65535):
		// described as 196605 characters (its wire's 589815 bytes of
		// utf8mb3), not LONGTEXT's 4 GiB.
		t := longtext(notNull)
		t.length = 4 * 196605
		return t
	case "bigint":
		t.typ = querypb.Type_INT64
		if strings.HasSuffix(decl, " unsigned") {
			t.typ = querypb.Type_UINT64
		}
	case "int":
		t.typ = querypb.Type_INT32
		if strings.HasSuffix(decl, " unsigned") {
			t.typ = querypb.Type_UINT32
		}
	case "tinyint":
		t.typ = querypb.Type_INT8
	case "decimal": // decimal(p,s): p digits, s past the point, a sign and the point
		p, sc, _ := strings.Cut(strings.TrimSuffix(arg, ")"), ",")
		digits, _ := strconv.Atoi(p)
		scale, _ := strconv.Atoi(sc)
		t.typ, t.length, t.decimals = querypb.Type_DECIMAL, uint32(digits+2), uint8(scale)
	case "blob":
		t.typ, t.length, t.binary = querypb.Type_BLOB, 1<<16-1, true
	case "datetime":
		t.typ, t.binary, t.decimals, t.length = querypb.Type_DATETIME, true, uint8(n), 19
		if n > 0 {
			t.length += 1 + uint32(n)
		}
	}
	return t
}

// infoTypes are the types of table's columns, in the order cols names
// them; nil where one is not known.
func infoTypes(table string, cols []string) []colType {
	m, ok := infoColumnTypes[table]
	if !ok {
		return nil
	}
	out := make([]colType, len(cols))
	for i, c := range cols {
		if out[i], ok = m[strings.ToUpper(c)]; !ok {
			return nil
		}
	}
	return out
}

// exprType is x's type as MariaDB types it, in a select list typed over
// scope (its FROM clause's sources, the builder's typed subqueries);
// false where it is not told here.
func exprType(x ast.ExprNode, scope typeScope) (colType, bool) {
	t, ok := exprTypeOf(x, scope)
	t.known = ok
	return t, ok
}

func exprTypeOf(x ast.ExprNode, scope typeScope) (colType, bool) {
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return exprTypeOf(x.Expr, scope)
	case *ast.ColumnNameExpr:
		return scope.column(x.Name)
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case ast.NextVal, ast.LastVal, ast.SetVal:
			return tSequenceValue, true
		case "database", "schema":
			return textExpr(64, false), true
		case "version":
			return textExpr(64, true), true
		case "user", "current_user", "session_user", "system_user":
			return textExpr(64, false), true
		}
		if strings.HasPrefix(x.FnName.L, renamedPrefix) { // PREVIOUS VALUE FOR, SETVAL
			return tSequenceValue, true
		}
	case *ast.PatternLikeOrIlikeExpr:
		return truthOf(scope.notNull(x.Expr, x.Pattern)), true
	case *ast.IsNullExpr, *ast.IsTruthExpr:
		return truthOf(true), true
	case *ast.AggregateFuncExpr:
		if strings.EqualFold(x.F, ast.AggFuncCount) {
			return tCount, true
		}
	case *driver.ValueExpr:
		return literalType(x)
	}
	return scope.of(x)
}

// literalType is a literal's type: an integer's LONG, or LONGLONG past
// nine characters (UNSIGNED past 2^63 - 1); a decimal's DECIMAL of its
// digits; a DOUBLE's, its decimals not fixed; a string's VARCHAR; a
// hexadecimal or bit literal's binary VARCHAR, UNSIGNED; NULL's NULL.
func literalType(x *driver.ValueExpr) (colType, bool) {
	t, ok := writtenType(x)
	if ok && x.Type.GetFlag()&boundFlag != 0 && x.Kind() != driver.KindNull {
		t = boundType(x, t)
	}
	if x.Type.GetFlag()&userVarFlag != 0 {
		t, ok = userVarType(x), true
	}
	return t, ok
}

// writtenType is literalType of a literal written in the statement.
func writtenType(x *driver.ValueExpr) (colType, bool) {
	switch x.Kind() {
	case driver.KindNull:
		return colType{typ: querypb.Type_NULL_TYPE}, true
	case driver.KindInt64:
		n := x.GetInt64()
		digits := len(strconv.FormatInt(n, 10)) // with its sign
		t := intType(digits, false, true)
		t.prec = uint8(len(strconv.FormatUint(uint64(max(n, -n)), 10)))
		return t, true
	case driver.KindUint64:
		digits := len(strconv.FormatUint(x.GetUint64(), 10))
		t := intType(digits, true, true)
		t.prec = uint8(digits)
		return t, true
	case driver.KindMysqlDecimal:
		d := strings.TrimPrefix(x.GetMysqlDecimal().String(), "-")
		whole, frac, _ := strings.Cut(d, ".")
		whole = strings.TrimLeft(whole, "0")
		return decimalType(len(whole)+len(frac), len(frac), false, true), true
	case driver.KindFloat32, driver.KindFloat64:
		return doubleType(notFixedDec, true), true
	case driver.KindString:
		if x.Type.GetCharset() == "binary" { // x'41' read as a string (readAsNumber)
			return colType{typ: querypb.Type_VARCHAR, length: uint32(len(x.GetString())), notNull: true, binary: true, unsigned: true}, true
		}
		return textExpr(uint32(len([]rune(x.GetString()))), true), true
	case driver.KindBinaryLiteral, driver.KindMysqlBit:
		return colType{typ: querypb.Type_VARCHAR, length: uint32(len(x.GetBinaryLiteral())), notNull: true, binary: true, unsigned: true}, true
	}
	return colType{}, false
}

// columnType is the type of the column name in sources: a table's
// column as declared (nullable when an outer join may leave it NULL).
func columnType(name *ast.ColumnName, sources []source) (colType, bool) {
	t, _, ok := columnIn(name, sources)
	return t, ok
}

// column is the type of the column name of the nearest query in scope
// whose sources have it: its own FROM clause's, else that of a query
// around it (a correlated subquery's reference).
func (e typeScope) column(name *ast.ColumnName) (colType, bool) {
	if t, found, ok := columnIn(name, e.sources); found {
		return t, ok
	}
	for _, sources := range e.outer {
		if t, found, ok := columnIn(name, sources); found {
			return t, ok
		}
	}
	return colType{}, false
}

// columnIn is columnType; found reports whether any of sources has the
// column, told or not.
func columnIn(name *ast.ColumnName, sources []source) (t colType, found, ok bool) {
	n := 0
	for _, s := range sources {
		if name.Table.O != "" && !strings.EqualFold(s.name, name.Table.O) {
			continue
		}
		for i, c := range s.cols {
			if strings.EqualFold(c, name.Name.O) {
				if i >= len(s.types) || !s.types[i].known {
					return colType{}, true, false
				}
				t, n = s.types[i], n+1
				if s.nullable {
					t.notNull = false
				}
			}
		}
	}
	return t, n > 0, n == 1
}
