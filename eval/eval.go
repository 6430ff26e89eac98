package eval

import (
	"context"
	"regexp"
	"strings"

	"github.com/seqd/seqd/sqlerr"
)

// Expr is a compiled, typed expression.
type Expr interface {
	Type() *Type
	Eval(e *Env) (Datum, error)
}

// Env is what an expression is evaluated in: the session, the statement's
// parameters, the current row (the FROM items' columns side by side) and,
// under GROUP BY, the current group's aggregates.
type Env struct {
	Ctx     context.Context
	Session Session
	params  []Datum
	row     []Datum
	aggs    []Datum
	b       *budget // the statement's (budget.go); shared by the envs of one statement
}

type constExpr struct {
	t *Type
	d Datum
}

func (c *constExpr) Type() *Type              { return c.t }
func (c *constExpr) Eval(*Env) (Datum, error) { return c.d, nil }

type paramExpr struct {
	c *Compiler
	n int // 1-based
}

func (p *paramExpr) Type() *Type {
	if t := p.c.params[p.n-1]; t != nil {
		return t
	}
	return TText
}
func (p *paramExpr) Eval(e *Env) (Datum, error) { return e.params[p.n-1], nil }

type colExpr struct {
	t   *Type
	idx int
}

func (c *colExpr) Type() *Type                { return c.t }
func (c *colExpr) Eval(e *Env) (Datum, error) { return e.row[c.idx], nil }

// tableOIDExpr is the tableoid system column of the relation whose
// columns are from:to in the row: NULL in a row an outer join extended
// with NULLs for it (every column NULL; a catalog row always has one that
// is not).
type tableOIDExpr struct {
	oid      uint32
	from, to int
}

func (t *tableOIDExpr) Type() *Type { return TOid }
func (t *tableOIDExpr) Eval(e *Env) (Datum, error) {
	for _, d := range e.row[t.from:t.to] {
		if !d.IsNull() {
			return Int(int64(t.oid)), nil
		}
	}
	return Null, nil
}

type aggRef struct {
	t   *Type
	idx int
}

func (a *aggRef) Type() *Type                { return a.t }
func (a *aggRef) Eval(e *Env) (Datum, error) { return e.aggs[a.idx], nil }

// funcExpr calls a built-in function; strict functions return NULL for
// any NULL argument without being called.
type funcExpr struct {
	t      *Type
	fn     func(e *Env, args []Datum) (Datum, error)
	args   []Expr
	strict bool
}

func (f *funcExpr) Type() *Type { return f.t }
func (f *funcExpr) Eval(e *Env) (Datum, error) {
	var buf [4]Datum
	args := buf[:0]
	for _, a := range f.args {
		d, err := a.Eval(e)
		if err != nil {
			return Null, err
		}
		if f.strict && d.Kind == KNull {
			return Null, nil
		}
		args = append(args, d)
	}
	return f.fn(e, args)
}

type castExpr struct {
	arg Expr
	to  *Type
	loc int32
	q   string
}

func (c *castExpr) Type() *Type { return c.to }
func (c *castExpr) Eval(e *Env) (Datum, error) {
	d, err := c.arg.Eval(e)
	if err != nil {
		return Null, err
	}
	d, err = cast(e.Session, d, c.arg.Type(), c.to)
	if se, ok := err.(*sqlerr.Error); ok && se.Pos == 0 && c.loc >= 0 {
		se.At(c.q, c.loc)
	}
	return d, err
}

type boolExpr struct {
	op   byte // '&', '|', '!'
	args []Expr
}

func (b *boolExpr) Type() *Type { return TBool }
func (b *boolExpr) Eval(e *Env) (Datum, error) {
	if b.op == '!' {
		d, err := b.args[0].Eval(e)
		if err != nil || d.Kind == KNull {
			return d, err
		}
		return Bool(d.I == 0), nil
	}
	sawNull := false
	for _, a := range b.args {
		d, err := a.Eval(e)
		if err != nil {
			return Null, err
		}
		if d.Kind == KNull {
			sawNull = true
			continue
		}
		if (d.I != 0) == (b.op == '|') {
			return d, nil
		}
	}
	if sawNull {
		return Null, nil
	}
	return Bool(b.op == '&'), nil
}

type nullTest struct {
	arg Expr
	not bool
}

func (n *nullTest) Type() *Type { return TBool }
func (n *nullTest) Eval(e *Env) (Datum, error) {
	d, err := n.arg.Eval(e)
	if err != nil {
		return Null, err
	}
	return Bool((d.Kind == KNull) != n.not), nil
}

