package mysqlwire

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestSQLModePreparedReadOnce: a prepared statement built again at each
// execution with the values bound (bound.go) is read as it was when
// prepared, as MariaDB reads a prepared statement once: SET sql_mode
// between COM_STMT_PREPARE and COM_STMT_EXECUTE changes nothing of it.
// It was read with the mode of the execution: "x" became a string where
// it had been a name, || OR where it had been CONCAT, and 'x\' a syntax
// error.
func TestSQLModePreparedReadOnce(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_sqlmode_prep")
	for _, c := range []struct {
		prepareMode, query, executeMode string
		arg                             any
	}{
		{"ANSI_QUOTES", `SELECT "x" FROM (SELECT 1 AS "x") t WHERE ? = 1`, "", "1"},
		{"ANSI_QUOTES", `SELECT "x" FROM (SELECT 'a' AS "x") t WHERE ? = 'a'`, "", "a"},
		{"", `SELECT ? || 'b', "y"`, "PIPES_AS_CONCAT,ANSI_QUOTES", 1},
		{"PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES", `SELECT ? || 'b', 'x\'`, "", "a"},
		{"NO_BACKSLASH_ESCAPES", `SELECT ?, 'x\', '\'`, "", "a"},
		{"", `SELECT ?, 'x\'y'`, "NO_BACKSLASH_ESCAPES", "a"},
		{"", `SELECT NOT ? BETWEEN -5 AND 5`, "HIGH_NOT_PRECEDENCE", 1},
	} {
		var outs [2]string
		for i, db := range []*sql.Conn{mc.Conn, sc.Conn} {
			outs[i] = func() string {
				if _, err := db.ExecContext(ctx, "SET sql_mode = '"+c.prepareMode+"'"); err != nil {
					t.Fatal(err)
				}
				st, err := db.PrepareContext(ctx, c.query)
				if err != nil {
					return "ERROR " + errCode(err)
				}
				defer st.Close()
				if _, err := db.ExecContext(ctx, "SET sql_mode = '"+c.executeMode+"'"); err != nil {
					t.Fatal(err)
				}
				var out []string
				for range 2 { // and again: nothing kept from the first is read otherwise
					rows, err := st.QueryContext(ctx, c.arg)
					if err != nil {
						return "ERROR " + errCode(err)
					}
					_, vals, err := testenv.RowStrings(rows)
					rows.Close()
					if err != nil {
						return "ERROR " + errCode(err)
					}
					out = append(out, fmt.Sprint(vals))
				}
				return strings.Join(out, " ")
			}()
		}
		if outs[0] != outs[1] {
			t.Errorf("prepared with sql_mode %q, executed with %q: %s\n  MariaDB: %s\n  seqd:    %s", c.prepareMode, c.executeMode, c.query, outs[0], outs[1])
		}
	}
	for _, db := range []*sql.Conn{mc.Conn, sc.Conn} {
		if _, err := db.ExecContext(ctx, "SET sql_mode = DEFAULT"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSQLModeBinaryLiterals: SET sql_mode to a hexadecimal or bit
// literal reads its bytes as the names, as MariaDB does (0x414E5349 is
// ANSI), and one that names no mode is 1231 with its bytes shown; it was
// 1232 for any of them.
func TestSQLModeBinaryLiterals(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_sqlmode_bin")
	var diffs []string
	for _, q := range []string{
		"SET sql_mode = 0x414E5349",
		"SELECT @@sql_mode",
		"SET sql_mode = x'616E73695F71756F7465732C2C50495045535F41535F434F4E434154'",
		"SELECT @@sql_mode",
		"SET sql_mode = b'01000001010011100101001101001001'",
		"SELECT @@sql_mode",
		"SET sql_mode = X''",
		"SELECT @@sql_mode",
		"SET sql_mode = 0x41",
		"SET sql_mode = 0x1",
		"SET sql_mode = x'0041'",
		"SET sql_mode = b'1'",
		"SET sql_mode = 0x414E5349C3A9",
		"SELECT @@sql_mode",
		"SET sql_mode = DEFAULT",
	} {
		want, got := outcome(mc, q, false), outcome(sc, q, false)
		if want != got {
			diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, want, got))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}
