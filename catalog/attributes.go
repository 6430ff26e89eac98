package catalog

import (
	"slices"

	"github.com/seqd/seqd/eval"
)

// The catalog relations' columns as pg_attribute lists them, and as
// information_schema.columns describes them (ColumnKind).

// Attributes are the catalog relations' columns as pg_attribute rows, in
// pg_class's order. The caller must not modify the rows; appending to
// the slice copies it.
func (c *Catalog) Attributes() [][]eval.Datum { return slices.Clip(c.attributes) }

// makeAttributes makes Attributes' rows. REQUIRES: the table is complete.
func (c *Catalog) makeAttributes() [][]eval.Datum {
	var out [][]eval.Datum
	for _, v := range c.order {
		if v.Kind == 'r' {
			out = append(out, SystemAttributes(v.OID)...)
		}
		for k, col := range v.Columns {
			coll, kind := c.Column(v, k)
			storage := "p"
			if col.Type.Len() == -1 {
				storage = "x"
			}
			out = append(out, []eval.Datum{eval.Int(int64(v.OID)), eval.Text(col.Name), eval.Int(int64(col.Type.OID())), eval.Int(-1), eval.Int(int64(col.Type.Len())),
				eval.Int(int64(k + 1)), eval.Int(int64(kind.Ndims)), eval.Int(-1), eval.Int(int64(kind.Typmod)), eval.Bool(col.Type.ByVal()), eval.Text(string(col.Type.Align())), eval.Text(storage),
				eval.Text(""), eval.Bool(kind.NotNull), eval.Bool(false), eval.Bool(false), eval.Text(""), eval.Text(""), eval.Bool(false), eval.Bool(true), eval.Int(0),
				eval.Int(int64(coll)), eval.Null, eval.Null, eval.Null, eval.Null})
		}
	}
	return out
}

// Column is the collation and kind of view v's column k: its shape's,
// where PostgreSQL has the column; else its type's, and a nullable
// column described by its type (a relation seqd adds).
func (c *Catalog) Column(v *View, k int) (uint32, ColumnKind) {
	col := v.Columns[k]
	if sh := c.shapes[v.OID]; sh != nil && k < len(sh.Columns) && sh.Columns[k].Name == col.Name {
		return sh.Columns[k].Collation, ColumnKinds[sh.Columns[k].Kind]
	}
	return col.Type.Collation(), typeKind(col.Type)
}

// typeKind describes a column of type t as PostgreSQL's information_schema
// does one of a built-in type without typmod or NOT NULL: a relation seqd
// adds has such columns.
func typeKind(t *eval.Type) ColumnKind {
	k := ColumnKind{Typmod: -1, Nullable: true, DataType: t.SQLName(), CharMax: -1, OctetMax: -1, NumPrecision: -1, NumRadix: -1,
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
