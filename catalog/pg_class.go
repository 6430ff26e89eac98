package catalog

import (
	"strconv"
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// The relations of sequences and types: pg_class, pg_namespace,
// pg_sequence, pg_sequences, pg_type.

// tXid is xid's type, of relfrozenxid and the like.
var tXid = eval.TypeByOID(28)

var classCols = eval.Columns("oid", eval.TOid, "relname", eval.TName, "relnamespace", eval.TOid, "reltype", eval.TOid, "reloftype", eval.TOid, "relowner", eval.TOid,
	"relam", eval.TOid, "relfilenode", eval.TOid, "reltablespace", eval.TOid, "relpages", eval.TInt4, "reltuples", eval.TypeByOID(eval.OIDFloat4),
	"relallvisible", eval.TInt4, "reltoastrelid", eval.TOid, "relhasindex", eval.TBool, "relisshared", eval.TBool, "relpersistence", eval.TChar,
	"relkind", eval.TChar, "relnatts", eval.TInt2, "relchecks", eval.TInt2, "relhasrules", eval.TBool, "relhastriggers", eval.TBool,
	"relhassubclass", eval.TBool, "relrowsecurity", eval.TBool, "relforcerowsecurity", eval.TBool, "relispopulated", eval.TBool,
	"relreplident", eval.TChar, "relispartition", eval.TBool, "relrewrite", eval.TOid, "relfrozenxid", tXid, "relminmxid", tXid, "relacl", eval.TAclArr, "reloptions", eval.TTextArr,
	"relpartbound", eval.TypeByOID(194))

var pgSequencesCols = eval.Columns("schemaname", eval.TName, "sequencename", eval.TName, "sequenceowner", eval.TName, "data_type", eval.TRegtype,
	"start_value", eval.TInt8, "min_value", eval.TInt8, "max_value", eval.TInt8, "increment_by", eval.TInt8, "cycle", eval.TBool,
	"cache_size", eval.TInt8, "last_value", eval.TInt8)

func (c *Catalog) classViews() []*View {
	return []*View{
		{OID: PgClassOID, Schema: "pg_catalog", Name: "pg_class", Kind: 'r', Columns: classCols, PerSequence: &PerSequence{
			Row: one(classRow), NameCol: 1, OIDCol: 0,
			After: c.relationClassRows,
			Fixed: func(src Source, col int, v eval.Datum, prefix bool) [][]eval.Datum {
				var out [][]eval.Datum
				for _, r := range c.order {
					if col == 1 && (r.Name == v.S || prefix && strings.HasPrefix(r.Name, v.S)) || col == 0 && oidMatches(r.OID, v) {
						out = append(out, relationClassRow(src, r))
					}
				}
				return out
			}}},
		{OID: PgNamespaceOID, Schema: "pg_catalog", Name: "pg_namespace", Kind: 'r',
			Columns: eval.Columns("oid", eval.TOid, "nspname", eval.TName, "nspowner", eval.TOid, "nspacl", eval.TAclArr),
			Rows: func(src Source) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, n := range src.Schemas() {
					out = append(out, []eval.Datum{eval.Int(int64(n.OID)), eval.Text(n.Name), eval.Int(n.Owner), n.ACL})
				}
				return out, nil
			}},
		{OID: 2224, Schema: "pg_catalog", Name: "pg_sequence", Kind: 'r',
			Columns: eval.Columns("seqrelid", eval.TOid, "seqtypid", eval.TOid, "seqstart", eval.TInt8, "seqincrement", eval.TInt8, "seqmax", eval.TInt8,
				"seqmin", eval.TInt8, "seqcache", eval.TInt8, "seqcycle", eval.TBool),
			PerSequence: &PerSequence{Row: one(func(_ Source, i Sequence) []eval.Datum { return pgSequenceRow(i) }), NameCol: -1, OIDCol: 0}},
		{OID: 12048, Schema: "pg_catalog", Name: "pg_sequences", Kind: 'v', Columns: pgSequencesCols,
			PerSequence: &PerSequence{Row: one(pgSequencesRow), Reserved: true, NameCol: 1, OIDCol: -1}},
		{OID: 1247, Schema: "pg_catalog", Name: "pg_type", Kind: 'r', Columns: eval.PgTypeColumns,
			Rows: typeRows},
	}
}

// one makes a view's rows of a sequence of its one row.
func one(row func(Source, Sequence) []eval.Datum) func(Source, Sequence) [][]eval.Datum {
	return func(src Source, i Sequence) [][]eval.Datum { return [][]eval.Datum{row(src, i)} }
}

