package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"

	_ "github.com/go-sql-driver/mysql" // the test MariaDB's driver
)

// MariaDBConn is one connection to a database of its own on the test
// MariaDB (prefix and the process's ID, so that runs at once do not
// meet), made afresh and dropped when tb ends; db is its name.
func MariaDBConn(tb testing.TB, prefix string) (c *sql.Conn, db string) {
	tb.Helper()
	ctx := context.Background()
	pool, err := sql.Open("mysql", MariaDBDSN(tb))
	if err != nil {
		tb.Fatal(err)
	}
	db = fmt.Sprintf("%s_%d", prefix, os.Getpid())
	for _, q := range []string{"DROP DATABASE IF EXISTS " + db, "CREATE DATABASE " + db} {
		if _, err := pool.Exec(q); err != nil {
			tb.Fatal(q, err)
		}
	}
	if c, err = pool.Conn(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "USE "+db); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		c.Close()
		pool.Exec("DROP DATABASE " + db)
		pool.Close()
	})
	return c, db
}

// RowStrings reads rows' columns and values as text, NULL as "NULL".
func RowStrings(rows *sql.Rows) (cols []string, out [][]string, err error) {
	if cols, err = rows.Columns(); err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	return cols, out, rows.Err()
}
