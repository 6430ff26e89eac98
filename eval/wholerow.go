package eval

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// wholeRow resolves a bare name that names no column but a FROM item of
// this scope: that item's whole row, a value of type record. seqd has
// no operators on records: it gives one only as a select-list column,
// printed as record_out prints it, and refuses it elsewhere rather than
// compare or test it otherwise than PostgreSQL would.
func (c *Compiler) wholeRow(sc *Scope, ref *pg.ColumnRef, name string) (Expr, bool, error) {
	for _, it := range sc.items {
		if it.alias != name {
			continue
		}
		if c.wholeRowTarget != ref {
			return nil, true, c.ErrAt(ref.Location, sqlerr.FeatureNotSupported, "seqd supports a whole-row reference (%s) only as a column of the select list", name)
		}
		cols := make([]Expr, len(it.cols))
		for i, rc := range it.cols {
			cols[i] = &colExpr{t: rc.Type, idx: it.offset + i}
			if c.grouping != nil && c.grouping.sc == sc {
				c.grouping.refs = append(c.grouping.refs, groupRef{it.offset + i, ref.Location, name, c.clause})
			}
		}
		return &recordExpr{cols: cols}, true, nil
	}
	return nil, false, nil
}

// recordExpr is a whole row, as its text form: record_out's.
type recordExpr struct{ cols []Expr }

var tRecord = TypeByOID(OIDRecord)

func (r *recordExpr) Type() *Type { return tRecord }
func (r *recordExpr) Eval(e *Env) (Datum, error) {
	b := []byte{'('}
	for i, x := range r.cols {
		if i > 0 {
			b = append(b, ',')
		}
		d, err := x.Eval(e)
		if err != nil {
			return Null, err
		}
		if d.Kind == KNull {
			continue
		}
		b = appendRecordField(b, AppendOutput(nil, x.Type(), d))
	}
	return Text(string(append(b, ')'))), nil
}

// appendRecordField appends one field as record_out writes it: quoted
// when empty or holding a quote, backslash, parenthesis, comma or
// white space, quotes and backslashes doubled.
func appendRecordField(b, v []byte) []byte {
	quote := len(v) == 0
	for _, c := range v {
		switch c {
		case '"', '\\', '(', ')', ',', ' ', '\t', '\n', '\r', '\v', '\f':
			quote = true
		}
	}
	if !quote {
		return append(b, v...)
	}
	b = append(b, '"')
	for _, c := range v {
		if c == '"' || c == '\\' {
			b = append(b, c)
		}
		b = append(b, c)
	}
	return append(b, '"')
}
