package catalog

import (
	"strconv"
	"strings"

	"github.com/seqd/seqd/eval"
)

// information_schema's relations of table and column grants and of
// columns, as PostgreSQL 15 defines them over its catalog:
// table_privileges, role_table_grants, column_privileges,
// role_column_grants and columns. seqd's tables and views are its
// catalog's (sequences are not listed there, as in PostgreSQL), owned by
// the bootstrap superuser with their ACLs.

// tablePrivOrder is aclexplode's order of table privileges, with their
// names.
var tablePrivOrder = []struct {
	p    TablePrivs
	name string
}{{TableInsert, "INSERT"}, {TableSelect, "SELECT"}, {TableUpdate, "UPDATE"}, {TableDelete, "DELETE"},
	{TableTruncate, "TRUNCATE"}, {TableReferences, "REFERENCES"}, {TableTrigger, "TRIGGER"}}

// columnPrivs are the table privileges that hold for each column.
const columnPrivs = TableInsert | TableSelect | TableUpdate | TableReferences

// aclGrant is one item of a catalog relation's ACL: its grantee ("" for
// PUBLIC) and privileges; the grantor is always its owner.
type aclGrant struct {
	grantee string
	privs   TablePrivs
}

// grants are v's ACL items with owner as the owner's name; a NULL
// relacl is the owner's every privilege (acldefault).
func (v *View) grants(owner string) []aclGrant {
	if v.ACL == "" {
		return []aclGrant{{owner, TableTrigger<<1 - 1}} // all seven
	}
	var out []aclGrant
	for _, item := range strings.Split(v.ACL, ",") {
		who, rest, _ := strings.Cut(item, "=")
		letters, _, _ := strings.Cut(rest, "/")
		if who == "OWNER" {
			who = owner
		}
		out = append(out, aclGrant{who, TablePrivsOf(letters)})
	}
	return out
}

// grantVisible is information_schema's rule for a grant: the current
// role holds its grantor's or its grantee's privileges, or it is to
// PUBLIC.
func grantVisible(src Source, grantor, grantee string) bool {
	return grantee == "" || src.HasPrivsOfRole(grantor) || src.HasPrivsOfRole(grantee)
}

func granteeName(g string) eval.Datum {
	if g == "" {
		return eval.Text("PUBLIC")
	}
	return eval.Text(g)
}

// tablePrivilegesRows are table_privileges' rows: each catalog table's
// and view's grants the current role may see, a row per privilege.
func (c *Catalog) tablePrivilegesRows(src Source) ([][]eval.Datum, error) {
	owner := src.BootstrapUser()
	db := eval.Text(src.Database())
	var out [][]eval.Datum
	for _, v := range c.order {
		for _, g := range v.grants(owner) {
			if !grantVisible(src, owner, g.grantee) {
				continue
			}
			grantee, grantable := granteeName(g.grantee), YesNo(g.grantee != "" && src.IsMemberOf(g.grantee, owner))
			for _, p := range tablePrivOrder {
				if g.privs&p.p != 0 {
					out = append(out, []eval.Datum{eval.Text(owner), grantee, db, eval.Text(v.Schema), eval.Text(v.Name),
						eval.Text(p.name), grantable, YesNo(p.p == TableSelect)})
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
func (c *Catalog) columnPrivilegesRows(src Source) ([][]eval.Datum, error) {
	owner := src.BootstrapUser()
	db := eval.Text(src.Database())
	var out [][]eval.Datum
	for _, v := range c.order {
		grants := v.grants(owner)
		for _, col := range v.Columns {
			gs := grants
			if v.PublicColumns && col.Name != "subconninfo" {
				gs = append(gs[:len(gs):len(gs)], aclGrant{"", TableSelect})
			}
			for _, g := range gs {
				if g.privs&columnPrivs == 0 || !grantVisible(src, owner, g.grantee) {
					continue
				}
				grantee, grantable := granteeName(g.grantee), YesNo(g.grantee != "" && src.IsMemberOf(g.grantee, owner))
				for _, p := range tablePrivOrder {
					if g.privs&columnPrivs&p.p != 0 {
						out = append(out, []eval.Datum{eval.Text(owner), grantee, db, eval.Text(v.Schema), eval.Text(v.Name),
							eval.Text(col.Name), eval.Text(p.name), grantable})
					}
				}
			}
		}
	}
	return out, nil
}

// columnsRows are information_schema.columns' rows: the columns of the
// catalog's tables and views that the current role holds a privilege on
// (or owns), described as PostgreSQL describes them (ColumnKinds).
func (c *Catalog) columnsRows(src Source) ([][]eval.Datum, error) {
	owns := src.HasPrivsOfRole(src.BootstrapUser())
	db := eval.Text(src.Database())
	var out [][]eval.Datum
	for _, v := range c.order {
		p := v.PublicPrivs()
		if src.Superuser() {
			p = ^TablePrivs(0)
		}
		for i, col := range v.Columns {
			if !owns && p&columnPrivs == 0 && (!v.PublicColumns || col.Name == "subconninfo") {
				continue
			}
			_, k := c.Column(v, i)
			out = append(out, columnRow(db, v, i, k))
		}
	}
	return out, nil
}

// columnRow is information_schema.columns' row of view v's column i, of
// kind k, in database db.
func columnRow(db eval.Datum, v *View, i int, k ColumnKind) []eval.Datum {
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
	collSchema := ""
	if k.Collation != "" {
		collSchema = "pg_catalog"
	}
	return []eval.Datum{db, eval.Text(v.Schema), eval.Text(v.Name), eval.Text(v.Columns[i].Name), eval.Int(int64(i + 1)), eval.Null,
		YesNo(k.Nullable), eval.Text(k.DataType), num(k.CharMax), num(k.OctetMax), num(k.NumPrecision), num(k.NumRadix), num(k.NumScale),
		num(k.DTPrecision), text(k.IntervalType), num(k.IntervalPrecision), eval.Null, eval.Null, eval.Null,
		orDB(k.Collation), text(collSchema), text(k.Collation), orDB(k.DomainName), text(k.DomainSchema), text(k.DomainName),
		db, eval.Text(k.UDTSchema), eval.Text(k.UDTName), eval.Null, eval.Null, eval.Null, eval.Null, eval.Text(strconv.Itoa(i + 1)),
		eval.Text("NO"), eval.Text("NO"), eval.Null, eval.Null, eval.Null, eval.Null, eval.Null, eval.Text("NO"),
		eval.Text("NEVER"), eval.Null, YesNo(k.Updatable)}
}
