package mysqlwire

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestWarningCountPackets: the OK packet after a statement carries the
// number of conditions that statement raised, as MariaDB 10.11's does
// (its client prints "1 warning" after the second CREATE DATABASE IF
// NOT EXISTS and none after the SET that follows, which keeps the list).
func TestWarningCountPackets(t *testing.T) {
	addr, _ := startServer(t, Config{})
	c := dialRaw(t, addr)
	c.mustLogin("root", "root pw")
	for _, q := range []struct {
		text     string
		warnings uint16
	}{
		{"CREATE DATABASE IF NOT EXISTS w", 0}, {"CREATE DATABASE IF NOT EXISTS w", 1}, {"SET autocommit = 1", 0},
		{"DROP SEQUENCE IF EXISTS w.a, w.b", 1}, {"CREATE SEQUENCE w.a", 0}, {"CREATE SEQUENCE IF NOT EXISTS w.a", 1},
		{"DROP DATABASE IF EXISTS w", 0}, {"DROP DATABASE IF EXISTS w", 1},
	} {
		c.command(append([]byte{0x03}, q.text...)...) // COM_QUERY
		p := c.mustRead()
		// OK: 0x00, affected rows and last insert ID (one byte each here),
		// status flags (2), warnings (2).
		if p[0] != 0 || len(p) < 7 || binary.LittleEndian.Uint16(p[5:]) != q.warnings {
			t.Errorf("%s: %s, want OK with %d warnings", q.text, describe(p), q.warnings)
		}
	}
}

// TestDiagnosticsBounded: the list keeps max_error_count (64)
// conditions; the counts count every one.
func TestDiagnosticsBounded(t *testing.T) {
	var d diagnostics
	d.start(false)
	for i := range 70 {
		d.push(note(1050, "Table 't%d' already exists", i))
	}
	d.failed(fmt.Errorf("x"))
	if len(d.list) != maxErrorCount || d.count != 71 || d.errors != 1 || d.warningCount() != 71 || d.list[63].msg != "Table 't63' already exists" {
		t.Fatalf("kept %d, counted %d and %d errors, packet %d", len(d.list), d.count, d.errors, d.warningCount())
	}
	d.start(false) // a statement with no table and no condition keeps them
	if len(d.list) != maxErrorCount || d.count != 71 || d.warningCount() != 0 {
		t.Fatalf("after a statement without a table: kept %d, counted %d, packet %d", len(d.list), d.count, d.warningCount())
	}
	d.start(true)
	if len(d.list) != 0 || d.count != 0 || d.errors != 0 {
		t.Fatalf("after a statement with a table: kept %d, counted %d", len(d.list), d.count)
	}
}

// TestShowWarningsColumns: SHOW WARNINGS's and SHOW ERRORS's columns are
// MariaDB's: Level and Message VARCHAR, Code INT UNSIGNED, as
// go-sql-driver reads them from each.
func TestShowWarningsColumns(t *testing.T) {
	mc, _ := testenv.MariaDBConn(t, "seqd_warncols")
	addr, _ := startServer(t, Config{})
	sc, err := open(t, addr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for _, q := range []string{"SHOW WARNINGS", "SHOW ERRORS"} {
		var types [2]string
		for i, db := range []*sql.Conn{mc, sc} {
			if _, err := db.ExecContext(ctx, "DROP SEQUENCE IF EXISTS nope"); err != nil {
				t.Fatal(err)
			}
			rows, err := db.QueryContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			cts, _ := rows.ColumnTypes()
			for _, c := range cts {
				n, _ := c.Nullable()
				types[i] += fmt.Sprintf("%s %s null=%v; ", c.Name(), c.DatabaseTypeName(), n)
			}
			rows.Close()
		}
		if types[0] != types[1] {
			t.Errorf("%s: MariaDB's columns %s, seqd's %s", q, types[0], types[1])
		}
	}
}

// TestExprWarningCountPackets: the EOF packet that ends a result carries
// the number of warnings its expressions raised, as text and as a
// prepared statement's binary result, all of them past the 64 kept.
func TestExprWarningCountPackets(t *testing.T) {
	addr, _ := startServer(t, Config{})
	c := dialRaw(t, addr)
	c.mustLogin("root", "root pw")
	many := "SELECT 1/0 FROM (SELECT 1" + strings.Repeat(" UNION ALL SELECT 1", 69) + ") t"
	for _, q := range []struct {
		text     string
		warnings uint16
	}{
		{"SELECT 1/0, 2/0", 2}, {"SELECT 1", 0}, {"SELECT CAST('1x' AS SIGNED), CAST(-1 AS UNSIGNED)", 2}, {many, 70},
	} {
		c.command(append([]byte{0x03}, q.text...)...) // COM_QUERY
		if got := c.resultWarnings(); got != q.warnings {
			t.Errorf("%s: %d warnings in its EOF, want %d", q.text, got, q.warnings)
		}
		stmt := c.prepare(q.text)
		c.command(append(binary.LittleEndian.AppendUint32([]byte{comStmtExecute}, stmt), 0, 1, 0, 0, 0)...)
		if got := c.resultWarnings(); got != q.warnings {
			t.Errorf("%s prepared: %d warnings in its EOF, want %d", q.text, got, q.warnings)
		}
	}
}

// resultWarnings reads a result (its column count, definitions, EOF,
// rows, EOF) and returns its last EOF's warning count.
func (c *rawConn) resultWarnings() uint16 {
	c.t.Helper()
	if first := c.mustRead(); first[0] == 0 || first[0] == 0xff {
		c.t.Fatalf("no result: %s", describe(first))
	}
	for eofs := 0; ; {
		r := c.mustRead()
		if r[0] == 0xfe && len(r) < 9 {
			if eofs++; eofs == 2 {
				return binary.LittleEndian.Uint16(r[1:])
			}
		}
	}
}
