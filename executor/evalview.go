package executor

import (
	"errors"
	"strings"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"

	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// evalView is a Session as the evaluator sees it (Session): a view of
// the same memory, so a *Session converts to it for nothing, and back.
type evalView Session

// sessionOf is the session an evaluation runs for: every env the
// executor makes carries its session's evalView.
func sessionOf(e *eval.Env) *Session { return (*Session)(e.Session.(*evalView)) }

func (v *evalView) s() *Session { return (*Session)(v) }

func (v *evalView) CurrentUser() string       { return v.cfg.User }
func (v *evalView) SessionUser() string       { return v.s().sessionUser() }
func (v *evalView) Database() string          { return v.cfg.Database }
func (v *evalView) CurrentSchema() eval.Datum { return v.s().currentSchema() }
func (v *evalView) StatementMemory() int64 {
	return v.cfg.MaxStatementMemory
}
func (v *evalView) KeptMemory() *eval.Kept                     { return &v.s().kept }
func (v *evalView) MaxRows() int64                             { return v.maxRows }
func (v *evalView) Queried()                                   { v.tx.queried = true }
func (v *evalView) Location() *time.Location                   { return v.s().location() }
func (v *evalView) RegclassIn(text string) (eval.Datum, error) { return v.s().regclassIn(text) }
func (v *evalView) RegclassOut(oid uint32) eval.Datum          { return v.s().regclassOf(oid) }

func (v *evalView) Relation(q pgsql.QName) (*eval.Relation, error) {
	s := v.s()
	rel, mysql, err := s.mysqlRelation(q) // the MySQL front end's names (seqops_mysql.go)
	if !mysql {
		rel, err = s.resolveRelation(q)
	}
	if err != nil {
		if (q.Schema == "pg_catalog" || q.Schema == "information_schema" || strings.HasPrefix(q.Rel, "pg_")) && isNotFound(err) {
			return nil, sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s\" does not exist", eval.Qualified(q.Schema, q.Rel)).
				WithHint("seqd's catalog has PostgreSQL 15's relations, and seqd's own: %s.", seqdRelations())
		}
		return nil, err
	}
	r := &eval.Relation{OID: rel.oid, Schema: rel.schema, Name: rel.name, Cols: rel.cols}
	if rel.stream != nil {
		r.Stream = func() (eval.Rows, error) {
			if err := s.checkCatalogRead(rel); err != nil {
				return nil, err
			}
			return rel.stream(s), nil
		}
	} else {
		r.Rows = func() ([][]eval.Datum, error) {
			if err := s.checkCatalogRead(rel); err != nil {
				return nil, err
			}
			return rel.rows(s)
		}
	}
	if rel.by != nil {
		r.Lookup = rel.by.lookup(s)
		if rel.by.nameCol >= 0 {
			r.LookupPrefix = rel.by.prefixLookup(s)
		}
	}
	return r, nil
}

// Input parses text as t's input function does.
func (s *Session) Input(t *eval.Type, text string) (eval.Datum, error) {
	return eval.Input((*evalView)(s), t, text)
}

// isNotFound reports whether err says a relation does not exist.
func isNotFound(err error) bool {
	se, ok := err.(*sqlerr.Error)
	return ok && se.Kind == sqlerr.UndefinedTable || errors.Is(err, engine.ErrNotFound)
}

// location is the session's TimeZone (SET checks it resolves).
func (s *Session) location() *time.Location {
	name, _ := s.settingValue("TimeZone")
	if loc, ok := eval.ZoneNamed(name); ok {
		return loc
	}
	return time.UTC
}
