package mysqlwire

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/internal/testenv"
)

// TestSQLFunctionsOffered: information_schema.SQL_FUNCTIONS, as seqd
// shows it, lists the functions seqd answers of those MariaDB 10.11 lists. Each function of
// MariaDB's SQL_FUNCTIONS is called on seqd with no, one, two and three
// arguments of numbers and strings, of a sequence's column, and in the
// forms of CAST and POSITION: one seqd lists is answered by one of these
// calls (a value, or an error other than a missing function's 1305,
// 1235 and 1064: BINLOG_GTID_POS's 1381), one it does not list by none.
func TestSQLFunctionsOffered(t *testing.T) {
	mdb, _ := testenv.MariaDBConn(t, "seqd_sql_functions")
	rows, err := mdb.QueryContext(ctx, "SELECT FUNCTION FROM information_schema.SQL_FUNCTIONS")
	if err != nil {
		t.Fatal(err)
	}
	_, vals, err := testenv.RowStrings(rows)
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	var mariadb []string
	for _, r := range vals {
		mariadb = append(mariadb, r[0])
	}
	if len(mariadb) < 200 {
		t.Fatalf("MariaDB lists %d functions", len(mariadb))
	}
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	db.SetMaxOpenConns(1)
	var seqd []string
	rows, err = db.QueryContext(ctx, "SELECT FUNCTION FROM information_schema.SQL_FUNCTIONS")
	if err != nil {
		t.Fatal(err)
	}
	_, vals, err = testenv.RowStrings(rows)
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range vals {
		seqd = append(seqd, r[0])
		if !slices.Contains(mariadb, r[0]) {
			t.Errorf("%s is not MariaDB's SQL_FUNCTIONS'", r[0])
		}
	}
	for _, q := range []string{"CREATE DATABASE fns", "CREATE SEQUENCE fns.s"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	calls := []string{"SELECT %s()", "SELECT %s(1)", "SELECT %s('a')", "SELECT %s(1, 1)", "SELECT %s('a', 1)", "SELECT %s('a', 'a')",
		"SELECT %s(1, 1, 1)", "SELECT %s('a', 1, 1)", "SELECT %s('a', 'a', 'a')", "SELECT %s(start_value) FROM fns.s",
		"SELECT %s(1 AS CHAR)", "SELECT %s('a' IN 'b')"}
	answered := 0
	for _, f := range mariadb {
		var answer string
		for _, c := range calls {
			if a := functionAnswer(db, fmt.Sprintf(c, f)); a != "" {
				answer = fmt.Sprintf(c, f) + ": " + a
				break
			}
		}
		listed := slices.Contains(seqd, f)
		switch {
		case listed && answer == "":
			t.Errorf("%s is listed, and seqd answers no call of it", f)
		case !listed && answer != "":
			t.Errorf("%s is not listed, and seqd answers %s", f, answer)
		case listed:
			answered++
		}
	}
	if answered != len(seqd) || len(seqd) != len(catalog.MySQLFunctions) {
		t.Errorf("%d of the %d functions listed answered (catalog.MySQLFunctions: %d)", answered, len(seqd), len(catalog.MySQLFunctions))
	}
}

// functionAnswer is what seqd answers q: "ok", an error that is not a
// missing function's (1305, 1235, 1064), or "" for one that is.
func functionAnswer(db *sql.DB, q string) string {
	rows, err := db.Query(q)
	if err != nil {
		for _, missing := range []string{"Error 1305 ", "Error 1235 ", "Error 1064 "} {
			if strings.HasPrefix(err.Error(), missing) {
				return ""
			}
		}
		return err.Error()
	}
	rows.Close()
	return "ok"
}
