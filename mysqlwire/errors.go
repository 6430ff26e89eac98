package mysqlwire

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// myError is an error kind's MySQL error number and SQLSTATE, as MariaDB
// 10.11 reports the same failure.
type myError struct {
	number uint16
	state  string
}

// myErrors maps error kinds to MySQL's codes: the one table where seqd
// chooses them (pgwire/errors.go is PostgreSQL's). A kind not here is
// ER_UNKNOWN_ERROR.
var myErrors = map[sqlerr.Kind]myError{
	sqlerr.SyntaxError:                  {1064, "42000"}, // ER_PARSE_ERROR
	sqlerr.FeatureNotSupported:          {1235, "42000"}, // ER_NOT_SUPPORTED_YET
	sqlerr.UndefinedTable:               {4091, "42S02"}, // ER_UNKNOWN_SEQUENCES: the relations here are sequences
	sqlerr.UndefinedColumn:              {1054, "42S22"}, // ER_BAD_FIELD_ERROR
	sqlerr.UndefinedFunction:            {1305, "42000"}, // ER_SP_DOES_NOT_EXIST
	sqlerr.InvalidSavepoint:             {1305, "42000"}, // ER_SP_DOES_NOT_EXIST: "SAVEPOINT %s does not exist"
	sqlerr.UndefinedSchema:              {1049, "42000"}, // ER_BAD_DB_ERROR
	sqlerr.UndefinedDatabase:            {1049, "42000"},
	sqlerr.DuplicateTable:               {1050, "42S01"}, // ER_TABLE_EXISTS_ERROR
	sqlerr.DuplicateSchema:              {1007, "HY000"}, // ER_DB_CREATE_EXISTS
	sqlerr.SequenceLimitExceeded:        {4084, "HY000"}, // ER_SEQUENCE_RUN_OUT
	sqlerr.InvalidParameterValue:        {4085, "HY000"}, // ER_SEQUENCE_INVALID_DATA
	sqlerr.NumericValueOutOfRange:       {1264, "22003"}, // ER_WARN_DATA_OUT_OF_RANGE
	sqlerr.InsufficientPrivilege:        {1142, "42000"}, // ER_TABLEACCESS_DENIED_ERROR
	sqlerr.ReadOnlyTransaction:          {1792, "25006"}, // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
	sqlerr.QueryCanceled:                {1317, "70100"}, // ER_QUERY_INTERRUPTED
	sqlerr.LockNotAvailable:             {1205, "HY000"}, // ER_LOCK_WAIT_TIMEOUT
	sqlerr.DeadlockDetected:             {1213, "40001"}, // ER_LOCK_DEADLOCK
	sqlerr.SerializationFailure:         {1213, "40001"},
	sqlerr.OutOfMemory:                  {1041, "HY000"}, // ER_OUT_OF_RESOURCES
	sqlerr.ProgramLimitExceeded:         {1041, "HY000"},
	sqlerr.StatementTooComplex:          {1436, "HY000"}, // ER_STACK_OVERRUN_NEED_MORE
	sqlerr.TooManyConnections:           {1040, "08004"}, // ER_CON_COUNT_ERROR
	sqlerr.AdminShutdown:                {1053, "08S01"}, // ER_SERVER_SHUTDOWN
	sqlerr.DiskFull:                     {1021, "HY000"}, // ER_DISK_FULL
	sqlerr.IOError:                      {1030, "HY000"}, // ER_GET_ERRNO
	sqlerr.DependentObjectsStillExist:   {1451, "23000"}, // ER_ROW_IS_REFERENCED_2
	sqlerr.ObjectNotInPrerequisiteState: {1105, "HY000"},
	sqlerr.InvalidName:                  {1103, "42000"}, // ER_WRONG_TABLE_NAME
	sqlerr.NameTooLong:                  {1059, "42000"}, // ER_TOO_LONG_IDENT
	sqlerr.ActiveTransaction:            {1179, "25000"}, // ER_CANT_CHANGE_TX_CHARACTERISTICS
	sqlerr.InvalidAuthorization:         {1045, "28000"}, // ER_ACCESS_DENIED_ERROR
	sqlerr.InvalidPassword:              {1045, "28000"},
	sqlerr.DivisionByZero:               {1365, "22012"}, // ER_DIVISION_BY_ZERO
	sqlerr.CardinalityViolation:         {1242, "21000"}, // ER_SUBQUERY_NO_1_ROW
	sqlerr.InvalidDatetimeFormat:        {1292, "22007"}, // ER_TRUNCATED_WRONG_VALUE
	sqlerr.DatetimeFieldOverflow:        {1292, "22007"},
	sqlerr.DatatypeMismatch:             {1105, "HY000"},
	sqlerr.InvalidStatementName:         {1243, "HY000"}, // ER_UNKNOWN_STMT_HANDLER
	sqlerr.GroupingError:                {1111, "HY000"}, // ER_INVALID_GROUP_FUNC_USE: an aggregate where none may be (columnError: a column)
	sqlerr.DuplicateAlias:               {1066, "42000"}, // ER_NONUNIQ_TABLE
}

