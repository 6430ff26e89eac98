// The catalog relations' privileges, as PostgreSQL 15 grants them: most
// are readable by PUBLIC, some by superusers only (pg_authid,
// pg_statistic, pg_file_settings ...), pg_settings is updatable by
// PUBLIC (SET through it).

package executor

import (
	"github.com/seqd/seqd/catalog"
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// publicACL is the ACL of a relation seqd adds (seqd_stat_sequences,
// ...): the owner's, and PUBLIC reads it.
const publicACL = "OWNER=arwdDxt/OWNER,=r/OWNER"

// tablePrivs are table privileges: a catalog relation's (a sequence
// holds SELECT and UPDATE of them).
type tablePrivs uint16

const (
	tableSelect tablePrivs = 1 << iota
	tableInsert
	tableUpdate
	tableDelete
	tableTruncate
	tableReferences
	tableTrigger
)

// tableLetters are their letters in aclitem's text.
var tableLetters = map[byte]tablePrivs{'r': tableSelect, 'a': tableInsert, 'w': tableUpdate, 'd': tableDelete,
	'D': tableTruncate, 'x': tableReferences, 't': tableTrigger}

// tablePrivNames are has_table_privilege's privilege names.
var tablePrivNames = map[string]tablePrivs{"select": tableSelect, "insert": tableInsert, "update": tableUpdate,
	"delete": tableDelete, "truncate": tableTruncate, "references": tableReferences, "trigger": tableTrigger}

// publicPrivs are the privileges r's ACL grants PUBLIC.
func (r *relation) publicPrivs() tablePrivs {
	var p tablePrivs
	for _, item := range strings.Split(r.acl, ",") {
		if rest, ok := strings.CutPrefix(item, "="); ok {
			letters, _, _ := strings.Cut(rest, "/")
			for i := 0; i < len(letters); i++ {
				p |= tableLetters[letters[i]]
			}
		}
	}
	return p
}

// catalogACL is r's relacl: its ACL with the bootstrap superuser as
// owner, NULL where PostgreSQL's is.
func (s *Session) catalogACL(r *relation) eval.Datum {
	if r.acl == "" {
		return eval.Null
	}
	owner := catalog.ACLName(s.roleName(superuserOID))
	var items []eval.Datum
	for _, item := range strings.Split(r.acl, ",") {
		items = append(items, eval.Text(strings.ReplaceAll(item, "OWNER", owner)))
	}
	return eval.Array(items...)
}

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

// tablesRows are information_schema.tables' rows: the catalog's tables
// and views the current user holds any privilege on (seqd has no other
// tables; sequences are not listed there, as in PostgreSQL).
func (s *Session) tablesRows() ([][]eval.Datum, error) {
	catalogOnce.Do(registerCatalog)
	var out [][]eval.Datum
	for _, r := range catalogOrder {
		if s.relationPrivileges(r, s.cfg.User, true) == 0 {
			continue
		}
		typ, insertable := "BASE TABLE", "NO"
		if r.kind == 'v' {
			typ = "VIEW"
		}
		if r.insertable {
			insertable = "YES"
		}
		out = append(out, []eval.Datum{eval.Text(s.cfg.Database), eval.Text(r.schema), eval.Text(r.name), eval.Text(typ),
			eval.Null, eval.Null, eval.Null, eval.Null, eval.Null, eval.Text(insertable), eval.Text("NO"), eval.Null})
	}
	return out, nil
}
