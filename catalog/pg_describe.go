package catalog

import (
	"github.com/seqd/seqd/eval"
)

// Settings, access methods, comments, dependencies and columns:
// pg_settings, pg_am, pg_description, pg_depend, pg_attribute.

func (c *Catalog) describingViews() []*View {
	return []*View{
		{OID: 12104, Schema: "pg_catalog", Name: "pg_settings", Kind: 'v',
			Columns: eval.Columns("name", eval.TText, "setting", eval.TText, "unit", eval.TText, "category", eval.TText, "short_desc", eval.TText, "extra_desc", eval.TText,
				"context", eval.TText, "vartype", eval.TText, "source", eval.TText, "min_val", eval.TText, "max_val", eval.TText, "enumvals", eval.TTextArr,
				"boot_val", eval.TText, "reset_val", eval.TText, "sourcefile", eval.TText, "sourceline", eval.TInt4, "pending_restart", eval.TBool),
			Rows: pgSettingsRows},
		{OID: 2601, Schema: "pg_catalog", Name: "pg_am", Kind: 'r', Columns: eval.Columns("oid", eval.TOid, "amname", eval.TName, "amhandler", eval.TRegproc, "amtype", eval.TChar),
			Rows: func(Source) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, am := range []struct {
					oid           int64
					name, handler string
					typ           string
				}{{2, "heap", "heap_tableam_handler", "t"}, {403, "btree", "bthandler", "i"}, {405, "hash", "hashhandler", "i"},
					{783, "gist", "gisthandler", "i"}, {2742, "gin", "ginhandler", "i"}, {4000, "spgist", "spghandler", "i"}, {3580, "brin", "brinhandler", "i"}} {
					out = append(out, []eval.Datum{eval.Int(am.oid), eval.Text(am.name), {Kind: eval.KInt, I: 1, S: am.handler}, eval.Text(am.typ)})
				}
				return out, nil
			}},
		{OID: 2609, Schema: "pg_catalog", Name: "pg_description", Kind: 'r',
			Columns: eval.Columns("objoid", eval.TOid, "classoid", eval.TOid, "objsubid", eval.TInt4, "description", eval.TText),
			Rows: func(src Source) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				seqs, err := src.SequenceComments()
				if err != nil {
					return nil, err
				}
				for _, c := range seqs {
					out = append(out, []eval.Datum{eval.Int(int64(c.OID)), eval.Int(PgClassOID), eval.Int(0), c.Text})
				}
				for _, c := range src.SchemaComments() {
					out = append(out, []eval.Datum{eval.Int(int64(c.OID)), eval.Int(PgNamespaceOID), eval.Int(0), c.Text})
				}
				return out, nil
			}},
		{OID: 2608, Schema: "pg_catalog", Name: "pg_depend", Kind: 'r',
			Columns: eval.Columns("classid", eval.TOid, "objid", eval.TOid, "objsubid", eval.TInt4, "refclassid", eval.TOid, "refobjid", eval.TOid, "refobjsubid", eval.TInt4, "deptype", eval.TChar),
			// By objid: a sequence's dependency on its schema.
			PerSequence: &PerSequence{Row: one(dependRow), NameCol: -1, OIDCol: 1}},
		{OID: 1249, Schema: "pg_catalog", Name: "pg_attribute", Kind: 'r',
			Columns: eval.Columns("attrelid", eval.TOid, "attname", eval.TName, "atttypid", eval.TOid, "attstattarget", eval.TInt4, "attlen", eval.TInt2, "attnum", eval.TInt2,
				"attndims", eval.TInt4, "attcacheoff", eval.TInt4, "atttypmod", eval.TInt4, "attbyval", eval.TBool, "attalign", eval.TChar, "attstorage", eval.TChar, "attcompression", eval.TChar,
				"attnotnull", eval.TBool, "atthasdef", eval.TBool, "atthasmissing", eval.TBool, "attidentity", eval.TChar, "attgenerated", eval.TChar,
				"attisdropped", eval.TBool, "attislocal", eval.TBool, "attinhcount", eval.TInt4, "attcollation", eval.TOid, "attacl", eval.TAclArr,
				"attoptions", eval.TTextArr, "attfdwoptions", eval.TTextArr, "attmissingval", eval.TypeByOID(2277)),
			// By attrelid: a sequence's, or a catalog relation's.
			PerSequence: &PerSequence{Row: func(_ Source, i Sequence) [][]eval.Datum { return sequenceAttributes(i) }, NameCol: -1, OIDCol: 0,
				Before: func(Source) [][]eval.Datum { return c.Attributes() },
				Fixed: func(_ Source, _ int, v eval.Datum, _ bool) [][]eval.Datum {
					var out [][]eval.Datum
					if oid, ok := OIDOf(v); ok && c.ByOID(oid) != nil {
						for _, row := range c.attributes {
							if uint32(row[0].I) == oid {
								out = append(out, row)
							}
						}
					}
					return out
				}}},
	}
}

