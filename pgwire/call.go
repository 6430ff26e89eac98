package pgwire

import (
	"context"
	"fmt"

	"github.com/seqd/seqd/alloc"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sql"
)

var arity = map[string][2]int{"nextval": {1, 1}, "currval": {1, 1}, "lastval": {0, 1}, "setval": {2, 3}, "seqd_reserve": {2, 2}, "seqd_release": {3, 3}}

// bulkChunk is how many values one generate_series row batch reserves.
const bulkChunk = 1 << 16

func (s *session) call(ctx context.Context, st *sql.SelectCall, params []datum) (*result, error) {
	c := st.Call
	if a := arity[c.Func]; len(c.Args) < a[0] || len(c.Args) > a[1] {
		return nil, &pgError{code: "42883", msg: fmt.Sprintf("function %s with %d arguments does not exist", c.Func, len(c.Args))}
	}
	cols := callColumns(c)
	if st.Series == nil {
		row, err := s.callOnce(ctx, c, params)
		if err != nil {
			return nil, err
		}
		return &result{cols: cols, rows: &sliceRows{[][]datum{row}}, tag: "SELECT"}, nil
	}
	from, okf, err := intArg(st.Series.From, params)
	if err != nil {
		return nil, err
	}
	to, okt, err := intArg(st.Series.To, params)
	if err != nil {
		return nil, err
	}
	var count int64
	if okf && okt && to >= from {
		if uint64(to)-uint64(from) >= uint64(s.maxRows) {
			return nil, &pgError{code: "54000", msg: fmt.Sprintf("generate_series of more than %d rows is not supported (limit set by -max-bulk-rows)", s.maxRows)}
		}
		count = to - from + 1
	}
	if c.Func == "nextval" {
		n, ok, err := s.seqArg(c.Args[0], params)
		if err != nil {
			return nil, err
		}
		if ok {
			return &result{cols: cols, rows: &bulkNextval{s: s, ctx: ctx, name: n, left: count}, tag: "SELECT"}, nil
		}
	}
	return &result{cols: cols, rows: &repeatCall{s: s, ctx: ctx, call: c, params: params, left: count}, tag: "SELECT"}, nil
}

// callColumns is the result shape of a sequence function.
func callColumns(c sql.Call) []column {
	switch c.Func {
	case "seqd_reserve":
		return []column{{"first", oidInt8}, {"last", oidInt8}, {"increment", oidInt8}}
	case "seqd_release":
		return []column{{c.Column, oidBool}}
	}
	return []column{{c.Column, oidInt8}}
}

// bulkNextval streams nextval rows from ranges reserved bulkChunk at a time.
type bulkNextval struct {
	s    *session
	ctx  context.Context
	name engine.Name
	id   uint64
	left int64
	r    alloc.Range
	i    int64
	row  [1]datum
}

func (b *bulkNextval) next() ([]datum, bool, error) {
	if b.left == 0 {
		return nil, false, nil
	}
	if b.i == b.r.Count {
		id, r, err := b.s.eng.ReserveUpTo(b.ctx, b.name, min(b.left, bulkChunk))
		if err != nil {
			return nil, false, err
		}
		b.id, b.r, b.i = id, r, 0
	}
	v := b.r.At(b.i)
	b.i++
	b.left--
	if b.i == b.r.Count || b.left == 0 {
		b.s.seqs.Nextval(b.id, v)
		b.s.lastName = b.name
	}
	b.row[0] = intDatum(v)
	return b.row[:], true, nil
}

type repeatCall struct {
	s      *session
	ctx    context.Context
	call   sql.Call
	params []datum
	left   int64
}

func (r *repeatCall) next() ([]datum, bool, error) {
	if r.left == 0 {
		return nil, false, nil
	}
	r.left--
	row, err := r.s.callOnce(r.ctx, r.call, r.params)
	return row, err == nil, err
}

