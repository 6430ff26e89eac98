// The catalog relations' privileges, as PostgreSQL 15 grants them: most
// are readable by PUBLIC, some by superusers only (pg_authid,
// pg_statistic, pg_file_settings ...), pg_settings is updatable by
// PUBLIC (SET through it).

package executor

import (
	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// tablePrivs are table privileges: a catalog relation's (a sequence
// holds SELECT and UPDATE of them), the catalog's.
type tablePrivs = catalog.TablePrivs

const (
	tableSelect     = catalog.TableSelect
	tableInsert     = catalog.TableInsert
	tableUpdate     = catalog.TableUpdate
	tableDelete     = catalog.TableDelete
	tableTruncate   = catalog.TableTruncate
	tableReferences = catalog.TableReferences
	tableTrigger    = catalog.TableTrigger
)

// tablePrivNames are has_table_privilege's privilege names.
var tablePrivNames = map[string]tablePrivs{"select": tableSelect, "insert": tableInsert, "update": tableUpdate,
	"delete": tableDelete, "truncate": tableTruncate, "references": tableReferences, "trigger": tableTrigger}

// publicPrivs are the privileges r's ACL grants PUBLIC.
func (r *relation) publicPrivs() tablePrivs { return catalog.PublicPrivsIn(r.acl) }

// catalogPrivileges are role's privileges on r: all for a superuser (its
// owner), else PUBLIC's.
func (s *Session) catalogPrivileges(r *relation, role string) tablePrivs {
	if role != engine.Public && s.isSuperuser(role) {
		return ^tablePrivs(0)
	}
	return r.publicPrivs()
}

// relationPrivileges are catalogPrivileges, with SELECT where PUBLIC may
// read some columns when anyColumn.
func (s *Session) relationPrivileges(r *relation, role string, anyColumn bool) tablePrivs {
	p := s.catalogPrivileges(r, role)
	if anyColumn && r.publicColumns {
		p |= tableSelect
	}
	return p
}

// checkCatalogRead refuses a role that may not read catalog relation r,
// as PostgreSQL does when the statement runs.
func (s *Session) checkCatalogRead(r *relation) error {
	if r.kind == 'S' || s.catalogPrivileges(r, s.cfg.User)&tableSelect != 0 { // a sequence's are checked with it
		return nil
	}
	what := "table"
	if r.kind == 'v' {
		what = "view"
	}
	return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for %s %s", what, r.name)
}

// hasTablePrivilege is has_table_privilege([role,] relation, privileges),
// of a catalog relation or a sequence (of the table privileges a
// sequence holds SELECT and UPDATE; a superuser holds all of them on
// everything).
func hasTablePrivilege(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
	return tablePrivilege(e, a, false)
}

// hasAnyColumnPrivilege is has_any_column_privilege: has_table_privilege,
// or SELECT granted on some columns (pg_subscription's).
func hasAnyColumnPrivilege(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
	return tablePrivilege(e, a, true)
}

func tablePrivilege(e *eval.Env, a []eval.Datum, anyColumn bool) (eval.Datum, error) {
	s := sessionOf(e)
	role, a, err := s.privilegeArgs(a)
	if err != nil {
		return eval.Null, err
	}
	want, wantGrantable, err := parsePrivileges(a[1].S, tablePrivNames)
	if err != nil {
		return eval.Null, err
	}
	su := role != engine.Public && s.isSuperuser(role)
	var n engine.Name
	if a[0].Kind == eval.KText {
		q, perr := pgsql.ParseQualifiedName(a[0].S)
		if perr != nil {
			return eval.Null, perr
		}
		rel, rerr := s.resolveRelation(q)
		if rerr != nil {
			return eval.Null, rerr
		}
		if rel.kind != 'S' {
			return hasPrivilege(s.relationPrivileges(rel, role, anyColumn), want, wantGrantable, su), nil
		}
		if n, err = s.lookupSequence(q); err != nil {
			return eval.Null, err
		}
	} else {
		if r := catalogByOID(uint32(a[0].I)); r != nil {
			return hasPrivilege(s.relationPrivileges(r, role, anyColumn), want, wantGrantable, su), nil
		}
		if n, err = s.sequenceByOID(uint32(a[0].I)); err != nil {
			return eval.Null, err
		}
	}
	if su {
		return eval.Bool(true), nil
	}
	p, owns, err := s.sequencePrivilegesOwned(n, role)
	if err != nil {
		return eval.Null, err
	}
	var have tablePrivs
	if p&engine.PrivSelect != 0 {
		have |= tableSelect
	}
	if p&engine.PrivUpdate != 0 {
		have |= tableUpdate
	}
	return hasPrivilege(have, want, wantGrantable&(tableSelect|tableUpdate), owns), nil
}