// pgSettingsRows are pg_settings' rows: seqd's account of each setting,
// PostgreSQL's where it has the parameter.
func pgSettingsRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, st := range src.Settings() {
		ctx := "user"
		if st.Fixed {
			ctx = "internal"
		}
		row := []eval.Datum{eval.Text(st.Name), eval.Text(st.Value), eval.Null, eval.Text("seqd"), eval.Text(st.Desc), eval.Null,
			eval.Text(ctx), eval.Text("string"), eval.Text("default"), eval.Null, eval.Null, eval.Null, eval.Text(st.Boot), eval.Text(st.Reset), eval.Null, eval.Null, eval.Bool(false)}
		if p := st.PG; p != nil {
			row[2], row[6], row[7], row[9], row[10], row[12] = textOrNull(p.Unit), eval.Text(p.Context), eval.Text(p.Vartype), textOrNull(p.Min), textOrNull(p.Max), eval.Text(p.Boot)
			if p.Enumvals != nil {
				row[11] = textArray(p.Enumvals)
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// textOrNull is s, NULL for "".
func textOrNull(s string) eval.Datum {
	if s == "" {
		return eval.Null
	}
	return eval.Text(s)
}

// textArray is ss as a text[].
func textArray(ss []string) eval.Datum {
	out := make([]eval.Datum, len(ss))
	for i, s := range ss {
		out[i] = eval.Text(s)
	}
	return eval.Array(out...)
}

// dependRow is a sequence's pg_depend row: on its schema.
func dependRow(_ Source, i Sequence) []eval.Datum {
	return []eval.Datum{eval.Int(PgClassOID), eval.Int(int64(i.OID)), eval.Int(0), eval.Int(PgNamespaceOID), eval.Int(int64(i.Namespace)), eval.Int(0), eval.Text("n")}
}

// SequenceColumns are the columns of a sequence relation.
var SequenceColumns = eval.Columns("last_value", eval.TInt8, "log_cnt", eval.TInt8, "is_called", eval.TBool)

// systemColumns are a table's or sequence's system columns, as
// pg_attribute lists them (negative attnum, in PostgreSQL's order).
var systemColumns = []struct {
	name string
	typ  uint32
	num  int64
}{{"tableoid", eval.OIDOid, -6}, {"cmax", 29, -5}, {"xmax", 28, -4}, {"cmin", 29, -3}, {"xmin", 28, -2}, {"ctid", 27, -1}}

// SystemAttributes are relation rel's system columns' pg_attribute rows.
func SystemAttributes(rel uint32) [][]eval.Datum {
	out := make([][]eval.Datum, 0, len(systemColumns))
	for _, c := range systemColumns {
		t := eval.TypeByOID(c.typ)
		out = append(out, []eval.Datum{eval.Int(int64(rel)), eval.Text(c.name), eval.Int(int64(c.typ)), eval.Int(0), eval.Int(int64(t.Len())),
			eval.Int(c.num), eval.Int(0), eval.Int(-1), eval.Int(-1), eval.Bool(t.ByVal()), eval.Text(string(t.Align())), eval.Text("p"),
			eval.Text(""), eval.Bool(true), eval.Bool(false), eval.Bool(false), eval.Text(""), eval.Text(""), eval.Bool(false), eval.Bool(true), eval.Int(0),
			eval.Int(0), eval.Null, eval.Null, eval.Null, eval.Null})
	}
	return out
}

// sequenceAttributes are sequence i's pg_attribute rows: its system
// columns and its three.
func sequenceAttributes(i Sequence) [][]eval.Datum {
	out := SystemAttributes(i.OID)
	for k, c := range SequenceColumns {
		out = append(out, []eval.Datum{eval.Int(int64(i.OID)), eval.Text(c.Name), eval.Int(int64(c.Type.OID())), eval.Int(-1), eval.Int(int64(c.Type.Len())),
			eval.Int(int64(k + 1)), eval.Int(0), eval.Int(-1), eval.Int(-1), eval.Bool(c.Type.ByVal()), eval.Text(string(c.Type.Align())), eval.Text("p"), eval.Text(""), eval.Bool(true), eval.Bool(false),
			eval.Bool(false), eval.Text(""), eval.Text(""), eval.Bool(false), eval.Bool(true), eval.Int(0), eval.Int(0), eval.Null, eval.Null, eval.Null, eval.Null})
	}
	return out
}
