package mysqlwire

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/internal/vitess/mysql"
	"github.com/seqd/seqd/sqlerr"
)

// TestPluginsSonameOracle compares SHOW PLUGINS SONAME with MariaDB
// 10.11's: its columns and their definitions, and its rows of the
// plugins both servers have (MariaDB lists those of the libraries in its
// plugin_dir too, seqd has none); a library or a pattern no library
// matches, no rows; a condition over the SHOW's columns; and MariaDB's
// 1064 for what its grammar does not take after SONAME, near the same
// text. SHOW PLUGINS LIKE and WHERE stay 1064.
func TestPluginsSonameOracle(t *testing.T) {
	_, dbName, addr := sameDatabases(t, "seqd_soname")
	mc, sc := tappedConn(t, testenv.MariaDBDSN(t), dbName), tappedConn(t, seqdDSN(addr, "root"), dbName)
	shared := func(l string) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(l, " "), " | ")
		return !strings.HasPrefix(l, " ") || strings.HasPrefix(l, " types:") || name == "mysql_native_password" ||
			name == "InnoDB" || name == "SQL_SEQUENCE"
	}
	var diffs []string
	for _, q := range []string{"SHOW PLUGINS SONAME", "show plugins soname ;", "SHOW PLUGINS SONAME /* all */", "SHOW\tPLUGINS\nSONAME -- all\n"} {
		for _, prepared := range []bool{false, true} {
			kept := func(c *oracleConn) string {
				var out []string
				for _, l := range strings.Split(statementResult(c, q, prepared), "\n") {
					if shared(l) {
						out = append(out, l)
					}
				}
				return strings.Join(out, "\n")
			}
			if want, got := kept(mc), kept(sc); want != got {
				diffs = append(diffs, fmt.Sprintf("%s (prepared %v)\n  MariaDB: %s\n  seqd:    %s", q, prepared, want, got))
			}
		}
	}
	for _, q := range []string{
		"SHOW PLUGINS SONAME 'nope.so'", `show plugins soname "nope.so"`, "SHOW PLUGINS SONAME ''", "SHOW PLUGINS SONAME 'it''s.so'",
		"SHOW PLUGINS SONAME /* c */ 'nope.so' -- c\n", "SHOW PLUGINS SONAME 'nope.so' /* SONAME 'x' */",
		"SHOW PLUGINS SONAME LIKE 'nope%'", "SHOW PLUGINS SONAME like 'no\\_pe'", "SHOW PLUGINS SONAME LIKE ''",
		"SHOW PLUGINS SONAME WHERE Name IN ('mysql_native_password', 'SQL_SEQUENCE', 'InnoDB')",
		"SHOW PLUGINS SONAME WHERE Library IS NULL AND Name = 'InnoDB' AND Status = 'ACTIVE' AND Type = 'STORAGE ENGINE' AND License = 'GPL'",
		"SHOW PLUGINS SONAME WHERE Name = 'nope'", "SHOW PLUGINS SONAME WHERE Library LIKE 'nope%'",
		"SHOW PLUGINS SONAME WHERE nope = 1",
		"SELECT 'SHOW PLUGINS SONAME' AS a", "SELECT 1 AS a -- SHOW PLUGINS SONAME", "SELECT s.show plugins soname FROM s",
		// MariaDB's grammar takes one string after SONAME and LIKE, and
		// nothing after it.
		"SHOW PLUGINS SONAME 'a' 'b'", "SHOW PLUGINS SONAME 'x' WHERE 1", "SHOW PLUGINS SONAME 'x' LIKE 'y'",
		"SHOW PLUGINS SONAME NOT LIKE 'x'", "SHOW PLUGINS SONAME LIKE 'x' ESCAPE '!'", "SHOW PLUGINS SONAME LIKE 'a' 'b'",
		"SHOW PLUGINS SONAME LIKE CONCAT('a', 'b')", "SHOW PLUGINS SONAME LIKE NULL", "SHOW PLUGINS SONAME LIKE",
		"show plugins soname 1", "SHOW PLUGINS SONAME nope", "SHOW PLUGINS SONAME N'x'", "SHOW PLUGINS SONAME _utf8mb4'x'",
		"SHOW PLUGINS SONAME WHERE", "SHOW PLUGINS SONAME WHERE Name = 'x' LIMIT 1", "SHOW PLUGINS SONAME FROM x",
		"SHOW PLUGINS SONAME 'x' /* c */ 'y'", "EXPLAIN SHOW PLUGINS SONAME", "SHOW PLUGINS SONAME LIKE ?", "SHOW PLUGINS SONAME ?", "SET @a = 1 SHOW PLUGINS SONAME 'x'", "SHOW PLUGINS SONAME 'a\\' 'b'",

		"SHOW PLUGINS LIKE 'InnoDB'", "SHOW PLUGINS WHERE Name = 'InnoDB'",
	} {
		for _, prepared := range []bool{false, true} {
			if want, got := outcome(mc, q, prepared), outcome(sc, q, prepared); want != got {
				diffs = append(diffs, fmt.Sprintf("%s (prepared %v)\n  MariaDB: %s\n  seqd:    %s", q, prepared, want, got))
			}
		}
	}
	// Several statements, sent at once: each answered in turn, up to
	// the first that fails (seqd refuses the whole text where one it
	// does not parse follows others, so those compared fail first).
	for _, q := range []string{"SHOW PLUGINS SONAME 'x'; SELECT 1", "SHOW PLUGINS SONAME WHERE Name = 'InnoDB'; SHOW PLUGINS SONAME LIKE 'x'",
		"SHOW PLUGINS SONAME 'a' 'b'; SELECT 1", "SHOW PLUGINS SONAME LIKE 'x' 'y';\nSELECT 1", "SHOW PLUGINS SONAME; SELECT 'SONAME' AS a"} {
		var got [2]string
		for i, dsn := range []string{strings.TrimSuffix(testenv.MariaDBDSN(t), "/seqd_test") + "/" + dbName, seqdDSN(addr, "root") + dbName} {
			db, err := sql.Open("mysql", dsn+"?multiStatements=true")
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, l := range strings.Split(multiOutcome(db, q), " | ") {
				if !strings.HasPrefix(l, "[Name Status Type Library License]") {
					kept = append(kept, l)
				}
			}
			got[i] = strings.Join(kept, " | ")
			db.Close()
		}
		if got[0] != got[1] {
			diffs = append(diffs, fmt.Sprintf("%s (several)\n  MariaDB: %s\n  seqd:    %s", q, got[0], got[1]))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

// TestRenameSoname: rename blanks SONAME out of SHOW PLUGINS SONAME
// (makes it LIKE before a library's name), keeping the text's length,
// and marks the statement with its form and where MariaDB's grammar
// stops reading it (-1: it reads it all).
func TestRenameSoname(t *testing.T) {
	for _, c := range []struct {
		q, renamed string
		form       sonameForm
		refused    int
	}{
		{"SHOW PLUGINS SONAME", "SHOW PLUGINS       ", sonameAll, -1},
		{"show plugins soname 'a.so';", "show plugins LIKE   'a.so';", sonameLibrary, -1},
		{"SHOW PLUGINS SONAME 'a' 'b'", "SHOW PLUGINS LIKE   'a' 'b'", sonameLibrary, 24},
		{"SHOW PLUGINS SONAME 'a' /* 'b' */ # c\n", "SHOW PLUGINS LIKE   'a' /* 'b' */ # c\n", sonameLibrary, -1},
		{"SHOW PLUGINS SONAME LIKE 'a%' ESCAPE '!'", "SHOW PLUGINS        LIKE 'a%' ESCAPE '!'", sonameLike, 30},
		{"SHOW PLUGINS SONAME LIKE x", "SHOW PLUGINS        LIKE x", sonameLike, 25},
		{"SHOW PLUGINS SONAME LIKE", "SHOW PLUGINS        LIKE", sonameLike, -1},
		{"SHOW PLUGINS SONAME WHERE Library IS NULL", "SHOW PLUGINS        WHERE Library IS NULL", sonameWhere, -1},
		{"SHOW PLUGINS SONAME 1", "SHOW PLUGINS        1", sonameAll, 20},
		{"SHOW PLUGINS SONAME --x", "SHOW PLUGINS        --x", sonameAll, 20},
		{"SHOW PLUGINS SONAME /* open", "SHOW PLUGINS        /* open", sonameAll, -1},
		{"SHOW PLUGINS SONAME 'open", "SHOW PLUGINS LIKE   'open", sonameLibrary, -1},
		{"SELECT 1; SHOW PLUGINS SONAME LIKE 'x' -- c\n; SELECT 2", "SELECT 1; SHOW PLUGINS        LIKE 'x' -- c\n; SELECT 2", sonameLike, -1},
		{"SELECT 'SHOW PLUGINS SONAME' /* SHOW PLUGINS SONAME */", "SELECT 'SHOW PLUGINS SONAME' /* SHOW PLUGINS SONAME */", 0, 0},
	} {
		renamed, _, m := rename(c.q)
		if renamed != c.renamed {
			t.Errorf("%q renamed %q, want %q", c.q, renamed, c.renamed)
		}
		s, ok := m.sonameOf(0, len(renamed))
		if ok != (c.renamed != c.q) || ok && (s.form != c.form || s.refused != c.refused) {
			t.Errorf("%q: marked %v %+v, want form %d refused at %d", c.q, ok, s, c.form, c.refused)
		}
	}
}

// FuzzShowSoname runs texts about SHOW PLUGINS SONAME and SHOW GRANTS
// ... USING through rename and translate: rename marks SONAME inside the
// renamed text and USING where it made it a comment, and nothing panics
// or fails without a MySQL error's kind.
func FuzzShowSoname(f *testing.F) {
	for _, q := range []string{"SHOW PLUGINS SONAME", "SHOW PLUGINS SONAME 'a' 'b'", "SHOW PLUGINS SONAME LIKE 'x%' -- c\n;",
		"SHOW PLUGINS SONAME WHERE Name = 'InnoDB'; SHOW PLUGINS SONAME /* x", "SELECT 1;\nSHOW GRANTS FOR `using` USING r, s",
		"SHOW GRANTS FOR 'u'@'%' /*!USING r*/", "SHOW PLUGINS SONAME \"x\" 'y", "show plugins soname like"} {
		f.Add(q)
	}
	p := newParser()
	f.Fuzz(func(t *testing.T, q string) {
		for _, backslash := range []bool{true, false} {
			renamed, _, m := renameIn(q, backslash)
			for _, s := range m.sonames {
				if s.at < 0 || s.at >= len(renamed) || s.refused >= len(renamed)-s.at {
					t.Fatalf("%q: a mark %+v outside the renamed text of %d bytes", q, s, len(renamed))
				}
			}
			for _, at := range m.usings {
				if at < 0 || !strings.HasPrefix(renamed[at:], "/*") {
					t.Fatalf("%q: a USING marked at %d of %q", q, at, renamed)
				}
			}
		}
		if _, err := translate(p, q, stmtEnv{db: "db", user: "u@h"}); err != nil {
			var se *sqlerr.Error
			var me *mysql.SQLError
			if !errors.As(err, &se) && !errors.As(err, &me) {
				t.Fatalf("%q: an error without a kind: %v", q, err)
			}
		}
	})
}
