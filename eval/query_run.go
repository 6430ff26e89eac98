// Running a compiled query: Open, and the row iterators a query's rows
// pass through (filter, projection, sort, DISTINCT, LIMIT).

package eval

import (
	"context"
	"slices"
	"sort"

	"github.com/seqd/seqd/sqlerr"
)

// Open runs the query.
//
// A query without FROM (single) is one row, evaluated as it is read: it
// is into, when into is not nil, so a caller that keeps one for the
// query's next execution allocates nothing per execution.
func (q *Query) Open(ctx context.Context, params []Datum, into *SingleRow) (Rows, error) {
	q.s.Queried()
	ctx = q.withCTEs(ctx)
	for _, x := range q.typed {
		if _, err := x.Eval(&Env{Ctx: ctx, Session: q.s, params: params}); err != nil {
			return nil, err
		}
	}
	if q.setop != nil || q.values != nil || q.recursion != nil {
		e := &Env{Ctx: ctx, Session: q.s, params: params}
		var all [][]Datum
		var err error
		switch {
		case q.setop != nil:
			all, err = q.setop.rows(ctx, e, params)
		case q.values != nil:
			all, err = q.values.open(e)
		default:
			all, err = q.recursion.rows(ctx, e, params)
		}
		if err != nil {
			return nil, err
		}
		if q.sortKeys != nil {
			q.sort(all)
		}
		return q.limited(e, &SliceRows{Rows: all})
	}
	if q.bulk != nil {
		e := &Env{Ctx: ctx, Session: q.s, params: params}
		return q.bulk.x.Series(e, func() (int64, error) { return seriesCount(e, q.bulk.from, q.bulk.to, nil) })
	}
	if q.Single() {
		r := into
		if r == nil {
			r = new(SingleRow)
		}
		*r = SingleRow{e: Env{Ctx: ctx, Session: q.s, params: params}, targets: q.targets}
		if len(q.targets) <= len(r.small) {
			r.buf = r.small[:len(q.targets)]
		} else {
			r.buf = make([]Datum, len(q.targets))
		}
		return r, nil
	}
	e := &Env{Ctx: ctx, Session: q.s, params: params}
	var in Rows = &SliceRows{Rows: [][]Datum{nil}}
	if q.from != nil {
		var err error
		if in, err = q.from.open(e); err != nil {
			return nil, err
		}
	}
	if q.where != nil {
		in = &filterRows{in: in, e: e, cond: q.where}
	}
	if len(q.late) > 0 {
		out, err := q.sentLate(e, in)
		if err != nil {
			return nil, err
		}
		return q.limited(e, out)
	}
	var out Rows
	if q.grouped {
		rows, err := q.group(e, in)
		if err != nil {
			return nil, err
		}
		out = rows
	} else {
		out = &projectRows{in: in, e: e, targets: q.targets, buf: make([]Datum, len(q.targets))}
		if len(q.srfs) > 0 {
			out = &srfRows{in: out, cols: q.srfs}
		}
	}
	if q.distinct || q.sortKeys != nil {
		all, err := Collect(e, out)
		if err != nil {
			return nil, err
		}
		if q.sortKeys != nil {
			q.sort(all)
		}
		if q.distinct {
			all = distinctOf(all, q.Columns, len(q.targets)-q.hidden)
		}
		out = &SliceRows{Rows: all}
	}
	if q.hidden > 0 {
		out = &trimRows{in: out, n: len(q.targets) - q.hidden}
	}
	return q.limited(e, out)
}

// limited applies the query's LIMIT and OFFSET to out.
func (q *Query) limited(e *Env, out Rows) (Rows, error) {
	if q.limit != nil || q.offset != nil {
		lr := &limitRows{in: out, limit: -1}
		if q.limit != nil {
			d, err := q.limit.Eval(e)
			if err != nil {
				return nil, err
			}
			if d.Kind != KNull {
				if d.I < 0 {
					return nil, sqlerr.Errorf(sqlerr.InvalidRowCountInLimit, "LIMIT must not be negative")
				}
				lr.limit = d.I
			}
		}
		if q.offset != nil {
			d, err := q.offset.Eval(e)
			if err != nil {
				return nil, err
			}
			if d.I < 0 {
				return nil, sqlerr.Errorf(sqlerr.InvalidRowCountInOffset, "OFFSET must not be negative")
			}
			lr.skip = d.I
		}
		out = lr
	}
	return out, nil
}

// Collect reads every row of r, charged to e's budget.
func Collect(e *Env, r Rows) ([][]Datum, error) {
	var out [][]Datum
	for {
		row, ok, err := r.Next()
		if err != nil || !ok {
			return out, err
		}
		if err := e.tick(); err != nil {
			return nil, err
		}
		if err := e.charge(rowSize(row)); err != nil {
			return nil, err
		}
		out = append(out, append([]Datum(nil), row...))
	}
}

