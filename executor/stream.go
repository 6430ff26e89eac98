package executor

import (
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// seqStream yields the rows of a relation with rows per sequence as they
// are read: before's, then each sequence's (per, made when it is
// reached), then after's. A scan of pg_class or pg_attribute over a
// million sequences so keeps one sequence's rows at a time, not a
// million (what a query keeps of them, a sort's or a join's, is charged
// to its statement's memory budget).
type seqStream struct {
	s      *Session
	before [][]eval.Datum
	seqs   []seqInfo
	// more gives the next batch of sequences once seqs is done (nil at
	// the end): sequenceBatches.
	more     func() []seqInfo
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
		case len(g.seqs) == 0 && g.more != nil:
			if g.seqs = g.more(); g.seqs == nil {
				g.more = nil
			}
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

// scanBatch is how many sequences a scan describes at a time.
const scanBatch = 1000

// sequenceBatches gives the sequences the session sees, as sequences
// lists them, a batch at a time (nil after the last): a scan over a
// million keeps their sorted keys and one batch of descriptions, not a
// million descriptions. A transaction's view that changed the catalog
// gives its list in one batch. Sequences dropped during the scan are
// left out as it reaches them; one made or renamed during it may be
// missed.
func (s *Session) sequenceBatches() func() []seqInfo {
	type source struct {
		eng  *engine.Engine // the engine, for its OIDs
		read *engine.Engine // where keys are described; nil: list
		keys []string
		list []engine.Info
	}
	var srcs []*source
	s.eachCatalog(func(eng *engine.Engine, cat seqCatalog) {
		if e, ok := cat.(*engine.Engine); ok {
			srcs = append(srcs, &source{eng: eng, read: e, keys: e.Keys()})
		} else {
			srcs = append(srcs, &source{eng: eng, list: cat.List()})
		}
	})
	return func() []seqInfo {
		for len(srcs) > 0 {
			src := srcs[0]
			var infos []engine.Info
			switch {
			case src.read != nil && len(src.keys) > 0:
				n := min(len(src.keys), scanBatch)
				infos, src.keys = src.read.Describe(src.keys[:n]), src.keys[n:]
			case len(src.list) > 0:
				infos, src.list = src.list, nil
			default:
				srcs = srcs[1:]
				continue
			}
			out := make([]seqInfo, 0, len(infos))
			for _, info := range infos {
				out = append(out, seqInfo{Info: info, OID: s.oids().forSequence(s.oidEng(src.eng), info), Namespace: s.oids().forSchema(info.Name.Schema())})
			}
			if len(out) > 0 {
				return out
			}
		}
		return nil
	}
}
