// The catalog's views as SQL: pg_views, information_schema.views and
// pg_get_viewdef give PostgreSQL 15's definitions of the views seqd has
// under PostgreSQL's names (generated with their shapes); seqd's own
// views (seqd_stat_sequences ...) are made in Go and have none.

package executor

import (
	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
)

// viewDefinition is catalog view r's definition, NULL for a relation
// that is not one of PostgreSQL's views.
func viewDefinition(r *relation) eval.Datum {
	if def, ok := catalog.ViewDefinitions()[r.schema+"."+r.name]; ok && r.kind == 'v' {
		return eval.Text(def)
	}
	return eval.Null
}

// pgViewsRows are pg_views' rows: the catalog's views, owned by the
// bootstrap superuser.
func (s *Session) pgViewsRows() ([][]eval.Datum, error) {
	catalogOnce.Do(registerCatalog)
	owner := eval.Text(s.bootstrapUser())
	var out [][]eval.Datum
	for _, r := range catalogOrder {
		if r.kind == 'v' {
			out = append(out, []eval.Datum{eval.Text(r.schema), eval.Text(r.name), owner, viewDefinition(r)})
		}
	}
	return out, nil
}

// infoViewsRows are information_schema.views' rows: the catalog's views
// the current user holds a privilege on, with their definitions for the
// owner's members only.
func (s *Session) infoViewsRows() ([][]eval.Datum, error) {
	catalogOnce.Do(registerCatalog)
	owns := s.hasPrivsOfRole(s.bootstrapUser())
	db := eval.Text(s.cfg.Database)
	var out [][]eval.Datum
	for _, r := range catalogOrder {
		if r.kind != 'v' || !owns && s.relationPrivileges(r, s.cfg.User, true) == 0 {
			continue
		}
		def := eval.Null
		if owns {
			def = viewDefinition(r)
		}
		out = append(out, []eval.Datum{db, eval.Text(r.schema), eval.Text(r.name), def, eval.Text("NONE"), yesNo(r.insertable),
			yesNo(r.insertable), eval.Text("NO"), eval.Text("NO"), eval.Text("NO")})
	}
	return out, nil
}

func init() {
	// pg_get_viewdef(view): its definition, NULL for what is not a
	// catalog view (a relation named by text must exist; an unknown
	// literal is read as text, as PostgreSQL's preferred type).
	eval.Define("pg_get_viewdef", eval.TText, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		q, err := pgsql.ParseQualifiedName(a[0].S)
		if err != nil {
			return eval.Null, err
		}
		r, err := sessionOf(e).resolveRelation(q)
		if err != nil {
			return eval.Null, err
		}
		return viewDefinition(r), nil
	}, eval.TText)
	eval.Define("pg_get_viewdef", eval.TText, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		if r := catalogByOID(uint32(a[0].I)); r != nil {
			return viewDefinition(r), nil
		}
		return eval.Null, nil
	}, eval.TOid)
}
