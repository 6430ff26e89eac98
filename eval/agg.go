package eval

import (
	"math"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// aggCall is one aggregate in a grouped query.
type aggCall struct {
	name     string
	arg      Expr // nil for count(*)
	sep      Expr // string_agg's delimiter
	distinct bool
	t        *Type
	// ci: MIN and MAX compare two strings by utf8mb4_general_ci, and
	// DISTINCT takes them for one where it finds them equal
	// (seqd_mariadb_ci); PostgreSQL's by their bytes.
	ci bool
	// filter is FILTER (WHERE ...): the rows it is not true of are not
	// fed. order is ORDER BY within the call, for the aggregates whose
	// result depends on their input's order (array_agg, string_agg);
	// keys[i] is the i-th key's expression.
	filter Expr
	order  []sortKey
	keys   []Expr
}

func (c *Compiler) aggregate(sc *Scope, name string, fc *pg.FuncCall) (Expr, error) {
	switch {
	case c.aggs == nil && c.inAgg > 0:
		return nil, c.ErrAt(fc.Location, sqlerr.GroupingError, "aggregate function calls cannot be nested")
	case c.aggs == nil && c.aggClause != "":
		return nil, c.ErrAt(fc.Location, sqlerr.GroupingError, "aggregate functions are not allowed in %s", c.aggClause)
	case c.aggs == nil:
		return nil, c.ErrAt(fc.Location, sqlerr.GroupingError, "aggregate functions are not allowed here")
	}
	a := &aggCall{name: name, distinct: fc.AggDistinct}
	saved := c.aggs
	c.aggs = nil // no aggregates inside aggregates
	c.inAgg++
	defer func() { c.aggs = saved; c.inAgg-- }()
	before := c.refs
	c.refs = refCount{}
	defer func() {
		read := c.refs
		c.refs = refCount{local: before.local + read.local, subLinks: before.subLinks + read.subLinks, outerLevel: before.outerLevel}
		if read.outerLevel > 0 && (c.refs.outerLevel == 0 || read.outerLevel < c.refs.outerLevel) {
			c.refs.outerLevel = read.outerLevel
		}
	}()
	if fc.AggFilter != nil {
		f, err := c.boolArg(sc, fc.AggFilter, "FILTER")
		if err != nil {
			return nil, err
		}
		a.filter = f
	}
	if name == "array_agg" || name == "string_agg" {
		// The others' results do not depend on the order they are fed in.
		for i, o := range fc.AggOrder {
			sb, ci := uncollatedSort(o.GetSortBy())
			x, err := c.Expr(sc, sb.Node)
			if err != nil {
				return nil, err
			}
			k := sortOrder(sb)
			k.ci = ci
			k.col = i
			a.order, a.keys = append(a.order, k), append(a.keys, c.settle(x))
		}
	}
	if fc.AggStar {
		if name != "count" {
			return nil, c.ErrAt(fc.Location, sqlerr.SyntaxError, "%s(*) must be used to call a parameterless aggregate function", name)
		}
		a.t = TInt8
	} else if err := c.aggArgs(sc, a, fc); err != nil {
		return nil, err
	}
	if x, ok, err := c.outerAggregate(name, fc, c.refs); ok || err != nil {
		return x, err
	}
	*saved = append(*saved, a)
	return &aggRef{t: a.t, idx: len(*saved) - 1}, nil
}

// aggArgs compiles an aggregate's arguments (each takes one, string_agg
// two) and gives the call its type, as PostgreSQL's signatures do.
func (c *Compiler) aggArgs(sc *Scope, a *aggCall, fc *pg.FuncCall) error {
	args := make([]Expr, len(fc.Args))
	for i, n := range fc.Args {
		x, err := c.Expr(sc, n)
		if err != nil {
			return err
		}
		args[i] = x
	}
	want := 1
	if a.name == "string_agg" {
		want = 2
	}
	if len(args) != want {
		return c.NoFunction(a.name, args, fc.Location)
	}
	if isUnknown(args[0]) && (a.name == "sum" || a.name == "avg" || a.name == "array_agg") {
		// Several signatures take any of the types a literal may become.
		return c.ErrAt(fc.Location, sqlerr.AmbiguousFunction, "function %s(unknown) is not unique", a.name).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	a.arg = c.settle(args[0])
	at := a.arg.Type()
	switch a.name {
	case "count":
		a.t = TInt8
	case "sum", "avg":
		// sum of smallint and integer is bigint, of bigint and numeric
		// numeric, of real and double their own type; avg of the
		// integers and numeric is numeric, of real and double double.
		switch {
		case !isNumber(at):
			return c.NoFunction(a.name, []Expr{a.arg}, fc.Location)
		case a.name == "sum" && (at == TInt2 || at == TInt4):
			a.t = TInt8
		case at.class == KFloat && a.name == "avg":
			a.t = TFloat8
		case at.class == KFloat:
			a.t = at
		default:
			a.t = tNumeric
		}
	case "seqd_mariadb_var_pop", "seqd_mariadb_var_samp", "seqd_mariadb_stddev_pop", "seqd_mariadb_stddev_samp":
		if !isNumber(at) && !isUnknown(args[0]) {
			return c.NoFunction(a.name, []Expr{a.arg}, fc.Location)
		}
		x, err := c.Coerce(args[0], TFloat8, Location(fc.Args[0]), "argument")
		if err != nil {
			return err
		}
		a.arg, a.t = x, TFloat8
	case "seqd_mariadb_agg_bit_and", "seqd_mariadb_agg_bit_or", "seqd_mariadb_agg_bit_xor":
		// MariaDB's BIT_AND, BIT_OR and BIT_XOR of integers (a BIGINT
		// UNSIGNED's numeric too), each as its 64 bits: a BIGINT
		// UNSIGNED, and a value for no row (BIT_AND's all ones, the
		// others' 0).
		switch at {
		case TInt2, TInt4:
			x, err := c.Coerce(a.arg, TInt8, Location(fc.Args[0]), "argument")
			if err != nil {
				return err
			}
			a.arg = x
		case TInt8, tNumeric:
		default:
			return c.NoFunction(a.name, []Expr{a.arg}, fc.Location)
		}
		a.t = tNumeric
	case "bool_and", "bool_or":
		x, err := c.Coerce(args[0], TBool, Location(fc.Args[0]), "argument")
		if err != nil {
			return err
		}
		a.arg, a.t = x, TBool
	case "array_agg":
		if a.t = TypeByOID(at.array); a.t == nil {
			return c.NoFunction(a.name, []Expr{a.arg}, fc.Location)
		}
	case "string_agg":
		a.sep = c.settle(args[1])
		if !isString(at) || !isString(a.sep.Type()) {
			return c.NoFunction(a.name, args, fc.Location)
		}
		a.t = TText
	default:
		a.t = at
	}
	return nil
}

// group runs the aggregation: rows are grouped by the GROUP BY keys, each
// group's aggregates fed row by row, and the select list evaluated once
// per group with the group's first row for its grouped columns. A group
// keeps its first row and its aggregates' states, not its rows (budget.go).
func (q *Query) group(e *Env, in Rows) (Rows, error) {
	type group struct {
		first []Datum
		aggs  []aggState
	}
	newGroup := func(first []Datum) *group {
		g := &group{first: first, aggs: make([]aggState, len(q.aggs))}
		for i, a := range q.aggs {
			g.aggs[i].a = a
		}
		return g
	}
	var order []string
	groups := map[string]*group{}
	var key []byte
	for {
		row, ok, err := in.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if err := e.tick(); err != nil {
			return nil, err
		}
		e.row = row
		key = key[:0]
		for i, g := range q.groupBy {
			d, err := g.Eval(e)
			if err != nil {
				return nil, err
			}
			if q.groupCI[i] && d.Kind == KText {
				d = Text(generalCIKey(d.S)) // the key only: the group's row keeps the value read first
			}
			key = append(key, byte(d.Kind))
			if d.Kind == KNumeric {
				key = append(key, numericKey(d)...) // 1.5 and 1.50 are one group
			} else {
				key = AppendOutput(key, g.Type(), d)
			}
			key = append(key, 0)
		}
		gr := groups[string(key)]
		if gr == nil {
			row = append([]Datum(nil), row...)
			if err := e.charge(rowSize(row) + int64(len(key)) + 64 + 64*int64(len(q.aggs))); err != nil {
				return nil, err
			}
			gr = newGroup(row)
			k := string(key)
			groups[k] = gr
			order = append(order, k)
		}
		for i := range gr.aggs {
			if err := gr.aggs[i].add(e, row); err != nil {
				return nil, err
			}
		}
	}
	if len(groups) == 0 && len(q.groupBy) == 0 {
		groups[""] = newGroup(nil)
		order = append(order, "")
	}
	var out [][]Datum
	for _, k := range order {
		gr := groups[k]
		e.aggs = make([]Datum, len(q.aggs))
		for i := range gr.aggs {
			d, err := gr.aggs[i].result()
			if err != nil {
				return nil, err
			}
			e.aggs[i] = d
		}
		e.row = gr.first
		if e.row == nil {
			e.row = make([]Datum, q.width)
		}
		if q.having != nil {
			d, err := q.having.Eval(e)
			if err != nil {
				return nil, err
			}
			if !d.Truth() {
				continue
			}
		}
		row := make([]Datum, len(q.targets))
		for i, t := range q.targets {
			d, err := t.Eval(e)
			if err != nil {
				return nil, err
			}
			row[i] = d
		}
		out = append(out, row)
	}
	return &SliceRows{Rows: out}, nil
}

// aggState is one aggregate's state in one group. count, sum, min, max,
// bool_and and bool_or keep only their running result; array_agg,
// string_agg and DISTINCT keep what they must, charged to the statement's
// budget.
type aggState struct {
	a   *aggCall
	n   int64 // values counted
	acc Datum // sum, min, max, bool_and/or so far (KNull: none yet)
	sum sumState
	// mean and m2: MariaDB's variances' running mean and sum of squared
	// differences from it (Welford's recurrence, as its Stddev class).
	mean, m2 float64
	bits     uint64 // MariaDB's BIT_AND, BIT_OR, BIT_XOR so far
	vals     []Datum
	seen     map[string]bool
	// sorted: each value of vals after its ORDER BY keys, for the
	// ordered aggregates.
	sorted [][]Datum
}

// add feeds row (e.row) to the aggregate.
func (st *aggState) add(e *Env, row []Datum) error {
	a := st.a
	if a.filter != nil {
		e.row = row
		ok, err := a.filter.Eval(e)
		if err != nil || !ok.Truth() {
			return err
		}
	}
	if a.arg == nil {
		st.n++
		return nil
	}
	e.row = row
	d, err := a.arg.Eval(e)
	if err != nil {
		return err
	}
	if d.Kind == KNull && a.name != "array_agg" {
		return nil
	}
	if a.distinct {
		k := string(AppendOutput([]byte{byte(d.Kind)}, a.arg.Type(), d))
		switch {
		case d.Kind == KNumeric:
			k = numericKey(d)
		case a.ci && d.Kind == KText:
			k = string(byte(KText)) + generalCIKey(d.S)
		}
		if st.seen[k] {
			return nil
		}
		if st.seen == nil {
			st.seen = map[string]bool{}
		}
		if err := e.charge(int64(len(k)) + 48); err != nil {
			return err
		}
		st.seen[k] = true
	}
	if a.sep != nil {
		sep, err := a.sep.Eval(e)
		if err != nil {
			return err
		}
		d.A = []Datum{sep}
	}
	st.n++
	switch a.name {
	case "count":
	case "sum", "avg":
		return st.addSum(d)
	case "min", "max":
		c := 0
		if st.n > 1 && a.ci {
			c = compareCI(d, st.acc)
		} else if st.n > 1 {
			c = compare(d, st.acc)
		}
		if st.n == 1 || c < 0 && a.name == "min" || c > 0 && a.name == "max" {
			st.acc = d
		}
	case "seqd_mariadb_agg_bit_and", "seqd_mariadb_agg_bit_or", "seqd_mariadb_agg_bit_xor":
		x, _ := bitOperand(e, d)
		switch {
		case st.n == 1:
			st.bits = x
		case a.name == "seqd_mariadb_agg_bit_and":
			st.bits &= x
		case a.name == "seqd_mariadb_agg_bit_or":
			st.bits |= x
		default:
			st.bits ^= x
		}
	case "seqd_mariadb_var_pop", "seqd_mariadb_var_samp", "seqd_mariadb_stddev_pop", "seqd_mariadb_stddev_samp":
		if st.n == 1 {
			st.mean = d.F
		} else {
			prev := st.mean
			diff := d.F - prev
			st.mean = prev + diff/float64(st.n)
			st.m2 += diff * (d.F - st.mean)
		}
	case "bool_and", "bool_or":
		if st.n == 1 {
			st.acc = Bool(a.name == "bool_and")
		}
		if (d.I != 0) == (a.name == "bool_or") {
			st.acc = d
		}
	default: // array_agg, string_agg
		if err := e.charge(estimateSize(d)); err != nil {
			return err
		}
		if len(a.keys) == 0 {
			st.vals = append(st.vals, d)
			return nil
		}
		r := make([]Datum, len(a.keys)+1)
		for i, k := range a.keys {
			if r[i], err = k.Eval(e); err != nil {
				return err
			}
		}
		r[len(a.keys)] = d
		if err := e.charge(rowSize(r)); err != nil {
			return err
		}
		st.sorted = append(st.sorted, r)
	}
	return nil
}

// result is the aggregate's value over what it was fed.
func (st *aggState) result() (Datum, error) {
	if len(st.sorted) > 0 {
		sortRows(st.sorted, st.a.order)
		for _, r := range st.sorted {
			st.vals = append(st.vals, r[len(r)-1])
		}
		st.sorted = nil
	}
	if st.a.distinct && len(st.a.keys) == 0 {
		// PostgreSQL sorts to find the distinct values: they come sorted,
		// NULL last.
		slices.SortStableFunc(st.vals, func(x, y Datum) int {
			switch {
			case x.Kind == KNull || y.Kind == KNull:
				return int(y.Kind) - int(x.Kind) // KNull is 0
			}
			if st.a.ci {
				return compareCI(x, y)
			}
			return compare(x, y)
		})
	}
	switch st.a.name {
	case "count":
		return Int(st.n), nil
	case "array_agg":
		if len(st.vals) == 0 {
			return Null, nil
		}
		return Array(st.vals...), nil
	case "string_agg":
		if len(st.vals) == 0 {
			return Null, nil
		}
		var b strings.Builder
		for i, v := range st.vals {
			if i > 0 && len(v.A) == 1 && v.A[0].Kind != KNull {
				b.WriteString(v.A[0].S)
			}
			b.WriteString(v.S)
		}
		return Text(b.String()), nil
	}
	switch st.a.name {
	case "seqd_mariadb_agg_bit_and":
		if st.n == 0 {
			return unsignedDatum(math.MaxUint64), nil
		}
		return unsignedDatum(st.bits), nil
	case "seqd_mariadb_agg_bit_or", "seqd_mariadb_agg_bit_xor":
		return unsignedDatum(st.bits), nil
	}
	if st.n == 0 {
		return Null, nil
	}
	if st.a.name == "sum" || st.a.name == "avg" {
		return st.sumResult()
	}
	if v, ok := st.variance(); ok {
		return v, nil
	}
	return st.acc, nil
}

// variance is MariaDB's VAR_POP, VAR_SAMP, STDDEV_POP or STDDEV_SAMP
// (seqd_mariadb_*) of the values fed (at least one): NULL for a sample
// of one; ok false for another aggregate.
func (st *aggState) variance() (Datum, bool) {
	name, ok := strings.CutPrefix(st.a.name, "seqd_mariadb_")
	if !ok {
		return Null, false
	}
	sample := strings.HasSuffix(name, "_samp")
	var v float64
	switch {
	case sample && st.n == 1:
		return Null, true
	case st.n == 1:
	case sample:
		v = st.m2 / float64(st.n-1)
	default:
		v = st.m2 / float64(st.n)
	}
	if strings.HasPrefix(name, "stddev") {
		switch {
		case math.IsNaN(v): // the recurrence overflowed
			return Null, true
		case math.IsInf(v, 0):
			return Float(math.MaxFloat64), true
		}
		v = math.Sqrt(v)
	}
	return Float(v), true
}