// boolTest is IS [NOT] TRUE/FALSE/UNKNOWN.
type boolTest struct {
	arg  Expr
	want int // 1 true, 0 false, -1 unknown
	not  bool
}

func (b *boolTest) Type() *Type { return TBool }
func (b *boolTest) Eval(e *Env) (Datum, error) {
	d, err := b.arg.Eval(e)
	if err != nil {
		return Null, err
	}
	got := -1
	if d.Kind != KNull {
		got = int(d.I)
	}
	return Bool((got == b.want) != b.not), nil
}

type caseExpr struct {
	t     *Type
	arg   Expr // nil for searched CASE
	whens []Expr
	thens []Expr
	els   Expr
	ci    bool // arg and whens, two strings, compared by utf8mb4_general_ci (seqd_mariadb_ci)
}

func (c *caseExpr) Type() *Type { return c.t }
func (c *caseExpr) Eval(e *Env) (Datum, error) {
	var subject Datum
	if c.arg != nil {
		d, err := c.arg.Eval(e)
		if err != nil {
			return Null, err
		}
		subject = d
	}
	for i, w := range c.whens {
		d, err := w.Eval(e)
		if err != nil {
			return Null, err
		}
		match := d.Truth()
		if c.arg != nil {
			match = d.Kind != KNull && subject.Kind != KNull && (c.ci && compareCI(subject, d) == 0 || !c.ci && compare(subject, d) == 0)
		}
		if match {
			return c.thens[i].Eval(e)
		}
	}
	if c.els == nil {
		return Null, nil
	}
	return c.els.Eval(e)
}

type coalesceExpr struct {
	t    *Type
	args []Expr
}

func (c *coalesceExpr) Type() *Type { return c.t }
func (c *coalesceExpr) Eval(e *Env) (Datum, error) {
	for _, a := range c.args {
		d, err := a.Eval(e)
		if err != nil || d.Kind != KNull {
			return d, err
		}
	}
	return Null, nil
}

type minMaxExpr struct {
	t     *Type
	least bool
	args  []Expr
	ci    bool // two strings compared by utf8mb4_general_ci (seqd_mariadb_ci)
}

func (m *minMaxExpr) Type() *Type { return m.t }
func (m *minMaxExpr) Eval(e *Env) (Datum, error) {
	out := Null
	for _, a := range m.args {
		d, err := a.Eval(e)
		if err != nil {
			return Null, err
		}
		if d.Kind == KNull {
			continue
		}
		if out.Kind == KNull {
			out = d
			continue
		}
		k := compare(d, out)
		if m.ci {
			k = compareCI(d, out)
		}
		if (k < 0) == m.least && k != 0 {
			out = d
		}
	}
	return out, nil
}

// cmpExpr compares two values of comparable types.
type cmpExpr struct {
	op       string // = <> < <= > >=
	l, r     Expr
	distinct int // 1: IS DISTINCT FROM, -1: IS NOT DISTINCT FROM
	// skipsAfterNull: r is not read when l is NULL (MariaDB's reading,
	// seqd_mariadb_compare); PostgreSQL's reads both.
	skipsAfterNull bool
	// ci: two strings compared by MariaDB's utf8mb4_general_ci
	// (seqd_mariadb_ci); PostgreSQL's by their bytes.
	ci bool
}

func (c *cmpExpr) Type() *Type { return TBool }
func (c *cmpExpr) Eval(e *Env) (Datum, error) {
	l, err := c.l.Eval(e)
	if err != nil {
		return Null, err
	}
	if c.skipsAfterNull && l.Kind == KNull && c.distinct == 0 {
		return Null, nil
	}
	r, err := c.r.Eval(e)
	if err != nil {
		return Null, err
	}
	if c.distinct != 0 {
		var same bool
		switch {
		case l.Kind == KNull || r.Kind == KNull:
			same = l.Kind == r.Kind
		default:
			same = c.compare(l, r) == 0
		}
		return Bool(same == (c.distinct < 0)), nil
	}
	if l.Kind == KNull || r.Kind == KNull {
		return Null, nil
	}
	return Bool(cmpHolds(c.op, c.compare(l, r))), nil
}

func (c *cmpExpr) compare(l, r Datum) int {
	if c.ci {
		return compareCI(l, r)
	}
	return compare(l, r)
}

func cmpHolds(op string, k int) bool {
	switch op {
	case "=":
		return k == 0
	case "<>", "!=":
		return k != 0
	case "<":
		return k < 0
	case "<=":
		return k <= 0
	case ">":
		return k > 0
	}
	return k >= 0
}

