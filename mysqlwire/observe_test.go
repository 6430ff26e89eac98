package mysqlwire

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/vitess/mysql"
	"github.com/seqd/seqd/sqlerr"
)

// statementLog is an OnStatement that counts the statements by command
// and SQLSTATE.
type statementLog struct {
	mu     sync.Mutex
	counts map[[2]string]int
}

func (l *statementLog) onStatement(command, sqlstate string) func(time.Duration) {
	return func(d time.Duration) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if d >= 0 {
			l.counts[[2]string{command, sqlstate}]++
		}
	}
}

// TestOnStatement: OnStatement is told of each statement once, with its
// command and outcome: each statement of a multi-statement text, each
// EXECUTE of a prepared statement (not its PREPARE), a text that does not
// parse (""), and failures with their error kind's SQLSTATE (sqlerr's
// table), as the other protocols report them, not the one their client
// was sent (HY000 for a sequence run out, 42S02 for one missing).
func TestOnStatement(t *testing.T) {
	l := &statementLog{counts: map[[2]string]int{}}
	addr, _ := startServer(t, Config{OnStatement: l.onStatement})
	db, err := sql.Open("mysql", fmt.Sprintf("root:root pw@tcp(%s)/?multiStatements=true", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // USE d holds for what follows
	for _, q := range []string{"CREATE DATABASE d", "CREATE SEQUENCE d.s", "CREATE SEQUENCE d.one MAXVALUE 2 NOCACHE", "USE d", "SELECT NEXTVAL(one)", "SELECT NEXTVAL(one)", "SELECT NEXT VALUE FOR s; SELECT NEXTVAL(s)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	stmt, err := db.Prepare("SELECT NEXTVAL(d.s)")
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	for range 3 {
		if err := stmt.QueryRow().Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	stmt.Close()
	for _, q := range []string{"SELEC 1", "SELECT NEXTVAL(one)", "SELECT NEXTVAL(d.missing)", "KILL 4294967296"} {
		if _, err := db.Exec(q); err == nil {
			t.Fatalf("%s succeeded", q)
		}
	}
	want := map[[2]string]int{
		{"CREATE DATABASE", "00000"}: 1, {"CREATE SEQUENCE", "00000"}: 2, {"USE", "00000"}: 1,
		{"SELECT", "00000"}: 7, {"", "42601"}: 1, {"SELECT", "2200H"}: 1, {"SELECT", "42P01"}: 1, {"", "22023"}: 1,
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, n := range want {
		if l.counts[k] != n {
			t.Errorf("%q counted %d times, want %d (all: %v)", k, l.counts[k], n, l.counts)
		}
	}
}

// TestCommandOf: every statement translate takes has a command of its
// own words.
func TestCommandOf(t *testing.T) {
	p := newParser()
	for q, want := range map[string]string{
		"SELECT 1": "SELECT", "SELECT 1 UNION SELECT 2": "SELECT", "CREATE SEQUENCE s": "CREATE SEQUENCE",
		"ALTER SEQUENCE s RESTART": "ALTER SEQUENCE", "DROP SEQUENCE s": "DROP SEQUENCE", "CREATE DATABASE d": "CREATE DATABASE",
		"DROP DATABASE d": "DROP DATABASE", "BEGIN": "BEGIN", "COMMIT": "COMMIT", "ROLLBACK": "ROLLBACK", "SET @@x = 1": "SET",
		"USE d": "USE", "SHOW WARNINGS": "SHOW", "RENAME TABLE a TO b": "RENAME TABLE", "ALTER TABLE a RENAME TO b": "ALTER TABLE",
		"KILL 1": "KILL", "CREATE TABLE t (a int)": "OTHER",
	} {
		stmts, err := parseSQL(p, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := commandOf(stmts[0]); got != want {
			t.Errorf("commandOf(%s) = %q, want %q", q, got, want)
		}
	}
}

// TestKindOfNumbers: every MariaDB error mysqlwire raises by number has
// a kind for the metrics (none an internal error but ER_UNKNOWN_ERROR's),
// and a number myErrors gives several kinds is one of them (but
// ER_UNKNOWN_ERROR's, also every kind's myErrors lacks).
func TestKindOfNumbers(t *testing.T) {
	kinds := map[uint16][]sqlerr.Kind{}
	for k, e := range myErrors {
		kinds[e.number] = append(kinds[e.number], k)
	}
	for n, ks := range kinds {
		if got := numberKinds[n]; !slices.Contains(ks, got) && n != unknownError.number {
			t.Errorf("error %d is counted as %q, not one of its kinds %v", n, got, ks)
		}
	}
	raised := []uint16{mysql.ERConCount, mysql.ERServerShutdown, mysql.ERMaxPreparedStmtCountReached}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	number := regexp.MustCompile(`NewSQLError\((\d+),`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range number.FindAllSubmatch(src, -1) {
			n, _ := strconv.Atoi(string(m[1]))
			raised = append(raised, uint16(n))
		}
	}
	if len(raised) < 20 {
		t.Fatalf("found %d errors raised by number: the pattern no longer finds them", len(raised))
	}
	for _, n := range raised {
		if k := kindOf(mysql.NewSQLError(int(n), "HY000", "x")); k == sqlerr.InternalError && n != unknownError.number {
			t.Errorf("error %d, which mysqlwire raises, is counted as an internal error", n)
		}
	}
	if k := kindOf(sqlerr.Errorf(sqlerr.SequenceLimitExceeded, "x")); k != sqlerr.SequenceLimitExceeded {
		t.Errorf("a kind's error is counted as %q", k)
	}
}
