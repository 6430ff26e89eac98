package mysqlwire

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/internal/testenv"
)

// TestUserVariablesBounded: a connection's user variables hold at most
// Config.MaxUserVariableMemory bytes; a SET past it is 1041 and sets
// nothing, a variable set to NULL gives its bytes back, and another
// connection has its own.
func TestUserVariablesBounded(t *testing.T) {
	addr, _ := startServer(t, Config{MaxUserVariableMemory: 64 << 10})
	db := open(t, addr, "root", "")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	set := 0
	for i := 0; i < 1000; i++ { // a thousand variables of 1 KiB: only about 60 fit
		_, err := c.ExecContext(ctx, fmt.Sprintf("SET @v%d = REPEAT('x', 1024)", i))
		if err != nil {
			if number(err) != 1041 || !strings.Contains(err.Error(), "65536 bytes") {
				t.Fatalf("SET @v%d: %v, want 1041 naming the bound", i, err)
			}
			break
		}
		set++
	}
	if set == 0 || set >= 64 {
		t.Fatalf("%d variables of 1 KiB were set within 64 KiB", set)
	}
	var v sql.NullString
	if err := c.QueryRowContext(ctx, fmt.Sprintf("SELECT @v%d", set)).Scan(&v); err != nil || v.Valid {
		t.Fatalf("the variable past the bound: %v, %v; want NULL, not set", v, err)
	}
	if _, err := c.ExecContext(ctx, fmt.Sprintf("SET @v0 = NULL, @v%d = REPEAT('y', 4096)", set)); number(err) != 1041 {
		t.Fatalf("a SET past the bound: %v, want 1041", err)
	}
	if err := c.QueryRowContext(ctx, "SELECT @v0").Scan(&v); err != nil || len(v.String) != 1024 {
		t.Fatalf("a SET past the bound set @v0 to %v, %v; want it as it was", v, err)
	}
	if _, err := c.ExecContext(ctx, "SET @v0 = NULL, @v1 = NULL"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, fmt.Sprintf("SET @v%d = REPEAT('y', 1024)", set)); err != nil {
		t.Fatalf("a variable in the bytes two NULLs gave back: %v", err)
	}
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.QueryRowContext(ctx, "SELECT @v2").Scan(&v); err != nil || v.Valid {
		t.Fatalf("another connection reads @v2 as %v, %v; want NULL", v, err)
	}
	if _, err := other.ExecContext(ctx, "SET @v2 = REPEAT('z', 1024)"); err != nil {
		t.Fatalf("another connection's own variables: %v", err)
	}
}

// TestUserVariablesReset: COM_RESET_CONNECTION forgets the user
// variables, as MariaDB's does.
func TestUserVariablesReset(t *testing.T) {
	addr, _ := startServer(t, Config{})
	r := dialRaw(t, addr)
	r.mustLogin("root", "root pw")
	read := func() []byte {
		t.Helper()
		id := r.prepare("SELECT @a")
		_, rows := r.execute(id, 0)
		if len(rows) != 1 {
			t.Fatalf("SELECT @a: %d rows", len(rows))
		}
		return rows[0]
	}
	if first, _ := r.execute(r.prepare("SET @a = 'kept'"), 0); first[0] != 0 {
		t.Fatalf("SET @a: %s", describe(first))
	}
	if got := oneString(read()); got != "kept" {
		t.Fatalf("SELECT @a before the reset: %q", got)
	}
	r.command(0x1f) // COM_RESET_CONNECTION
	if p := r.mustRead(); p[0] != 0 {
		t.Fatalf("COM_RESET_CONNECTION: %s", describe(p))
	}
	if row := read(); len(row) != 2 || row[1]&0x04 == 0 { // the header, a NULL bitmap with the first column's bit
		t.Fatalf("SELECT @a after the reset: %x, want NULL", row)
	}
}

