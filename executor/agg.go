package executor

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sql"
)

// aggCall is one aggregate in a grouped query.
type aggCall struct {
	name     string
	arg      expr // nil for count(*)
	sep      expr // string_agg's delimiter
	distinct bool
	t        *Type
}

func (c *compiler) aggregate(sc *scope, name string, fc *pg.FuncCall) (expr, error) {
	if c.aggs == nil {
		return nil, c.errAt(fc.Location, sql.GroupingError, "aggregate functions are not allowed here")
	}
	a := &aggCall{name: name, distinct: fc.AggDistinct}
	saved := c.aggs
	c.aggs = nil // no aggregates inside aggregates
	defer func() { c.aggs = saved }()
	switch {
	case fc.AggStar:
		if name != "count" {
			return nil, c.errAt(fc.Location, sql.SyntaxError, "%s(*) must be used to call a parameterless aggregate function", name)
		}
		a.t = tInt8
	case len(fc.Args) == 0:
		return nil, c.noFunction(name, nil, fc.Location)
	default:
		x, err := c.expr(sc, fc.Args[0])
		if err != nil {
			return nil, err
		}
		a.arg = c.settle(x)
		switch name {
		case "count":
			a.t = tInt8
		case "sum":
			if a.arg.typ().class != KInt && a.arg.typ().class != KFloat {
				return nil, c.noFunction(name, []expr{a.arg}, fc.Location)
			}
			a.t = tNumeric
			if a.arg.typ() == tInt2 || a.arg.typ() == tInt4 {
				a.t = tInt8
			}
		case "bool_and", "bool_or":
			if a.arg, err = c.coerce(a.arg, tBool, exprLoc(fc.Args[0]), "argument"); err != nil {
				return nil, err
			}
			a.t = tBool
		case "array_agg":
			a.t = typeByOID(a.arg.typ().array)
			if a.t == nil {
				return nil, c.noFunction(name, []expr{a.arg}, fc.Location)
			}
		case "string_agg":
			if len(fc.Args) != 2 {
				return nil, c.noFunction(name, []expr{a.arg}, fc.Location)
			}
			sep, err := c.expr(sc, fc.Args[1])
			if err != nil {
				return nil, err
			}
			a.sep = c.settle(sep)
			a.t = tText
		default:
			a.t = a.arg.typ()
		}
	}
	*saved = append(*saved, a)
	return &aggRef{t: a.t, idx: len(*saved) - 1}, nil
}

// group runs the aggregation: rows are grouped by the GROUP BY keys, each
// group's aggregates computed, and the select list evaluated once per
// group with the group's first row for its grouped columns.
func (q *query) group(e *env, in Rows) (Rows, error) {
	type group struct {
		first []Datum
		rows  [][]Datum
	}
	var order []string
	groups := map[string]*group{}
	for {
		row, ok, err := in.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		row = append([]Datum(nil), row...)
		e.row = row
		var key strings.Builder
		for _, g := range q.groupBy {
			d, err := g.eval(e)
			if err != nil {
				return nil, err
			}
			key.WriteByte(byte(d.Kind))
			key.Write(AppendOutput(nil, g.typ(), d))
			key.WriteByte(0)
		}
		k := key.String()
		gr := groups[k]
		if gr == nil {
			gr = &group{first: row}
			groups[k] = gr
			order = append(order, k)
		}
		gr.rows = append(gr.rows, row)
	}
	if len(groups) == 0 && len(q.groupBy) == 0 {
		groups[""] = &group{}
		order = append(order, "")
	}
	var out [][]Datum
	for _, k := range order {
		gr := groups[k]
		e.aggs = make([]Datum, len(q.aggs))
		for i, a := range q.aggs {
			d, err := a.compute(e, gr.rows)
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
			d, err := q.having.eval(e)
			if err != nil {
				return nil, err
			}
			if !d.Truth() {
				continue
			}
		}
		row := make([]Datum, len(q.targets))
		for i, t := range q.targets {
			d, err := t.eval(e)
			if err != nil {
				return nil, err
			}
			row[i] = d
		}
		out = append(out, row)
	}
	return &sliceRows{rows: out}, nil
}

func (a *aggCall) compute(e *env, rows [][]Datum) (Datum, error) {
	var vals []Datum
	seen := map[string]bool{}
	for _, r := range rows {
		if a.arg == nil {
			vals = append(vals, Int(1))
			continue
		}
		e.row = r
		d, err := a.arg.eval(e)
		if err != nil {
			return Null, err
		}
		if d.Kind == KNull && a.name != "array_agg" {
			continue
		}
		if a.distinct {
			k := string(AppendOutput([]byte{byte(d.Kind)}, a.arg.typ(), d))
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		if a.sep != nil {
			sep, err := a.sep.eval(e)
			if err != nil {
				return Null, err
			}
			d.A = []Datum{sep}
		}
		vals = append(vals, d)
	}
	switch a.name {
	case "count":
		return Int(int64(len(vals))), nil
	case "array_agg":
		if len(vals) == 0 {
			return Null, nil
		}
		return Array(vals...), nil
	}
	if len(vals) == 0 {
		return Null, nil
	}
	switch a.name {
	case "sum":
		if vals[0].Kind == KFloat {
			f := 0.0
			for _, v := range vals {
				f += v.F
			}
			return Float(f), nil
		}
		var sum int64
		for _, v := range vals {
			d, err := intArith(tInt8, "+", sum, v.I)
			if err != nil {
				return Null, err
			}
			sum = d.I
		}
		return Int(sum), nil
	case "min", "max":
		best := vals[0]
		for _, v := range vals[1:] {
			if c := compare(v, best); c < 0 && a.name == "min" || c > 0 && a.name == "max" {
				best = v
			}
		}
		return best, nil
	case "bool_and", "bool_or":
		for _, v := range vals {
			if (v.I != 0) == (a.name == "bool_or") {
				return v, nil
			}
		}
		return Bool(a.name == "bool_and"), nil
	case "string_agg":
		var b strings.Builder
		for i, v := range vals {
			if i > 0 && len(v.A) == 1 && v.A[0].Kind != KNull {
				b.WriteString(v.A[0].S)
			}
			b.WriteString(v.S)
		}
		return Text(b.String()), nil
	}
	return Null, nil
}
