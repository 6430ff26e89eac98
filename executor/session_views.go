// A session's own objects as the catalog lists them: its prepared
// statements (pg_prepared_statements) and its cursors (pg_cursors).

package executor

import (
	"time"

	"github.com/seqd/seqd/catalog"
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

// preparedStatements are the named prepared statements as
// pg_prepared_statements lists them (catalog.PreparedStatement).
func (s *Session) preparedStatements() []catalog.PreparedStatement {
	out := make([]catalog.PreparedStatement, 0, len(s.statements))
	for name, st := range s.statements {
		p := catalog.PreparedStatement{Name: name, Text: st.text, Prepared: st.at, FromSQL: st.fromSQL}
		if st.p != nil {
			p.ParamTypes, p.Runs = st.p.ParamTypes, st.p.runs
		}
		out = append(out, p)
	}
	return out
}

// declaredCursors are the DECLAREd cursors as pg_cursors lists them
// (catalog.Cursor): not the protocol's portals, as in PostgreSQL.
func (s *Session) declaredCursors() []catalog.Cursor {
	out := make([]catalog.Cursor, 0, len(s.cursors))
	for name, c := range s.cursors {
		out = append(out, catalog.Cursor{Name: name, Text: c.text, Hold: c.hold, Binary: c.binary, Declared: c.at})
	}
	return out
}
