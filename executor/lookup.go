package executor

import (
	"github.com/seqd/seqd/catalog"
	"slices"
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// Catalog lookups without scans: the relations over every sequence
// answer an equality on a sequence's name or OID (eval.Relation.Lookup)
// from the engine's index, making the rows of the sequences it names
// only, in the order the whole relation lists them. What a lookup cannot
// answer exactly (a value of another type, a name as long as a name may
// be, which PostgreSQL would truncate) it leaves to the full read.

// maxNameLen is NAMEDATALEN-1: a longer name compares truncated.
const maxNameLen = 63

// seqLookup says how a relation looks up: the column holding a
// sequence's name (nameCol) or OID (oidCol), -1 for none, and the rows it
// makes of the sequences found.
type seqLookup struct {
	nameCol, oidCol int
	// rows makes the rows of seqs, looked up by column col equal to v, or
	// with prefix beginning with v.
	rows func(s *Session, seqs []seqInfo, col int, v eval.Datum, prefix bool) ([][]eval.Datum, error)
}

// lookup is eval.Relation.Lookup for a relation described by l.
func (l seqLookup) lookup(s *Session) func(col int, v eval.Datum) ([][]eval.Datum, bool, error) {
	return func(col int, v eval.Datum) ([][]eval.Datum, bool, error) {
		var seqs []seqInfo
		switch {
		case col == l.nameCol && v.Kind == eval.KText && len(v.S) < maxNameLen:
			seqs = s.sequencesNamed(v.S)
		case col == l.oidCol:
			oid, ok := catalog.OIDOf(v)
			if !ok {
				return nil, false, nil
			}
			seqs = s.seqInfoByOID(oid)
		default:
			return nil, false, nil
		}
		rows, err := l.rows(s, seqs, col, v, false)
		return rows, err == nil, err
	}
}

// prefixLookup is eval.Relation.LookupPrefix for a relation described by
// l: the rows of the sequences whose name begins with prefix, from the
// engines' names (in a transaction, whose catalog may differ, the whole
// relation is read instead).
func (l seqLookup) prefixLookup(s *Session) func(col int, prefix string) ([][]eval.Datum, bool, error) {
	return func(col int, prefix string) ([][]eval.Datum, bool, error) {
		if col != l.nameCol || s.txn != nil || s.tempTxn != nil {
			return nil, false, nil
		}
		var seqs []seqInfo
		for _, eng := range []*engine.Engine{s.tempEng, s.eng} {
			if eng == nil {
				continue
			}
			for _, info := range eng.InfosWithPrefix(prefix) {
				seqs = append(seqs, seqInfo{Info: info, OID: s.oids().forSequence(s.oidEng(eng), info), Namespace: s.oids().forSchema(info.Name.Schema())})
			}
		}
		rows, err := l.rows(s, seqs, col, eval.Text(prefix), true)
		return rows, err == nil, err
	}
}

// sequencesNamed are the sequences named rel in any schema, as
// sequences lists them.
func (s *Session) sequencesNamed(rel string) []seqInfo {
	var out []seqInfo
	schemas := s.schemaNames()
	s.eachCatalog(func(eng *engine.Engine, cat seqCatalog) {
		var infos []engine.Info
		for _, schema := range schemas {
			n, err := engine.NewName(schema, rel)
			if err != nil {
				continue
			}
			if info, err := cat.Info(n); err == nil {
				infos = append(infos, info)
			}
		}
		slices.SortFunc(infos, func(a, b engine.Info) int { return strings.Compare(a.Name.String(), b.Name.String()) })
		for _, info := range infos {
			out = append(out, seqInfo{Info: info, OID: s.oids().forSequence(s.oidEng(eng), info), Namespace: s.oids().forSchema(info.Name.Schema())})
		}
	})
	return out
}

// seqInfoByOID is the sequence with OID oid, if there is one (an OID a
// session was shown: sequences get theirs when first listed).
func (s *Session) seqInfoByOID(oid uint32) []seqInfo {
	n, _, ok := s.oids().sequence(oid)
	if !ok {
		return nil
	}
	for _, info := range s.sequencesNamed(n.Rel()) {
		if info.OID == oid {
			return []seqInfo{info}
		}
	}
	return nil
}

// eachCatalog calls f with each engine the session sees, temporary first,
// and its catalog as the session sees it (its transaction's, in one).
func (s *Session) eachCatalog(f func(eng *engine.Engine, cat seqCatalog)) {
	for _, eng := range []*engine.Engine{s.tempEng, s.eng} {
		if eng == nil {
			continue
		}
		var cat seqCatalog = eng
		switch {
		case eng == s.eng && s.txn != nil:
			cat = s.txn
		case eng == s.tempEng && s.tempTxn != nil:
			cat = s.tempTxn
		}
		f(eng, cat)
	}
}
