package client_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/seqd/seqd/client"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// seqdURL is the address of the seqd that TestMain runs in this process
// for the tests and examples; seqdAPI its HTTP API's.
var seqdURL, seqdAPI string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seqd-client-test")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	srv, err := server.Start(ctx, server.Config{DataDir: dir, Listen: "127.0.0.1:0", APIListen: "127.0.0.1:0", MaxBulkRows: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	seqdURL = fmt.Sprintf("postgres://seqd@%s/seqd?sslmode=disable", srv.Addr())
	seqdAPI = "http://" + srv.APIAddr().String()
	code := m.Run()
	if err := srv.Shutdown(ctx); err != nil {
		log.Print(err)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// kinds are the sources every test runs against.
var kinds = []string{"seqd", "seqd-http", "postgres-table", "mysql-table", "postgres-native", "mariadb-native"}

var nameSeq atomic.Int64

// freshName is a sequence name no earlier run used (the databases keep
// their sequences between runs).
func freshName() string {
	return fmt.Sprintf("t%d_%d", time.Now().UnixNano(), nameSeq.Add(1))
}

func seqdPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), seqdURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// apiToken is a bearer token for the HTTP API, made once.
func apiToken(t testing.TB) string {
	t.Helper()
	tokenOnce.Do(func() {
		// A role of its own: the bootstrap superuser of a server under
		// trust has no record to keep a token in.
		ctx := context.Background()
		if _, err := seqdPool(t).Exec(ctx, "create role client_api superuser login"); err != nil {
			t.Fatal(err)
		}
		c, err := pgx.Connect(ctx, strings.Replace(seqdURL, "://seqd@", "://client_api@", 1))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if err := c.QueryRow(ctx, "select seqd_create_token('client tests', 1)").Scan(&token); err != nil {
			t.Fatal(err)
		}
	})
	if token == "" {
		t.Fatal("no API token")
	}
	return token
}

var (
	tokenOnce sync.Once
	token     string
)

func openDB(t testing.TB, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(32)
	t.Cleanup(func() { db.Close() })
	return db
}

func postgresDSN(t testing.TB) string { return testenv.PostgresDSN(t) }
func postgresDB(t testing.TB) *sql.DB { return openDB(t, "pgx", postgresDSN(t)) }
func mariaDB(t testing.TB) *sql.DB    { return openDB(t, "mysql", testenv.MariaDBDSN(t)) }

const testTable = "seqd_client_test_sequences"

// source opens a source of the given kind; native sequences are made
// with INCREMENT inc (the range size a batch of them can take).
func source(t testing.TB, kind string, inc int64) client.Source {
	t.Helper()
	switch kind {
	case "seqd":
		return client.NewSeqd(seqdPool(t), client.SeqdOptions{})
	case "seqd-http":
		// With a bearer token, as a deployed caller would hold.
		return client.NewSeqdHTTP(seqdAPI, client.SeqdHTTPOptions{Token: apiToken(t)})
	case "postgres-table", "mysql-table":
		src, _ := tableSource(t, kind)
		return src
	case "postgres-native":
		return client.NewPostgresNative(postgresDB(t), client.NativeOptions{Increment: inc})
	case "mariadb-native":
		return client.NewMariaDBNative(mariaDB(t), client.NativeOptions{Increment: inc})
	}
	t.Fatalf("unknown source %q", kind)
	return nil
}

// tableSource opens a table source of kind postgres-table or
// mysql-table, with its database handle (for Sync's transactions).
func tableSource(t testing.TB, kind string) (*client.Table, *sql.DB) {
	t.Helper()
	var db *sql.DB
	var src *client.Table
	var err error
	if kind == "postgres-table" {
		db = postgresDB(t)
		src, err = client.NewPostgresTable(db, client.TableOptions{Table: testTable})
	} else {
		db = mariaDB(t)
		src, err = client.NewMySQLTable(db, client.TableOptions{Table: testTable})
	}
	if err != nil {
		t.Fatal(err)
	}
	return src, db
}

// created makes a fresh sequence starting at 1 in src.
func created(t testing.TB, src client.Source) string {
	t.Helper()
	name := freshName()
	if err := src.Create(context.Background(), name, 1); err != nil {
		t.Fatal(err)
	}
	return name
}
