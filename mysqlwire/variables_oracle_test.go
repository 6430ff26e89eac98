package mysqlwire

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/internal/testenv"
)

// variablesScript is run statement by statement on MariaDB 10.11 and on
// seqd (TestVariablesOracle): information_schema's
// GLOBAL_VARIABLES, SESSION_VARIABLES, SYSTEM_VARIABLES, GLOBAL_STATUS,
// SESSION_STATUS, KEYWORDS and SQL_FUNCTIONS, and SHOW [GLOBAL | SESSION] VARIABLES,
// before and after the session's SETs, read with WHERE, LIKE and ORDER
// BY. The variables read are those whose values seqd shares with MariaDB
// (not its version, character sets, query cache or compile-time OS);
// {described} is replaced by every variable seqd's SYSTEM_VARIABLES
// describes, {functions} by every function its SQL_FUNCTIONS lists.
var variablesScript = []string{
	"SELECT * FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE') ORDER BY VARIABLE_NAME",
	"SELECT * FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE', 'AUTO_INCREMENT_INCREMENT') ORDER BY 1",
	"SELECT VARIABLE_VALUE FROM information_schema.session_variables WHERE VARIABLE_NAME = 'MAX_STATEMENT_TIME'",
	"SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME LIKE 'SESSION\\_TRACK%' ORDER BY VARIABLE_NAME DESC",
	"SELECT COUNT(*) FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ('WARNING_COUNT', 'ERROR_COUNT')",
	"SELECT VARIABLE_NAME, LENGTH(VARIABLE_VALUE) > 0 FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME IN ('VERSION', 'LICENSE', 'WARNING_COUNT') ORDER BY 1",
	// GLOBAL_STATUS and SESSION_STATUS: the variables seqd keeps, without
	// a binary log; its type read where seqd has no row (Uptime).
	"SELECT * FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME LIKE 'BINLOG_SNAPSHOT%' ORDER BY VARIABLE_NAME",
	"SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME IN ('BINLOG_SNAPSHOT_FILE', 'BINLOG_SNAPSHOT_POSITION') ORDER BY 1",
	"SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME' AND VARIABLE_VALUE < 0",
	// SYSTEM_VARIABLES: the descriptions of every variable seqd has that
	// MariaDB 10.11 has, and the values of those it shares.
	"SELECT VARIABLE_NAME, VARIABLE_SCOPE, VARIABLE_TYPE, VARIABLE_COMMENT, NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE, NUMERIC_BLOCK_SIZE, " +
		"ENUM_VALUE_LIST, READ_ONLY, COMMAND_LINE_ARGUMENT FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ({described}) ORDER BY VARIABLE_NAME",
	"SELECT * FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE', 'WAIT_TIMEOUT', 'OPTIMIZER_SWITCH', " +
		"'WARNING_COUNT', 'SYSTEM_TIME_ZONE', 'TX_ISOLATION', 'SQL_SELECT_LIMIT', 'MAX_STATEMENT_TIME', 'LOWER_CASE_TABLE_NAMES', 'FOREIGN_KEY_CHECKS') ORDER BY 1",
	"SHOW VARIABLES LIKE 'autocommit'",
	"SHOW GLOBAL VARIABLES LIKE 'sql\\_mode'",
	"SHOW SESSION VARIABLES LIKE 'auto_increment%'",
	"SHOW VARIABLES LIKE 'max_statement_time'",
	// The session's SETs: its own rows change, the server's do not.
	"SET autocommit = 0, sql_mode = 'ANSI_QUOTES,ONLY_FULL_GROUP_BY', wait_timeout = 100, optimizer_switch = 'semijoin=off'",
	"SELECT * FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE', 'WAIT_TIMEOUT') ORDER BY VARIABLE_NAME",
	"SELECT * FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE', 'WAIT_TIMEOUT') ORDER BY VARIABLE_NAME",
	"SELECT VARIABLE_NAME, SESSION_VALUE, GLOBAL_VALUE, DEFAULT_VALUE FROM information_schema.SYSTEM_VARIABLES " +
		"WHERE VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE', 'WAIT_TIMEOUT', 'OPTIMIZER_SWITCH') ORDER BY VARIABLE_NAME",
	"SELECT s.VARIABLE_NAME, s.VARIABLE_VALUE, g.VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES s " +
		"JOIN information_schema.GLOBAL_VARIABLES g ON g.VARIABLE_NAME = s.VARIABLE_NAME WHERE s.VARIABLE_NAME IN ('AUTOCOMMIT', 'WAIT_TIMEOUT') ORDER BY 1",
	"SHOW VARIABLES LIKE 'autocommit'",
	"SHOW GLOBAL VARIABLES LIKE 'autocommit'",
	"SHOW SESSION VARIABLES LIKE 'sql\\_mode'",
	"COMMIT",
	"SET autocommit = 1, sql_mode = DEFAULT",
	"SELECT * FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE') ORDER BY VARIABLE_NAME",
	"SELECT * FROM information_schema.NOPE_VARIABLES",
	// Compared by the collation, as MariaDB compares these tables' columns.
	"SELECT * FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME = 'autocommit'",
	"SELECT VARIABLE_NAME FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_VALUE = 'on' AND VARIABLE_NAME IN ('autocommit', 'SQL_NOTES') ORDER BY 1",
	"SELECT VARIABLE_NAME, VARIABLE_TYPE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'Sql_Mode'",
	"SELECT * FROM information_schema.session_status WHERE VARIABLE_NAME = 'binlog_snapshot_position'",
	"SELECT WORD FROM information_schema.KEYWORDS WHERE WORD = 'nextval'",
	"SELECT FUNCTION FROM information_schema.SQL_FUNCTIONS WHERE FUNCTION = 'concat'",
	// KEYWORDS: the words of a sequence's statements, which both parsers
	// have.
	"SELECT WORD FROM information_schema.KEYWORDS WHERE WORD IN ('SELECT', 'SEQUENCE', 'NEXTVAL', 'LASTVAL', 'SETVAL', 'CACHE', 'NOCACHE', " +
		"'CYCLE', 'NOCYCLE', 'INCREMENT', 'MINVALUE', 'MAXVALUE', 'RESTART', 'START', 'NEXT', 'VALUE', 'FOR') ORDER BY WORD",
	"SELECT * FROM information_schema.keywords WHERE WORD LIKE 'NEXTV%'",
	"SELECT COUNT(*) FROM information_schema.KEYWORDS WHERE WORD = 'NOPE'",
	// SQL_FUNCTIONS: those seqd answers are MariaDB's (catalog.MySQLFunctions).
	"SELECT FUNCTION FROM information_schema.SQL_FUNCTIONS WHERE FUNCTION IN ({functions}) ORDER BY FUNCTION",
	"SELECT * FROM information_schema.sql_functions WHERE FUNCTION LIKE 'SUBSTRING%' ORDER BY 1",
}

