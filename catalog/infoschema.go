package catalog

import (
	"encoding/hex"
	"fmt"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// seqd's statistics and tokens views, and information_schema's views of
// sequences and schemas.

// The information_schema columns' domains (sql_identifier,
// character_data, cardinal_number, yes_or_no) are described to clients by
// their base types, as PostgreSQL describes domain columns.
var (
	TSQLIdentifier  = eval.TName
	TCharacterData  = eval.TVarchar
	TCardinalNumber = eval.TInt4
	TYesOrNo        = eval.TVarchar
)

// tokenColumns are seqd_tokens' columns.
var tokenColumns = eval.Columns("rolname", eval.TName, "id", eval.TText, "label", eval.TText,
	"created", eval.TypeByOID(1184), "expires", eval.TypeByOID(1184))

func infoViews() []*View {
	return []*View{
		{OID: 12300, Schema: "pg_catalog", Name: "seqd_stat_sequences", Kind: 'v',
			Columns: eval.Columns("schemaname", eval.TName, "sequencename", eval.TName, "last_value", eval.TInt8, "reserved_values", eval.TInt8,
				"remaining_values", eval.TFloat8, "fraction_used", eval.TFloat8, "unlogged", eval.TBool, "shape", eval.TText, "last_counter", eval.TInt8,
				"burned_crash", eval.TInt8, "burned_failover", eval.TInt8, "burned_release", eval.TInt8, "noorder", eval.TBool),
			PerSequence: &PerSequence{Row: one(statRow), Reserved: true, NameCol: 1, OIDCol: -1}},
		{OID: 12301, Schema: "pg_catalog", Name: "seqd_tokens", Kind: 'v', Columns: tokenColumns,
			Rows: tokenRows},
		{OID: 13386, Schema: "information_schema", Name: "sequences", Kind: 'v',
			Columns: eval.Columns("sequence_catalog", TSQLIdentifier, "sequence_schema", TSQLIdentifier, "sequence_name", TSQLIdentifier,
				"data_type", TCharacterData, "numeric_precision", TCardinalNumber, "numeric_precision_radix", TCardinalNumber,
				"numeric_scale", TCardinalNumber, "start_value", TCharacterData, "minimum_value", TCharacterData,
				"maximum_value", TCharacterData, "increment", TCharacterData, "cycle_option", TYesOrNo),
			PerSequence: &PerSequence{Row: one(infoSequencesRow), NameCol: 2, OIDCol: -1}},
		{OID: 13382, Schema: "information_schema", Name: "schemata", Kind: 'v',
			Columns: eval.Columns("catalog_name", TSQLIdentifier, "schema_name", TSQLIdentifier, "schema_owner", TSQLIdentifier,
				"default_character_set_catalog", TSQLIdentifier, "default_character_set_schema", TSQLIdentifier,
				"default_character_set_name", TSQLIdentifier, "sql_path", TCharacterData),
			Rows: func(src Source) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, n := range src.Schemas() {
					// As PostgreSQL's view: the schemas the user owns or
					// holds a privilege on.
					if p, err := src.SchemaPrivileges(n.Name); err != nil || p == 0 {
						continue
					}
					out = append(out, []eval.Datum{eval.Text(src.Database()), eval.Text(n.Name), eval.Text(src.RoleName(n.Owner)), eval.Null, eval.Null, eval.Null, eval.Null})
				}
				return out, nil
			}},
	}
}

// tokenRows are seqd_tokens' rows: the current role's tokens, every
// role's for a superuser; never a secret (the Source has none).
func tokenRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	super := src.Superuser()
	for _, r := range src.StoredRoles() {
		if r.Name != src.User() && !super {
			continue
		}
		for _, t := range r.Tokens {
			label := eval.Null
			if t.Label != "" {
				label = eval.Text(t.Label)
			}
			out = append(out, []eval.Datum{eval.Text(r.Name), eval.Text(hex.EncodeToString(t.ID[:])), label,
				eval.Timestamptz(t.Created, src.Location()), eval.Timestamptz(t.Expires, src.Location())})
		}
	}
	return out, nil
}

// statRow is a sequence's seqd_stat_sequences row.
func statRow(src Source, i Sequence) []eval.Datum {
	used, total := i.RangeUse()
	b := i.Burned
	// As pg_sequences: the position only to roles with SELECT or USAGE on
	// the sequence.
	last, counter := eval.Null, eval.Null
	if p, err := src.SequencePrivileges(i.Name); err == nil && p&(engine.PrivSelect|engine.PrivUsage) != 0 {
		last, counter = eval.Int(i.Options.Value(i.State.Last)), eval.Int(i.State.Last)
	}
	return []eval.Datum{eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), last, eval.Int(i.Window),
		eval.Float(total - used), eval.Float(used / total), eval.Bool(i.Unlogged), eval.Text(i.Options.Shape.String()), counter,
		eval.Int(b.Crash), eval.Int(b.Failover), eval.Int(b.Release), eval.Bool(i.Options.NoOrder)}
}

