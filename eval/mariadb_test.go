package eval

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/seqd/seqd/sqlerr"
)

// TestNumberPrefix: what MariaDB 10.11 reads of a string cast to a
// number, and what it says of the rest (the oracle in mysqlwire
// compares the casts themselves with a live MariaDB).
func TestNumberPrefix(t *testing.T) {
	for _, c := range []struct {
		in      string
		integer bool
		want    string
		kind    WarningKind
	}{
		{"12", true, "12", 0}, {" 12", true, "12", 0}, {"12 ", true, "12", TruncatedSpaces}, {"12abc", true, "12", Truncated},
		{"abc", true, "0", Truncated}, {"", true, "0", Truncated}, {"1.5", true, "1", Truncated}, {"1e3", true, "1", Truncated},
		{"+7", true, "+7", 0}, {"-5x", true, "-5", Truncated}, {"0x10", true, "0", Truncated}, {"-", true, "0", Truncated},
		{"1.5", false, "1.5", 0}, {"1.5x", false, "1.5", Truncated}, {" 2.5 ", false, "2.5", TruncatedSpaces},
		{"-.5", false, "-.5", 0}, {"5.", false, "5.", 0}, {".", false, "0", Truncated}, {"1.5e1x", false, "1.5e1", Truncated},
		{"2e", false, "2", Truncated}, {"2e+", false, "2", Truncated}, {"2E-3", false, "2E-3", 0}, {"x", false, "0", Truncated},
	} {
		got, kind := NumberPrefix(c.in, c.integer)
		if got != c.want || kind != c.kind {
			t.Errorf("NumberPrefix(%q, %v) = %q, %d; want %q, %d", c.in, c.integer, got, kind, c.want, c.kind)
		}
	}
}

