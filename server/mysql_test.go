package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"database/sql"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// startBoth starts a server with cfg and both listeners on loopback, and
// opens a pool of pgConns PostgreSQL connections and a MySQL database
// handle to it, all closed when the test ends.
func startBoth(t *testing.T, cfg Config, pgConns int) (*pgxpool.Pool, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	cfg.DataDir, cfg.Listen, cfg.MySQLListen = filepath.Join(t.TempDir(), "d"), "127.0.0.1:0", "127.0.0.1:0"
	cfg.Logger = log.New(io.Discard, "", 0)
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	pg, err := pgxpool.New(ctx, fmt.Sprintf("postgres://seqd@%s/seqd?pool_max_conns=%d", s.Addr(), pgConns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Close)
	my, err := sql.Open("mysql", "seqd@tcp("+s.MySQLAddr().String()+")/public")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { my.Close() })
	return pg, my
}

// TestBothProtocols: with -mysql-listen, MySQL's and PostgreSQL's
// protocols serve the same sequences: clients of both take values of one
// sequence concurrently, all distinct, each client's in increasing order;
// and the connection budget is the two protocols' together.
func TestBothProtocols(t *testing.T) {
	ctx := context.Background()
	pg, my := startBoth(t, Config{MaxConns: 12, ReservedConns: 0}, 4)
	// Idle connections stay open (database/sql would close those over
	// its default 2, and the server might still count one as the budget
	// is measured below).
	my.SetMaxOpenConns(4)
	my.SetMaxIdleConns(4)
	if _, err := pg.Exec(ctx, "create sequence shared cache 50"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var all []int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	take := func(next func() (int64, error)) {
		defer wg.Done()
		var last int64
		for range 100 {
			v, err := next()
			if err != nil {
				errs <- err
				return
			}
			if v <= last {
				errs <- errors.New("a client's values went backwards")
				return
			}
			last = v
			mu.Lock()
			all = append(all, v)
			mu.Unlock()
		}
	}
	for range 4 {
		wg.Add(2)
		go func() {
			c, err := pg.Acquire(ctx)
			if err != nil {
				errs <- err
				wg.Done()
				return
			}
			defer c.Release()
			take(func() (v int64, err error) { return v, c.QueryRow(ctx, "select nextval('shared')").Scan(&v) })
		}()
		go func() {
			c, err := my.Conn(ctx)
			if err != nil {
				errs <- err
				wg.Done()
				return
			}
			defer c.Close()
			take(func() (v int64, err error) { return v, c.QueryRowContext(ctx, "SELECT NEXT VALUE FOR shared").Scan(&v) })
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("value %d twice", all[i])
		}
	}
	if len(all) != 800 {
		t.Fatalf("%d values", len(all))
	}

	// Over the budget of both protocols together: MySQL's 1040.
	var held []*sql.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	my.SetMaxOpenConns(0)
	for retries := 0; ; {
		c, err := my.Conn(ctx)
		if err == nil {
			err = c.PingContext(ctx)
		}
		var me *gomysql.MySQLError
		if errors.As(err, &me) && me.Number == 1040 {
			// A connection a client closed (database/sql discards one
			// it finds bad) holds its slot until the server has seen it
			// go: below the budget, try again once that has happened.
			if my.Stats().OpenConnections+int(pg.Stat().TotalConns()) < 12 && retries < 40 {
				retries++
				time.Sleep(50 * time.Millisecond)
				continue
			}
			break
		}
		if err != nil {
			t.Fatalf("a connection under the budget: %v", err)
		}
		held = append(held, c)
		if len(held) > 12 {
			t.Fatal("more MySQL connections than the budget allows")
		}
	}
	// database/sql may have opened a connection beyond those held (its
	// opener answers waiting requests in the background): what the
	// budget counts is every connection open.
	if open := my.Stats().OpenConnections; open+int(pg.Stat().TotalConns()) != 12 {
		t.Fatalf("%d MySQL connections open (%d held) and %d PostgreSQL ones before 1040, want 12 together", open, len(held), pg.Stat().TotalConns())
	}
}

// TestMySQLRSAKeyFile: -mysql-rsa-key's key (PKCS #8 here) is the one
// caching_sha2_password's full authentication without TLS uses: a client
// given its public half beforehand logs in; a file with no RSA key in it
// stops the server from starting, naming the file.
func TestMySQLRSAKeyFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rsa.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{DataDir: filepath.Join(dir, "d"), Listen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0", MaxConns: 10,
		Auth: "scram-sha-256", Password: "pw", MySQLDefaultAuth: "caching_sha2_password", MySQLRSAKey: path, Logger: log.New(io.Discard, "", 0)}
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	gomysql.RegisterServerPubKey("seqd-rsa-file", &key.PublicKey)
	db, err := sql.Open("mysql", "seqd:pw@tcp("+s.MySQLAddr().String()+")/public?serverPubKey=seqd-rsa-file")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err != nil {
		t.Fatalf("caching_sha2_password with the key file's public key: %v", err)
	}
	db.Close()
	s.Shutdown(ctx)

	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if der, err = x509.MarshalPKCS8PrivateKey(ec); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"ec.pem":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		"none.pem": []byte("not a key"),
	} {
		cfg.MySQLRSAKey = filepath.Join(dir, name)
		if err := os.WriteFile(cfg.MySQLRSAKey, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if s, err := Start(ctx, cfg); err == nil || !strings.Contains(err.Error(), name) {
			if err == nil {
				s.Shutdown(ctx)
			}
			t.Fatalf("-mysql-rsa-key %s: %v, want an error naming the file", name, err)
		}
	}
}

