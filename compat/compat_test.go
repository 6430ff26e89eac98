// Package compat proves that every mainstream PostgreSQL application stack
// works against seqd with its default settings: each stack, in its own
// language, creates a sequence, calls nextval concurrently (all values
// distinct), uses currval and setval, meets an error by its SQLSTATE, and
// runs a transaction block with a savepoint, plus what is particular to
// it. The stacks' packages come from their registries through
// scripts/test-deps.sh.
package compat

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/lib/pq"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// startSeqd runs seqd in this process on a fresh data directory.
func startSeqd(t *testing.T) (host, port string) {
	t.Helper()
	return startWith(t, server.Config{})
}

// startWith runs seqd with cfg on a fresh data directory and a loopback
// port.
func startWith(t *testing.T, cfg server.Config) (host, port string) {
	t.Helper()
	srv := seqdtest.Start(t, cfg)
	host, port, _ = net.SplitHostPort(srv.Addr().String())
	return host, port
}

// freshDatabase makes database db afresh on the test PostgreSQL, then runs
// the statements in then there, and returns the configuration that
// reaches db.
func freshDatabase(t *testing.T, db string, then ...string) *pgx.ConnConfig {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(testenv.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, q := range append([]string{"drop database if exists " + db, "create database " + db}, then...) {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	cfg.Database = db
	return cfg
}

// connectBoth makes database db afresh on PostgreSQL as freshDatabase
// does, starts a new seqd, and connects to both as the same user and
// database. The connections close when the test ends.
func connectBoth(t *testing.T, db string, then ...string) (pg, sd *pgx.Conn, cfg *pgx.ConnConfig, host string, port uint16) {
	t.Helper()
	ctx := context.Background()
	cfg = freshDatabase(t, db, then...)
	pg, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close(ctx) })
	host, p := startSeqd(t)
	sd, err = pgx.Connect(ctx, fmt.Sprintf("postgres://%s@%s:%s/%s", cfg.User, host, p, db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sd.Close(ctx) })
	fmt.Sscan(p, &port)
	return pg, sd, cfg, host, port
}

// runJDBC connects with pgjdbc to url as user/password and takes
// nextval('s'), failing the test on any error.
func runJDBC(t *testing.T, url, user, password string) {
	t.Helper()
	runJDBCQuery(t, url, user, password, "select nextval('s')")
}

// runJDBCQuery connects with url as user (the JDBC driver the URL names,
// with its defaults), runs query, a one-value query, and returns the
// value as text.
func runJDBCQuery(t *testing.T, url, user, password, query string) string {
	t.Helper()
	lib := need(t, "SEQD_TEST_JAVA_LIB")
	classes := t.TempDir()
	src := filepath.Join(classes, "Value.java")
	os.WriteFile(src, []byte(`public final class Value {
  public static void main(String[] a) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(a[0], a[1], a[2]);
         java.sql.ResultSet r = c.createStatement().executeQuery(a[3])) {
      r.next();
      System.out.println(r.getString(1));
    }
  }
}
`), 0o644)
	cp := filepath.Join(lib, "*")
	if out, err := exec.Command(testenv.Command(t, "javac"), "-d", classes, "-cp", cp, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	out, err := exec.Command(testenv.Command(t, "java"), "-cp", classes+string(os.PathListSeparator)+cp, "Value", url, user, password, query).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", url, err, out)
	}
	return strings.TrimSpace(string(out))
}

// run runs one stack's program and fails the test with its output if it
// fails.
func run(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd.Path, err, out)
	}
	t.Logf("%s", out)
}

func need(t *testing.T, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		if os.Getenv("SEQD_REQUIRE_DEPS") != "" {
			t.Fatalf("no %s: run scripts/test", env)
		}
		t.Skipf("no %s: run scripts/test", env)
	}
	return v
}

// TestPython: psycopg2 (with a named cursor), psycopg 3, asyncpg
// (connection and Pool), SQLAlchemy 2 on psycopg2, psycopg and asyncpg.
func TestPython(t *testing.T) {
	host, port := startSeqd(t)
	run(t, exec.Command(testenv.Python(t), "python/drivers.py", host, port))
}

// TestNode: node-postgres Pool and postgres.js.
func TestNode(t *testing.T) {
	host, port := startSeqd(t)
	runNode(t, "drivers.mjs", host, port)
}

// TestNodeORM: Sequelize, which loads its type map from pg_type and
// pg_range at connect.
func TestNodeORM(t *testing.T) {
	host, port := startSeqd(t)
	runNode(t, "orm.mjs", host, port)
}

// TestNodeMySQL: mysql2 (query and execute) and mariadb over MySQL's
// protocol, logging in with the superuser's password.
func TestNodeMySQL(t *testing.T) {
	srv := seqdtest.Start(t, server.Config{MySQLListen: "127.0.0.1:0", Auth: "scram-sha-256", Password: "pw"})
	host, port, _ := net.SplitHostPort(srv.MySQLAddr().String())
	runNode(t, "mysql_drivers.mjs", host, port)
}

