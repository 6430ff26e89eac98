// information_schema's relations of functions, as PostgreSQL 15 defines
// them over its catalog: routines, parameters, routine_privileges and
// role_routine_grants, of the built-in functions pg_proc lists (those
// the evaluator has), owned by the bootstrap superuser.

package executor

import (
	"strconv"
	"strings"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/eval"
)

// pg_proc's other columns by position (PostgreSQL 15's order).
const (
	procKind, procSecdef, procStrict, procVolatile, procSrc, procACL = 9, 10, 12, 14, 25, 29
)

// procGrant is an item of a function's ACL: grantee ("" for PUBLIC) and
// whether it holds EXECUTE, and whether with the grant option.
type procGrant struct {
	grantee          string
	execute, grantOK bool
}

// procGrants is a pg_proc row's ACL, the default one (EXECUTE for
// PUBLIC, then the owner's with the grant option) when proacl is NULL.
func procGrants(row []string, owner string) []procGrant {
	if row[procACL] == "\x00" {
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
// user holds its owner's privileges or may execute it.
func (s *Session) procVisible(row []string, owner string) bool {
	if s.hasPrivsOfRole(owner) {
		return true
	}
	for _, g := range procGrants(row, owner) {
		if g.execute && (g.grantee == "" || s.hasPrivsOfRole(g.grantee)) {
			return true
		}
	}
	return false
}

// rowOf is a row of relation r from its columns' values by name, NULL
// for the others.
func rowOf(r *relation, vals map[string]eval.Datum) []eval.Datum {
	row := make([]eval.Datum, len(r.cols))
	for i, c := range r.cols {
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

// routinesRows are information_schema.routines' rows.
func (s *Session) routinesRows() ([][]eval.Datum, error) {
	rel := catalogRelation("information_schema", "routines")
	owner := s.bootstrapUser()
	owns := s.hasPrivsOfRole(owner)
	db := eval.Text(s.cfg.Database)
	langs := map[string]string{}
	for _, l := range s.builtinCatalog().rows["pg_language"] {
		langs[l[0]] = l[1]
	}
	var out [][]eval.Datum
	for _, p := range s.builtinCatalog().rows["pg_proc"] {
		if !s.procVisible(p, owner) {
			continue
		}
		lang := langs[p[procLang]]
		v := map[string]eval.Datum{
			"specific_catalog": db, "specific_schema": eval.Text("pg_catalog"), "specific_name": eval.Text(p[procName] + "_" + p[procOID]),
			"routine_catalog": db, "routine_schema": eval.Text("pg_catalog"), "routine_name": eval.Text(p[procName]),
			"routine_body": eval.Text("EXTERNAL"), "external_language": eval.Text(strings.ToUpper(lang)),
			"parameter_style": eval.Text("GENERAL"), "is_deterministic": catalog.YesNo(p[procVolatile] == "i"),
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
			v["is_null_call"] = catalog.YesNo(p[procStrict] == "t")
			v["dtd_identifier"] = eval.Text("0")
			if t := eval.TypeByOID(atou(p[procRettype])); t != nil {
				v["data_type"], v["type_udt_catalog"], v["type_udt_schema"], v["type_udt_name"] = typeDataType(t), db, eval.Text("pg_catalog"), eval.Text(t.Name())
			}
		}
		out = append(out, rowOf(rel, v))
	}
	return out, nil
}

// parametersRows are information_schema.parameters' rows: each visible
// function's arguments (its OUT ones too), in order.
func (s *Session) parametersRows() ([][]eval.Datum, error) {
	rel := catalogRelation("information_schema", "parameters")
	owner := s.bootstrapUser()
	db := eval.Text(s.cfg.Database)
	modes := map[string]string{"i": "IN", "o": "OUT", "b": "INOUT", "v": "IN", "t": "OUT"}
	var out [][]eval.Datum
	for _, p := range s.builtinCatalog().rows["pg_proc"] {
		if !s.procVisible(p, owner) {
			continue
		}
		types := arrayItems(p[procAllArgtypes])
		if p[procAllArgtypes] == "\x00" {
			types = strings.Fields(p[procArgtypes])
		}
		argModes, names := arrayItems(p[procArgmodes]), arrayItems(p[procArgnames])
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
			out = append(out, rowOf(rel, v))
		}
	}
	return out, nil
}

// routinePrivilegesRows are information_schema.routine_privileges' rows:
// each function's EXECUTE grants the current user may see.
func (s *Session) routinePrivilegesRows() ([][]eval.Datum, error) {
	owner := s.bootstrapUser()
	db := eval.Text(s.cfg.Database)
	var out [][]eval.Datum
	for _, p := range s.builtinCatalog().rows["pg_proc"] {
		for _, g := range procGrants(p, owner) {
			if !g.execute || !s.grantVisible(owner, g.grantee) {
				continue
			}
			out = append(out, []eval.Datum{eval.Text(owner), granteeName(g.grantee), db, eval.Text("pg_catalog"),
				eval.Text(p[procName] + "_" + p[procOID]), db, eval.Text("pg_catalog"), eval.Text(p[procName]), eval.Text("EXECUTE"),
				catalog.YesNo(g.grantOK || g.grantee != "" && s.isMemberOf(g.grantee, owner))})
		}
	}
	return out, nil
}

// roleRoutineGrantsRows are routine_privileges' rows granted by or to an
// enabled role.
func (s *Session) roleRoutineGrantsRows() ([][]eval.Datum, error) {
	return s.byEnabledRoles(s.routinePrivilegesRows())
}