// variablesScriptLen pins variablesScript's length, so that a statement
// left out fails.
const variablesScriptLen = 38

// TestVariablesOracle runs variablesScript on MariaDB 10.11 and on seqd
// (oracleScript), as text and prepared: the rows, column names and types
// must be the same.
func TestVariablesOracle(t *testing.T) {
	if len(variablesScript) != variablesScriptLen {
		t.Fatalf("the script has %d statements, not %d", len(variablesScript), variablesScriptLen)
	}
	described := describedVariables(t)
	functions := "'" + strings.Join(catalog.MySQLFunctions, "', '") + "'"
	script := make([]string, len(variablesScript))
	for i, q := range variablesScript {
		script[i] = strings.ReplaceAll(strings.ReplaceAll(q, "{described}", described), "{functions}", functions)
	}
	oracleScript(t, "seqd_variables", script)
}

// TestVariablesColumnLengths compares the lengths in characters of the
// columns of information_schema's tables of variables, status, keywords
// and functions, and of SHOW VARIABLES', with MariaDB 10.11's.
func TestVariablesColumnLengths(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_variables_lengths")
	var diffs []string
	for _, q := range []string{"SELECT * FROM information_schema.GLOBAL_VARIABLES LIMIT 0", "SELECT * FROM information_schema.SESSION_VARIABLES LIMIT 0",
		"SELECT * FROM information_schema.SYSTEM_VARIABLES LIMIT 0", "SELECT * FROM information_schema.GLOBAL_STATUS LIMIT 0",
		"SELECT * FROM information_schema.SESSION_STATUS LIMIT 0", "SELECT * FROM information_schema.KEYWORDS LIMIT 0",
		"SELECT * FROM information_schema.SQL_FUNCTIONS LIMIT 0", "SHOW VARIABLES LIKE 'autocommit'", "SHOW GLOBAL VARIABLES LIKE 'nope'"} {
		want, got := statementResult(mc, q, false), statementResult(sc, q, false)
		want += "\n lengths: " + characterLengths(mc.wire.take())
		got += "\n lengths: " + characterLengths(sc.wire.take())
		if want != got {
			diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, want, got))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

// describedVariables are the names of the variables seqd's
// SYSTEM_VARIABLES describes, quoted and joined by commas; at least the
// variables connectors read.
func describedVariables(t *testing.T) string {
	t.Helper()
	addr, _ := startServer(t, Config{})
	rows, err := open(t, addr, "root", "").QueryContext(ctx, "SELECT VARIABLE_NAME FROM information_schema.SYSTEM_VARIABLES ORDER BY VARIABLE_NAME")
	if err != nil {
		t.Fatal(err)
	}
	_, vals, err := testenv.RowStrings(rows)
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range vals {
		names = append(names, "'"+r[0]+"'")
	}
	if len(names) < 40 {
		t.Fatalf("SYSTEM_VARIABLES describes %d variables: %v", len(names), names)
	}
	return strings.Join(names, ", ")
}

// TestVariablesSessionOwn: a session's information_schema.SESSION_VARIABLES
// and SYSTEM_VARIABLES show its own values, never another connection's:
// a second connection's SETs are not seen by the first, nor by
// GLOBAL_VARIABLES, on seqd (read by a role holding no privilege, as
// MariaDB shows these tables to every user) as on MariaDB 10.11.
func TestVariablesSessionOwn(t *testing.T) {
	addr, eng := startServer(t, Config{})
	pgExec(t, eng, "CREATE ROLE plain LOGIN PASSWORD 'plain pw'")
	servers := []struct {
		name string
		dsn  string
	}{{"MariaDB", testenv.MariaDBDSN(t)}, {"seqd", seqdDSN(addr, "plain")}}
	const read = "SELECT s.VARIABLE_NAME, s.VARIABLE_VALUE, y.SESSION_VALUE, g.VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES s " +
		"JOIN information_schema.SYSTEM_VARIABLES y ON y.VARIABLE_NAME = s.VARIABLE_NAME " +
		"JOIN information_schema.GLOBAL_VARIABLES g ON g.VARIABLE_NAME = s.VARIABLE_NAME " +
		"WHERE s.VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE', 'WAIT_TIMEOUT') ORDER BY 1"
	const defaults = "VARIABLE_NAME | VARIABLE_VALUE | SESSION_VALUE | VARIABLE_VALUE\n" +
		" AUTOCOMMIT | ON | ON | ON\n" +
		" SQL_MODE | STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION | " +
		"STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION | " +
		"STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION\n" +
		" WAIT_TIMEOUT | 28800 | 28800 | 28800"
	const changed = "VARIABLE_NAME | VARIABLE_VALUE | SESSION_VALUE | VARIABLE_VALUE\n" +
		" AUTOCOMMIT | OFF | OFF | ON\n" +
		" SQL_MODE | ANSI_QUOTES | ANSI_QUOTES | STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION\n" +
		" WAIT_TIMEOUT | 7 | 7 | 28800"
	for _, s := range servers {
		first, second := tappedConn(t, s.dsn, ""), tappedConn(t, s.dsn, "")
		if got := queryResult(first.Conn, read, false); got != defaults {
			t.Fatalf("%s: the first connection reads\n%s\nwant\n%s", s.name, got, defaults)
		}
		if _, err := second.ExecContext(ctx, "SET autocommit = 0, sql_mode = 'ANSI_QUOTES', wait_timeout = 7"); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		for _, prepared := range []bool{false, true} {
			if got := queryResult(first.Conn, read, prepared); got != defaults {
				t.Errorf("%s: after the second connection's SET, the first reads (prepared %v)\n%s\nwant\n%s", s.name, prepared, got, defaults)
			}
			if got := queryResult(second.Conn, read, prepared); got != changed {
				t.Errorf("%s: the second connection reads its own SET as (prepared %v)\n%s\nwant\n%s", s.name, prepared, got, changed)
			}
		}
		second.ExecContext(ctx, "ROLLBACK")
	}
}

// TestShowVariablesWhereOracle: SHOW VARIABLES WHERE keeps the rows its
// condition holds for, over Variable_name and Value (it listed every
// variable, the condition unread); an unknown column is 1054.
func TestShowVariablesWhereOracle(t *testing.T) {
	oracleScript(t, "seqd_show_variables_where", []string{
		"SHOW VARIABLES WHERE Variable_name = 'autocommit'", "SHOW VARIABLES WHERE Variable_name = 'AUTOCOMMIT'",
		"SHOW SESSION VARIABLES WHERE Value = 'ON' AND Variable_name LIKE 'autoc%'", "SHOW VARIABLES WHERE nope = 1",
		"SHOW VARIABLES WHERE Variable_name IN ('wait_timeout', 'autocommit', 'nope')",
		"SHOW GLOBAL VARIABLES WHERE Variable_name = 'autocommit'", "SHOW VARIABLES WHERE 1 = 0",
		"SET autocommit = 0", "SHOW VARIABLES WHERE Variable_name = 'autocommit' AND Value <> 'ON'",
		"SHOW VARIABLES WHERE Variable_name = 'wait_timeout' AND Value + 0 > 100", "SHOW VARIABLES NOT LIKE '%a%'",
	})
}