// columnErrors are the codes of the kinds of a failure to resolve a
// column reference (sqlerr.Error's Column set), where MariaDB's differ
// from the kind's: a qualifier that names no table (PostgreSQL's
// undefined_table) and a position past the select list are MariaDB's
// unknown column.
var columnErrors = map[sqlerr.Kind]myError{
	sqlerr.UndefinedColumn:        {1054, "42S22"}, // ER_BAD_FIELD_ERROR: "Unknown column '%s' in '%s'"
	sqlerr.UndefinedTable:         {1054, "42S22"},
	sqlerr.InvalidColumnReference: {1054, "42S22"},
	sqlerr.AmbiguousColumn:        {1052, "23000"}, // ER_NON_UNIQ_ERROR: "Column '%s' in %s is ambiguous"
}

// cantGroup is ER_WRONG_GROUP_FIELD, GROUP BY naming an aggregate of the
// select list (a grouping error's Column, in GROUP BY).
var cantGroup = myError{1056, "42000"}

// unknownTable is ER_UNKNOWN_TABLE, a column reference's qualifier in
// a query that reads no table (sqlerr.Error's Alias).
var unknownTable = myError{1109, "42S02"}

// setOperationColumns is ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT, the sides
// of a UNION, INTERSECT or EXCEPT of different numbers of columns
// (sqlerr.Error's SetOperation).
var setOperationColumns = myError{1222, "21000"}

// setOperationOrder is ER_TABLENAME_NOT_ALLOWED_HERE, a set operation's
// ORDER BY naming a column of a table (sqlerr.Error's Table).
var setOperationOrder = myError{1250, "42000"}

// operandColumns is ER_OPERAND_COLUMNS, a subquery of more columns
// (or fewer) than its place takes (sqlerr.Error's ColumnsWanted).
var operandColumns = myError{1241, "21000"}

// clauseDo is DO's list of expressions, which the executor runs as a
// select list.
const clauseDo sqlerr.Clause = "DO"

// clauseNames are the words MariaDB 10.11 names a clause with in 1054
// and 1052.
var clauseNames = map[sqlerr.Clause]string{
	clauseDo:                "DO",
	sqlerr.ClauseSelectList: "SELECT",
	sqlerr.ClauseFrom:       "FROM",
	sqlerr.ClauseOn:         "ON",
	sqlerr.ClauseWhere:      "WHERE",
	sqlerr.ClauseGroupBy:    "GROUP BY",
	sqlerr.ClauseHaving:     "HAVING",
	sqlerr.ClauseOrderBy:    "ORDER BY",
}

// columnError is err in MariaDB's words where it is a column reference
// that resolves to no column or to several (its Column set), nil
// otherwise.
func columnError(err error) *mysql.SQLError {
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Column == "" {
		return nil
	}
	clause := clauseNames[se.Clause]
	if clause == "" {
		clause = "SELECT"
	}
	if se.Kind == sqlerr.UndefinedTable && se.Alias != "" {
		// A query of no tables names one: MariaDB's ER_UNKNOWN_TABLE.
		return mysql.NewSQLError(int(unknownTable.number), unknownTable.state, "Unknown table '%s' in %s", se.Alias, clause)
	}
	e, ok := columnErrors[se.Kind]
	if se.Kind == sqlerr.GroupingError && se.Clause == sqlerr.ClauseGroupBy {
		// GROUP BY names an aggregate of the select list.
		return mysql.NewSQLError(int(cantGroup.number), cantGroup.state, "Can't group on '%s'", se.Column)
	}
	if se.Kind == sqlerr.GroupingError && se.Clause == sqlerr.ClauseHaving {
		// A column neither grouped nor in the select list is none HAVING
		// may read, in MariaDB's words an unknown one.
		e, ok = columnErrors[sqlerr.UndefinedColumn], true
	}
	if !ok {
		return nil
	}
	if e.number == 1052 {
		return mysql.NewSQLError(int(e.number), e.state, "Column '%s' in %s is ambiguous", se.Column, clause)
	}
	return mysql.NewSQLError(int(e.number), e.state, "Unknown column '%s' in '%s'", se.Column, clause)
}