// TestUserVariableTakesOneValue: SET @n = NEXT VALUE FOR s takes one
// value, which @n then reads, a SELECT kept from before the SET too, and
// a statement prepared before the SET reads the value set, at each
// execution.
func TestUserVariableTakesOneValue(t *testing.T) {
	addr, _ := startServer(t, Config{})
	c, err := open(t, addr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{"CREATE DATABASE d", "USE d", "CREATE SEQUENCE s"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.PrepareContext(ctx, "SELECT @n, ? + @n")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var a, b sql.NullInt64
	if err := c.QueryRowContext(ctx, "SELECT @n, @n + 1").Scan(&a, &b); err != nil || a.Valid || b.Valid { // kept, then run again
		t.Fatalf("SELECT @n before the SET: %v, %v, %v; want NULL", a, b, err)
	}
	if _, err := c.ExecContext(ctx, "SET @n = NEXT VALUE FOR s"); err != nil {
		t.Fatal(err)
	}
	var p int64
	if err := c.QueryRowContext(ctx, "SELECT @n, @n + 1").Scan(&a, &b); err != nil || a.Int64 != 1 || b.Int64 != 2 {
		t.Fatalf("SELECT @n, @n + 1: %v, %v, %v; want 1, 2", a, b, err)
	}
	if err := c.QueryRowContext(ctx, "SELECT @n, PREVIOUS VALUE FOR s").Scan(&a, &p); err != nil || a.Int64 != 1 || p != 1 {
		t.Fatalf("SELECT @n, PREVIOUS VALUE FOR s: %v, %d, %v; want 1, 1", a, p, err)
	}
	var next int64
	if err := c.QueryRowContext(ctx, "SELECT NEXT VALUE FOR s").Scan(&next); err != nil || next != 2 {
		t.Fatalf("the next value: %d, %v; want 2 (SET took one)", next, err)
	}
	for _, want := range []int64{1, 5} {
		if want == 5 {
			if _, err := c.ExecContext(ctx, "SET @n = 5"); err != nil {
				t.Fatal(err)
			}
		}
		var n, sum int64
		if err := st.QueryRowContext(ctx, 10).Scan(&n, &sum); err != nil || n != want || sum != 10+want {
			t.Fatalf("the statement prepared before: %d, %d, %v; want %d, %d", n, sum, err, want, 10+want)
		}
	}
}

// TestUserVariablesMariaDBClient: the mariadb client, given a script
// that takes a sequence's value into a variable and reads it, prints
// the same from seqd as from MariaDB 10.11 (one value taken, then read
// again).
func TestUserVariablesMariaDBClient(t *testing.T) {
	cli := testenv.Command(t, "mariadb")
	const script = `CREATE SEQUENCE s START WITH 10;
SET @n = NEXT VALUE FOR s;
SELECT @n, @n + 1, PREVIOUS VALUE FOR s;
SELECT NEXT VALUE FOR s, @n;
SET @a = 'x', @b = @a;
SELECT @a, @b, @unset, @n * 2;
SET @a = NULL, @b = @a;
SELECT @a, @b;
`
	_, dbName := testenv.MariaDBConn(t, "seqd_uservars_cli")
	cfg, err := gomysql.ParseDSN(testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	want := mariadbClient(t, cli, cfg.Addr, cfg.User, cfg.Passwd, script, dbName)
	addr, _ := startServer(t, Config{})
	if _, err := open(t, addr, "root", "").Exec("CREATE DATABASE " + dbName); err != nil {
		t.Fatal(err)
	}
	if got := mariadbClient(t, cli, addr, "root", "root pw", script, dbName); got != want {
		t.Fatalf("the mariadb client's output from seqd:\n%s\nfrom MariaDB:\n%s", got, want)
	}
}

// TestUserVariablesReadAgain: a statement sent again (its translation
// kept, without the value it was built with) reads a user variable as
// it is each time.
func TestUserVariablesReadAgain(t *testing.T) {
	addr, _ := startServer(t, Config{})
	c, err := open(t, addr, "root", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, want := range []int{1000, 2000} {
		if _, err := c.ExecContext(ctx, fmt.Sprintf("SET @big = REPEAT('x', %d)", want)); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := c.QueryRowContext(ctx, "SELECT LENGTH(@big)").Scan(&n); err != nil || n != want {
			t.Fatalf("run %d: LENGTH(@big) %d, %v; want %d", i, n, err, want)
		}
	}
}

// TestUserVariablesSetParams: SET @v = ? prepared takes the values bound
// at each execution, read as MariaDB reads a parameter, on MariaDB and
// on seqd alike.
func TestUserVariablesSetParams(t *testing.T) {
	mc, sc := pairedConns(t, "seqd_uservars_params")
	var got [2]string
	for i, c := range []*sql.Conn{mc, sc} {
		st, err := c.PrepareContext(ctx, "SET @w = ? + 1, @x = CONCAT(?, 'a')")
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]any{{5, "b"}, {"7", 2.5}, {nil, nil}} {
			if _, err := st.ExecContext(ctx, args...); err != nil {
				got[i] += fmt.Sprint(args, " ERROR ", errCode(err), "; ")
				continue
			}
			got[i] += fmt.Sprint(args, " ", queryResult(c, "SELECT @w, @x", false), "; ")
		}
		st.Close()
	}
	if got[0] != got[1] {
		t.Fatalf("SET @w = ? + 1, @x = CONCAT(?, 'a'):\n  MariaDB: %s\n  seqd:    %s", got[0], got[1])
	}
}
