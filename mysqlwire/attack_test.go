package mysqlwire

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// An ordinary login's attacks on the MySQL dialect's surfaces: each test
// here failed before the change it names.

// TestTooManyPlaceholders: a statement of more ? markers than a prepared
// statement's 16-bit parameter count holds is refused as MariaDB 10.11
// refuses it (1390), where it was prepared (several times, seconds of CPU
// for 300000 markers) and answered with PostgreSQL's words, 1105 "there
// is no parameter $65536".
func TestTooManyPlaceholders(t *testing.T) {
	addr, _ := startServer(t, Config{MaxMessage: 4 << 20})
	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	for _, q := range []string{
		"SELECT " + strings.TrimSuffix(strings.Repeat("?, ", 65536), ", "),
		"SELECT 1 WHERE 1 IN (" + strings.TrimSuffix(strings.Repeat("?, ", 65536), ", ") + ")",
	} {
		if p := c.tryPrepare(q); !isError(p, 1390, "HY000", "Prepared statement contains too many placeholders") {
			t.Errorf("prepare %.40q... of 65537 markers: %s, want 1390 (HY000) Prepared statement contains too many placeholders", q, describe(p))
		}
	}
	if p := c.ping(); p[0] != 0 {
		t.Fatalf("COM_PING after: %s", describe(p))
	}
}

// TestUngroupedColumnInExpression: a column neither grouped nor
// aggregated, read in an expression of the select list (a comparison,
// NOT, IF, IN, LIKE, COALESCE, IS NULL), is its group's least, as a bare
// one is: MariaDB 10.11 answers these (ONLY_FULL_GROUP_BY off), where
// PostgreSQL refused them in its words (1105 'column "s.cycle_option"
// must appear in the GROUP BY clause or be used in an aggregate
// function'). The answers are MariaDB's, names and values.
func TestUngroupedColumnInExpression(t *testing.T) {
	addr, eng := startServer(t, Config{})
	pgExec(t, eng, "CREATE SEQUENCE public.s")
	pgExec(t, eng, "GRANT SELECT ON SEQUENCE public.s TO app")
	app := open(t, addr, "app", "public")
	for _, c := range []struct{ q, want string }{
		{"SELECT cycle_option = 0, COUNT(*) FROM s GROUP BY increment", "cycle_option = 0,COUNT(*)\n1,1"},
		{"SELECT NOT cycle_option FROM s GROUP BY increment", "NOT cycle_option\n1"},
		{"SELECT IF(cycle_option, 'y', 'n') FROM s GROUP BY increment", "IF(cycle_option, 'y', 'n')\nn"},
		{"SELECT start_value IN (1, 2), start_value LIKE '1%' FROM s GROUP BY increment", "start_value IN (1, 2),start_value LIKE '1%'\n1,1"},
		{"SELECT COALESCE(start_value, 7), cycle_option IS NULL FROM s GROUP BY increment", "COALESCE(start_value, 7),cycle_option IS NULL\n1,0"},
		{"SELECT increment + 1, MAX(start_value) + start_value FROM s GROUP BY increment", "increment + 1,MAX(start_value) + start_value\n2,2"},
		{"SELECT cycle_option = 0 AS b, COUNT(*) FROM s GROUP BY b", "b,COUNT(*)\n1,1"},
		// ORDER BY and HAVING read such a column too; an aggregate
		// without GROUP BY makes the whole one group.
		{"SELECT COUNT(*) FROM s GROUP BY cache_size ORDER BY increment", "COUNT(*)\n1"},
		{"SELECT increment FROM s GROUP BY cache_size ORDER BY increment", "increment\n1"},
		{"SELECT COUNT(*) FROM s GROUP BY cache_size ORDER BY cycle_option = 0", "COUNT(*)\n1"},
		{"SELECT increment FROM s GROUP BY cache_size HAVING increment > 0", "increment\n1"},
		{"SELECT increment, COUNT(*) FROM s", "increment,COUNT(*)\n1,1"},
		{"SELECT increment = 1, COUNT(*) FROM s", "increment = 1,COUNT(*)\n1,1"},
	} {
		if got := table(t, app, c.q); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.q, got, c.want)
		}
	}
	// HAVING reads a column only where the select list holds it by
	// itself: MariaDB's 1054.
	for _, q := range []string{
		"SELECT COUNT(*) FROM s GROUP BY cache_size HAVING increment > 0",
		"SELECT COUNT(*) FROM s HAVING s.increment > 0",
	} {
		_, err := app.Exec(q)
		if number(err) != 1054 || !strings.HasPrefix(err.Error(), "Error 1054 (42S22): Unknown column '") || !strings.HasSuffix(err.Error(), "increment' in 'HAVING'") {
			t.Errorf("%s: %v, want 1054 (42S22) Unknown column '...increment' in 'HAVING'", q, err)
		}
	}
}

