package mysqlwire

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestMultiStatementsOracle: a query of several statements is answered
// as MariaDB 10.11 answers it. Without CLIENT_MULTI_STATEMENTS it is the
// syntax error near the second statement and nothing runs (a statement
// an injection appends does not run); with it, each statement's result
// in turn, a SET's or a DDL's OK among them, up to the first that fails,
// whose error ends the query; the connection goes on either way. An
// item's name leaves out the comments after it.
func TestMultiStatementsOracle(t *testing.T) {
	_, dbName, addr := sameDatabases(t, "seqd_multi")
	mariadb := strings.TrimSuffix(testenv.MariaDBDSN(t), "/seqd_test") + "/" + dbName
	seqd := seqdDSN(addr, "root") + dbName
	queries := []string{
		"SELECT 1; SELECT 2",
		"SET @@autocommit = 1; SELECT 1 AS a",
		"SET @a = 5; SELECT @a + 1",
		"CREATE SEQUENCE m1; SELECT NEXTVAL(m1), 'x' AS y; SELECT NEXTVAL(m1)",
		"SELECT NEXTVAL(m1);\n\n  SELECT NEXTVAL(nope); SELECT NEXTVAL(m1)",
		"SELECT LASTVAL(m1)",
		"DROP SEQUENCE m1; SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
		"SELECT ';' AS a; SELECT 2 -- ;\n; SELECT 3",
		"SELECT 1 /* ; */; SELECT ';'",
		// An item's name is its text without the comments after it.
		"SELECT 2 /* c */, 3 -- x\n",
		"SELECT 1 /* c */ + 1, /* lead */ 5, 6 # hash\n, 'a' /* b */",
	}
	for _, multi := range []bool{false, true} {
		var got [2][]string
		for i, dsn := range []string{mariadb, seqd} {
			if multi {
				dsn += "?multiStatements=true"
			}
			db, err := sql.Open("mysql", dsn)
			if err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			for _, q := range queries {
				got[i] = append(got[i], q+" => "+multiOutcome(db, q))
			}
			got[i] = append(got[i], "after: "+multiOutcome(db, "SELECT 7"))
			db.Close()
		}
		for k := range got[0] {
			if got[0][k] != got[1][k] {
				t.Errorf("multiStatements %v:\n  MariaDB: %s\n  seqd:    %s", multi, got[0][k], got[1][k])
			}
		}
	}
}

// multiOutcome is each result set of q (columns and rows), then its
// error, if any.
func multiOutcome(db *sql.DB, q string) string {
	rows, err := db.Query(q)
	if err != nil {
		return "ERROR " + errCode(err)
	}
	defer rows.Close()
	var out []string
	for {
		cols, vals, err := testenv.RowStrings(rows)
		out = append(out, fmt.Sprint(cols, vals))
		if err != nil {
			out = append(out, "ERROR "+errCode(err))
			break
		}
		if !rows.NextResultSet() {
			if err := rows.Err(); err != nil {
				out = append(out, "ERROR "+errCode(err))
			}
			break
		}
	}
	return strings.Join(out, " | ")
}
