package mysqlwire

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/testenv"
)

// startServer serves MySQL's protocol on an in-memory engine with a
// superuser "root" and a role "app", both with passwords, and returns
// its address.
func startServer(t *testing.T, cfg Config) (string, *engine.Engine) {
	t.Helper()
	eng := testenv.MemEngine(t)
	s := serve(t, eng, cfg)
	return s.Addr().String(), eng
}

// serve serves MySQL's protocol on eng, as startServer.
func serve(t testing.TB, eng *engine.Engine, cfg Config) *Server {
	t.Helper()
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
	return s
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
	takeConcurrently(t, db, "SELECT NEXT VALUE FOR s", 200)

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
	// Parameters: the driver's default is a server-side prepared
	// statement (the binary protocol); with interpolateParams it sends
	// them in the text.
	var set int64
	if err := conn.QueryRowContext(ctx, "SELECT SETVAL(s, ?)", 3000).Scan(&set); err != nil || set != 3000 {
		t.Fatalf("SETVAL(s, ?) prepared: %d %v", set, err)
	}
	var label string
	if err := conn.QueryRowContext(ctx, "SELECT NEXTVAL(s), ?", "x").Scan(&next, &label); err != nil || next != 3001 || label != "x" {
		t.Fatalf("NEXTVAL(s), ? prepared: %d %q %v", next, label, err)
	}
	interp, err := sql.Open("mysql", fmt.Sprintf("root:root pw@tcp(%s)/test?interpolateParams=true", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer interp.Close()
	if err := interp.QueryRow("SELECT SETVAL(s, ?)", 4000).Scan(&set); err != nil || set != 4000 {
		t.Fatalf("SETVAL(s, ?) interpolated: %d %v", set, err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT NEXTVAL(s)").Scan(&next); err != nil || next != 4001 {
		t.Fatalf("after SETVAL(s, 4000): %d %v", next, err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT NEXT VALUE FOR missing"); number(err) != 4091 {
		t.Fatalf("an unknown sequence: %v, want 4091", err)
	}
	if _, err := conn.ExecContext(ctx, "SELEC 1"); number(err) != 1064 {
		t.Fatalf("a syntax error: %v, want 1064", err)
	}
	// A number of more digits than the grammar's decimal implements (its
	// panic, found by FuzzTranslate): an error, and the session goes on.
	if _, err := conn.ExecContext(ctx, "SELECT "+strings.Repeat("0", 62)+"2"+strings.Repeat("0", 19)); number(err) != 1235 {
		t.Fatalf("an 82-digit number: %v, want 1235", err)
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

// TestLibraryLog: the protocol library's errors reach the server's
// logger, marked as the MySQL listener's (a client that sends a
// handshake response that cannot be parsed); its lines for a connection
// closed are dropped.
func TestLibraryLog(t *testing.T) {
	var buf testenv.LogBuffer
	eng := testenv.MemEngine(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(Config{Engine: eng, Logger: log.New(&buf, "", 0)}, ln)
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, 4)
	if _, err := io.ReadFull(c, hdr); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte{2, 0, 0, 1, 0xff, 0xff}) // a response of two bytes
	io.Copy(io.Discard, c)
	c.Close()
	db := open(t, s.Addr().String(), "seqd", "")
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Prepare("SELECT NEXTVAL(missing)"); number(err) != 4091 {
		t.Fatalf("preparing an unknown sequence's NEXTVAL: %v, want 4091", err)
	}
	db.Close()
	if got := strings.Count(buf.String(), "NEXTVAL(missing)"); got != 1 || strings.Contains(buf.String(), "unable to prepare") {
		t.Fatalf("a statement that failed to prepare: logged %d times, want once and as seqd's:\n%s", got, buf.String())
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(buf.String(), "mysql: "); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no line of the library's in the server's log:\n%s", buf.String())
		}
	}
	before := buf.String()
	libPrintf("Error reading packet from client %d: %v", 7, errors.New("read tcp: use of closed network connection"))
	libPrint("Cannot read client handshake response: EOF")
	if now := buf.String(); now != before {
		t.Fatalf("a closed connection logged: %q", strings.TrimPrefix(now, before))
	}
}

// table is q's result as text: the column names, then a line per row,
// values comma-separated (NULL for NULL).
func table(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	r, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer r.Close()
	cols, rows, err := testenv.RowStrings(r)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out := strings.Join(cols, ",")
	for _, row := range rows {
		out += "\n" + strings.Join(row, ",")
	}
	return out
}
