package mysqlwire

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/internal/testenv"
)

// corpus is run statement by statement on MariaDB 10.11 and on seqd's
// MySQL front end, each on a fresh database of one connection; column
// names, rows, error numbers, SQLSTATEs and messages must be the same.
var corpus = []string{
	"CREATE SEQUENCE s1",
	"SELECT NEXT VALUE FOR s1",
	"SELECT NEXTVAL(s1), NEXT VALUE FOR s1, nextval(s1) AS n",
	"SELECT LASTVAL(s1), PREVIOUS VALUE FOR s1",
	"CREATE SEQUENCE s2 START WITH 10 INCREMENT BY -1 MINVALUE 1 MAXVALUE 10 NOCACHE",
	"SELECT NEXTVAL(s2), NEXTVAL(s2)",
	"SELECT LASTVAL(s2)",
	"SELECT SETVAL(s1, 100)",
	"SELECT NEXTVAL(s1)",
	"SELECT SETVAL(s1, 50)",
	"SELECT NEXTVAL(s1)",
	"SELECT SETVAL(s1, 200, 0)",
	"SELECT NEXTVAL(s1)",
	"SELECT SETVAL(s1, 300, 1, 0)",
	// A value MariaDB's grammar does not read as an integer: 1064 near it.
	"SELECT SETVAL(s1, 1.5)",
	"SELECT SETVAL(s1, -1.5), 1",
	"SELECT SETVAL(s1, 1e3)",
	"SELECT SETVAL(s1, .5)",
	"DO SETVAL(s1, + 2.0)",
	"SELECT NEXTVAL(s1), LASTVAL(s1)",
	"select setval(s1, 400)",
	"CREATE SEQUENCE s1",
	"CREATE SEQUENCE IF NOT EXISTS s1",
	"SELECT NEXT VALUE FOR nope",
	"SELECT PREVIOUS VALUE FOR nope",
	"SELECT SETVAL(nope, 5)",
	"ALTER SEQUENCE nope RESTART",
	"DROP SEQUENCE nope",
	"CREATE SEQUENCE s3 START WITH 1 MAXVALUE 2 NOCACHE",
	"SELECT NEXTVAL(s3)",
	"SELECT NEXTVAL(s3)",
	"SELECT NEXTVAL(s3)",
	"CREATE SEQUENCE s4 START WITH 1 MAXVALUE 2 CYCLE CACHE 0",
	"SELECT NEXTVAL(s4), NEXTVAL(s4), NEXTVAL(s4)",
	"ALTER SEQUENCE s4 RESTART WITH 2",
	"SELECT NEXTVAL(s4)",
	"SELEC 1",
	"SELECT 1,, 2",
	"SELECT @@version_comment LIMIT 0",
	"SELECT @@autocommit, @@auto_increment_increment, @@tx_isolation",
	"SET NAMES utf8mb4",
	"SET autocommit = 1",
	"BEGIN",
	"SELECT NEXTVAL(s1)",
	"COMMIT",
	"SET autocommit = 0",
	"SELECT @@autocommit",
	"SELECT NEXTVAL(s1)",
	"SELECT NEXT VALUE FOR nope",
	"SELECT NEXTVAL(s1)",
	"ROLLBACK",
	"SELECT LASTVAL(s1)",
	"SET autocommit = 1",
	"SELECT @@autocommit",
	"CREATE SEQUENCE s5 START WITH 5 INCREMENT BY 2 NOCACHE",
	"CREATE SEQUENCE s6 INCREMENT BY -3 CYCLE",
	"SHOW CREATE SEQUENCE s5",
	"SHOW CREATE SEQUENCE s6",
	"SELECT * FROM s5",
	"SELECT * FROM s6",
	"SELECT NEXTVAL(s5)",
	"SELECT next_not_cached_value, CYCLE_OPTION AS c FROM s5",
	"SELECT * FROM nope",
	"SHOW CREATE SEQUENCE nope",
	"SHOW FULL TABLES",
	"SELECT table_name, TABLE_TYPE, engine, table_rows, temporary FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name",
	"SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 's5' AND TABLE_TYPE = 'SEQUENCE'",
	"SELECT schema_name, catalog_name FROM information_schema.schemata WHERE schema_name = DATABASE()",
	"SELECT * FROM information_schema.no_such_table",
	"RENAME TABLE s5 TO s7",
	"SELECT NEXTVAL(s7)",
	"RENAME TABLE nope TO x",
	"RENAME TABLE s7 TO s6",
	"RENAME TABLE s7 TO s8, nope TO y",
	"SELECT NEXTVAL(s7)",
	"RENAME TABLE s7 TO s8, s8 TO s10",
	"ALTER TABLE s10 RENAME TO s9",
	"RENAME TABLE s9 TO s9",
	"SELECT NEXTVAL(s9), PREVIOUS VALUE FOR s9",
	"SHOW FULL TABLES",
	"CREATE TEMPORARY SEQUENCE s1 START WITH 500",
	"SELECT NEXTVAL(s1), PREVIOUS VALUE FOR s1",
	"SELECT start_value, increment, cache_size FROM s1",
	"SHOW CREATE SEQUENCE s1",
	"SELECT * FROM s5",
	"SHOW FULL TABLES",
	"DROP TEMPORARY SEQUENCE s1",
	"SELECT NEXTVAL(s1)",
	"DROP TEMPORARY SEQUENCE s1",
	"DROP TEMPORARY SEQUENCE IF EXISTS s1",
	"CREATE TEMPORARY SEQUENCE tmp1 NOCACHE",
	"CREATE TEMPORARY SEQUENCE tmp1",
	"BEGIN",
	"SELECT NEXTVAL(tmp1)",
	"CREATE TEMPORARY SEQUENCE tmp2",
	"ROLLBACK",
	"SELECT NEXTVAL(tmp2)",
	"drop temporary sequence tmp1, tmp2",
	"SELECT NEXTVAL(tmp1)",
	"DROP SEQUENCE s2, s3",
	"DROP SEQUENCE IF EXISTS s2",
}