// TestBinaryValueOutOfRange: a prepared statement whose integer value
// does not fit its column's type (SELECT ? + 1 bound to BIGINT UNSIGNED's
// largest, typed BIGINT UNSIGNED) is refused with MariaDB 10.11's 1690
// before its rows are sent, and the connection goes on: the library could
// not write the value in the binary protocol and ended the connection in
// the middle of the result.
func TestBinaryValueOutOfRange(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "app", "")
	db.SetMaxOpenConns(1)
	var id, again int64
	if err := db.QueryRow("SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT ? + 1", "SELECT 1, ? + 1 AS s"} {
		stmt, err := db.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := stmt.Query(uint64(18446744073709551615))
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if number(err) != 1690 || !strings.Contains(err.Error(), "BIGINT UNSIGNED value is out of range in '") {
			t.Errorf("%s bound to 18446744073709551615: %v, want 1690 BIGINT UNSIGNED value is out of range", q, err)
		}
		stmt.Close()
	}
	if err := db.QueryRow("SELECT CONNECTION_ID()").Scan(&again); err != nil || again != id {
		t.Errorf("after: connection %d, %v; want the same connection, %d", again, err, id)
	}
}

// TestFractionBoundToInteger: a DOUBLE, a DECIMAL or an unsigned integer
// past BIGINT's range bound to a marker prepared as an integer (WHERE
// increment = ?) is compared as the number it is, as MariaDB 10.11
// compares it (rule 1 of bound.go), where PostgreSQL's side refused it
// with 1105 'invalid input syntax for type bigint: "1.5"' or 1264.
func TestFractionBoundToInteger(t *testing.T) {
	addr, eng := startServer(t, Config{})
	pgExec(t, eng, "CREATE SEQUENCE public.s")
	pgExec(t, eng, "GRANT SELECT ON SEQUENCE public.s TO app")
	app := open(t, addr, "app", "public")
	for _, c := range []struct {
		q    string
		arg  any
		want int
	}{
		{"SELECT increment FROM s WHERE increment = ?", 1.5, 0},
		{"SELECT increment FROM s WHERE increment = ?", 1.0, 1},
		{"SELECT increment FROM s WHERE increment < ?", float32(1.5), 1},
		{"SELECT increment FROM s WHERE increment IN (?, 2)", uint64(18446744073709551615), 0},
		{"SELECT increment FROM s WHERE start_value < ?", uint64(18446744073709551615), 1},
	} {
		rows, err := app.Query(c.q, c.arg)
		if err != nil {
			t.Errorf("%s bound to %v: %v", c.q, c.arg, err)
			continue
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil || n != c.want {
			t.Errorf("%s bound to %v: %d rows, %v; want %d", c.q, c.arg, n, err, c.want)
		}
		rows.Close()
	}
	// A whole number bound as a DOUBLE (Node's mysql2 binds every number
	// so) is the integer the plan prepared takes: SETVAL(s, ?) runs.
	var set int64
	if err := open(t, addr, "root", "public").QueryRow("SELECT SETVAL(s, ?)", float64(2000)).Scan(&set); err != nil || set != 2000 {
		t.Errorf("SETVAL(s, ?) bound to 2000 as a DOUBLE: %d, %v", set, err)
	}
}

// TestHavingAlias: HAVING reads an alias of the select list as its item,
// as MariaDB 10.11 does (SELECT COUNT(*) AS c ... HAVING c > 0), where
// PostgreSQL's side refused it in its words (1054 'column "c" does not
// exist'); an alias that names a column too is the alias.
func TestHavingAlias(t *testing.T) {
	addr, eng := startServer(t, Config{})
	pgExec(t, eng, "CREATE SEQUENCE public.s")
	pgExec(t, eng, "GRANT SELECT ON SEQUENCE public.s TO app")
	app := open(t, addr, "app", "public")
	for _, c := range []struct{ q, want string }{
		{"SELECT COUNT(*) AS c FROM s GROUP BY increment HAVING c > 0", "c\n1"},
		{"SELECT COUNT(*) AS c FROM s GROUP BY increment HAVING c > 1", "c"},
		{"SELECT increment AS i FROM s GROUP BY increment HAVING i > 0", "i\n1"},
		{"SELECT increment + 1 AS i FROM s GROUP BY cache_size HAVING i > 1", "i\n2"},
		{"SELECT COUNT(*) AS c, increment AS i FROM s GROUP BY cache_size HAVING c + i > 1 AND MAX(start_value) > 0", "c,i\n1,1"},
		{"SELECT COUNT(*) AS increment FROM s GROUP BY cache_size HAVING increment > 1", "increment"},
	} {
		if got := table(t, app, c.q); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.q, got, c.want)
		}
	}
}