// TestActivityBothProtocols: pg_stat_activity lists MySQL's sessions
// beside PostgreSQL's, each with its statement as its client sent it, its
// state and the lock it waits for; one that ends leaves.
func TestActivityBothProtocols(t *testing.T) {
	ctx := context.Background()
	pg, my := startBoth(t, Config{}, 2)
	conn, err := my.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE SEQUENCE ms"); err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := conn.QueryRowContext(ctx, "SELECT NEXT VALUE FOR ms").Scan(&v); err != nil {
		t.Fatal(err)
	}
	row := func() (state, query, wait string, ok bool) {
		err := pg.QueryRow(ctx, "select state, query, coalesce(wait_event_type || '/' || wait_event, '') from pg_stat_activity where pid = $1", int32(id)).
			Scan(&state, &query, &wait)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		return state, query, wait, err == nil
	}
	if state, query, wait, ok := row(); !ok || state != "idle" || query != "SELECT NEXT VALUE FOR ms" || wait != "Client/ClientRead" {
		t.Errorf("the MySQL session: %v %q %q %q", ok, state, query, wait)
	}

	// It waits for a PostgreSQL block's lock on the sequence.
	tx, err := pg.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "alter sequence ms increment 10"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	defer tx.Rollback(ctx)
	go func() { done <- conn.QueryRowContext(ctx, "SELECT NEXTVAL(ms)").Scan(&v) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if state, query, wait, _ := row(); state == "active" && query == "SELECT NEXTVAL(ms)" && wait == "Lock/relation" {
			break
		}
		if time.Now().After(deadline) {
			s, q, w, ok := row()
			t.Fatalf("the MySQL session does not show its wait: %q %q %q %v", s, q, w, ok)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || v != 11 {
		t.Fatalf("NEXTVAL after the ALTER: %d, %v", v, err)
	}
	conn.Close()
	my.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, _, _, ok := row(); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the MySQL session is still listed after it ended")
		}
	}
}

// TestIncrementZeroBothProtocols: a sequence MariaDB's INCREMENT BY 0
// made steps by 1 on both protocols; MySQL's views show 0, PostgreSQL's
// its increment, 1 (PostgreSQL refuses INCREMENT 0 itself); an ALTER
// from PostgreSQL that gives INCREMENT clears the 0.
func TestIncrementZeroBothProtocols(t *testing.T) {
	ctx := context.Background()
	pg, my := startBoth(t, Config{MaxConns: 8}, 2)
	my.SetMaxOpenConns(1)
	if _, err := my.Exec("CREATE SEQUENCE z START WITH 5 INCREMENT BY 0 NOCACHE"); err != nil {
		t.Fatal(err)
	}
	var a, b, inc int64
	if err := my.QueryRow("SELECT NEXTVAL(z), increment FROM z").Scan(&a, &inc); err != nil || a != 5 || inc != 0 {
		t.Fatalf("MySQL: %d, increment %d, %v", a, inc, err)
	}
	if err := pg.QueryRow(ctx, "select nextval('z'), increment_by from pg_sequences where sequencename = 'z'").Scan(&b, &inc); err != nil || b != 6 || inc != 1 {
		t.Fatalf("PostgreSQL: %d, increment_by %d, %v", b, inc, err)
	}
	if _, err := pg.Exec(ctx, "create sequence z2 increment 0"); err == nil || !strings.Contains(err.Error(), "22023") {
		t.Fatalf("PostgreSQL's INCREMENT 0: %v, want 22023", err)
	}
	if _, err := pg.Exec(ctx, "alter sequence z maxvalue 100"); err != nil {
		t.Fatal(err)
	}
	var create string
	if err := my.QueryRow("SHOW CREATE SEQUENCE z").Scan(new(string), &create); err != nil || !strings.Contains(create, "increment by 0") {
		t.Fatalf("after ALTER MAXVALUE: %q, %v", create, err)
	}
	if _, err := pg.Exec(ctx, "alter sequence z increment 1"); err != nil {
		t.Fatal(err)
	}
	if err := my.QueryRow("SHOW CREATE SEQUENCE z").Scan(new(string), &create); err != nil || !strings.Contains(create, "increment by 1") {
		t.Fatalf("after ALTER INCREMENT 1: %q, %v", create, err)
	}
}