// relationClassRows are the catalog relations' pg_class rows.
func (c *Catalog) relationClassRows(src Source) [][]eval.Datum {
	out := make([][]eval.Datum, 0, len(c.order))
	for _, r := range c.order {
		out = append(out, relationClassRow(src, r))
	}
	return out
}

// relationClassRow is a catalog relation's pg_class row.
func relationClassRow(src Source, r *View) []eval.Datum {
	return []eval.Datum{eval.Int(int64(r.OID)), eval.Text(r.Name), eval.Int(int64(src.SchemaOID(r.Schema))), eval.Int(0), eval.Int(0), eval.Int(SuperuserOID), eval.Int(0), eval.Int(0), eval.Int(0),
		eval.Int(0), eval.Float(-1), eval.Int(0), eval.Int(0), eval.Bool(false), eval.Bool(false), eval.Text("p"), eval.Text(string(r.Kind)), eval.Int(int64(len(r.Columns))), eval.Int(0),
		eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(true), eval.Text("n"), eval.Bool(false), eval.Int(0), eval.Int(0), eval.Int(0),
		RelationACL(src, r), eval.Null, eval.Null}
}

// classRow is a sequence's pg_class row.
func classRow(src Source, i Sequence) []eval.Datum {
	a, _ := src.SequenceACL(i.Name)
	owner := src.Owner(a)
	return []eval.Datum{eval.Int(int64(i.OID)), eval.Text(i.Name.Rel()), eval.Int(int64(i.Namespace)), eval.Int(0), eval.Int(0), eval.Int(src.RoleOID(owner)), eval.Int(0),
		eval.Int(int64(i.OID)), eval.Int(0), eval.Int(1), eval.Float(1), eval.Int(0), eval.Int(0), eval.Bool(false), eval.Bool(false), eval.Text(persistence(src, i)), eval.Text("S"),
		eval.Int(sequenceRelAttrs), eval.Int(0), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(true),
		eval.Text("n"), eval.Bool(false), eval.Int(0), eval.Int(0), eval.Int(0), ACLItems(a, owner, ACLSequence), eval.Null, eval.Null}
}

// persistence is relpersistence: p permanent, u unlogged, t temporary.
func persistence(src Source, i Sequence) string {
	switch {
	case src.Temporary(i.Name):
		return "t"
	case i.Unlogged:
		return "u"
	}
	return "p"
}

// pgSequencesRow is a sequence's pg_sequences row.
func pgSequencesRow(src Source, i Sequence) []eval.Datum {
	o := i.Options
	last := eval.Null
	// As PostgreSQL's view: last_value only with SELECT or USAGE.
	if p, err := src.SequencePrivileges(i.Name); i.State.Called && err == nil && p&(engine.PrivSelect|engine.PrivUsage) != 0 {
		last = eval.Int(o.Value(i.State.Last)) // a shaped sequence's value; the rest are its counter's
	}
	owner := src.BootstrapUser()
	if a, err := src.SequenceACL(i.Name); err == nil {
		owner = src.Owner(a)
	}
	t := eval.TypeByName(SQLTypeName(o.Type.String()))
	return []eval.Datum{eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), eval.Text(owner), t.Regtype(),
		eval.Int(o.Start), eval.Int(o.Min), eval.Int(o.Max), eval.Int(o.Increment), eval.Bool(o.Cycle), eval.Int(o.Cache), last}
}

// pgSequenceRow is a sequence's pg_sequence row.
func pgSequenceRow(i Sequence) []eval.Datum {
	o := i.Options
	return []eval.Datum{eval.Int(int64(i.OID)), eval.Int(int64(eval.TypeByName(SQLTypeName(o.Type.String())).OID())), eval.Int(o.Start),
		eval.Int(o.Increment), eval.Int(o.Max), eval.Int(o.Min), eval.Int(o.Cache), eval.Bool(o.Cycle)}
}

// SQLTypeName maps seqmath's type names to pg_type's.
func SQLTypeName(s string) string {
	switch s {
	case "bigint":
		return "int8"
	case "integer":
		return "int4"
	}
	return "int2"
}

// oidMatches reports whether v, an OID as a lookup takes it, is oid.
func oidMatches(oid uint32, v eval.Datum) bool {
	got, ok := OIDOf(v)
	return ok && got == oid
}

// OIDOf is an OID from a datum: an integer, a reg* value, or the text
// of a number.
func OIDOf(v eval.Datum) (uint32, bool) {
	switch v.Kind {
	case eval.KInt:
		if v.I >= 0 && v.I <= 1<<32-1 {
			return uint32(v.I), true
		}
	case eval.KText:
		n, err := strconv.ParseUint(v.S, 10, 32)
		return uint32(n), err == nil
	}
	return 0, false
}