// TestNodeHTTP: Node's own fetch against the HTTP API, under SCRAM.
func TestNodeHTTP(t *testing.T) {
	srv := seqdtest.Start(t, server.Config{APIListen: "127.0.0.1:0", Auth: "scram-sha-256", Password: "pw"})
	c, err := pgx.Connect(context.Background(), "postgres://seqd:pw@"+srv.Addr().String()+"/seqd?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "create role app login password 'app pw'"); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(srv.APIAddr().String())
	runNode(t, "http_api.mjs", host, port)
}

// runNode runs compat/node's script against host and port.
func runNode(t *testing.T, script, host, port string) {
	t.Helper()
	run(t, nodeCommand(t, script, host, port))
}

// nodeCommand is compat/node's script to run with args.
func nodeCommand(t *testing.T, script string, args ...string) *exec.Cmd {
	t.Helper()
	modules := need(t, "SEQD_TEST_NODE_MODULES")
	node := testenv.Command(t, "node")
	// ES modules resolve packages beside the script: run a copy of it
	// next to the installed node_modules.
	dir := t.TempDir()
	src, err := os.ReadFile("node/" + script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, script), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return exec.Command(node, append([]string{filepath.Join(dir, script)}, args...)...)
}

// TestJava: pgjdbc, pgjdbc with preferQueryMode=simple, and HikariCP.
func TestJava(t *testing.T) {
	lib := need(t, "SEQD_TEST_JAVA_LIB")
	javac, java := testenv.Command(t, "javac"), testenv.Command(t, "java")
	host, port := startSeqd(t)
	classes := t.TempDir()
	cp := filepath.Join(lib, "*")
	run(t, exec.Command(javac, "-d", classes, "-cp", cp, "java/src/main/java/seqd/compat/Drivers.java"))
	run(t, exec.Command(java, "-cp", classes+string(os.PathListSeparator)+cp, "seqd.compat.Drivers", host, port))
}

// TestRust: tokio-postgres, with i32 parameters where PostgreSQL infers
// integer.
func TestRust(t *testing.T) {
	bin := need(t, "SEQD_TEST_RUST_DRIVERS")
	host, port := startSeqd(t)
	run(t, exec.Command(bin, host, port))
}

// TestGo: lib/pq through database/sql, and pgx's pool.
func TestGo(t *testing.T) {
	host, port := startSeqd(t)
	ctx := context.Background()
	t.Run("lib/pq", func(t *testing.T) {
		db, err := sql.Open("postgres", fmt.Sprintf("host=%s port=%s user=seqd dbname=seqd sslmode=disable", host, port))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(4)
		scenario(t, "pq_s", goDriver{
			exec: func(q string, args ...any) error { _, err := db.ExecContext(ctx, q, args...); return err },
			one: func(q string, args ...any) (v int64, err error) {
				err = db.QueryRowContext(ctx, q, args...).Scan(&v)
				return v, err
			},
			code: func(err error) string {
				var pe *pq.Error
				if errors.As(err, &pe) {
					return string(pe.Code)
				}
				return ""
			},
			block: func(f func(exec func(string) error) error) error {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					return err
				}
				if err := f(func(q string) error { _, err := tx.ExecContext(ctx, q); return err }); err != nil {
					tx.Rollback()
					return err
				}
				return tx.Commit()
			},
		})
	})
	t.Run("pgx pool", func(t *testing.T) {
		pool, err := pgxpool.New(ctx, fmt.Sprintf("postgres://seqd@%s:%s/seqd", host, port))
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		scenario(t, "pgx_s", goDriver{
			exec: func(q string, args ...any) error { _, err := pool.Exec(ctx, q, args...); return err },
			one: func(q string, args ...any) (v int64, err error) {
				err = pool.QueryRow(ctx, q, args...).Scan(&v)
				return v, err
			},
			code: func(err error) string {
				var pe *pgconn.PgError
				if errors.As(err, &pe) {
					return pe.Code
				}
				return ""
			},
			block: func(f func(exec func(string) error) error) error {
				tx, err := pool.Begin(ctx)
				if err != nil {
					return err
				}
				if err := f(func(q string) error { _, err := tx.Exec(ctx, q); return err }); err != nil {
					tx.Rollback(ctx)
					return err
				}
				return tx.Commit(ctx)
			},
		})
	})
}

// goDriver is what the scenario needs of a Go driver.
type goDriver struct {
	exec  func(q string, args ...any) error
	one   func(q string, args ...any) (int64, error) // a query returning one integer
	code  func(error) string                         // an error's SQLSTATE
	block func(func(exec func(string) error) error) error
}

// scenario is the matrix's common story for a Go driver.
func scenario(t *testing.T, name string, d goDriver) {
	if err := d.exec("create sequence " + name); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				v, err := d.one("select nextval($1)", name)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[v] {
					t.Errorf("%d returned twice", v)
				}
				seen[v] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 200 {
		t.Fatalf("%d distinct values, want 200", len(seen))
	}
	if v, err := d.one("select setval($1, $2)", name, int64(1000)); err != nil || v != 1000 {
		t.Fatalf("setval: %d, %v", v, err)
	}
	if v, err := d.one("select nextval($1) + currval($1)", name); err != nil || v != 2002 {
		t.Fatalf("nextval + currval: %d, %v; want 2002", v, err)
	}
	if _, err := d.one("select nextval('go_missing')"); d.code(err) != "42P01" {
		t.Fatalf("missing sequence: %v, want 42P01", err)
	}
	err := d.block(func(exec func(string) error) error {
		for _, q := range []string{"select nextval('" + name + "')", "savepoint a"} {
			if err := exec(q); err != nil {
				return err
			}
		}
		if err := exec("select 1/0"); d.code(err) != "22012" {
			return fmt.Errorf("division by zero: %v, want 22012", err)
		}
		for _, q := range []string{"rollback to savepoint a", "release savepoint a"} {
			if err := exec(q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := d.one("select nextval($1)", name); err != nil || v != 1003 {
		t.Fatalf("after the block: %d, %v; want 1003", v, err)
	}
}
