package executor

import (
	"github.com/seqd/seqd/catalog"
	"slices"
	"sync"

	"github.com/seqd/seqd/eval"
)

// PostgreSQL 15's catalog relations beyond those seqd builds itself, from
// their shapes (catalog.Shapes), and the catalog's own columns as
// pg_attribute lists them.

// sessionRows are the rows the session makes of the shapes' relations
// the catalog has no rows for yet: PostgreSQL's built-in rows the
// evaluator accepts, and the views that read the session's own state;
// nil for the others.
func sessionRows(v *catalog.View) func(*Session) ([][]eval.Datum, error) {
	if r := shapeRows(v.Schema + "." + v.Name); r != nil {
		return r
	}
	if _, ok := catalog.BuiltinRows[v.Name]; ok && v.Schema == "pg_catalog" {
		return func(s *Session) ([][]eval.Datum, error) { return s.builtinRows(v.Name, v.Columns) }
	}
	return nil
}

// shapeRows are the rows of the relations whose columns are the
// generated shape's, for those the session still populates (nil for the
// others).
func shapeRows(name string) func(*Session) ([][]eval.Datum, error) {
	switch name {
	case "pg_catalog.pg_stat_activity":
		return (*Session).activityRows
	case "pg_catalog.pg_prepared_statements":
		return (*Session).preparedRows
	case "pg_catalog.pg_cursors":
		return (*Session).cursorRows
	case "information_schema.enabled_roles":
		return (*Session).enabledRolesRows
	case "information_schema.applicable_roles":
		return (*Session).applicableRolesRows
	case "information_schema.administrable_role_authorizations":
		return (*Session).administrableRolesRows
	case "information_schema.usage_privileges":
		return (*Session).usagePrivilegesRows
	case "information_schema.role_usage_grants":
		return (*Session).roleUsageGrantsRows
	case "information_schema.table_privileges":
		return (*Session).tablePrivilegesRows
	case "information_schema.role_table_grants":
		return (*Session).roleTableGrantsRows
	case "information_schema.column_privileges":
		return (*Session).columnPrivilegesRows
	case "information_schema.role_column_grants":
		return (*Session).roleColumnGrantsRows
	case "information_schema.columns":
		return (*Session).columnsRows
	case "pg_catalog.pg_statio_all_sequences":
		return statioRows("all")
	case "pg_catalog.pg_statio_sys_sequences":
		return statioRows("sys")
	case "pg_catalog.pg_statio_user_sequences":
		return statioRows("user")
	case "pg_catalog.pg_stat_database":
		return (*Session).statDatabaseRows
	case "pg_catalog.pg_stat_database_conflicts":
		return (*Session).statConflictsRows
	case "pg_catalog.pg_locks":
		return (*Session).locksRows
	case "pg_catalog.pg_shdepend":
		return (*Session).shdependRows
	case "information_schema.routines":
		return (*Session).routinesRows
	case "information_schema.parameters":
		return (*Session).parametersRows
	case "information_schema.routine_privileges":
		return (*Session).routinePrivilegesRows
	case "information_schema.role_routine_grants":
		return (*Session).roleRoutineGrantsRows
	case "pg_catalog.pg_stat_gssapi":
		return (*Session).gssapiRows
	case "pg_catalog.pg_stat_ssl":
		return (*Session).sslRows
	}
	return nil
}

// catalogAttributes are the catalog relations' columns as pg_attribute
// rows (made once: they never change).
func catalogAttributes() [][]eval.Datum {
	catalogAttrsOnce.Do(func() { catalogAttrs = makeCatalogAttributes() })
	return slices.Clip(catalogAttrs) // appending copies
}

var (
	catalogAttrsOnce sync.Once
	catalogAttrs     [][]eval.Datum
)

func makeCatalogAttributes() [][]eval.Datum {
	catalogOnce.Do(registerCatalog)
	var out [][]eval.Datum
	for _, r := range catalogOrder {
		if r.kind == 'r' {
			out = append(out, catalog.SystemAttributes(r.oid)...)
		}
		for k, c := range r.cols {
			coll, kind := r.column(k)
			storage := "p"
			if c.Type.Len() == -1 {
				storage = "x"
			}
			out = append(out, []eval.Datum{eval.Int(int64(r.oid)), eval.Text(c.Name), eval.Int(int64(c.Type.OID())), eval.Int(-1), eval.Int(int64(c.Type.Len())),
				eval.Int(int64(k + 1)), eval.Int(int64(kind.Ndims)), eval.Int(-1), eval.Int(int64(kind.Typmod)), eval.Bool(c.Type.ByVal()), eval.Text(string(c.Type.Align())), eval.Text(storage),
				eval.Text(""), eval.Bool(kind.NotNull), eval.Bool(false), eval.Bool(false), eval.Text(""), eval.Text(""), eval.Bool(false), eval.Bool(true), eval.Int(0),
				eval.Int(int64(coll)), eval.Null, eval.Null, eval.Null, eval.Null})
		}
	}
	return out
}

// column is the collation and kind of catalog relation r's column k:
// its shape's, where PostgreSQL has the column; else its type's, and a
// nullable column described by its type (a relation seqd adds).
func (r *relation) column(k int) (uint32, catalog.ColumnKind) {
	shapesOnce.Do(func() {
		shapesByOID = map[uint32]*catalog.Shape{}
		for i := range catalog.Shapes {
			shapesByOID[catalog.Shapes[i].OID] = &catalog.Shapes[i]
		}
	})
	c := r.cols[k]
	if sh := shapesByOID[r.oid]; sh != nil && k < len(sh.Columns) && sh.Columns[k].Name == c.Name {
		return sh.Columns[k].Collation, catalog.ColumnKinds[sh.Columns[k].Kind]
	}
	return c.Type.Collation(), typeKind(c.Type)
}

var (
	shapesOnce  sync.Once
	shapesByOID map[uint32]*catalog.Shape
)

// typeKind describes a column of type t as PostgreSQL's information_schema
// does one of a built-in type without typmod or NOT NULL: a relation seqd
// adds has such columns.
func typeKind(t *eval.Type) catalog.ColumnKind {
	k := catalog.ColumnKind{Typmod: -1, Nullable: true, DataType: t.SQLName(), CharMax: -1, OctetMax: -1, NumPrecision: -1, NumRadix: -1,
		NumScale: -1, DTPrecision: -1, IntervalPrecision: -1, UDTSchema: "pg_catalog", UDTName: t.Name(), Updatable: false}
	if t.IsArray() {
		k.DataType, k.Ndims = "ARRAY", 1
	}
	switch t.OID() {
	case eval.OIDInt2, eval.OIDInt4, eval.OIDInt8:
		k.NumPrecision, k.NumRadix, k.NumScale = int32(t.Len())*8, 2, 0
	case eval.OIDFloat4:
		k.NumPrecision, k.NumRadix = 24, 2
	case eval.OIDFloat8:
		k.NumPrecision, k.NumRadix = 53, 2
	case eval.OIDNumeric:
		k.NumRadix = 10
	case eval.OIDText, eval.OIDVarchar, eval.OIDBpchar:
		k.OctetMax = 1 << 30
	case eval.OIDTimestamptz:
		k.DTPrecision = 6
	}
	if t.OID() == eval.OIDName {
		k.Collation = "C"
	}
	return k
}
