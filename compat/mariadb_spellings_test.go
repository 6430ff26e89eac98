package compat

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
)

// mariadbSpellings are MariaDB's and TiDB's sequence statements, run on
// MariaDB 10.11 and, over PostgreSQL's protocol, on seqd: each must give
// the same values (or fail on both). Column names follow each protocol's
// own rule (PostgreSQL names NEXT VALUE FOR's column nextval), so they are
// not compared.
var mariadbSpellings = []string{
	"CREATE SEQUENCE m START WITH 100 INCREMENT BY 10 NOCACHE NOCYCLE",
	"CREATE SEQUENCE t NOCACHE",
	"SELECT PREVIOUS VALUE FOR m",
	"SELECT LASTVAL(m)",
	"SELECT NEXT VALUE FOR m",
	"SELECT NEXTVAL(m)",
	"SELECT PREVIOUS VALUE FOR m",
	"SELECT LASTVAL(m)",
	"SELECT SETVAL(m, 500)",
	"SELECT NEXTVAL(m)",
	"SELECT SETVAL(m, 50)",
	"SELECT NEXTVAL(m)",
	"SELECT SETVAL(m, 800, 0)",
	"SELECT NEXTVAL(m), NEXT VALUE FOR t",
	"SELECT NEXTVAL(missing)",
	"DROP SEQUENCE m, t",
}

// TestMariaDBSpellings compares the spellings live with MariaDB 10.11.
func TestMariaDBSpellings(t *testing.T) {
	ctx := context.Background()
	mc, _ := testenv.MariaDBConn(t, "seqd_spellings")
	host, port := startSeqd(t)
	pc, err := pgx.Connect(ctx, fmt.Sprintf("postgres://seqd@%s:%s/seqd", host, port))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	var diffs []string
	for _, q := range mariadbSpellings {
		want, got := mariaValues(ctx, mc, q), pgValues(ctx, pc, q)
		if want != got {
			diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, want, got))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd's MariaDB spellings differ from MariaDB 10.11:\n%s", strings.Join(diffs, "\n"))
	}
}

// mariaValues is a statement's rows on MariaDB, "error" if it failed.
func mariaValues(ctx context.Context, c *sql.Conn, q string) string {
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return "error"
	}
	defer rows.Close()
	_, vals, err := testenv.RowStrings(rows)
	if err != nil {
		return "error"
	}
	out := make([]string, len(vals))
	for i, r := range vals {
		out[i] = strings.Join(r, " | ")
	}
	return strings.Join(out, "; ")
}

// pgValues is a statement's rows on seqd over PostgreSQL's protocol.
func pgValues(ctx context.Context, c *pgx.Conn, q string) string {
	rows, err := c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return "error"
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		raw := rows.RawValues()
		vals := make([]string, len(raw))
		for i, r := range raw {
			vals[i] = "NULL"
			if r != nil {
				vals[i] = string(r)
			}
		}
		out = append(out, strings.Join(vals, " | "))
	}
	if rows.Err() != nil {
		return "error"
	}
	return strings.Join(out, "; ")
}