// infoSequencesRow is a sequence's information_schema.sequences row.
func infoSequencesRow(src Source, i Sequence) []eval.Datum {
	o := i.Options
	prec := map[string]int64{"bigint": 64, "integer": 32, "smallint": 16}[o.Type.String()]
	return []eval.Datum{eval.Text(src.Database()), eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), eval.Text(o.Type.String()), eval.Int(prec), eval.Int(2), eval.Int(0),
		eval.Text(fmt.Sprint(o.Start)), eval.Text(fmt.Sprint(o.Min)), eval.Text(fmt.Sprint(o.Max)), eval.Text(fmt.Sprint(o.Increment)), YesNo(o.Cycle)}
}

// YesNo is information_schema's yes_or_no: YES or NO.
func YesNo(b bool) eval.Datum {
	if b {
		return eval.Text("YES")
	}
	return eval.Text("NO")
}

func (c *Catalog) restViews() []*View {
	return append([]*View{
		{OID: 1213, Schema: "pg_catalog", Name: "pg_tablespace", Kind: 'r',
			Columns: eval.Columns("oid", eval.TOid, "spcname", eval.TName, "spcowner", eval.TOid, "spcacl", eval.TAclArr, "spcoptions", eval.TTextArr),
			Rows: func(Source) ([][]eval.Datum, error) {
				return [][]eval.Datum{{eval.Int(1663), eval.Text("pg_default"), eval.Int(SuperuserOID), eval.Null, eval.Null},
					{eval.Int(1664), eval.Text("pg_global"), eval.Int(SuperuserOID), eval.Null, eval.Null}}, nil
			}},
		// The built-in objects whose privileges are not their kind's
		// default from the start: pg_catalog's and information_schema's
		// USAGE for PUBLIC (pg_dump dumps an ACL that differs from these).
		{OID: 3394, Schema: "pg_catalog", Name: "pg_init_privs", Kind: 'r',
			Columns: eval.Columns("objoid", eval.TOid, "classoid", eval.TOid, "objsubid", eval.TInt4, "privtype", eval.TChar, "initprivs", eval.TAclArr),
			Rows:    c.initPrivsRows},
	}, append(secretRoleViews(),
		// The catalog's tables (seqd has no others): no indexes, rules or
		// triggers here, unlike PostgreSQL's.
		&View{OID: 12033, Schema: "pg_catalog", Name: "pg_tables", Kind: 'v',
			Columns: eval.Columns("schemaname", eval.TName, "tablename", eval.TName, "tableowner", eval.TName, "tablespace", eval.TName,
				"hasindexes", eval.TBool, "hasrules", eval.TBool, "hastriggers", eval.TBool, "rowsecurity", eval.TBool),
			Rows: func(src Source) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, r := range c.order {
					if r.Kind == 'r' {
						out = append(out, []eval.Datum{eval.Text(r.Schema), eval.Text(r.Name), eval.Text(src.RoleName(SuperuserOID)), eval.Null,
							eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false)})
					}
				}
				return out, nil
			}},
		// Roles' settings (ALTER ROLE ... SET), for every database.
		&View{OID: 2964, Schema: "pg_catalog", Name: "pg_db_role_setting", Kind: 'r',
			Columns: eval.Columns("setdatabase", eval.TOid, "setrole", eval.TOid, "setconfig", eval.TTextArr),
			Rows: func(src Source) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, r := range src.Roles() {
					if len(r.Settings) == 0 {
						continue
					}
					out = append(out, []eval.Datum{eval.Int(0), eval.Int(int64(r.OID)), roleConfig(r.Settings)})
				}
				return out, nil
			}},
		&View{OID: 13227, Schema: "information_schema", Name: "information_schema_catalog_name", Kind: 'v',
			Columns: eval.Columns("catalog_name", TSQLIdentifier),
			Rows:    func(src Source) ([][]eval.Datum, error) { return [][]eval.Datum{{eval.Text(src.Database())}}, nil }})...)
}

// initPrivsRows are pg_init_privs' rows: pg_catalog's and
// information_schema's ACLs, and the catalog's relations' as they were
// made (pg_dump dumps only the grants made since).
func (c *Catalog) initPrivsRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, n := range []string{"pg_catalog", "information_schema"} {
		out = append(out, []eval.Datum{eval.Int(int64(src.SchemaOID(n))), eval.Int(PgNamespaceOID), eval.Int(0), eval.Text("i"), src.SchemaACL(n)})
	}
	for _, r := range c.order {
		if acl := RelationACL(src, r); !acl.IsNull() {
			out = append(out, []eval.Datum{eval.Int(int64(r.OID)), eval.Int(PgClassOID), eval.Int(0), eval.Text("i"), acl})
		}
	}
	return out, nil
}
