package mysqlwire

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestMultiStatementsSQLMode: a statement of several that sets how
// sql_mode reads has the statements after it read as the mode says, as
// MariaDB reads each when it comes to it: where each ends too
// (NO_BACKSLASH_ESCAPES). They were all read as the mode was when the
// query came: SET sql_mode = 'PIPES_AS_CONCAT'; SELECT 'a' || 'b'
// answered 0 for MariaDB's 'ab'.
func TestMultiStatementsSQLMode(t *testing.T) {
	_, dbName, addr := sameDatabases(t, "seqd_multi_mode")
	mariadb := strings.TrimSuffix(testenv.MariaDBDSN(t), "/seqd_test") + "/" + dbName
	seqd := seqdDSN(addr, "root") + dbName
	queries := []string{
		"SET sql_mode = 'PIPES_AS_CONCAT'; SELECT 'a' || 'b'; SET sql_mode = ''; SELECT 'a' || 'b'",
		"SET sql_mode = 'PIPES_AS_CONCAT'; SELECT 'a' || 'b'; SET sql_mode = ''; SELECT 'a' || 'b'", // kept, read again
		`SET sql_mode = 'ANSI_QUOTES'; SELECT "x" FROM (SELECT 1 AS "x") t`,
		`SET sql_mode = ''; SELECT "x" FROM (SELECT 1 AS "x") t`,
		`SET sql_mode = ''; SELECT 'x\'; SELECT 2'`,
		`SET sql_mode = ''; SELECT 'x\'; SELECT 2'; SELECT '\\'`,
		"SET sql_mode = 'ANSI_QUOTES'; SELECT \"nope\" FROM (SELECT 1 AS a) t; SELECT 8",
		"SET sql_mode = DEFAULT; SELECT 5; SET sql_mode = 'HIGH_NOT_PRECEDENCE'; SELECT NOT 1 BETWEEN -5 AND 5",
		"SET sql_mode = DEFAULT",
	}
	var got [2][]string
	for i, dsn := range []string{mariadb, seqd} {
		db, err := sql.Open("mysql", dsn+"?multiStatements=true")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		for _, q := range queries {
			got[i] = append(got[i], q+" => "+multiOutcome(db, q))
		}
		got[i] = append(got[i], "after: "+multiOutcome(db, "SELECT 7, @@sql_mode"))
		db.Close()
	}
	for k := range got[0] {
		if got[0][k] != got[1][k] {
			t.Errorf("\n  MariaDB: %s\n  seqd:    %s", got[0][k], got[1][k])
		}
	}
}
