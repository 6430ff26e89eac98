// information_schema's relations of table and column grants and of
// columns, as PostgreSQL 15 defines them over its catalog:
// table_privileges, role_table_grants, column_privileges,
// role_column_grants and columns. seqd's
// tables and views are its catalog's (sequences are not listed there, as
// in PostgreSQL), owned by the bootstrap superuser with their ACLs.

package executor

import (
	"strconv"
	"strings"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/eval"
)

// tablePrivOrder is aclexplode's order of table privileges, with their
// names.
var tablePrivOrder = []struct {
	p    tablePrivs
	name string
}{{tableInsert, "INSERT"}, {tableSelect, "SELECT"}, {tableUpdate, "UPDATE"}, {tableDelete, "DELETE"},
	{tableTruncate, "TRUNCATE"}, {tableReferences, "REFERENCES"}, {tableTrigger, "TRIGGER"}}

// aclGrant is one item of a catalog relation's ACL: its grantee ("" for
// PUBLIC) and privileges; the grantor is always its owner.
type aclGrant struct {
	grantee string
	privs   tablePrivs
}

// grants are r's ACL items with owner as the owner's name; a NULL
// relacl is the owner's every privilege (acldefault).
func (r *relation) grants(owner string) []aclGrant {
	if r.acl == "" {
		return []aclGrant{{owner, tableTrigger<<1 - 1}} // all seven
	}
	var out []aclGrant
	for _, item := range strings.Split(r.acl, ",") {
		who, rest, _ := strings.Cut(item, "=")
		letters, _, _ := strings.Cut(rest, "/")
		if who == "OWNER" {
			who = owner
		}
		out = append(out, aclGrant{who, catalog.TablePrivsOf(letters)})
	}
	return out
}

// grantVisible is information_schema's rule for a grant: the current
// user holds its grantor's or its grantee's privileges, or it is to
// PUBLIC.
func (s *Session) grantVisible(grantor, grantee string) bool {
	return grantee == "" || s.hasPrivsOfRole(grantor) || s.hasPrivsOfRole(grantee)
}

// tablePrivilegesRows are table_privileges' rows: each catalog table's
// and view's grants the current user may see, a row per privilege.
func (s *Session) tablePrivilegesRows() ([][]eval.Datum, error) {
	catalogOnce.Do(registerCatalog)
	owner := s.bootstrapUser()
	db := eval.Text(s.cfg.Database)
	var out [][]eval.Datum
	for _, r := range catalogOrder {
		for _, g := range r.grants(owner) {
			if !s.grantVisible(owner, g.grantee) {
				continue
			}
			grantee, grantable := granteeName(g.grantee), catalog.YesNo(g.grantee != "" && s.isMemberOf(g.grantee, owner))
			for _, p := range tablePrivOrder {
				if g.privs&p.p != 0 {
					out = append(out, []eval.Datum{eval.Text(owner), grantee, db, eval.Text(r.schema), eval.Text(r.name),
						eval.Text(p.name), grantable, catalog.YesNo(p.p == tableSelect)})
				}
			}
		}
	}
	return out, nil
}

// columnPrivilegesRows are column_privileges' rows: a relation's grants
// of INSERT, SELECT, UPDATE and REFERENCES hold for each of its columns,
// and a column's own grants (pg_subscription's to PUBLIC, but for
// subconninfo) are listed beside them.
func (s *Session) columnPrivilegesRows() ([][]eval.Datum, error) {
	catalogOnce.Do(registerCatalog)
	owner := s.bootstrapUser()
	db := eval.Text(s.cfg.Database)
	const columnPrivs = tableInsert | tableSelect | tableUpdate | tableReferences
	var out [][]eval.Datum
	for _, r := range catalogOrder {
		grants := r.grants(owner)
		for _, c := range r.cols {
			gs := grants
			if r.publicColumns && c.Name != "subconninfo" {
				gs = append(gs[:len(gs):len(gs)], aclGrant{"", tableSelect})
			}
			for _, g := range gs {
				if g.privs&columnPrivs == 0 || !s.grantVisible(owner, g.grantee) {
					continue
				}
				grantee, grantable := granteeName(g.grantee), catalog.YesNo(g.grantee != "" && s.isMemberOf(g.grantee, owner))
				for _, p := range tablePrivOrder {
					if g.privs&columnPrivs&p.p != 0 {
						out = append(out, []eval.Datum{eval.Text(owner), grantee, db, eval.Text(r.schema), eval.Text(r.name),
							eval.Text(c.Name), eval.Text(p.name), grantable})
					}
				}
			}
		}
	}
	return out, nil
}

