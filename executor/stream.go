package executor

import "github.com/seqd/seqd/eval"

// seqStream yields the rows of a relation with rows per sequence as they
// are read: before's, then each sequence's (per, made when it is
// reached), then after's. A scan of pg_class or pg_attribute over a
// million sequences so keeps one sequence's rows at a time, not a
// million (what a query keeps of them, a sort's or a join's, is charged
// to its statement's memory budget).
type seqStream struct {
	s        *Session
	before   [][]eval.Datum
	seqs     []seqInfo
	reserved bool // read each NOORDER sequence's position first (seqRows)
	per      func(seqInfo) [][]eval.Datum
	after    func() [][]eval.Datum
	pending  [][]eval.Datum
}

func (g *seqStream) Next() ([]eval.Datum, bool, error) {
	for {
		switch {
		case len(g.before) > 0:
			row := g.before[0]
			g.before = g.before[1:]
			return row, true, nil
		case len(g.pending) > 0:
			row := g.pending[0]
			g.pending = g.pending[1:]
			return row, true, nil
		case len(g.seqs) > 0:
			info := g.seqs[0]
			g.seqs = g.seqs[1:]
			g.s.seqRowsMade++
			if g.reserved {
				var err error
				if info.Info, err = g.s.reserved(info.Info); err != nil {
					return nil, false, err
				}
			}
			g.pending = g.per(info)
		case g.after != nil:
			g.pending, g.after = g.after(), nil
		default:
			return nil, false, nil
		}
	}
}

// streamOf streams a row per sequence, made by row.
func streamOf(s *Session, reserved bool, row func(seqInfo) []eval.Datum) eval.Rows {
	return &seqStream{s: s, seqs: s.sequences(), reserved: reserved, per: func(i seqInfo) [][]eval.Datum { return [][]eval.Datum{row(i)} }}
}