// TestHavingAliasOfMarker: an alias of an item holding a ? marker is
// not read again in HAVING: the marker would have been counted twice,
// and the statement prepared with a parameter more than it shows.
func TestHavingAliasOfMarker(t *testing.T) {
	addr, eng := startServer(t, Config{})
	pgExec(t, eng, "CREATE SEQUENCE public.s")
	pgExec(t, eng, "GRANT SELECT ON SEQUENCE public.s TO app")
	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	for _, q := range []string{
		"SELECT COUNT(*) + ? AS c FROM public.s GROUP BY increment HAVING c > ?",
		"SELECT ? AS c, COUNT(*) FROM public.s GROUP BY increment HAVING c > ?",
	} {
		p := c.tryPrepare(q)
		if p[0] == 0 {
			if params := binary.LittleEndian.Uint16(p[7:]); params != 2 {
				t.Errorf("prepare %s: %d parameters, want 2", q, params)
			}
		}
	}
}

// TestDeepExpression: a statement whose expression nests deeper than
// maxTreeDepth (a chain of 1+1+...+1, as deep as a text of a few hundred
// KB makes it) is MariaDB's 1436, and the server goes on; it once
// overflowed the goroutine's stack, a fatal error that ended the server.
// Nesting MariaDB reads is read.
func TestDeepExpression(t *testing.T) {
	addr, _ := startServer(t, Config{MaxMessage: 4 << 20})
	db := open(t, addr, "root", "")
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"SELECT " + strings.Repeat("1+", 200000) + "1",
		"SELECT " + strings.Repeat("(", 6000) + "1" + strings.Repeat(")", 6000),
		"SELECT 1 IN (" + strings.Repeat("-", 100000) + "1)",
	} {
		_, err := db.Exec(q)
		if number(err) != 1436 || sqlState(err) != "HY000" {
			t.Errorf("%.40s...: %v, want 1436", q, err)
		}
	}
	for q, want := range map[string]int{
		"SELECT " + strings.Repeat("(", 4000) + "1" + strings.Repeat(")", 4000): 1,
		"SELECT " + strings.Repeat("1+", 1000) + "1":                            1001,
	} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil || n != want {
			t.Errorf("%.40s..., nested as MariaDB reads it: %d, %v", q, n, err)
		}
	}
}

// TestLongFlatLists: lists as long as a statement allows, which MariaDB
// runs, run: a CONCAT of 300,000 arguments (built as a chain of ||, it
// overflowed the evaluator's stack and ended the server) and chains of
// 20,000 UNIONs (run link by link, 4,000 UNION ALLs ran out of memory
// and 30,000 held a core for minutes); and a chain mixing UNION and
// UNION ALL over repeated rows gives MariaDB's rows, each as often.
func TestLongFlatLists(t *testing.T) {
	mc, sc, _ := oracleConns(t, "seqd_flat_lists")
	const n = 20000
	arms := func(sep string, value func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "SELECT " + value(i) + " x"
		}
		return strings.Join(parts, sep)
	}
	one := func(int) string { return "1" }
	for _, q := range []string{
		"SELECT LENGTH(CONCAT(" + strings.Repeat("1,", 300000) + "1))",
		"SELECT LENGTH(CONCAT(" + strings.Repeat("'ab',", 100000) + "NULL))",
		"SELECT COUNT(*), SUM(x) FROM (" + arms(" UNION ALL ", func(i int) string { return strconv.Itoa(i) }) + ") t",
		"SELECT COUNT(*), SUM(x) FROM (" + arms(" UNION ", func(i int) string { return strconv.Itoa(i % 7000) }) + ") t",
		"SELECT COUNT(*) FROM (" + arms(" UNION ", one) + ") t",
		"SELECT 1 = ANY (" + arms(" UNION ", one) + ")",
		// 200 KB made for each of 2,000 rows, 400 MB in all: counted
		// while its row is under way, not kept (it was: 1041 under the
		// 256 MiB statement limit).
		"SELECT SUM(LENGTH(LPAD('a', 200000, 'b'))), SUM(LENGTH(REPEAT('xy', 100000))) FROM (" + strings.Repeat("SELECT 1 x UNION ALL ", 1999) + "SELECT 1) t",
	} {
		want, got := outcome(mc, q, false), outcome(sc, q, false)
		if want != got {
			short := func(s string) string { return strings.ReplaceAll(s, q[len("SELECT "):], "...") }
			t.Errorf("%.60s...:\n  MariaDB: %.2000s\n  seqd:    %.2000s", q, short(want), short(got))
		}
	}
	// UNION and UNION ALL in turn, over few values: what each link keeps
	// depends on the links below it.
	rng := rand.New(rand.NewPCG(7, 49))
	var b strings.Builder
	b.WriteString("SELECT x FROM (SELECT 0 x")
	for range 300 {
		if rng.IntN(2) == 0 {
			b.WriteString(" UNION ALL")
		} else {
			b.WriteString(" UNION")
		}
		fmt.Fprintf(&b, " SELECT %d", rng.IntN(12))
	}
	b.WriteString(") t ORDER BY x")
	if want, got := outcome(mc, b.String(), false), outcome(sc, b.String(), false); want != got {
		t.Errorf("UNION and UNION ALL in turn:\n  MariaDB: %s\n  seqd:    %s", want, got)
	}
}
