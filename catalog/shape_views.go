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
	rows, perSequence := c.shapeRows(), shapeSequenceRows()
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
			Insertable: sh.Insertable}
		setShapeRows(v, rows, perSequence)
		c.Add(v)
	}
}

// setShapeRows gives shape relation v its rows: the views' of what seqd
// has (shapeRows, shapeSequenceRows), PostgreSQL's built-in rows the
// evaluator has (Builtins), none for the others.
func setShapeRows(v *View, rows map[string]func(Source) ([][]eval.Datum, error), perSequence map[string]*PerSequence) {
	name := v.Schema + "." + v.Name
	_, builtin := BuiltinRows[v.Name]
	switch {
	case rows[name] != nil:
		v.Rows = rows[name]
	case perSequence[name] != nil:
		v.PerSequence = perSequence[name]
	case name == "information_schema.routines":
		v.Rows = routinesRows(v.Columns)
	case name == "information_schema.parameters":
		v.Rows = parametersRows(v.Columns)
	case builtin && v.Schema == "pg_catalog":
		v.Rows = builtinRows(v.Name, v.Columns)
	default:
		v.Rows = func(Source) ([][]eval.Datum, error) { return nil, nil }
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
		"pg_catalog.pg_stat_activity":                              activityRows,
		"pg_catalog.pg_stat_gssapi":                                gssapiRows,
		"pg_catalog.pg_stat_ssl":                                   sslRows,
		"pg_catalog.pg_stat_database":                              statDatabaseRows,
		"pg_catalog.pg_stat_database_conflicts":                    statConflictsRows,
		"pg_catalog.pg_prepared_statements":                        preparedRows,
		"pg_catalog.pg_cursors":                                    cursorRows,
		"pg_catalog.pg_locks":                                      locksRows,
		"pg_catalog.pg_shdepend":                                   shdependRows,
		"information_schema.enabled_roles":                         enabledRolesRows,
		"information_schema.applicable_roles":                      applicableRolesRows,
		"information_schema.administrable_role_authorizations":     administrableRolesRows,
		"information_schema.usage_privileges":                      usagePrivilegesRows,
		"information_schema.role_usage_grants":                     byEnabledRoles(usagePrivilegesRows),
		"information_schema.table_privileges":                      c.tablePrivilegesRows,
		"information_schema.role_table_grants":                     byEnabledRoles(c.tablePrivilegesRows),
		"information_schema.column_privileges":                     c.columnPrivilegesRows,
		"information_schema.role_column_grants":                    byEnabledRoles(c.columnPrivilegesRows),
		"information_schema.columns":                               c.columnsRows,
		"information_schema.routine_privileges":                    routinePrivilegesRows,
		"information_schema.role_routine_grants":                   byEnabledRoles(routinePrivilegesRows),
	}
}

// shapeSequenceRows are the shapes' relations with rows per sequence.
func shapeSequenceRows() map[string]*PerSequence {
	return map[string]*PerSequence{
		"pg_catalog.pg_statio_all_sequences":  statioSequences("all"),
		"pg_catalog.pg_statio_sys_sequences":  statioSequences("sys"),
		"pg_catalog.pg_statio_user_sequences": statioSequences("user"),
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
