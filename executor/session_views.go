// A session's own objects as the catalog lists them: its prepared
// statements (pg_prepared_statements) and its cursors (pg_cursors).

package executor

import (
	"time"

	"github.com/seqd/seqd/eval"
)

// listedStatement is a prepared statement as pg_prepared_statements
// shows it: the text that prepared it, when, and whether PREPARE did
// (else the protocol's Parse).
type listedStatement struct {
	p       *Prepared
	text    string
	at      time.Time
	fromSQL bool
}

// listStatement records a named prepared statement.
func (s *Session) listStatement(name, text string, p *Prepared, fromSQL bool) {
	if s.statements == nil {
		s.statements = map[string]listedStatement{}
	}
	s.statements[name] = listedStatement{p: p, text: text, at: time.Now(), fromSQL: fromSQL}
}

// NameStatement records that the client's protocol named p (text is what
// its Parse sent; p is nil for an empty one), for pg_prepared_statements;
// ForgetStatement forgets the name (Close). The unnamed statement is not
// listed, as in PostgreSQL. DEALLOCATE and DISCARD ALL forget names
// themselves.
func (s *Session) NameStatement(name, text string, p *Prepared) {
	if name != "" {
		s.listStatement(name, text, p, false)
	}
}

func (s *Session) ForgetStatement(name string) { delete(s.statements, name) }

// preparedRows are pg_prepared_statements' rows. seqd has one plan for
// every execution, which PostgreSQL would call generic: generic_plans
// counts the executions, custom_plans is 0.
func (s *Session) preparedRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for name, st := range s.statements {
		var types []eval.Datum
		if st.p != nil {
			for _, t := range st.p.ParamTypes {
				types = append(types, eval.Datum{Kind: eval.KInt, I: int64(t.OID()), S: t.SQLName()})
			}
		}
		var runs int64
		if st.p != nil {
			runs = st.p.runs
		}
		out = append(out, []eval.Datum{eval.Text(name), eval.Text(st.text), s.timestamptz(st.at), eval.Array(types...),
			eval.Bool(st.fromSQL), eval.Int(runs), eval.Int(0)})
	}
	return out, nil
}

// cursorRows are pg_cursors' rows: the DECLAREd cursors (not the
// protocol's portals, as in PostgreSQL). seqd's cursors read forward
// only.
func (s *Session) cursorRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for name, c := range s.cursors {
		out = append(out, []eval.Datum{eval.Text(name), eval.Text(c.text), eval.Bool(c.hold), eval.Bool(c.binary), eval.Bool(false), s.timestamptz(c.at)})
	}
	return out, nil
}