// roleTableGrantsRows are table_privileges' rows granted by or to an
// enabled role.
func (s *Session) roleTableGrantsRows() ([][]eval.Datum, error) {
	return s.byEnabledRoles(s.tablePrivilegesRows())
}

// roleColumnGrantsRows are column_privileges' rows granted by or to an
// enabled role.
func (s *Session) roleColumnGrantsRows() ([][]eval.Datum, error) {
	return s.byEnabledRoles(s.columnPrivilegesRows())
}

// byEnabledRoles keeps the rows whose grantor or grantee (their first two
// columns) is an enabled role.
func (s *Session) byEnabledRoles(rows [][]eval.Datum, err error) ([][]eval.Datum, error) {
	out := rows[:0]
	for _, r := range rows {
		if s.isEnabledRole(r[0].S) || s.isEnabledRole(r[1].S) {
			out = append(out, r)
		}
	}
	return out, err
}

func granteeName(g string) eval.Datum {
	if g == "" {
		return eval.Text("PUBLIC")
	}
	return eval.Text(g)
}

// columnsRows are information_schema.columns' rows: the columns of the
// catalog's tables and views that the current user holds a privilege on
// (or owns), described as PostgreSQL describes them (catalog.ColumnKinds).
func (s *Session) columnsRows() ([][]eval.Datum, error) {
	catalogOnce.Do(registerCatalog)
	owner := s.bootstrapUser()
	owns := s.hasPrivsOfRole(owner)
	db := eval.Text(s.cfg.Database)
	text := func(v string) eval.Datum {
		if v == "" {
			return eval.Null
		}
		return eval.Text(v)
	}
	num := func(v int32) eval.Datum {
		if v < 0 {
			return eval.Null
		}
		return eval.Int(int64(v))
	}
	orDB := func(v string) eval.Datum { // the catalog of a named object
		if v == "" {
			return eval.Null
		}
		return db
	}
	const columnPrivs = tableInsert | tableSelect | tableUpdate | tableReferences
	var out [][]eval.Datum
	for _, r := range catalogOrder {
		p := s.catalogPrivileges(r, s.cfg.User)
		for i, c := range r.cols {
			if !owns && p&columnPrivs == 0 && (!r.publicColumns || c.Name == "subconninfo") {
				continue
			}
			_, k := catalogViews.Column(r.view, i)
			collSchema := ""
			if k.Collation != "" {
				collSchema = "pg_catalog"
			}
			out = append(out, []eval.Datum{db, eval.Text(r.schema), eval.Text(r.name), eval.Text(c.Name), eval.Int(int64(i + 1)), eval.Null,
				catalog.YesNo(k.Nullable), eval.Text(k.DataType), num(k.CharMax), num(k.OctetMax), num(k.NumPrecision), num(k.NumRadix), num(k.NumScale),
				num(k.DTPrecision), text(k.IntervalType), num(k.IntervalPrecision), eval.Null, eval.Null, eval.Null,
				orDB(k.Collation), text(collSchema), text(k.Collation), orDB(k.DomainName), text(k.DomainSchema), text(k.DomainName),
				db, eval.Text(k.UDTSchema), eval.Text(k.UDTName), eval.Null, eval.Null, eval.Null, eval.Null, eval.Text(strconv.Itoa(i + 1)),
				eval.Text("NO"), eval.Text("NO"), eval.Null, eval.Null, eval.Null, eval.Null, eval.Null, eval.Text("NO"),
				eval.Text("NEVER"), eval.Null, catalog.YesNo(k.Updatable)})
		}
	}
	return out, nil
}