// compare orders two non-NULL datums of comparable types.
func compare(a, b Datum) int {
	switch {
	case a.Kind == KNumeric && b.Kind != KFloat || b.Kind == KNumeric && a.Kind != KFloat:
		return numericCompare(a, b)
	case a.Kind == KFloat || b.Kind == KFloat:
		x, y := asFloat(a), asFloat(b)
		switch {
		case x != x || y != y: // NaN: equal to itself, above every number, as PostgreSQL orders it
			switch {
			case x == x:
				return -1
			case y == y:
				return 1
			}
			return 0
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case a.Kind == KInt || a.Kind == KBool:
		switch {
		case a.I < b.I:
			return -1
		case a.I > b.I:
			return 1
		}
		return 0
	case a.Kind == KArray:
		for i := 0; i < len(a.A) && i < len(b.A); i++ {
			if a.A[i].Kind == KNull || b.A[i].Kind == KNull {
				continue
			}
			if k := compare(a.A[i], b.A[i]); k != 0 {
				return k
			}
		}
		return len(a.A) - len(b.A)
	}
	return strings.Compare(a.S, b.S)
}

func asFloat(d Datum) float64 {
	switch d.Kind {
	case KFloat:
		return d.F
	case KNumeric:
		return numericFloat(d)
	}
	return float64(d.I)
}

// anyExpr is x op ANY (array) and x IN (list).
type anyExpr struct {
	op   string
	l    Expr
	list []Expr // IN (a, b)
	arr  Expr   // = ANY (array)
	all  bool
	// match, for a pattern operator (~ ANY, LIKE ALL), says how each
	// element matches; its l and pat are unused.
	match *matchExpr
}

func (a *anyExpr) Type() *Type { return TBool }
func (a *anyExpr) Eval(e *Env) (Datum, error) {
	l, err := a.l.Eval(e)
	if err != nil {
		return Null, err
	}
	var items []Datum
	if a.arr != nil {
		d, err := a.arr.Eval(e)
		if err != nil || d.Kind == KNull {
			return Null, err
		}
		items = d.A
	} else {
		for _, x := range a.list {
			d, err := x.Eval(e)
			if err != nil {
				return Null, err
			}
			items = append(items, d)
		}
	}
	if l.Kind == KNull {
		if len(items) == 0 {
			return Bool(a.all), nil
		}
		return Null, nil
	}
	sawNull := false
	for _, d := range items {
		if d.Kind == KNull {
			sawNull = true
			continue
		}
		holds := false
		if a.match != nil {
			re, err := compilePattern(d.S, a.match.like, a.match.fold)
			if err != nil {
				return Null, err
			}
			s := l.S
			if l.Kind != KText {
				s = string(AppendOutput(nil, a.l.Type(), l))
			}
			holds = re.MatchString(s) != a.match.not
		} else {
			holds = cmpHolds(a.op, compare(l, d))
		}
		if holds != a.all {
			return Bool(!a.all), nil
		}
	}
	if sawNull {
		return Null, nil
	}
	return Bool(a.all), nil
}

// matchExpr is ~, ~*, !~, !~*, LIKE, ILIKE and their negations. A
// constant pattern is compiled once.
type matchExpr struct {
	l, pat Expr
	re     *regexp.Regexp
	like   bool
	fold   bool
	not    bool
}

func (m *matchExpr) Type() *Type { return TBool }
func (m *matchExpr) Eval(e *Env) (Datum, error) {
	l, err := m.l.Eval(e)
	if err != nil || l.Kind == KNull {
		return Null, err
	}
	re := m.re
	if re == nil {
		p, err := m.pat.Eval(e)
		if err != nil || p.Kind == KNull {
			return Null, err
		}
		if re, err = compilePattern(p.S, m.like, m.fold); err != nil {
			return Null, err
		}
	}
	s := l.S
	if l.Kind != KText {
		s = string(AppendOutput(nil, m.l.Type(), l))
	}
	return Bool(re.MatchString(s) != m.not), nil
}

func compilePattern(p string, like, fold bool) (*regexp.Regexp, error) {
	if like {
		var b strings.Builder
		b.WriteString("^")
		for i := 0; i < len(p); i++ {
			switch c := p[i]; c {
			case '%':
				b.WriteString("(?s:.*)")
			case '_':
				b.WriteString("(?s:.)")
			case '\\':
				if i+1 < len(p) {
					i++
					b.WriteString(regexp.QuoteMeta(p[i : i+1]))
				}
			default:
				b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		}
		b.WriteString("$")
		p = b.String()
	}
	if fold {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, sqlerr.Errorf(sqlerr.InvalidRegularExpression, "invalid regular expression: %v", err)
	}
	return re, nil
}

type arrayExpr struct {
	t     *Type
	elems []Expr
}

func (a *arrayExpr) Type() *Type { return a.t }
func (a *arrayExpr) Eval(e *Env) (Datum, error) {
	out := make([]Datum, len(a.elems))
	for i, x := range a.elems {
		d, err := x.Eval(e)
		if err != nil {
			return Null, err
		}
		out[i] = d
	}
	return Array(out...), nil
}

// subscriptExpr is array[i] (1-based).
type subscriptExpr struct {
	t        *Type
	arr, idx Expr
}

func (s *subscriptExpr) Type() *Type { return s.t }
func (s *subscriptExpr) Eval(e *Env) (Datum, error) {
	a, err := s.arr.Eval(e)
	if err != nil || a.Kind == KNull {
		return Null, err
	}
	i, err := s.idx.Eval(e)
	if err != nil || i.Kind == KNull {
		return Null, err
	}
	if i.I < 1 || i.I > int64(len(a.A)) {
		return Null, nil
	}
	return a.A[i.I-1], nil
}

// subqueryExpr is a scalar subquery, EXISTS, or x IN (subquery).
type subqueryExpr struct {
	t      *Type
	plan   *Query
	exists bool
	in     Expr // x IN (SELECT ...), x op ANY|ALL (SELECT ...)
	// op is in's comparison with each row (=, <>, <, <=, >, >=); all:
	// every row must compare true (ALL), else one (ANY, IN). Three-valued:
	// ANY is true where a row compares true, else NULL where one compared
	// NULL, else false (no row: false); ALL false where a row compares
	// false, else NULL where one compared NULL, else true (no row: true).
	op    string
	all   bool
	array bool // ARRAY(SELECT ...)
	// correlated: the subquery reads the row it is evaluated for.
	correlated bool
	// ci: in and the rows, two strings, compared by utf8mb4_general_ci
	// (seqd_mariadb_ci).
	ci bool
}

func (q *subqueryExpr) Type() *Type { return q.t }
func (q *subqueryExpr) Eval(e *Env) (Datum, error) {
	ctx := e.Ctx
	if q.correlated {
		ctx = withOuterRow(ctx, e.row, e.aggs)
	}
	rows, err := q.plan.Open(ctx, e.params, nil)
	if err != nil {
		return Null, err
	}
	if q.array {
		// The elements are charged while the array is built; once made, it
		// is the row's, which goes out.
		var elems []Datum
		var kept int64
		defer func() { e.charge(-kept) }()
		for {
			row, ok, err := rows.Next()
			if err != nil {
				return Null, err
			}
			if !ok {
				return Array(elems...), nil
			}
			n := estimateSize(row[0])
			kept += n
			if err := e.charge(n); err != nil {
				return Null, err
			}
			elems = append(elems, row[0])
		}
	}
	var x Datum
	if q.in != nil {
		if x, err = q.in.Eval(e); err != nil {
			return Null, err
		}
	}
	out := Null
	n := 0
	sawNull := false
	for {
		row, ok, err := rows.Next()
		if err != nil {
			return Null, err
		}
		if !ok {
			break
		}
		switch {
		case q.exists:
			return Bool(true), nil
		case q.in != nil:
			if x.Kind == KNull || row[0].Kind == KNull {
				sawNull = true
				continue
			}
			k := compare(x, row[0])
			if q.ci {
				k = compareCI(x, row[0])
			}
			if holds := comparisonHolds(q.op, k); holds != q.all {
				return Bool(holds), nil
			}
		default:
			n++
			if n > 1 {
				return Null, sqlerr.Errorf(sqlerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
			out = row[0]
		}
	}
	switch {
	case q.exists:
		return Bool(false), nil
	case q.in != nil:
		if sawNull {
			return Null, nil
		}
		return Bool(q.all), nil
	}
	return out, nil
}

// comparisonHolds reports whether op (=, <>, <, <=, >, >=) holds of two
// values compare or compareCI ordered as k.
func comparisonHolds(op string, k int) bool {
	switch op {
	case "<>":
		return k != 0
	case "<":
		return k < 0
	case "<=":
		return k <= 0
	case ">":
		return k > 0
	case ">=":
		return k >= 0
	}
	return k == 0
}