func (q *Query) sort(rows [][]Datum) { sortRows(rows, q.sortKeys) }

// sortRows sorts rows by keys, stably.
func sortRows(rows [][]Datum, keys []sortKey) {
	sort.SliceStable(rows, func(i, j int) bool {
		for _, k := range keys {
			a, b := rows[i][k.col], rows[j][k.col]
			if a.Kind == KNull || b.Kind == KNull {
				if a.Kind == b.Kind {
					continue
				}
				return (a.Kind == KNull) == k.nullsFirst
			}
			c := compare(a, b)
			if k.ci {
				c = compareCI(a, b)
			}
			if c == 0 {
				continue
			}
			return (c < 0) != k.desc
		}
		return false
	})
}

func distinct(rows [][]Datum, width int) [][]Datum { return unseen(map[string]bool{}, rows, width) }

// distinctOf is distinct of rows whose columns are cols: the strings of a
// column marked ci one where utf8mb4_general_ci finds them equal, the
// first read kept.
func distinctOf(rows [][]Datum, cols []Column, width int) [][]Datum {
	if !slices.ContainsFunc(cols[:min(width, len(cols))], func(c Column) bool { return c.ci }) {
		return distinct(rows, width)
	}
	seen := map[string]bool{}
	out := rows[:0]
	for _, r := range rows {
		if k := rowKeyOf(r, cols, width); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// unseen keeps, in place, the rows whose first width columns seen does
// not hold yet, and adds them to it.
func unseen(seen map[string]bool, rows [][]Datum, width int) [][]Datum {
	out := rows[:0]
	for _, r := range rows {
		if k := rowKey(r, width); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// Single reports whether the query is SELECT f(...), ... without FROM,
// nor anything that needs its rows at once.
func (q *Query) Single() bool {
	return q.setop == nil && q.values == nil && q.recursion == nil && q.bulk == nil && q.from == nil &&
		q.where == nil && !q.grouped && q.sortKeys == nil && !q.distinct && q.limit == nil && q.offset == nil && len(q.srfs) == 0
}

// SingleRow is the one row of a query without FROM.
type SingleRow struct {
	e       Env
	targets []Expr
	small   [4]Datum
	buf     []Datum
	done    bool
}

func (r *SingleRow) Next() ([]Datum, bool, error) {
	if r.done {
		return nil, false, nil
	}
	r.done = true
	for i, t := range r.targets {
		d, err := t.Eval(&r.e)
		if err != nil {
			return nil, false, err
		}
		r.buf[i] = d
	}
	return r.buf, true, nil
}

type filterRows struct {
	in   Rows
	e    *Env
	cond Expr
}

func (f *filterRows) Next() ([]Datum, bool, error) {
	for {
		f.e.rowDone() // the row before, passed on or not
		row, ok, err := f.in.Next()
		if err != nil || !ok {
			return nil, ok, err
		}
		if err := f.e.tick(); err != nil {
			return nil, false, err
		}
		f.e.row = row
		d, err := f.cond.Eval(f.e)
		if err != nil {
			return nil, false, err
		}
		if d.Truth() {
			return row, true, nil
		}
	}
}

type projectRows struct {
	in      Rows
	e       *Env
	targets []Expr
	buf     []Datum
}

func (p *projectRows) Next() ([]Datum, bool, error) {
	p.e.rowDone() // the row before has gone on
	row, ok, err := p.in.Next()
	if err != nil || !ok {
		return nil, ok, err
	}
	p.e.row = row
	for i, t := range p.targets {
		d, err := t.Eval(p.e)
		if err != nil {
			return nil, false, err
		}
		p.buf[i] = d
	}
	return p.buf, true, nil
}

type trimRows struct {
	in Rows
	n  int
}

func (t *trimRows) Next() ([]Datum, bool, error) {
	row, ok, err := t.in.Next()
	if err != nil || !ok {
		return nil, ok, err
	}
	return row[:t.n], true, nil
}

type limitRows struct {
	in          Rows
	limit, skip int64
	skipped     int64
}

// Skipped is how many rows the query's OFFSET has passed by so far,
// which MariaDB's warnings count in the row they name.
func (l *limitRows) Skipped() int64 { return l.skipped }

func (l *limitRows) Next() ([]Datum, bool, error) {
	for ; l.skip > 0; l.skip-- {
		var ok bool
		var err error
		if s, sent := l.in.(*sentRows); sent { // skipped uncomputed, as MariaDB skips them
			ok, err = s.skipRow()
		} else {
			_, ok, err = l.in.Next()
		}
		if err != nil || !ok {
			return nil, ok, err
		}
		l.skipped++
	}
	if l.limit == 0 {
		return nil, false, nil
	}
	if l.limit > 0 {
		l.limit--
	}
	return l.in.Next()
}
