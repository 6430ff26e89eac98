package catalog

import (
	"github.com/pingcap/tidb/pkg/parser"

	"github.com/seqd/seqd/eval"
)

// keywordRows are MySQL's information_schema.KEYWORDS' rows: the words
// of the parser that reads seqd's MySQL statements, TiDB's, as it lists
// them (parser.Keywords: its reserved and unreserved words and TiDB's
// own), in its order. MariaDB 10.11 lists its own parser's, operators
// among them; the words both list are most of each's.
var keywordRows = func() [][]eval.Datum {
	out := make([][]eval.Datum, len(parser.Keywords))
	for i, k := range parser.Keywords {
		out[i] = []eval.Datum{eval.Text(k.Word)}
	}
	return out
}()

// MySQLFunctions are the functions of MariaDB 10.11's
// information_schema.SQL_FUNCTIONS that seqd's MySQL front end answers,
// in MariaDB's order: SQL_FUNCTIONS' rows. Like MariaDB's, the list
// leaves out the functions its grammar reads as keywords (IF, LEFT,
// REPEAT, NEXTVAL, ...; KEYWORDS lists those). mysqlwire's
// TestSQLFunctionsOffered calls each of MariaDB's functions on seqd: a
// function here is answered, any other refused.
var MySQLFunctions = []string{
	"BIT_AND", "BIT_OR", "BIT_XOR", "CAST", "COUNT", "GROUP_CONCAT", "MAX", "MID", "MIN", "POSITION", "SESSION_USER", "STD", "STDDEV", "STDDEV_POP",
	"STDDEV_SAMP", "SUBSTR", "SUBSTRING", "SUM", "SYSTEM_USER", "TRIM", "VARIANCE", "VAR_POP", "VAR_SAMP", "ABS", "BINLOG_GTID_POS", "BIT_LENGTH", "CEIL", "CEILING", "CHARACTER_LENGTH", "CHAR_LENGTH",
	"COALESCE", "CONCAT", "CONCAT_WS", "CONNECTION_ID", "DATABASE", "ELT", "FIELD", "FIND_IN_SET", "FLOOR", "GREATEST",
	"HEX", "IFNULL", "INSTR", "ISNULL", "LAST_INSERT_ID", "LCASE", "LEAST", "LENGTH", "LOCATE", "LOWER", "LPAD",
	"LTRIM", "MOD", "NULLIF", "OCTET_LENGTH", "ORD", "REVERSE", "ROUND", "RPAD", "RTRIM", "SCHEMA", "SPACE", "STRCMP",
	"SUBSTRING_INDEX", "UCASE", "UPPER", "VERSION",
}

// wordViews are KEYWORDS and SQL_FUNCTIONS.
func wordViews() []*View {
	functions := make([][]eval.Datum, len(MySQLFunctions))
	for i, f := range MySQLFunctions {
		functions[i] = []eval.Datum{eval.Text(f)}
	}
	return []*View{
		{Schema: "information_schema", Name: "keywords", Kind: 'v', Columns: mariadbColumns("keywords"),
			Rows: func(Source) ([][]eval.Datum, error) { return keywordRows, nil }},
		{Schema: "information_schema", Name: "sql_functions", Kind: 'v', Columns: mariadbColumns("sql_functions"),
			Rows: func(Source) ([][]eval.Datum, error) { return functions, nil }},
	}
}
