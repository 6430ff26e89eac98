package catalog

import (
	"strconv"
	"strings"

	"github.com/seqd/seqd/eval"
)

// information_schema's relations of functions, as PostgreSQL 15 defines
// them over its catalog: routines, parameters, routine_privileges and
// role_routine_grants, of the built-in functions pg_proc lists (the
// Source's Builtins), owned by the bootstrap superuser.

// procGrant is an item of a function's ACL: grantee ("" for PUBLIC) and
// whether it holds EXECUTE, and whether with the grant option.
type procGrant struct {
	grantee          string
	execute, grantOK bool
}

// procGrants is a pg_proc row's ACL, the default one (EXECUTE for
// PUBLIC, then the owner's with the grant option) when proacl is NULL.
func procGrants(row []string, owner string) []procGrant {
	if row[procACL] == null {
		return []procGrant{{"", true, false}, {owner, true, true}}
	}
	var out []procGrant
	for _, item := range arrayItems(row[procACL]) {
		who, rest, _ := strings.Cut(strings.Trim(item, `"`), "=")
		privs, _, _ := strings.Cut(rest, "/")
		if who == "postgres" { // scripts/gen-pgcatalog's server's bootstrap superuser
			who = owner
		}
		out = append(out, procGrant{who, strings.Contains(privs, "X"), strings.Contains(privs, "X*")})
	}
	return out
}

// procVisible is information_schema's rule for a function: the current
// role holds its owner's privileges or may execute it.
func procVisible(src Source, row []string, owner string) bool {
	if src.HasPrivsOfRole(owner) {
		return true
	}
	for _, g := range procGrants(row, owner) {
		if g.execute && (g.grantee == "" || src.HasPrivsOfRole(g.grantee)) {
			return true
		}
	}
	return false
}

// rowOf is a row of columns cols from their values by name, NULL for the
// others.
func rowOf(cols []eval.RelColumn, vals map[string]eval.Datum) []eval.Datum {
	row := make([]eval.Datum, len(cols))
	for i, c := range cols {
		if d, ok := vals[c.Name]; ok {
			row[i] = d
		} else {
			row[i] = eval.Null
		}
	}
	return row
}

// typeDataType is information_schema's data_type of a built-in type:
// ARRAY for an array (a varlena with an element type), else
// format_type's name.
func typeDataType(t *eval.Type) eval.Datum {
	if t.Elem() != nil && t.Len() == -1 {
		return eval.Text("ARRAY")
	}
	return eval.Text(t.SQLName())
}

// routinesRows are information_schema.routines' rows, of columns cols.
func routinesRows(cols []eval.RelColumn) func(Source) ([][]eval.Datum, error) {
	return func(src Source) ([][]eval.Datum, error) {
		b := src.Builtins()
		owner := src.BootstrapUser()
		owns := src.HasPrivsOfRole(owner)
		db := eval.Text(src.Database())
		langs := map[string]string{}
		for _, l := range b.rows["pg_language"] {
			langs[l[0]] = l[1]
		}
		var out [][]eval.Datum
		for _, p := range b.rows["pg_proc"] {
			if procVisible(src, p, owner) {
				out = append(out, rowOf(cols, routineValues(db, p, langs[p[procLang]], owns)))
			}
		}
		return out, nil
	}
}

// routineValues are the columns of information_schema.routines' row of
// function p, in language lang, by name; owns: the current role holds
// its owner's privileges, and sees its definition.
func routineValues(db eval.Datum, p []string, lang string, owns bool) map[string]eval.Datum {
	v := map[string]eval.Datum{
		"specific_catalog": db, "specific_schema": eval.Text("pg_catalog"), "specific_name": eval.Text(p[procName] + "_" + p[procOID]),
		"routine_catalog": db, "routine_schema": eval.Text("pg_catalog"), "routine_name": eval.Text(p[procName]),
		"routine_body": eval.Text("EXTERNAL"), "external_language": eval.Text(strings.ToUpper(lang)),
		"parameter_style": eval.Text("GENERAL"), "is_deterministic": YesNo(p[procVolatile] == "i"),
		"sql_data_access": eval.Text("MODIFIES"), "schema_level_routine": eval.Text("YES"),
		"max_dynamic_result_sets": eval.Int(0), "security_type": eval.Text("INVOKER"), "as_locator": eval.Text("NO"),
		"is_udt_dependent": eval.Text("NO"),
	}
	switch p[procKind] {
	case "f":
		v["routine_type"] = eval.Text("FUNCTION")
	case "p":
		v["routine_type"] = eval.Text("PROCEDURE")
	}
	if lang == "sql" {
		v["routine_body"] = eval.Text("SQL")
	}
	if owns {
		v["routine_definition"] = eval.Text(p[procSrc])
	}
	if lang == "c" {
		v["external_name"] = eval.Text(p[procSrc])
	}
	if p[procSecdef] == "t" {
		v["security_type"] = eval.Text("DEFINER")
	}
	if p[procKind] != "p" {
		v["is_null_call"] = YesNo(p[procStrict] == "t")
		v["dtd_identifier"] = eval.Text("0")
		if t := eval.TypeByOID(atou(p[procRettype])); t != nil {
			v["data_type"], v["type_udt_catalog"], v["type_udt_schema"], v["type_udt_name"] = typeDataType(t), db, eval.Text("pg_catalog"), eval.Text(t.Name())
		}
	}
	return v
}