// unknownError is ER_UNKNOWN_ERROR.
var unknownError = myError{1105, "HY000"}

// codes is a kind's number and SQLSTATE.
func codes(k sqlerr.Kind) myError {
	if e, ok := myErrors[k]; ok {
		return e
	}
	return unknownError
}

// toSQLError is err as MySQL's protocol reports it: its number and
// SQLSTATE from the table above, seqd's message.
func toSQLError(err error) *mysql.SQLError {
	var me *mysql.SQLError
	if errors.As(err, &me) {
		return me
	}
	if ce := columnError(err); ce != nil {
		return ce
	}
	kind := frontend.KindOf(err)
	e := codes(kind)
	msg := err.Error()
	var fe *sqlerr.Error
	if errors.As(err, &fe) {
		switch {
		case fe.SetOperation != "":
			return mysql.NewSQLError(int(setOperationColumns.number), setOperationColumns.state, "The used SELECT statements have a different number of columns")
		case kind == sqlerr.NumericValueOutOfRange && fe.Range != "":
			return mysql.NewSQLError(erDataOutOfRange, "22003", "%s value is out of range in '%s'", fe.Range, fe.Expression)
		case fe.ColumnsWanted > 0:
			return mysql.NewSQLError(int(operandColumns.number), operandColumns.state, "Operand should contain %d column(s)", fe.ColumnsWanted)
		case kind == sqlerr.FeatureNotSupported && fe.Table != "":
			return mysql.NewSQLError(int(setOperationOrder.number), setOperationOrder.state, "Table '%s' from one of the SELECTs cannot be used in ORDER BY", fe.Table)
		case kind == sqlerr.DuplicateAlias && fe.Alias != "":
			return mysql.NewSQLError(int(e.number), e.state, "Not unique table/alias: '%s'", fe.Alias)
		case kind == sqlerr.GroupingError && fe.Column == "":
			return mysql.NewSQLError(int(e.number), e.state, "Invalid use of group function")
		case kind == sqlerr.GroupingError: // a column not grouped, read outside HAVING: no error of MariaDB's
			e = unknownError
		}
	}
	var se *sqlerr.Error
	if kind == sqlerr.QueryCanceled && !errors.As(err, &se) {
		msg = "Query execution was interrupted"
		if errors.Is(err, context.DeadlineExceeded) {
			msg = eval.ErrStatementTimeout.Error()
		}
	}
	if kind == sqlerr.CardinalityViolation { // a scalar subquery's second row: MariaDB's words
		msg = "Subquery returns more than 1 row"
	}
	if m := missingRelation.FindStringSubmatch(msg); kind == sqlerr.UndefinedTable && m != nil {
		// MariaDB's words for ER_UNKNOWN_SEQUENCES, naming the
		// sequence without its database, as MariaDB does.
		msg = "Unknown SEQUENCE: '" + m[1][strings.LastIndexByte(m[1], '.')+1:] + "'"
	} else if errors.As(err, &se) && se.Hint != "" {
		msg += " (" + se.Hint + ")"
	}
	return mysql.NewSQLError(int(e.number), e.state, "%s", msg)
}

// missingRelation is the executor's message for a relation that is not
// there.
var missingRelation = regexp.MustCompile(`^relation "(.*)" does not exist$`)

// kindOf is the kind of a statement's failure err, for the metrics, whose
// class label is the kind's SQLSTATE class (sqlerr's table) on every
// protocol: seqd's errors carry their kind; a MariaDB error mysqlwire
// raises by its number (a *mysql.SQLError) is the kind myErrors gives
// that number, or for a number no kind or several have, nativeKinds'.
// A number in neither is an internal error.
func kindOf(err error) sqlerr.Kind {
	var me *mysql.SQLError
	if !errors.As(err, &me) {
		return frontend.KindOf(err)
	}
	if k, ok := numberKinds[uint16(me.Number())]; ok {
		return k
	}
	return sqlerr.InternalError
}

