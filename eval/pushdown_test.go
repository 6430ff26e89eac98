package eval

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// TestPatternPrefix: the literal prefix every match of a pattern has, or
// none where a match need not have one.
func TestPatternPrefix(t *testing.T) {
	for _, c := range []struct{ kind, p, want string }{
		{"~", "^(s_5000.*)$", "s_5000"},
		{"~", "^abc", "abc"},
		{"~", "^abc*", "ab"},
		{"~", "^abc?d", "ab"},
		{"~", "^ab{0,2}", "a"},
		{"~", "^abc+", "abc"},
		{"~", `^a\.b`, "a"},
		{"~", "^(a|b)", ""},
		{"~", "^ab|c", ""},
		{"~", "abc", ""},
		{"~", "^[ab]c", ""},
		{"~", "^(?i)abc", ""},
		{"~", "^a*", ""},
		{"~", "^é", ""},
		{"~~", "abc%", "abc"},
		{"~~", "ab_c", "ab"},
		{"~~", `ab\%`, "ab"},
		{"~~", "%abc", ""},
		{"~~", "abc", "abc"},
	} {
		if got := patternPrefix(c.kind, c.p); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.kind, c.p, got, c.want)
		}
	}
}

// TestComparedString: a WHERE clause's column = string that MySQL's
// front end wraps in seqd_mariadb_number still looks the string up, and
// only when the wrapper reads that column.
func TestComparedString(t *testing.T) {
	tree, err := pg.Parse("SELECT 1 FROM t WHERE a = seqd_mariadb_number('x', a) AND a = seqd_mariadb_number('y', b) AND a = 'z'")
	if err != nil {
		t.Fatal(err)
	}
	where := tree.Stmts[0].Stmt.GetSelectStmt().WhereClause
	var got []string
	for _, n := range conjuncts(where) {
		e := n.GetAExpr()
		got = append(got, comparedString(e.Rexpr, e.Lexpr).GetAConst().GetSval().GetSval())
	}
	if want := []string{"x", "", "z"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("%q, want %q", got, want)
	}
}
