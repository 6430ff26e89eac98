package catalog

import (
	"fmt"
	"strings"

	"github.com/seqd/seqd/eval"
)

// information_schema's relations of the catalog's own: tables, views,
// sql_implementation_info, character_sets, collations and
// collation_character_set_applicability.

// tablesRows are information_schema.tables' rows: the catalog's tables
// and views the current role holds any privilege on (seqd has no other
// tables; sequences are not listed there, as in PostgreSQL).
func (c *Catalog) tablesRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, v := range c.order {
		if currentPrivileges(src, v) == 0 {
			continue
		}
		typ := "BASE TABLE"
		if v.Kind == 'v' {
			typ = "VIEW"
		}
		out = append(out, []eval.Datum{eval.Text(src.Database()), eval.Text(v.Schema), eval.Text(v.Name), eval.Text(typ),
			eval.Null, eval.Null, eval.Null, eval.Null, eval.Null, YesNo(v.Insertable), eval.Text("NO"), eval.Null})
	}
	return out, nil
}

// infoViewsRows are information_schema.views' rows: the catalog's views
// the current role holds a privilege on, with their definitions for the
// owner's members only.
func (c *Catalog) infoViewsRows(src Source) ([][]eval.Datum, error) {
	owns := src.HasPrivsOfRole(src.BootstrapUser())
	db := eval.Text(src.Database())
	var out [][]eval.Datum
	for _, v := range c.order {
		if v.Kind != 'v' || !owns && currentPrivileges(src, v) == 0 {
			continue
		}
		def := eval.Null
		if owns {
			def = ViewDefinition(v)
		}
		out = append(out, []eval.Datum{db, eval.Text(v.Schema), eval.Text(v.Name), def, eval.Text("NONE"), YesNo(v.Insertable),
			YesNo(v.Insertable), eval.Text("NO"), eval.Text("NO"), eval.Text("NO")})
	}
	return out, nil
}

// ViewDefinition is v's definition, NULL for a relation that is not one
// of PostgreSQL's views (seqd's own views are made in Go and have none).
func ViewDefinition(v *View) eval.Datum {
	if def, ok := ViewDefinitions()[v.Schema+"."+v.Name]; ok && v.Kind == 'v' {
		return eval.Text(def)
	}
	return eval.Null
}

// implementationInfoRows are information_schema.sql_implementation_info's
// rows: PostgreSQL 15's facts of its implementation, which seqd's SQL
// shares (cursors without HOLD close at COMMIT, READ COMMITTED, names
// stored as written, NULLs sorted high, DDL in transactions), with seqd's
// version (Source.ServerVersion, as initdb writes PostgreSQL's).
func implementationInfoRows(src Source) ([][]eval.Datum, error) {
	// n < 0: no integer_value; text "-": no character_value.
	row := func(id, name string, n int64, text, comments string) []eval.Datum {
		r := []eval.Datum{eval.Text(id), eval.Text(name), eval.Null, eval.Text(text), eval.Null}
		if n >= 0 {
			r[2] = eval.Int(n)
		}
		if text == "-" {
			r[3] = eval.Null
		}
		if comments != "" {
			r[4] = eval.Text(comments)
		}
		return r
	}
	major, minor, _ := strings.Cut(strings.Fields(src.ServerVersion())[0], ".")
	version := fmt.Sprintf("%02s.%02s.0000", major, minor)
	return [][]eval.Datum{
		row("10003", "CATALOG NAME", -1, "Y", ""),
		row("10004", "COLLATING SEQUENCE", -1, "-", ""),
		row("23", "CURSOR COMMIT BEHAVIOR", 1, "-", "close cursors and retain prepared statements"),
		row("2", "DATA SOURCE NAME", -1, "", ""),
		row("17", "DBMS NAME", -1, "PostgreSQL", ""),
		row("26", "DEFAULT TRANSACTION ISOLATION", 2, "-", "READ COMMITTED; user-settable"),
		row("28", "IDENTIFIER CASE", 3, "-", "stored in mixed case - case sensitive"),
		row("85", "NULL COLLATION", 0, "-", "nulls higher than non-nulls"),
		row("13", "SERVER NAME", -1, "", ""),
		row("94", "SPECIAL CHARACTERS", -1, "", "all non-ASCII characters allowed"),
		row("46", "TRANSACTION CAPABLE", 2, "-", "both DML and DDL"),
		row("18", "DBMS VERSION", -1, version, ""),
	}, nil
}

// BuiltinCollations are pg_collation's rows' names (BuiltinRows).
var BuiltinCollations = []string{"default", "C", "POSIX"}

// characterSetsRows are information_schema.character_sets': the
// database's encoding, UTF8 (its collation, C.UTF-8, is none of
// pg_collation's, so no default collation is named).
func characterSetsRows(src Source) ([][]eval.Datum, error) {
	return [][]eval.Datum{{eval.Null, eval.Null, eval.Text("UTF8"), eval.Text("UCS"), eval.Text("UTF8"), eval.Text(src.Database()), eval.Null, eval.Null}}, nil
}

// collationsRows are information_schema.collations': pg_collation's
// (BuiltinCollations), all for any encoding.
func collationsRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, c := range BuiltinCollations {
		out = append(out, []eval.Datum{eval.Text(src.Database()), eval.Text("pg_catalog"), eval.Text(c), eval.Text("NO PAD")})
	}
	return out, nil
}

// collationApplicabilityRows are
// information_schema.collation_character_set_applicability's: each
// collation applies to UTF8.
func collationApplicabilityRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, c := range BuiltinCollations {
		out = append(out, []eval.Datum{eval.Text(src.Database()), eval.Text("pg_catalog"), eval.Text(c), eval.Null, eval.Null, eval.Text("UTF8")})
	}
	return out, nil
}