// nativeKinds are the kinds of the MariaDB errors mysqlwire raises by
// number that myErrors gives no kind, or several: PostgreSQL's condition
// for the same failure.
var nativeKinds = map[uint16]sqlerr.Kind{
	1008: sqlerr.UndefinedSchema,       // ER_DB_DROP_EXISTS: a database is a schema
	1041: sqlerr.ProgramLimitExceeded,  // ER_OUT_OF_RESOURCES
	1044: sqlerr.InsufficientPrivilege, // ER_DBACCESS_DENIED_ERROR
	1045: sqlerr.InvalidAuthorization,  // ER_ACCESS_DENIED_ERROR
	1046: sqlerr.UndefinedSchema,       // ER_NO_DB_ERROR: PostgreSQL's "no schema has been selected"
	1049: sqlerr.UndefinedSchema,       // ER_BAD_DB_ERROR
	1051: sqlerr.UndefinedTable,        // ER_BAD_TABLE_ERROR: t.* of a table the FROM clause has not
	1052: sqlerr.AmbiguousColumn,       // ER_NON_UNIQ_ERROR: GROUP BY, ORDER BY or HAVING naming two columns of the select list
	1055: sqlerr.GroupingError,         // ER_WRONG_FIELD_WITH_GROUP: ONLY_FULL_GROUP_BY
	1060: sqlerr.DuplicateAlias,        // ER_DUP_FIELDNAME: PostgreSQL's duplicate_column is of tables' columns
	1066: sqlerr.DuplicateAlias,        // ER_NONUNIQ_TABLE
	1094: sqlerr.InvalidParameterValue, // ER_NO_SUCH_THREAD
	1095: sqlerr.InsufficientPrivilege, // ER_KILL_DENIED_ERROR
	1105: sqlerr.InternalError,         // ER_UNKNOWN_ERROR (also every kind's myErrors lacks)
	1109: sqlerr.UndefinedTable,        // ER_UNKNOWN_TABLE
	1140: sqlerr.GroupingError,         // ER_MIX_OF_GROUP_FUNC_AND_FIELDS: ONLY_FULL_GROUP_BY
	1141: sqlerr.UndefinedObject,       // ER_NONEXISTING_GRANT: SHOW GRANTS FOR a role not there
	1146: sqlerr.UndefinedTable,        // ER_NO_SUCH_TABLE
	1193: sqlerr.UndefinedObject,       // ER_UNKNOWN_SYSTEM_VARIABLE
	1213: sqlerr.DeadlockDetected,      // ER_LOCK_DEADLOCK
	1221: sqlerr.SyntaxError,           // ER_WRONG_USAGE: PostgreSQL's "conflicting or redundant options"
	1225: sqlerr.SyntaxError,           // ER_DUP_ARGUMENT: the same
	1231: sqlerr.InvalidParameterValue, // ER_WRONG_VALUE_FOR_VAR
	1232: sqlerr.InvalidParameterValue, // ER_WRONG_TYPE_FOR_VAR
	1241: sqlerr.CardinalityViolation,  // ER_OPERAND_COLUMNS: PostgreSQL's "subquery has too many columns" is a syntax error, MariaDB's a cardinality one
	1227: sqlerr.InsufficientPrivilege, // ER_SPECIFIC_ACCESS_DENIED_ERROR
	1248: sqlerr.SyntaxError,           // ER_DERIVED_MUST_HAVE_ALIAS
	1292: sqlerr.InvalidDatetimeFormat, // ER_TRUNCATED_WRONG_VALUE
	1305: sqlerr.InvalidSavepoint,      // ER_SP_DOES_NOT_EXIST: raised by number for a savepoint, and for a function that is not there (counted as the savepoint's)
	1461: sqlerr.ProgramLimitExceeded,  // ER_MAX_PREPARED_STMT_COUNT_REACHED
	1582: sqlerr.UndefinedFunction,     // ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT: no function of that many arguments

	1381: sqlerr.ObjectNotInPrerequisiteState, // ER_NO_BINARY_LOGGING: seqd has no binary log
}

// numberKinds are the kinds of MariaDB's error numbers: myErrors' read
// backwards where a number is one kind's, and nativeKinds.
var numberKinds = func() map[uint16]sqlerr.Kind {
	m, several := map[uint16]sqlerr.Kind{}, map[uint16]bool{}
	for k, e := range myErrors {
		if _, ok := m[e.number]; ok {
			several[e.number] = true
		}
		m[e.number] = k
	}
	for n := range several {
		delete(m, n)
	}
	for n, k := range nativeKinds {
		m[n] = k
	}
	return m
}()
