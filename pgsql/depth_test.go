package pgsql

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/sqlerr"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// deepShapes are the statement shapes that nest without bound, each as a
// function of how many times its unit repeats.
var deepShapes = map[string]func(n int) string{
	"parentheses":   func(n int) string { return "select " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) },
	"plus chain":    func(n int) string { return "select 1" + strings.Repeat("+1", n) },
	"concatenation": func(n int) string { return "select 'a'" + strings.Repeat("||'a'", n) },
	"casts":         func(n int) string { return "select 1" + strings.Repeat("::int", n) },
	"not":           func(n int) string { return "select " + strings.Repeat("not ", n) + "true" },
	"unary minus":   func(n int) string { return "select " + strings.Repeat("- ", n) + "1" },
	"case": func(n int) string {
		return "select " + strings.Repeat("case when true then ", n) + "1" + strings.Repeat(" end", n)
	},
	"subqueries":    func(n int) string { return strings.Repeat("select (", n) + "select 1" + strings.Repeat(")", n) },
	"arrays":        func(n int) string { return "select " + strings.Repeat("array[", n) + "1" + strings.Repeat("]", n) },
	"functions":     func(n int) string { return "select " + strings.Repeat("abs(", n) + "1" + strings.Repeat(")", n) },
	"in list":       func(n int) string { return "select 1 in (" + strings.Repeat("1,", n) + "1)" },
	"and chain":     func(n int) string { return "select true" + strings.Repeat(" and true", n) },
	"or of ands":    func(n int) string { return "select true" + strings.Repeat(" or true and true", n) },
	"is not null":   func(n int) string { return "select 1" + strings.Repeat(" is not null", n) },
	"nextval chain": func(n int) string { return "select nextval('s')" + strings.Repeat("+nextval('s')", n) },
	"mariadb chain": func(n int) string { return "select next value for s" + strings.Repeat("+next value for s", n) },
	"unions":        func(n int) string { return "select 1" + strings.Repeat(" union select 1", n) },
	"joins":         func(n int) string { return "select 1 from t" + strings.Repeat(" join t on true", n) },
	"from subqueries": func(n int) string {
		return "select 1 from " + strings.Repeat("(select 1 from ", n) + "t" + strings.Repeat(") x", n)
	},
	"string literal": func(n int) string { return "select '" + strings.Repeat("{", n) + strings.Repeat("}", n) + "'::int[]" },
}

// TestDeepStatements: every shape, from shallow to the default
// -max-statement-bytes (1 MiB), either parses or fails with an Error,
// never a crash; what parses is no deeper than the pre-scan estimated.
func TestDeepStatements(t *testing.T) {
	const maxBytes = 1 << 20
	for name, shape := range deepShapes {
		t.Run(name, func(t *testing.T) {
			parsed, refused := 0, 0
			for n := 10; ; n *= 3 {
				q := shape(n)
				if len(q) > maxBytes {
					break
				}
				st, err := parse(q)
				var se *sqlerr.Error
				switch {
				case err == nil:
					parsed++
					checkEstimate(t, q, st)
				case errors.As(err, &se):
					refused++
				default:
					t.Fatalf("%d units: %T %v, want *Error", n, err, err)
				}
			}
			if parsed == 0 {
				t.Errorf("no size of %s parsed", name)
			}
			t.Logf("%d sizes parsed, %d refused", parsed, refused)
		})
	}
}

// TestDepthLimit: the refusal is PostgreSQL's 54001 with its message, for
// a chain just over the bound, and a chain just under it parses.
func TestDepthLimit(t *testing.T) {
	_, err := parse("select 1" + strings.Repeat("+1", MaxDepth))
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Kind != sqlerr.StatementTooComplex || se.Msg != "stack depth limit exceeded" {
		t.Fatalf("over the bound: %v", err)
	}
	if _, err := parse("select 1" + strings.Repeat("+1", MaxDepth-10)); err != nil {
		t.Fatalf("under the bound: %v", err)
	}
	// Comments are no nodes: 5,000 of them, of both kinds, in a statement
	// are not refused.
	q := "select 1" + strings.Repeat(" /* c */ -- c\n", 5000) + "+ 1"
	if st, err := parse(q); err != nil {
		t.Fatalf("5,000 comments: %v", err)
	} else {
		checkEstimate(t, q, st)
	}
	// Long but flat statements are not refused: 100,000 list elements.
	if _, err := parse("select 1 in (" + strings.Repeat("1,", 100000) + "1)"); err != nil {
		t.Fatalf("long IN list: %v", err)
	}
}

// checkEstimate fails t when a statement that parsed is deeper than the
// pre-scan's estimate: the estimate must be an upper bound.
func checkEstimate(t testing.TB, q string, st []Statement) {
	t.Helper()
	res, err := pg.Scan(q)
	if err != nil {
		return
	}
	est := estimateDepth(res.Tokens)
	for _, s := range st {
		if d := treeDepth(s.Node.ProtoReflect()); d > est {
			t.Fatalf("tree depth %d above the estimate %d for %.80q", d, est, q)
		}
	}
}

// treeDepth is the number of parse-tree nodes (pg.Node values) on the
// longest path down from m.
func treeDepth(m protoreflect.Message) int {
	deepest := 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				deepest = max(deepest, treeDepth(l.Get(i).Message()))
			}
		} else if !fd.IsMap() {
			deepest = max(deepest, treeDepth(v.Message()))
		}
		return true
	})
	if _, ok := m.Interface().(*pg.Node); ok {
		deepest++
	}
	return deepest
}

// FuzzDepth: whatever the text, parse answers (a tree or an Error) and
// never crashes the process, and a tree that parses is within the
// estimate.
func FuzzDepth(f *testing.F) {
	for _, shape := range deepShapes {
		f.Add(shape(50))
	}
	f.Add("select (1+(2*(3-(4||(5)))))")
	f.Fuzz(func(t *testing.T, q string) {
		// Repeat the input so that a short seed can grow deep.
		if len(q) > 0 && len(q) < 64 {
			q = strings.Repeat(q, 2000/len(q))
		}
		st, err := parse(q)
		var se *sqlerr.Error
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("%T %v", err, err)
		}
		if err == nil {
			checkEstimate(t, q, st)
		}
	})
}

// TestParseCacheBytes: the parse cache stays within its byte bound
// however many distinct large statements pass through it, and still
// caches small ones.
func TestParseCacheBytes(t *testing.T) {
	c := parseCache{m: make(map[string]cached)}
	for i := range 100 {
		q := fmt.Sprintf("select %d, ", i) + strings.Repeat("1,", 4000) + "1"
		st, err := parse(q)
		if err != nil {
			t.Fatal(err)
		}
		c.put(q, st)
		if c.bytes > cacheBytes {
			t.Fatalf("after %d statements the cache holds %d bytes, over %d", i+1, c.bytes, cacheBytes)
		}
	}
	var sum int64
	for _, e := range c.m {
		sum += e.cost
	}
	if sum != c.bytes || len(c.m) == 0 {
		t.Fatalf("%d entries costing %d, counted %d", len(c.m), sum, c.bytes)
	}
	st, _ := parse("select nextval('s')")
	c.put("select nextval('s')", st)
	if _, ok := c.get("select nextval('s')"); !ok {
		t.Fatal("a small statement was not cached")
	}
}