// corpusLen pins corpus's length (see ddlCorpusLen).
const corpusLen = 101

// outcome is a statement's result as the corpus compares it, sent as
// text or, prepared, as COM_STMT_PREPARE and COM_STMT_EXECUTE, and the
// diagnostics it leaves: SHOW WARNINGS's rows (sent the same way, it
// changes none) and @@warning_count, @@error_count.
func outcome(db *oracleConn, q string, prepared bool) string {
	out := statementResult(db, q, prepared)
	if w := statementResult(db, "SHOW WARNINGS", prepared); w != "Level | Code | Message" {
		out += "\n SHOW WARNINGS: " + strings.ReplaceAll(w, "\n", "\n  ")
	}
	if c := statementResult(db, "SELECT @@warning_count, @@error_count", prepared); c != "@@warning_count | @@error_count\n 0 | 0" {
		out += "\n " + c
	}
	return out
}

// statementResult is a statement's result: columns and rows, or its
// error, and, where db's wire is kept, its columns' definitions.
func statementResult(db *oracleConn, q string, prepared bool) string {
	if db.wire != nil {
		db.wire.reset()
	}
	res := queryResult(db.Conn, q, prepared)
	if db.wire != nil {
		if cols := columnsOf(db.wire.take(), prepared); cols != "" {
			res += "\n types: " + cols
		}
	}
	return res
}

// queryResult is a statement's result: columns and rows, or its error.
func queryResult(db *sql.Conn, q string, prepared bool) string {
	var rows *sql.Rows
	var err error
	if prepared {
		var st *sql.Stmt
		if st, err = db.PrepareContext(ctx, q); err != nil {
			return "ERROR " + errCode(err)
		}
		defer st.Close()
		rows, err = st.QueryContext(ctx)
	} else {
		rows, err = db.QueryContext(ctx, q)
	}
	if err != nil {
		return "ERROR " + errCode(err)
	}
	defer rows.Close()
	cols, vals, err := testenv.RowStrings(rows)
	if err != nil {
		return "ERROR " + errCode(err)
	}
	var b strings.Builder
	b.WriteString(strings.Join(cols, " | "))
	for _, r := range vals {
		b.WriteString("\n " + strings.Join(r, " | "))
	}
	return b.String()
}

