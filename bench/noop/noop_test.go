package noop

import (
	"context"
	"database/sql"
	"net"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// TestAnswers: simple and extended protocol queries, binary and text, get
// the counter's successive values.
func TestAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go new(Server).Serve(ln)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, "postgres://u@"+ln.Addr().String()+"/db?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for i, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeDescribeExec} {
		var v int64
		if err := c.QueryRow(ctx, "select nextval('s')", mode).Scan(&v); err != nil || v != int64(i+1) {
			t.Fatalf("mode %v: %d, %v", mode, v, err)
		}
	}
}

// TestMySQLAnswers: go-sql-driver/mysql's text and prepared statements
// get the counter's successive values from the MySQL responder.
func TestMySQLAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go new(MySQLServer).Serve(ln)
	db, err := sql.Open("mysql", "u@tcp("+ln.Addr().String()+")/db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var v int64
	if err := db.QueryRow("SELECT NEXTVAL(s)").Scan(&v); err != nil || v != 1 {
		t.Fatalf("text: %d, %v", v, err)
	}
	st, err := db.Prepare("SELECT NEXTVAL(s)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.QueryRow().Scan(&v); err != nil || v != 2 {
		t.Fatalf("prepared: %d, %v", v, err)
	}
}
