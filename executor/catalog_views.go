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
	if r.view == nil {
		return eval.Null
	}
	return catalog.ViewDefinition(r.view)
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
