package executor

import (
	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/sqlerr"
)

// restRelations are the relations of PostgreSQL 15's catalog past the
// sequences', roles' and settings' that seqd populates: its tablespaces
// (PostgreSQL's two, which pg_database names) and its database's name.
func restRelations() []*relation {
	return []*relation{
		{oid: 1213, schema: "pg_catalog", name: "pg_tablespace", kind: 'r',
			cols: eval.Columns("oid", eval.TOid, "spcname", eval.TName, "spcowner", eval.TOid, "spcacl", eval.TAclArr, "spcoptions", eval.TTextArr),
			rows: func(*Session) ([][]eval.Datum, error) {
				return [][]eval.Datum{{eval.Int(1663), eval.Text("pg_default"), eval.Int(superuserOID), eval.Null, eval.Null},
					{eval.Int(1664), eval.Text("pg_global"), eval.Int(superuserOID), eval.Null, eval.Null}}, nil
			}},
		// The built-in objects whose privileges are not their kind's
		// default from the start: pg_catalog's and information_schema's
		// USAGE for PUBLIC (pg_dump dumps an ACL that differs from these).
		{oid: 3394, schema: "pg_catalog", name: "pg_init_privs", kind: 'r',
			cols: eval.Columns("objoid", eval.TOid, "classoid", eval.TOid, "objsubid", eval.TInt4, "privtype", eval.TChar, "initprivs", eval.TAclArr),
			rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, n := range []string{"pg_catalog", "information_schema"} {
					out = append(out, []eval.Datum{eval.Int(int64(s.oids().forSchema(n))), eval.Int(pgNamespaceOID), eval.Int(0), eval.Text("i"), s.schemaACLItems(n)})
				}
				// The catalog's relations as they were made: pg_dump
				// dumps only the grants made since.
				catalogOnce.Do(registerCatalog)
				for _, r := range catalogOrder {
					if acl := s.catalogACL(r); !acl.IsNull() {
						out = append(out, []eval.Datum{eval.Int(int64(r.oid)), eval.Int(pgClassOID), eval.Int(0), eval.Text("i"), acl})
					}
				}
				return out, nil
			}},
		// Roles with their verifiers: superusers only, as PostgreSQL's.
		{oid: 1260, schema: "pg_catalog", name: "pg_authid", kind: 'r',
			cols: eval.Columns("oid", eval.TOid, "rolname", eval.TName, "rolsuper", eval.TBool, "rolinherit", eval.TBool, "rolcreaterole", eval.TBool,
				"rolcreatedb", eval.TBool, "rolcanlogin", eval.TBool, "rolreplication", eval.TBool, "rolbypassrls", eval.TBool, "rolconnlimit", eval.TInt4,
				"rolpassword", eval.TText, "rolvaliduntil", eval.TypeByOID(eval.OIDTimestamptz)),
			rows: func(s *Session) ([][]eval.Datum, error) {
				roles, err := s.secretRoles("pg_authid")
				if err != nil {
					return nil, err
				}
				var out [][]eval.Datum
				for _, r := range roles {
					boot := r.bootstrap()
					out = append(out, []eval.Datum{eval.Int(int64(r.oid)), eval.Text(r.Name), eval.Bool(r.Superuser), eval.Bool(true), eval.Bool(r.CreateRole || boot),
						eval.Bool(boot), eval.Bool(r.Login), eval.Bool(boot), eval.Bool(boot), eval.Int(-1), verifierText(r.Verifier), eval.Null})
				}
				return out, nil
			}},
		{oid: 12005, schema: "pg_catalog", name: "pg_shadow", kind: 'v',
			cols: eval.Columns("usename", eval.TName, "usesysid", eval.TOid, "usecreatedb", eval.TBool, "usesuper", eval.TBool, "userepl", eval.TBool,
				"usebypassrls", eval.TBool, "passwd", eval.TText, "valuntil", eval.TypeByOID(eval.OIDTimestamptz), "useconfig", eval.TTextArr),
			rows: func(s *Session) ([][]eval.Datum, error) {
				roles, err := s.secretRoles("pg_shadow")
				if err != nil {
					return nil, err
				}
				var out [][]eval.Datum
				for _, r := range roles {
					if !r.Login {
						continue
					}
					boot := r.bootstrap()
					out = append(out, []eval.Datum{eval.Text(r.Name), eval.Int(int64(r.oid)), eval.Bool(boot), eval.Bool(r.Superuser), eval.Bool(boot), eval.Bool(boot),
						verifierText(r.Verifier), eval.Null, roleConfig(r.Settings)})
				}
				return out, nil
			}},
		// The catalog's tables (seqd has no others): no indexes, rules or
		// triggers here, unlike PostgreSQL's.
		{oid: 12033, schema: "pg_catalog", name: "pg_tables", kind: 'v',
			cols: eval.Columns("schemaname", eval.TName, "tablename", eval.TName, "tableowner", eval.TName, "tablespace", eval.TName,
				"hasindexes", eval.TBool, "hasrules", eval.TBool, "hastriggers", eval.TBool, "rowsecurity", eval.TBool),
			rows: func(s *Session) ([][]eval.Datum, error) {
				catalogOnce.Do(registerCatalog)
				var out [][]eval.Datum
				for _, r := range catalogOrder {
					if r.kind == 'r' {
						out = append(out, []eval.Datum{eval.Text(r.schema), eval.Text(r.name), eval.Text(s.roleName(superuserOID)), eval.Null,
							eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false)})
					}
				}
				return out, nil
			}},
		// Roles' settings (ALTER ROLE ... SET), for every database.
		{oid: 2964, schema: "pg_catalog", name: "pg_db_role_setting", kind: 'r',
			cols: eval.Columns("setdatabase", eval.TOid, "setrole", eval.TOid, "setconfig", eval.TTextArr),
			rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, r := range s.roleList() {
					if len(r.Settings) == 0 {
						continue
					}
					out = append(out, []eval.Datum{eval.Int(0), eval.Int(int64(r.oid)), roleConfig(r.Settings)})
				}
				return out, nil
			}},
		{oid: 13227, schema: "information_schema", name: "information_schema_catalog_name", kind: 'v',
			cols: eval.Columns("catalog_name", tSQLIdentifier),
			rows: func(s *Session) ([][]eval.Datum, error) { return [][]eval.Datum{{eval.Text(s.cfg.Database)}}, nil }},
	}
}

// secretRoles are the roles with their verifiers, for a superuser only
// (PostgreSQL grants pg_authid and pg_shadow to none).
func (s *Session) secretRoles(rel string) ([]roleRow, error) {
	if !s.isSuperuser(s.cfg.User) {
		return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for %s %s", map[bool]string{true: "table", false: "view"}[rel == "pg_authid"], rel)
	}
	return s.roleList(), nil
}

// verifierText is rolpassword: the SCRAM verifier's text, NULL for none.
func verifierText(v *engine.Verifier) eval.Datum {
	if v == nil {
		return eval.Null
	}
	return eval.Text(auth.VerifierText(v))
}

// roleConfig is a role's settings as rolconfig shows them.
func roleConfig(settings []engine.Setting) eval.Datum {
	if len(settings) == 0 {
		return eval.Null
	}
	var kv []eval.Datum
	for _, st := range settings {
		kv = append(kv, eval.Text(st.Name+"="+st.Value))
	}
	return eval.Array(kv...)
}