// parametersRows are information_schema.parameters' rows, of columns
// cols: each visible function's arguments (its OUT ones too), in order.
func parametersRows(cols []eval.RelColumn) func(Source) ([][]eval.Datum, error) {
	return func(src Source) ([][]eval.Datum, error) {
		owner := src.BootstrapUser()
		db := eval.Text(src.Database())
		var out [][]eval.Datum
		for _, p := range src.Builtins().rows["pg_proc"] {
			if procVisible(src, p, owner) {
				out = append(out, parameterRows(cols, db, p)...)
			}
		}
		return out, nil
	}
}

// parameterRows are function p's rows of information_schema.parameters.
func parameterRows(cols []eval.RelColumn, db eval.Datum, p []string) [][]eval.Datum {
	modes := map[string]string{"i": "IN", "o": "OUT", "b": "INOUT", "v": "IN", "t": "OUT"}
	types := arrayItems(p[procAllArgtypes])
	if p[procAllArgtypes] == null {
		types = strings.Fields(p[procArgtypes])
	}
	argModes, names := arrayItems(p[procArgmodes]), arrayItems(p[procArgnames])
	var out [][]eval.Datum
	for i, typ := range types {
		t := eval.TypeByOID(atou(typ))
		if t == nil {
			continue // as PostgreSQL's inner join with pg_type
		}
		n := strconv.Itoa(i + 1)
		v := map[string]eval.Datum{
			"specific_catalog": db, "specific_schema": eval.Text("pg_catalog"), "specific_name": eval.Text(p[procName] + "_" + p[procOID]),
			"ordinal_position": eval.Int(int64(i + 1)), "parameter_mode": eval.Text("IN"), "is_result": eval.Text("NO"),
			"as_locator": eval.Text("NO"), "data_type": typeDataType(t), "udt_catalog": db, "udt_schema": eval.Text("pg_catalog"),
			"udt_name": eval.Text(t.Name()), "dtd_identifier": eval.Text(n),
		}
		if argModes != nil {
			if i >= len(argModes) {
				v["parameter_mode"] = eval.Null
			} else {
				v["parameter_mode"] = eval.Text(modes[argModes[i]])
			}
		}
		if i < len(names) && strings.Trim(names[i], `"`) != "" {
			v["parameter_name"] = eval.Text(strings.Trim(names[i], `"`))
		}
		out = append(out, rowOf(cols, v))
	}
	return out
}

// routinePrivilegesRows are information_schema.routine_privileges' rows:
// each function's EXECUTE grants the current role may see.
func routinePrivilegesRows(src Source) ([][]eval.Datum, error) {
	owner := src.BootstrapUser()
	db := eval.Text(src.Database())
	var out [][]eval.Datum
	for _, p := range src.Builtins().rows["pg_proc"] {
		for _, g := range procGrants(p, owner) {
			if !g.execute || !grantVisible(src, owner, g.grantee) {
				continue
			}
			out = append(out, []eval.Datum{eval.Text(owner), granteeName(g.grantee), db, eval.Text("pg_catalog"),
				eval.Text(p[procName] + "_" + p[procOID]), db, eval.Text("pg_catalog"), eval.Text(p[procName]), eval.Text("EXECUTE"),
				YesNo(g.grantOK || g.grantee != "" && src.IsMemberOf(g.grantee, owner))})
		}
	}
	return out, nil
}
