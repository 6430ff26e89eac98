package mysqlwire

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/internal/testenv"
)

// startServer serves MySQL's protocol on an in-memory engine with a
// superuser "root" and a role "app", both with passwords, and returns
// its address.
func startServer(t *testing.T, cfg Config) (string, *engine.Engine) {
	t.Helper()
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	for _, r := range []engine.Role{{Name: "root", Superuser: true, Login: true, CreateRole: true}, {Name: "app", Login: true}} {
		v, err := auth.NewVerifier(r.Name + " pw")
		if err != nil {
			t.Fatal(err)
		}
		r.Verifier = v
		if err := eng.PutRole(ctx, r, true); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Engine, cfg.Auth, cfg.Logger = eng, AuthPassword, log.New(io.Discard, "", 0)
	s, err := NewServer(cfg, ln)
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(s.Close)
	return s.Addr().String(), eng
}

// open opens a go-sql-driver/mysql pool, with the driver's defaults, as
// user (whose password is user + " pw").
func open(t *testing.T, addr, user, db string) *sql.DB {
	t.Helper()
	pool, err := sql.Open("mysql", fmt.Sprintf("%s:%s pw@tcp(%s)/%s", user, user, addr, db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

var ctx = context.Background()

// sqlState is a MySQL error's SQLSTATE.
func sqlState(err error) string {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return string(me.SQLState[:])
	}
	return ""
}

// number is a MySQL error's number, 0 if err is none.
func number(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// TestDriver: go-sql-driver/mysql, with its defaults, logs in with a
// role's password (mysql_native_password against the stored hash, a
// wrong one 1045), creates a sequence, takes 200 values concurrently (all
// distinct), reads PREVIOUS VALUE FOR and LASTVAL, sets a value, gets an
// unknown sequence's error by its number, and runs a transaction.
func TestDriver(t *testing.T) {
	addr, _ := startServer(t, Config{})
	if err := open(t, addr, "app", "").Ping(); err != nil {
		t.Fatalf("log in as app: %v", err)
	}
	bad, err := sql.Open("mysql", fmt.Sprintf("app:wrong@tcp(%s)/", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := bad.Ping(); number(err) != 1045 {
		t.Fatalf("a wrong password: %v, want 1045", err)
	}
	root := open(t, addr, "root", "")
	if _, err := root.Exec("CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	db := open(t, addr, "root", "test")
	if _, err := db.Exec("CREATE SEQUENCE s START WITH 1 INCREMENT BY 1 NOCACHE"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v int64
			if err := db.QueryRow("SELECT NEXT VALUE FOR s").Scan(&v); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[v] {
				errs <- fmt.Errorf("value %d twice", v)
			}
			seen[v] = true
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != 200 || !seen[1] || !seen[200] {
		t.Fatalf("%d distinct values", len(seen))
	}

	conn, err := open(t, addr, "root", "test").Conn(context.Background()) // a session of its own
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	var prev sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT PREVIOUS VALUE FOR s").Scan(&prev); err != nil || prev.Valid {
		t.Fatalf("PREVIOUS VALUE FOR s before NEXTVAL in this session: %v %v, want NULL", prev, err)
	}
	var next, last int64
	if err := conn.QueryRowContext(ctx, "SELECT NEXTVAL(s)").Scan(&next); err != nil || next != 201 {
		t.Fatalf("NEXTVAL(s): %d %v", next, err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT lastval(test.s)").Scan(&last); err != nil || last != next {
		t.Fatalf("LASTVAL(s): %d %v, want %d", last, err, next)
	}
	if _, err := conn.ExecContext(ctx, "SELECT SETVAL(s, 1000)"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT NEXT VALUE FOR s").Scan(&next); err != nil || next != 1001 {
		t.Fatalf("after SETVAL(s, 1000): %d %v", next, err)
	}
	// Parameters: server-side prepared statements are not served yet
	// (1235); interpolated by the driver, they work.
	if _, err := conn.ExecContext(ctx, "SELECT SETVAL(s, ?)", 500); number(err) != 1235 {
		t.Fatalf("a prepared statement: %v, want 1235", err)
	}
	interp, err := sql.Open("mysql", fmt.Sprintf("root:root pw@tcp(%s)/test?interpolateParams=true", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer interp.Close()
	var set int64
	if err := interp.QueryRow("SELECT SETVAL(s, ?)", 2000).Scan(&set); err != nil || set != 2000 {
		t.Fatalf("SETVAL(s, ?) interpolated: %d %v", set, err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT NEXTVAL(s)").Scan(&next); err != nil || next != 2001 {
		t.Fatalf("after SETVAL(s, 2000): %d %v", next, err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT NEXT VALUE FOR missing"); number(err) != 4091 {
		t.Fatalf("an unknown sequence: %v, want 4091", err)
	}
	if _, err := conn.ExecContext(ctx, "SELEC 1"); number(err) != 1064 {
		t.Fatalf("a syntax error: %v, want 1064", err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var inTx int64
	if err := tx.QueryRow("SELECT NEXT VALUE FOR s").Scan(&inTx); err != nil || inTx <= next {
		t.Fatalf("in a transaction: %d %v", inTx, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var comment, dbName string
	if err := conn.QueryRowContext(ctx, "SELECT @@version_comment, DATABASE() LIMIT 1").Scan(&comment, &dbName); err != nil || comment != "seqd" || dbName != "test" {
		t.Fatalf("@@version_comment, DATABASE(): %q %q %v", comment, dbName, err)
	}
	var table, kind string
	if err := conn.QueryRowContext(ctx, "SHOW FULL TABLES").Scan(&table, &kind); err != nil || table != "s" || kind != "SEQUENCE" {
		t.Fatalf("SHOW FULL TABLES: %q %q %v", table, kind, err)
	}
	// app may not take values of root's sequence.
	if _, err := open(t, addr, "app", "test").Exec("SELECT NEXT VALUE FOR test.s"); number(err) != 1142 {
		t.Fatalf("app's nextval of root's sequence: %v, want 1142", err)
	}
}

// TestTooManyConnections: a connection over the budget the front ends
// share gets MySQL's 1040.
func TestTooManyConnections(t *testing.T) {
	reg := frontend.NewRegistry(1, 0)
	addr, _ := startServer(t, Config{Registry: reg})
	first := open(t, addr, "root", "")
	first.SetMaxOpenConns(1)
	if err := first.Ping(); err != nil {
		t.Fatal(err)
	}
	if err := open(t, addr, "root", "").Ping(); number(err) != 1040 {
		t.Fatalf("a connection over the budget: %v, want 1040", err)
	}
}