// numberSyntax is the syntax of a number NumberPrefix reads (numeric_in
// reads each, within numeric's range of exponents).
var numberSyntax = map[bool]*regexp.Regexp{
	true:  regexp.MustCompile(`^[+-]?[0-9]+$`),
	false: regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`),
}

// FuzzNumberPrefix: the prefix is a number (or "0"), taken from the
// string after its leading spaces, and nothing is said only when it is
// all of them.
func FuzzNumberPrefix(f *testing.F) {
	for _, s := range []string{"12abc", " 2.5 ", "-.5e+3x", "", "0x1f"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, integer bool) {
		p, kind := NumberPrefix(s, integer)
		rest := strings.TrimLeft(s, " \t\n\r")
		if p != "0" || kind == 0 {
			if !strings.HasPrefix(rest, p) {
				t.Fatalf("%q: prefix %q", s, p)
			}
		}
		if !numberSyntax[integer].MatchString(p) {
			t.Fatalf("%q: prefix %q not a number", s, p)
		}
		if (kind == 0) != (p == rest) {
			t.Fatalf("%q: prefix %q, kind %d", s, p, kind)
		}
	})
}

// warnings is a session that keeps the warnings an expression raises.
type warnings struct {
	Session
	got []Warning
}

func (w *warnings) Warn(x Warning) { w.got = append(w.got, x) }

// TestMariaDBRepeat: seqd_mariadb_repeat at and past its limit, as
// MariaDB's REPEAT at and past max_allowed_packet (the oracle in
// mysqlwire compares REPEAT itself with a live MariaDB).
func TestMariaDBRepeat(t *testing.T) {
	repeat := builtins["seqd_mariadb_repeat"][0].fn
	for _, c := range []struct {
		s      string
		n      int64
		want   Datum
		warned bool
	}{
		{"ab", 3, Text("ababab"), false}, {"ab", 0, Text(""), false}, {"ab", -1, Text(""), false},
		{"ab", 8, Text("abababababababab"), false}, {"ab", 9, Null, true}, {"", 1 << 40, Text(""), false},
	} {
		w := &warnings{}
		got, err := repeat(&Env{Ctx: WithMemory(context.Background(), NewMemory(0, nil)), Session: w}, []Datum{Text(c.s), Int(c.n), Int(16)})
		if err != nil || got.Kind != c.want.Kind || got.S != c.want.S || (len(w.got) > 0) != c.warned {
			t.Errorf("repeat(%q, %d, 16) = %v, %v, warnings %v; want %v, warned %v", c.s, c.n, got, err, w.got, c.want, c.warned)
		}
		if c.warned && (w.got[0] != Warning{Kind: PacketOverflow, Type: "repeat", Value: "16"}) {
			t.Errorf("repeat(%q, %d, 16) warned %v", c.s, c.n, w.got)
		}
	}
}

// TestMariaDBRepeatCharged: REPEAT's result is charged to the
// statement's memory before it is made: a limit given from PostgreSQL's
// side (the function is callable there) cannot make it larger than the
// statement may hold, nor can many calls in one statement.
func TestMariaDBRepeatCharged(t *testing.T) {
	repeat := builtins["seqd_mariadb_repeat"][0].fn
	env := &Env{Ctx: WithMemory(context.Background(), NewMemory(1<<20, nil)), Session: &warnings{}}
	if _, err := repeat(env, []Datum{Text("x"), Int(2 << 30), Int(1 << 62)}); !oom(err) {
		t.Fatalf("2 GiB under a 1 MiB statement limit: %v, want 53200", err)
	}
	env = &Env{Ctx: WithMemory(context.Background(), NewMemory(1<<20, nil)), Session: &warnings{}}
	if got, err := repeat(env, []Datum{Text("ab"), Int(300 << 10), Int(1 << 62)}); err != nil || len(got.S) != 600<<10 {
		t.Fatalf("600 KiB under a 1 MiB statement limit: %d bytes, %v", len(got.S), err)
	}
	if _, err := repeat(env, []Datum{Text("ab"), Int(300 << 10), Int(1 << 62)}); !oom(err) {
		t.Fatalf("a second 600 KiB in the same statement: %v, want 53200", err)
	}
}

// oom reports whether err is 53200, out of memory.
func oom(err error) bool {
	var e *sqlerr.Error
	return errors.As(err, &e) && e.Kind == sqlerr.OutOfMemory
}

// TestMariaDBTyped: seqd_mariadb_typed's argument is read once as its
// query opens, before its rows and where it has none, and once a row, as
// MariaDB reads REPEAT's constant count as it types the result and for
// each row (the oracle in mysqlwire compares the warnings with a live
// MariaDB).
func TestMariaDBTyped(t *testing.T) {
	const count = "seqd_mariadb_typed(seqd_mariadb_signed('2x'))::bigint"
	for _, c := range []struct {
		q    string
		want int
	}{
		{"SELECT seqd_mariadb_repeat('a', " + count + ", 16)", 2},
		{"SELECT seqd_mariadb_repeat('a', " + count + ", 16) FROM (VALUES (1), (2), (3)) t", 4},
		{"SELECT seqd_mariadb_repeat('a', " + count + ", 16) FROM (VALUES (1), (2)) t WHERE false", 1},
		{"SELECT 1 FROM (VALUES (1), (2)) t WHERE seqd_mariadb_repeat('a', " + count + ", 16) = 'aa'", 3},
		{"SELECT (SELECT seqd_mariadb_repeat('a', " + count + ", 16)) FROM (VALUES (1)) t", 2},
		{"SELECT seqd_mariadb_repeat('a', seqd_mariadb_signed('2x')::bigint, 16) FROM (VALUES (1), (2)) t WHERE false", 0},
	} {
		w := &warnings{Session: newTestSession()}
		if out := runEval(w, c.q); strings.HasPrefix(out, "ERROR") {
			t.Fatalf("%s: %s", c.q, out)
		}
		if len(w.got) != c.want {
			t.Errorf("%s: %d warnings, want %d: %v", c.q, len(w.got), c.want, w.got)
		}
		for _, x := range w.got {
			if (x != Warning{Kind: Truncated, Type: "INTEGER", Value: "2x"}) {
				t.Errorf("%s: warned %v", c.q, x)
			}
		}
	}
}

// TestMariaDBInBetween: seqd_mariadb_in reads its list up to its first
// match, each item in the type of its pair with the operand, and the
// operand once for each such type (seqd_mariadb_case so too, giving the
// match's number); seqd_mariadb_between reads its
// operand once and no bound after a NULL operand (the oracle in
// mysqlwire compares IN and BETWEEN themselves with a live MariaDB).
func TestMariaDBInBetween(t *testing.T) {
	const zero = "(1 / seqd_mariadb_divisor(0))" // NULL, with a DivisionByZero each read
	for _, c := range []struct {
		q, want string
		warned  []Warning
	}{
		{"SELECT seqd_mariadb_in('iiis', 2, 1, 2, '2z')", "t", nil},
		{"SELECT seqd_mariadb_in('iiis', 3, 1, 2, '2z')", "f", []Warning{{Kind: Truncated, Type: "DECIMAL", Value: "2z"}}},
		{"SELECT seqd_mariadb_in('drss', 2.5, 2e0, '2.5z', 'x')", "t", []Warning{{Kind: Truncated, Type: "DOUBLE", Value: "2.5z"}}},
		{"SELECT seqd_mariadb_in('iiis', 3, 1, NULL, '3')", "t", nil},
		{"SELECT seqd_mariadb_in('iii', 3, 1, NULL)", "NULL", nil},
		{"SELECT seqd_mariadb_in('dis', " + zero + ", 1, '2z')", "NULL", []Warning{{Kind: DivisionByZero}, {Kind: DivisionByZero}}},
		{"SELECT seqd_mariadb_between(seqd_mariadb_number('a', NULL::bigint), 0, 1)", "t", []Warning{{Kind: Truncated, Type: "DECIMAL", Value: "a"}}},
		{"SELECT seqd_mariadb_case('siis', '2x', 1, 2, 'a')", "2", []Warning{{Kind: Truncated, Type: "DECIMAL", Value: "2x"}}},
		{"SELECT seqd_mariadb_case('is', 1, 'a')", "0", []Warning{{Kind: Truncated, Type: "DECIMAL", Value: "a"}}},
		{"SELECT seqd_mariadb_between(NULL, " + zero + ", 2)", "NULL", nil},
		{"SELECT seqd_mariadb_between(5, 6, " + zero + ")", "f", []Warning{{Kind: DivisionByZero}}},
		{"SELECT seqd_mariadb_between(" + zero + ", 1, 2)", "NULL", []Warning{{Kind: DivisionByZero}}},
		{"SELECT seqd_mariadb_between('b', 'a', 'c')", "t", nil},
	} {
		w := &warnings{Session: newTestSession()}
		out := runEval(w, c.q)
		if rows := strings.Split(strings.TrimSpace(out), "\n"); len(rows) != 2 || rows[1] != c.want {
			t.Errorf("%s: %q, want %s", c.q, out, c.want)
		}
		if fmt.Sprint(w.got) != fmt.Sprint(c.warned) {
			t.Errorf("%s: warned %v, want %v", c.q, w.got, c.warned)
		}
	}
	for _, q := range []string{"SELECT seqd_mariadb_in('ix', 1, 2)", "SELECT seqd_mariadb_in('i', 1)", "SELECT seqd_mariadb_between(1, 'a', 2)"} {
		if out := runEval(newTestSession(), q); !strings.HasPrefix(out, "ERROR") {
			t.Errorf("%s: %q, want an error", q, out)
		}
	}
}

// TestMariaDBQuotient: seqd_mariadb_quotient truncates to the digits
// asked for and shows them all (the oracle in mysqlwire compares the
// quotients MariaDB writes into a UNION's string column).
func TestMariaDBQuotient(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"SELECT seqd_mariadb_quotient(1, 3, 9)", "0.333333333"},
		{"SELECT seqd_mariadb_quotient(-2, 3, 9)", "-0.666666666"},
		{"SELECT seqd_mariadb_quotient(1.5, 3, 9)", "0.500000000"},
		{"SELECT seqd_mariadb_quotient(0.333333333, 7, 18)", "0.047619047571428571"},
		{"SELECT seqd_mariadb_quotient(12345678901234567890, 7, 9)", "1763668414462081127.142857142"},
		{"SELECT seqd_mariadb_quotient(1, 0, 9)", "NULL"},
	} {
		out := runEval(newTestSession(), c.q)
		if rows := strings.Split(strings.TrimSpace(out), "\n"); len(rows) != 2 || rows[1] != c.want {
			t.Errorf("%s: %q, want %s", c.q, out, c.want)
		}
	}
}

// TestMariaDBSent: a select list item marked seqd_mariadb_sent is
// computed after the sort, for the rows LIMIT and OFFSET leave in, in
// the order sent; unmarked, as PostgreSQL computes it, for every row
// before the sort (the oracle in mysqlwire compares the warnings and a
// NEXTVAL's values with a live MariaDB).
func TestMariaDBSent(t *testing.T) {
	const rows = " FROM (VALUES (1, '1a'), (3, '3a'), (2, '2a')) t(x, s)"
	for _, c := range []struct {
		q    string
		want []string // the values read, in the order read
	}{
		{"SELECT x, seqd_mariadb_sent(seqd_mariadb_signed(s))" + rows + " ORDER BY x DESC", []string{"3a", "2a", "1a"}},
		{"SELECT x, seqd_mariadb_sent(seqd_mariadb_signed(s))" + rows + " ORDER BY x DESC LIMIT 1 OFFSET 1", []string{"2a"}},
		{"SELECT x, seqd_mariadb_sent(seqd_mariadb_signed(s)) AS v" + rows + " ORDER BY v LIMIT 1", []string{"1a", "3a", "2a", "1a"}},
		{"SELECT x, seqd_mariadb_sent(seqd_mariadb_signed(s))" + rows + " OFFSET 2", []string{"2a"}},
		{"SELECT x, seqd_mariadb_signed(s)" + rows + " ORDER BY x DESC LIMIT 1", []string{"1a", "3a", "2a"}},
		{"SELECT x, seqd_mariadb_sent(seqd_mariadb_signed(s))" + rows + " ORDER BY x LIMIT 0", nil},
	} {
		w := &warnings{Session: newTestSession()}
		if out := runEval(w, c.q); strings.HasPrefix(out, "ERROR") {
			t.Fatalf("%s: %s", c.q, out)
		}
		var got []string
		for _, x := range w.got {
			got = append(got, x.Value)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: read %v, want %v", c.q, got, c.want)
		}
	}
}
