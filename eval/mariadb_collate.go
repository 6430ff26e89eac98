package eval

import (
	"sort"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Strings as MariaDB compares them by its connection's default
// collation, utf8mb4_general_ci (what go-sql-driver, mysql2 and the
// other drivers of the compatibility matrix get): each character by its
// weight (generalCIPairs: the upper case of a letter, without its accent
// for most of Latin, Greek and Cyrillic), a character outside the Basic
// Multilingual Plane as U+FFFD, and the shorter string as if padded with
// spaces (PAD SPACE: 'a' = 'a ', 'a\t' < 'a').
//
//	seqd_mariadb_ci(op, l, r)  l op r (=, <>, <, <=, >, >=, <=>), two
//	                           strings compared so, the right side not
//	                           read after a NULL left (but for <=>), as
//	                           MariaDB reads a comparison
//	ORDER BY seqd_mariadb_ci(x)
//	                           ORDER BY x (a name or position of the
//	                           select list too), two strings ordered so
//	seqd_mariadb_ci(x)         x, a CASE with an operand, GREATEST, LEAST,
//	                           NULLIF, MIN, MAX, an aggregate of DISTINCT
//	                           or x IN (SELECT ...), whose strings it
//	                           compares so (an aggregate's ORDER BY
//	                           seqd_mariadb_ci(y) orders them so)
//	seqd_mariadb_ci_column(x)  x, a select list's item, whose column's
//	                           strings DISTINCT and a set operation
//	                           take for one where they are equal so; a
//	                           GROUP BY item, whose strings are one group
//	                           where they are equal so
//	                           (what its branches and arguments compare
//	                           within them as they are built)
//
//	seqd_mariadb_ci_fold(x)    x's characters each as its weight (a
//	                           letter's upper case, without its accent),
//	                           for LIKE: two folded strings are alike
//	                           where utf8mb4_general_ci's LIKE finds them
//	                           alike (no weight is %, _ or \ but theirs)
//
// seqd_mariadb_in and seqd_mariadb_between compare their strings so too.
// PostgreSQL's statements call none of them: their text compares by its
// bytes (the C collation).

func init() {
	DefineCompiled("seqd_mariadb_ci", CompiledFunc{Column: "seqd_mariadb_ci", Compile: compileCI})
	DefineCompiled("seqd_mariadb_ci_column", CompiledFunc{Column: "seqd_mariadb_ci_column", Compile: compileCIColumn})
	DefineCompiled("seqd_mariadb_ci_fold", CompiledFunc{Column: "seqd_mariadb_ci_fold", Compile: compileCIFold})
}

// generalCIWeight is r's weight in utf8mb4_general_ci.
func generalCIWeight(r rune) rune {
	if r > 0xFFFF {
		return 0xFFFD
	}
	n := len(generalCIPairs) / 2
	i := sort.Search(n, func(i int) bool { return rune(generalCIPairs[2*i]) >= r })
	if i < n && rune(generalCIPairs[2*i]) == r {
		return rune(generalCIPairs[2*i+1])
	}
	return r
}

// compareGeneralCI orders a and b as utf8mb4_general_ci does. A byte
// that is not UTF-8 weighs as itself above the plane, after every
// character.
func compareGeneralCI(a, b string) int {
	next := generalCINext
	for a != "" && b != "" {
		var x, y rune
		x, a = next(a)
		y, b = next(b)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	sign := 1 // the rest of a against spaces
	if a == "" {
		a, sign = b, -1
	}
	for a != "" {
		var x rune
		x, a = next(a)
		switch {
		case x < ' ':
			return -sign
		case x > ' ':
			return sign
		}
	}
	return 0
}

// generalCINext is the weight of s's first character and the rest of
// s: a byte that is not UTF-8 weighs as itself above the plane.
func generalCINext(s string) (rune, string) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n <= 1 {
		return 0x10000 + rune(s[0]), s[1:]
	}
	if r > 0xFFFF {
		return 0xFFFD, s[n:]
	}
	return generalCIWeight(r), s[n:]
}

// compareCI is compare, two texts ordered by utf8mb4_general_ci.
func compareCI(a, b Datum) int {
	if a.Kind == KText && b.Kind == KText {
		return compareGeneralCI(a.S, b.S)
	}
	return compare(a, b)
}

// compileCI compiles seqd_mariadb_ci.
func compileCI(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) == 1 {
		return compileCIOf(c, sc, fc)
	}
	if len(fc.Args) != 3 || fc.Args[0].GetAConst().GetSval() == nil {
		return nil, c.NoFunction("seqd_mariadb_ci", nil, fc.Location)
	}
	op := fc.Args[0].GetAConst().GetSval().GetSval()
	l, r, err := c.operands(sc, fc.Args[1], fc.Args[2])
	if err != nil {
		return nil, err
	}
	distinct := 0
	if op == "<=>" {
		op, distinct = "=", -1
	}
	x, err := c.binaryExprs(op, l, r, fc.Args[1], fc.Args[2], fc.Location)
	if err != nil {
		return nil, err
	}
	cmp, ok := x.(*cmpExpr)
	if !ok {
		return nil, c.NoFunction("seqd_mariadb_ci", nil, fc.Location)
	}
	cmp.ci, cmp.distinct, cmp.skipsAfterNull = true, distinct, distinct == 0
	return cmp, nil
}

