package executor

import (
	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// schemaACLItems is a schema's nspacl: pg_catalog's and
// information_schema's as PostgreSQL's (USAGE to PUBLIC), none for
// pg_toast and a session's temporary schema.
func (s *Session) schemaACLItems(name string) eval.Datum {
	if _, temp := s.tempName(name); temp || name == "pg_toast" {
		return eval.Null
	}
	if name == "pg_catalog" || name == "information_schema" {
		su := s.roleName(superuserOID)
		return eval.Array(eval.Text(catalog.ACLItem(su, engine.SchemaPrivs, su)), eval.Text(catalog.ACLItem(engine.Public, engine.PrivUsage, su)))
	}
	a, err := s.cat().SchemaACL(name)
	if err != nil {
		return eval.Null
	}
	return catalog.ACLItems(a, s.roleName(s.schemaOwnerOID(name)), catalog.ACLSchema)
}

func init() {
	eval.Define("acldefault", eval.TAclArr, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return catalog.ACLDefault(a[0].S, sessionOf(e).roleName(a[1].I))
	}, eval.TChar, eval.TOid)
}
