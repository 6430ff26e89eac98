package migrate

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ImportMariaDB creates the sequences of a MariaDB 10.3+ database (db is
// connected to it, e.g. with go-sql-driver/mysql) in a seqd, in the schema
// of the same name (a MySQL database is a seqd schema), each with its
// options and beyond anything MariaDB handed out: MariaDB reserves
// values ahead in next_not_cached_value, so every value handed out lies
// before it, and seqd resumes at it (Margin more increments on for a
// source still serving). All are created in one transaction, or none.
func ImportMariaDB(ctx context.Context, db *sql.DB, target *pgx.Conn, o DumpOptions) (ImportReport, error) {
	var rep ImportReport
	var schema string
	if err := db.QueryRowContext(ctx, "select database()").Scan(&schema); err != nil {
		return rep, err
	}
	rows, err := db.QueryContext(ctx, `select table_name from information_schema.tables
		where table_schema = database() and table_type = 'SEQUENCE' order by table_name`)
	if err != nil {
		return rep, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return rep, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, err
	}
	var out bytes.Buffer
	schemas := map[string]bool{}
	for _, n := range names {
		s := dumpSeq{schema: schema, name: n, typ: "bigint"}
		var next, cycles int64
		q := "select next_not_cached_value, minimum_value, maximum_value, start_value, increment, cache_size, cycle_option, cycle_count from " +
			mysqlIdent(schema) + "." + mysqlIdent(n)
		if err := db.QueryRowContext(ctx, q).Scan(&next, &s.min, &s.max, &s.start, &s.incr, &s.cache, &s.cycle, &cycles); err != nil {
			return rep, fmt.Errorf("migrate: reading %s.%s: %w", schema, n, err)
		}
		if s.cache < 1 {
			s.cache = 1 // MariaDB's CACHE 0 (NOCACHE) is seqd's CACHE 1
		}
		// Every value handed out is before next (in the increment's
		// direction): the position is the value just before it.
		switch {
		case next == s.start && cycles == 0:
			// Nothing was handed out.
		case s.incr > 0 && next > s.max, s.incr < 0 && next < s.min:
			last := s.max // exhausted: at its limit
			if s.incr < 0 {
				last = s.min
			}
			s.last = &last
		default:
			last := next - s.incr
			s.last = &last
		}
		writeSequence(&out, s, schemas, o.Margin)
		rep.Sequences++
	}
	rep.SQL = out.String()
	if rep.Sequences == 0 {
		return rep, nil
	}
	if _, err := target.Exec(ctx, rep.SQL, pgx.QueryExecModeSimpleProtocol); err != nil {
		return rep, fmt.Errorf("migrate: creating the sequences in the target (nothing was created): %w", err)
	}
	return rep, nil
}

func mysqlIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