// compileCIOf compiles seqd_mariadb_ci(x).
func compileCIOf(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	n := fc.Args[0]
	if a := n.GetAExpr(); a != nil && a.Kind == pg.A_Expr_Kind_AEXPR_NULLIF {
		x, err := c.binaryOp(sc, "=", a.Lexpr, a.Rexpr, a.Location)
		if err != nil {
			return nil, err
		}
		cmp, ok := x.(*cmpExpr)
		if !ok {
			return nil, c.NoFunction("seqd_mariadb_ci", nil, fc.Location)
		}
		return &funcExpr{t: cmp.l.Type(), args: []Expr{cmp.l, cmp.r}, fn: func(_ *Env, args []Datum) (Datum, error) {
			if args[0].Kind != KNull && args[1].Kind != KNull && compareCI(args[0], args[1]) == 0 {
				return Null, nil
			}
			return args[0], nil
		}}, nil
	}
	x, err := c.Expr(sc, n)
	if err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case *minMaxExpr:
		x.ci = true
	case *caseExpr:
		if x.arg == nil {
			return nil, c.NoFunction("seqd_mariadb_ci", nil, fc.Location)
		}
		x.ci = true
	case *subqueryExpr:
		if x.in == nil {
			return nil, c.NoFunction("seqd_mariadb_ci", nil, fc.Location)
		}
		x.ci = true
	case *aggRef: // MIN, MAX, or an aggregate of DISTINCT, just compiled
		if c.aggs == nil || x.idx >= len(*c.aggs) {
			return nil, c.NoFunction("seqd_mariadb_ci", nil, fc.Location)
		}
		if a := (*c.aggs)[x.idx]; a.name != "min" && a.name != "max" && !a.distinct {
			return nil, c.NoFunction("seqd_mariadb_ci", nil, fc.Location)
		}
		(*c.aggs)[x.idx].ci = true
	default:
		return nil, c.NoFunction("seqd_mariadb_ci", nil, fc.Location)
	}
	return x, nil
}

// compileCIColumn compiles seqd_mariadb_ci_column(x) where it is not a
// select list's item (which uncollatedColumn unwraps): x.
func compileCIColumn(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) != 1 {
		return nil, c.NoFunction("seqd_mariadb_ci_column", nil, fc.Location)
	}
	return c.Expr(sc, fc.Args[0])
}

// uncollatedColumn is a select list's item n without
// seqd_mariadb_ci_column(x) around it, and whether it had it (its
// column's strings are one where utf8mb4_general_ci finds them equal:
// Column.ci).
func uncollatedColumn(n *pg.Node) (*pg.Node, bool) {
	fc := n.GetFuncCall()
	if fc == nil || len(fc.Args) != 1 || len(fc.Funcname) != 1 || fc.Funcname[0].GetString_().GetSval() != "seqd_mariadb_ci_column" {
		return n, false
	}
	return fc.Args[0], true
}

// generalCIKey is a key of s equal to another's where utf8mb4_general_ci
// finds them equal: its weights, without the spaces that end it.
func generalCIKey(s string) string {
	var b []byte
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n <= 1 {
			r, n = 0x10000+rune(s[0]), 1 // a byte not UTF-8, as compareGeneralCI weighs it
		} else {
			r = generalCIWeight(r)
		}
		b, s = utf8.AppendRune(b, r), s[n:]
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// uncollatedSort is sb without seqd_mariadb_ci(x) around its key, and
// whether it had it.
func uncollatedSort(sb *pg.SortBy) (*pg.SortBy, bool) {
	fc := sb.Node.GetFuncCall()
	if fc == nil || len(fc.Args) != 1 || len(fc.Funcname) != 1 || fc.Funcname[0].GetString_().GetSval() != "seqd_mariadb_ci" {
		return sb, false
	}
	return &pg.SortBy{Node: fc.Args[0], SortbyDir: sb.SortbyDir, SortbyNulls: sb.SortbyNulls, UseOp: sb.UseOp, Location: sb.Location}, true
}

// compileCIFold compiles seqd_mariadb_ci_fold.
func compileCIFold(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) != 1 {
		return nil, c.NoFunction("seqd_mariadb_ci_fold", nil, fc.Location)
	}
	x, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	if x, err = c.Coerce(x, TText, Location(fc.Args[0]), "seqd_mariadb_ci_fold"); err != nil {
		return nil, err
	}
	return &funcExpr{t: TText, strict: true, args: []Expr{x}, fn: func(_ *Env, a []Datum) (Datum, error) {
		return Text(generalCIFold(a[0].S)), nil
	}}, nil
}

// generalCIFold is s with each character its weight in
// utf8mb4_general_ci, one character for one (a byte not UTF-8 kept).
func generalCIFold(s string) string {
	var b []byte
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n <= 1 {
			b, s = append(b, s[0]), s[1:]
			continue
		}
		b, s = utf8.AppendRune(b, generalCIWeight(r)), s[n:]
	}
	return string(b)
}
