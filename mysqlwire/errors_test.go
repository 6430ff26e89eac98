package mysqlwire

import (
	"testing"

	"github.com/seqd/seqd/sqlerr"
)

// TestStructuredErrors: the executor's errors that carry what MariaDB's
// words need (sqlerr.Error's fields) get MariaDB's number, SQLSTATE and
// text, whatever PostgreSQL's message says; the live comparison is the
// selects oracle's.
func TestStructuredErrors(t *testing.T) {
	pgErr := func(k sqlerr.Kind, edit func(e *sqlerr.Error)) error {
		e := sqlerr.Errorf(k, "PostgreSQL's words")
		edit(e)
		return e
	}
	for _, c := range []struct {
		err    error
		number int
		state  string
		msg    string
	}{
		{pgErr(sqlerr.UndefinedColumn, func(e *sqlerr.Error) { e.InClause("s.nope", sqlerr.ClauseWhere) }),
			1054, "42S22", "Unknown column 's.nope' in 'WHERE'"},
		{pgErr(sqlerr.UndefinedTable, func(e *sqlerr.Error) { e.InClause("x.a", sqlerr.ClauseSelectList) }),
			1054, "42S22", "Unknown column 'x.a' in 'SELECT'"},
		{pgErr(sqlerr.UndefinedTable, func(e *sqlerr.Error) { e.InClause("x.a", sqlerr.ClauseOrderBy); e.Alias = "x" }),
			1109, "42S02", "Unknown table 'x' in ORDER BY"},
		{pgErr(sqlerr.InvalidColumnReference, func(e *sqlerr.Error) { e.InClause("2", sqlerr.ClauseGroupBy) }),
			1054, "42S22", "Unknown column '2' in 'GROUP BY'"},
		{pgErr(sqlerr.AmbiguousColumn, func(e *sqlerr.Error) { e.InClause("a", sqlerr.ClauseOn) }),
			1052, "23000", "Column 'a' in ON is ambiguous"},
		{pgErr(sqlerr.GroupingError, func(e *sqlerr.Error) { e.InClause("a", sqlerr.ClauseHaving) }),
			1054, "42S22", "Unknown column 'a' in 'HAVING'"},
		{pgErr(sqlerr.GroupingError, func(e *sqlerr.Error) { e.InClause("c", sqlerr.ClauseGroupBy) }),
			1056, "42000", "Can't group on 'c'"},
		{pgErr(sqlerr.GroupingError, func(*sqlerr.Error) {}), 1111, "HY000", "Invalid use of group function"},
		{pgErr(sqlerr.DuplicateAlias, func(e *sqlerr.Error) { e.Alias = "a" }), 1066, "42000", "Not unique table/alias: 'a'"},
		{pgErr(sqlerr.SyntaxError, func(e *sqlerr.Error) { e.ColumnsWanted = 1 }), 1241, "21000", "Operand should contain 1 column(s)"},
		{pgErr(sqlerr.SyntaxError, func(e *sqlerr.Error) { e.SetOperation = "UNION" }),
			1222, "21000", "The used SELECT statements have a different number of columns"},
		{pgErr(sqlerr.FeatureNotSupported, func(e *sqlerr.Error) { e.Table = "s1" }),
			1250, "42000", "Table 's1' from one of the SELECTs cannot be used in ORDER BY"},
	} {
		got := toSQLError(c.err)
		if got.Number() != c.number || got.SQLState() != c.state || got.Message != c.msg {
			t.Errorf("%+v: %d %s %q, want %d %s %q", c.err, got.Number(), got.SQLState(), got.Message, c.number, c.state, c.msg)
		}
	}
}

// TestStepErrors: what a statement's own text tells (a function's name
// and a column's as written, the current database) names them in its
// errors as MariaDB does.
func TestStepErrors(t *testing.T) {
	st := &step{db: "app", calls: []calledFunc{{"octet_length", "Length"}, {"nofunc", "NoFunc"}},
		columns: map[string]string{"s.nope": "s.NoPe"}}
	wrongCount := sqlerr.Errorf(sqlerr.UndefinedFunction, "function octet_length() does not exist")
	wrongCount.Function, wrongCount.WrongArgCount = "octet_length", true
	missing := sqlerr.Errorf(sqlerr.UndefinedFunction, "function nofunc(integer) does not exist")
	missing.Function = "nofunc"
	star := sqlerr.Errorf(sqlerr.UndefinedTable, "missing FROM-clause entry for table \"x\"")
	star.Table = "x"
	column := sqlerr.Errorf(sqlerr.UndefinedColumn, "column s.nope does not exist").InClause("s.nope", sqlerr.ClauseWhere)
	for _, c := range []struct {
		err error
		msg string
	}{
		{wrongCount, "Incorrect parameter count in the call to native function 'Length'"},
		{missing, "FUNCTION app.NoFunc does not exist"},
		{star, "Unknown table 'app.x'"},
		{column, "Unknown column 's.NoPe' in 'WHERE'"},
	} {
		if got := toSQLError(st.tableErr(st.callErr(st.columnErr(c.err)))); got.Message != c.msg {
			t.Errorf("%v: %q, want %q", c.err, got.Message, c.msg)
		}
	}
}
