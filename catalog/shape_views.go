package catalog

import (
	"strings"

	"github.com/seqd/seqd/eval"
)

// PostgreSQL's relations this package defines by their shapes: their
// columns and their place in pg_class are the shape's, their rows
// shapeRows' (none for the relations seqd has nothing in).

// PublicACL is the ACL of a relation seqd adds (seqd_stat_sequences,
// ...): the owner's, and PUBLIC reads it.
const PublicACL = "OWNER=arwdDxt/OWNER,=r/OWNER"

// addShapes adds the shapes' relations the table has not, and gives
// those it has their shape's ACL.
func (c *Catalog) addShapes() {
	rows := c.shapeRows()
	c.shapes = map[uint32]*Shape{}
	for i := range Shapes {
		c.shapes[Shapes[i].OID] = &Shapes[i]
	}
	for _, sh := range Shapes {
		if v := c.Lookup(sh.Schema, sh.Name); v != nil {
			v.ACL, v.PublicColumns, v.Insertable = sh.ACL, sh.PublicColumns, sh.Insertable
			continue
		}
		cols := make([]eval.RelColumn, len(sh.Columns))
		for i, col := range sh.Columns {
			cols[i] = eval.RelColumn{Name: col.Name, Type: eval.TypeByOID(col.Type)}
		}
		v := &View{OID: sh.OID, Schema: sh.Schema, Name: sh.Name, Kind: sh.Kind, Columns: cols, ACL: sh.ACL, PublicColumns: sh.PublicColumns,
			Insertable: sh.Insertable, Rows: rows[sh.Schema+"."+sh.Name]}
		if v.Rows == nil {
			v.Rows = func(Source) ([][]eval.Datum, error) { return nil, nil }
		}
		c.Add(v)
	}
}

// shapeRows are the rows of the shapes' relations seqd has rows in, by
// "schema.name".
func (c *Catalog) shapeRows() map[string]func(Source) ([][]eval.Datum, error) {
	return map[string]func(Source) ([][]eval.Datum, error){
		"information_schema.tables":                                c.tablesRows,
		"information_schema.views":                                 c.infoViewsRows,
		"pg_catalog.pg_views":                                      c.pgViewsRows,
		"information_schema.sql_implementation_info":               implementationInfoRows,
		"information_schema.character_sets":                        characterSetsRows,
		"information_schema.collations":                            collationsRows,
		"information_schema.collation_character_set_applicability": collationApplicabilityRows,
		"pg_catalog.pg_timezone_names":                             timezoneNamesRows,
		"pg_catalog.pg_group":                                      groupRows,
	}
}

// TablePrivs are table privileges: a catalog relation's.
type TablePrivs uint16

const (
	TableSelect TablePrivs = 1 << iota
	TableInsert
	TableUpdate
	TableDelete
	TableTruncate
	TableReferences
	TableTrigger
)

// tableLetters are their letters in aclitem's text.
var tableLetters = map[byte]TablePrivs{'r': TableSelect, 'a': TableInsert, 'w': TableUpdate, 'd': TableDelete,
	'D': TableTruncate, 'x': TableReferences, 't': TableTrigger}

// PublicPrivs are the privileges v's ACL grants PUBLIC.
func (v *View) PublicPrivs() TablePrivs { return PublicPrivsIn(v.ACL) }

// PublicPrivsIn are the privileges an ACL's text (aclitems, comma
// separated) grants PUBLIC.
func PublicPrivsIn(acl string) TablePrivs {
	var p TablePrivs
	for _, item := range strings.Split(acl, ",") {
		if rest, ok := strings.CutPrefix(item, "="); ok {
			letters, _, _ := strings.Cut(rest, "/")
			p |= TablePrivsOf(letters)
		}
	}
	return p
}

// TablePrivsOf are the privileges an aclitem's letters name.
func TablePrivsOf(letters string) TablePrivs {
	var p TablePrivs
	for i := 0; i < len(letters); i++ {
		p |= tableLetters[letters[i]]
	}
	return p
}

// currentPrivileges are the current role's privileges on v: all for a
// superuser (its owner), else PUBLIC's, with SELECT where PUBLIC may
// read some of its columns.
func currentPrivileges(src Source, v *View) TablePrivs {
	if src.Superuser() {
		return ^TablePrivs(0)
	}
	p := v.PublicPrivs()
	if v.PublicColumns {
		p |= TableSelect
	}
	return p
}

// RelationACL is v's relacl: its ACL with the bootstrap superuser as
// owner, NULL where PostgreSQL's is.
func RelationACL(src Source, v *View) eval.Datum {
	if v.ACL == "" {
		return eval.Null
	}
	owner := ACLName(src.RoleName(SuperuserOID))
	var items []eval.Datum
	for _, item := range strings.Split(v.ACL, ",") {
		items = append(items, eval.Text(strings.ReplaceAll(item, "OWNER", owner)))
	}
	return eval.Array(items...)
}