// callOnce evaluates one sequence function.
func (s *session) callOnce(ctx context.Context, c sql.Call, params []datum) ([]datum, error) {
	null := func() []datum {
		if c.Func == "seqd_reserve" {
			return []datum{{}, {}, {}}
		}
		return []datum{{}}
	}
	if c.Func == "lastval" && len(c.Args) == 0 {
		id, v, ok := s.seqs.Lastval()
		if ok {
			if info, err := s.eng.Info(s.lastName); err != nil || info.ID != id {
				ok = false
			}
		}
		if !ok {
			return nil, &pgError{code: "55000", msg: "lastval is not yet defined in this session"}
		}
		return []datum{intDatum(v)}, nil
	}
	n, ok, err := s.seqArg(c.Args[0], params)
	if err != nil || !ok {
		return null(), err
	}
	switch c.Func {
	case "nextval":
		id, v, err := s.eng.Nextval(ctx, n)
		if err != nil {
			return nil, err
		}
		s.seqs.Nextval(id, v)
		s.lastName = n
		return []datum{intDatum(v)}, nil
	case "currval", "lastval":
		info, err := s.eng.Info(n)
		if err != nil {
			return nil, err
		}
		v, ok := s.seqs.Currval(info.ID)
		if !ok && c.Func == "lastval" {
			// MariaDB's LASTVAL(s) and PREVIOUS VALUE FOR s: NULL until
			// the session used s.
			return null(), nil
		}
		if !ok {
			return nil, &pgError{code: "55000", msg: fmt.Sprintf("currval of sequence \"%s\" is not yet defined in this session", n.Rel())}
		}
		return []datum{intDatum(v)}, nil
	case "setval":
		v, ok, err := intArg(c.Args[1], params)
		if err != nil || !ok {
			return null(), err
		}
		called := true
		if len(c.Args) == 3 {
			b, ok, err := boolArg(c.Args[2], params)
			if err != nil || !ok {
				return null(), err
			}
			called = b
		}
		id, err := s.eng.Setval(ctx, n, v, called)
		if err != nil {
			return nil, err
		}
		if called {
			s.seqs.Setval(id, v)
		}
		return []datum{intDatum(v)}, nil
	case "seqd_reserve":
		count, ok, err := intArg(c.Args[1], params)
		if err != nil || !ok {
			return null(), err
		}
		if count < 1 || count > s.maxRows {
			return nil, &pgError{code: "22023", msg: fmt.Sprintf("seqd_reserve count must be between 1 and %d, not %d", s.maxRows, count)}
		}
		id, r, err := s.eng.Reserve(ctx, n, count)
		if err != nil {
			return nil, err
		}
		s.seqs.Nextval(id, r.Last())
		s.lastName = n
		return []datum{intDatum(r.First), intDatum(r.Last()), intDatum(r.Increment)}, nil
	case "seqd_release":
		first, ok, err := intArg(c.Args[1], params)
		if err != nil || !ok {
			return null(), err
		}
		last, ok, err := intArg(c.Args[2], params)
		if err != nil || !ok {
			return null(), err
		}
		k, err := s.eng.Release(n, first, last)
		if err != nil {
			return nil, err
		}
		return []datum{boolDatum(k > 0)}, nil
	}
	return nil, &pgError{code: "42883", msg: fmt.Sprintf("function %s does not exist", c.Func)}
}

func (s *session) selectSequence(st *sql.SelectSequence) (*result, error) {
	n, err := engineName(st.Name)
	if err != nil {
		return nil, err
	}
	info, err := s.eng.Info(n)
	if err != nil {
		return nil, err
	}
	all := map[string]struct {
		oid uint32
		d   datum
	}{
		"last_value": {oidInt8, intDatum(info.State.Last)},
		"log_cnt":    {oidInt8, intDatum(info.Window)},
		"is_called":  {oidBool, boolDatum(info.State.Called)},
	}
	names := st.Columns
	if names == nil {
		names = []string{"last_value", "log_cnt", "is_called"}
	}
	var cols []column
	var row []datum
	for _, c := range names {
		v, ok := all[c]
		if !ok {
			return nil, &pgError{code: "42703", msg: fmt.Sprintf("column \"%s\" does not exist", c)}
		}
		cols = append(cols, column{c, v.oid})
		row = append(row, v.d)
	}
	return &result{cols: cols, rows: &sliceRows{[][]datum{row}}, tag: "SELECT"}, nil
}

var pgSequencesColumns = []column{
	{"schemaname", oidName}, {"sequencename", oidName}, {"sequenceowner", oidName}, {"data_type", oidRegtype},
	{"start_value", oidInt8}, {"min_value", oidInt8}, {"max_value", oidInt8}, {"increment_by", oidInt8},
	{"cycle", oidBool}, {"cache_size", oidInt8}, {"last_value", oidInt8},
}

func (s *session) pgSequences(st *sql.SelectPgSequences) (*result, error) {
	idx := make([]int, 0, len(pgSequencesColumns))
	if st.Columns == nil {
		for i := range pgSequencesColumns {
			idx = append(idx, i)
		}
	}
	for _, c := range st.Columns {
		found := false
		for i, pc := range pgSequencesColumns {
			if pc.name == c {
				idx, found = append(idx, i), true
			}
		}
		if !found {
			return nil, &pgError{code: "42703", msg: fmt.Sprintf("column \"%s\" does not exist", c)}
		}
	}
	cols := make([]column, len(idx))
	for i, j := range idx {
		cols[i] = pgSequencesColumns[j]
	}
	var rows [][]datum
	for _, info := range s.eng.List() {
		o := info.Options
		last := datum{}
		if info.State.Called {
			last = intDatum(info.State.Last)
		}
		full := []datum{textDatum(info.Name.Schema()), textDatum(info.Name.Rel()), textDatum("seqd"), textDatum(o.Type.String()),
			intDatum(o.Start), intDatum(o.Min), intDatum(o.Max), intDatum(o.Increment), boolDatum(o.Cycle), intDatum(o.Cache), last}
		row := make([]datum, len(idx))
		for i, j := range idx {
			row[i] = full[j]
		}
		rows = append(rows, row)
	}
	return &result{cols: cols, rows: &sliceRows{rows}, tag: "SELECT"}, nil
}
