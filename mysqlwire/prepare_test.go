package mysqlwire

import (
	"encoding/binary"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPreparedStatementCount: max_prepared_stmt_count bounds the
// prepared statements of all connections together, with MariaDB's 1461
// (it used to bound each connection's alone); a statement closed, or the
// connection that held it ending, gives its place back.
func TestPreparedStatementCount(t *testing.T) {
	addr, _ := startServer(t, Config{MaxPreparedStatements: 3})
	var shown int
	if err := open(t, addr, "app", "").QueryRow("SELECT @@max_prepared_stmt_count").Scan(&shown); err != nil || shown != 3 {
		t.Fatalf("@@max_prepared_stmt_count: %d %v", shown, err)
	}
	a, b := dialRaw(t, addr), dialRaw(t, addr)
	a.mustLogin("app", "app pw")
	b.mustLogin("app", "app pw")
	first := a.prepare("SELECT CONCAT(?)")
	a.prepare("SELECT CONCAT(?, ?)")
	b.prepare("SELECT CONCAT(?, ?, ?)")
	const full = "Can't create more than max_prepared_stmt_count statements (current value: 3)"
	if p := b.tryPrepare("SELECT 1"); !isError(p, 1461, "42000", full) {
		t.Fatalf("a fourth statement: %s, want 1461 (42000) %s", describe(p), full)
	}
	a.command(binary.LittleEndian.AppendUint32([]byte{comStmtClose}, first)...) // no answer
	a.ping()
	if p := b.tryPrepare("SELECT 1"); p[0] != 0 {
		t.Fatalf("after one was closed: %s", describe(p))
	}
	if p := b.tryPrepare("SELECT 2"); p[0] != 0xff {
		t.Fatalf("a fourth statement again: %s", describe(p))
	}
	a.nc.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if p := b.tryPrepare("SELECT 2"); p[0] == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("after the connection that held one ended: %s", describe(p))
		}
	}
}

// TestPreparedStatementMemory: one connection's prepared statements are
// bounded in the memory they hold (they used to be bounded only in
// count: 176 statements of 900 KB held 266 MB), with 1041; closing one
// makes room, and another connection has its own.
func TestPreparedStatementMemory(t *testing.T) {
	addr, _ := startServer(t, Config{MaxPreparedMemory: 1 << 20})
	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	q := "SELECT '" + strings.Repeat("x", 20<<10) + "'"
	var ids []uint32
	for {
		p := c.tryPrepare(q)
		if p[0] == 0xff {
			if n, state := errorOf(p); n != 1041 || state != "HY000" {
				t.Fatalf("statement %d: %s, want 1041 (HY000)", len(ids)+1, describe(p))
			}
			break
		}
		ids = append(ids, binary.LittleEndian.Uint32(p[1:]))
		if len(ids) > 100 {
			t.Fatalf("%d statements of 20 KB prepared within 1 MiB", len(ids))
		}
	}
	if len(ids) < 2 {
		t.Fatalf("only %d statements of 20 KB within 1 MiB", len(ids))
	}
	c.command(binary.LittleEndian.AppendUint32([]byte{comStmtClose}, ids[0])...)
	if p := c.tryPrepare(q); p[0] != 0 {
		t.Fatalf("after one was closed: %s", describe(p))
	}
	other := dialRaw(t, addr)
	other.mustLogin("app", "app pw")
	if p := other.tryPrepare(q); p[0] != 0 {
		t.Fatalf("another connection: %s", describe(p))
	}
}

// TestPreparedPlanKept: a prepared statement whose columns do not depend
// on the values bound, executed with values of the kinds it was
// prepared for, runs its plan (no step is built at the execution); one
// whose columns MariaDB types by the values bound, or executed with a
// value of another kind, is built again at each execution (bound.go).
func TestPreparedPlanKept(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	var built atomic.Int64
	stepHook = func(*step) { built.Add(1) }
	defer func() { stepHook = nil }()
	for _, x := range []struct {
		q     string
		args  []any
		built bool
	}{
		{"SELECT NEXTVAL(s)", nil, false},
		{"SELECT SETVAL(s, ?)", []any{5000}, false},
		{"SELECT start_value, NEXTVAL(s) FROM s WHERE increment = ?", []any{1}, false},
		{"SELECT LENGTH(?), NEXT VALUE FOR s", []any{"abc"}, false},
		{"SELECT ?, ? + 1", []any{"x", 1}, true},
		{"SELECT IFNULL(cache_size, ?) FROM s", []any{5}, true},
		{"SELECT start_value FROM s WHERE increment = ?", []any{"1x"}, true},
	} {
		st, err := c.PrepareContext(ctx, x.q)
		if err != nil {
			t.Fatalf("%s: %v", x.q, err)
		}
		built.Store(0)
		const runs = 3
		for range runs {
			rows, err := st.QueryContext(ctx, x.args...)
			if err != nil {
				t.Fatalf("%s: %v", x.q, err)
			}
			for rows.Next() {
			}
			if err := rows.Err(); err != nil {
				t.Fatalf("%s: %v", x.q, err)
			}
			rows.Close()
		}
		st.Close()
		if want := map[bool]int64{false: 0, true: runs}[x.built]; built.Load() != want {
			t.Errorf("%s %v: built %d times in %d executions, want %d", x.q, x.args, built.Load(), runs, want)
		}
	}
}