// oracleConns are a connection to MariaDB and one to seqd, each in a
// new database dbName, their wires kept.
func oracleConns(t *testing.T, name string) (mc, sc *oracleConn, dbName string) {
	t.Helper()
	_, dbName, addr := sameDatabases(t, name)
	return tappedConn(t, testenv.MariaDBDSN(t), dbName), tappedConn(t, seqdDSN(addr, "root"), dbName), dbName
}

// sameDatabases makes a new database, dbName, on MariaDB (mc, a
// connection to it) and on a seqd started for the test (addr).
func sameDatabases(t *testing.T, name string) (mc *sql.Conn, dbName, addr string) {
	t.Helper()
	mc, dbName = testenv.MariaDBConn(t, name)
	addr, _ = startServer(t, Config{})
	if _, err := open(t, addr, "root", "").Exec("CREATE DATABASE " + dbName); err != nil {
		t.Fatal(err)
	}
	return mc, dbName, addr
}

// pairedConns are a connection to MariaDB and one to seqd, each in a new
// database of name (sameDatabases), not tapped.
func pairedConns(t *testing.T, name string) (mc, sc *sql.Conn) {
	t.Helper()
	mc, dbName, addr := sameDatabases(t, name)
	sc, err := open(t, addr, "root", dbName).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	return mc, sc
}

// oracleScript runs script on MariaDB and on seqd, each in a new
// database of name, as text and then prepared, and fails with every
// statement whose answer, diagnostics or columns' types differ. %db in
// a statement stands for the database.
func oracleScript(t *testing.T, name string, script []string) {
	t.Helper()
	for _, prepared := range []bool{false, true} {
		n := name
		if prepared {
			n += "_prep"
		}
		mc, sc, db := oracleConns(t, n)
		var diffs []string
		for _, q := range script {
			q = strings.ReplaceAll(q, "%db", db)
			if want, got := outcome(mc, q, prepared), outcome(sc, q, prepared); want != got {
				diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, strings.ReplaceAll(want, "\n", "\n           "),
					strings.ReplaceAll(got, "\n", "\n           ")))
			}
		}
		if len(diffs) > 0 {
			t.Errorf("prepared %v: seqd differs from MariaDB 10.11 in %d statements:\n%s", prepared, len(diffs), strings.Join(diffs, "\n"))
		}
	}
}

// errCode is a MySQL error's number, SQLSTATE and message.
func errCode(err error) string {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return fmt.Sprintf("%d %s %s", me.Number, sqlState(err), me.Message)
	}
	return err.Error()
}

// TestOracle runs the corpus on MariaDB and on seqd as text.
func TestOracle(t *testing.T) { oracle(t, "seqd_oracle", false) }

// TestOraclePrepared runs the corpus with every statement prepared, as
// mysql2's execute and go-sql-driver with parameters do.
func TestOraclePrepared(t *testing.T) { oracle(t, "seqd_oracle_prep", true) }

func oracle(t *testing.T, name string, prepared bool) {
	mc, sc, dbName := oracleConns(t, name)
	if len(corpus) != corpusLen || len(ddlCorpus) != ddlCorpusLen {
		t.Fatalf("the corpus has %d and %d statements, not %d and %d", len(corpus), len(ddlCorpus), corpusLen, ddlCorpusLen)
	}
	var diffs []string
	ran := 0
	for _, q := range append(append([]string{}, corpus...), ddlCorpus...) {
		q = strings.ReplaceAll(q, "{db}", dbName)
		ran++
		want, got := outcome(mc, q, prepared), outcome(sc, q, prepared)
		if want != got {
			diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, strings.ReplaceAll(want, "\n", "\n           "), strings.ReplaceAll(got, "\n", "\n           ")))
		}
	}
	if ran != corpusLen+ddlCorpusLen {
		t.Errorf("ran %d statements of %d", ran, corpusLen+ddlCorpusLen)
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d of %d statements:\n%s", len(diffs), ran, strings.Join(diffs, "\n"))
	}
}
