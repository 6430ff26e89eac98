package catalog

import (
	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/sqlerr"
)

// Roles and the database: pg_roles, pg_auth_members, pg_user,
// pg_database; pg_authid and pg_shadow (restViews) show verifiers, to
// superusers only.

func roleViews() []*View {
	return []*View{
		{OID: 12000, Schema: "pg_catalog", Name: "pg_roles", Kind: 'v',
			Columns: eval.Columns("rolname", eval.TName, "rolsuper", eval.TBool, "rolinherit", eval.TBool, "rolcreaterole", eval.TBool, "rolcreatedb", eval.TBool,
				"rolcanlogin", eval.TBool, "rolreplication", eval.TBool, "rolconnlimit", eval.TInt4, "rolpassword", eval.TText, "rolvaliduntil", eval.TTimestamp,
				"rolbypassrls", eval.TBool, "rolconfig", eval.TTextArr, "oid", eval.TOid),
			Rows: pgRolesRows},
		{OID: 1261, Schema: "pg_catalog", Name: "pg_auth_members", Kind: 'r',
			Columns: eval.Columns("roleid", eval.TOid, "member", eval.TOid, "grantor", eval.TOid, "admin_option", eval.TBool),
			Rows: func(src Source) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, r := range src.StoredRoles() {
					for _, m := range r.MemberOf {
						// seqd does not record who granted: shown as the
						// bootstrap superuser, as grants by superusers are.
						out = append(out, []eval.Datum{eval.Int(src.RoleOID(m.Role)), eval.Int(src.RoleOID(r.Name)), eval.Int(SuperuserOID), eval.Bool(m.Admin)})
					}
				}
				return out, nil
			}},
		{OID: 12014, Schema: "pg_catalog", Name: "pg_user", Kind: 'v',
			Columns: eval.Columns("usename", eval.TName, "usesysid", eval.TOid, "usecreatedb", eval.TBool, "usesuper", eval.TBool, "userepl", eval.TBool,
				"usebypassrls", eval.TBool, "passwd", eval.TText, "valuntil", eval.TTimestamp, "useconfig", eval.TTextArr),
			Rows: func(src Source) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, r := range src.Roles() {
					if r.Login {
						boot := r.Bootstrap()
						out = append(out, []eval.Datum{eval.Text(r.Name), eval.Int(int64(r.OID)), eval.Bool(boot), eval.Bool(r.Superuser), eval.Bool(boot),
							eval.Bool(boot), eval.Text("********"), eval.Null, roleConfig(r.Settings)})
					}
				}
				return out, nil
			}},
		{OID: 1262, Schema: "pg_catalog", Name: "pg_database", Kind: 'r',
			Columns: eval.Columns("oid", eval.TOid, "datname", eval.TName, "datdba", eval.TOid, "encoding", eval.TInt4, "datlocprovider", eval.TChar, "datistemplate", eval.TBool,
				"datallowconn", eval.TBool, "datconnlimit", eval.TInt4, "datfrozenxid", tXid, "datminmxid", tXid, "dattablespace", eval.TOid, "datcollate", eval.TText, "datctype", eval.TText,
				"daticulocale", eval.TText, "datcollversion", eval.TText, "datacl", eval.TAclArr),
			Rows: func(src Source) ([][]eval.Datum, error) {
				acl := src.DatabaseACL()
				owner := src.RoleOID(acl.Owner)
				return [][]eval.Datum{{eval.Int(DatabaseOID), eval.Text(src.Database()), eval.Int(owner), eval.Int(6), eval.Text("c"), eval.Bool(false), eval.Bool(true),
					eval.Int(-1), eval.Int(0), eval.Int(0), eval.Int(1663), eval.Text("C.UTF-8"), eval.Text("C.UTF-8"), eval.Null, eval.Null,
					ACLItems(acl, src.RoleName(owner), ACLDatabase)}}, nil
			}},
	}
}

func pgRolesRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, r := range src.Roles() {
		boot := r.Bootstrap()
		out = append(out, []eval.Datum{eval.Text(r.Name), eval.Bool(r.Superuser), eval.Bool(true), eval.Bool(r.CreateRole || boot), eval.Bool(boot), eval.Bool(r.Login),
			eval.Bool(boot), eval.Int(-1), eval.Text("********"), eval.Null, eval.Bool(boot), roleConfig(r.Settings), eval.Int(int64(r.OID))})
	}
	// The predefined role that owns the public schema, as PostgreSQL
	// 15's (nspowner names it).
	out = append(out, []eval.Datum{eval.Text("pg_database_owner"), eval.Bool(false), eval.Bool(true), eval.Bool(false), eval.Bool(false), eval.Bool(false),
		eval.Bool(false), eval.Int(-1), eval.Text("********"), eval.Null, eval.Bool(false), eval.Null, eval.Int(DBOwnerOID)})
	return out, nil
}

// secretRoleViews are the views of roles with their verifiers:
// superusers only, as PostgreSQL's.
func secretRoleViews() []*View {
	return []*View{
		{OID: 1260, Schema: "pg_catalog", Name: "pg_authid", Kind: 'r',
			Columns: eval.Columns("oid", eval.TOid, "rolname", eval.TName, "rolsuper", eval.TBool, "rolinherit", eval.TBool, "rolcreaterole", eval.TBool,
				"rolcreatedb", eval.TBool, "rolcanlogin", eval.TBool, "rolreplication", eval.TBool, "rolbypassrls", eval.TBool, "rolconnlimit", eval.TInt4,
				"rolpassword", eval.TText, "rolvaliduntil", eval.TypeByOID(eval.OIDTimestamptz)),
			Rows: func(src Source) ([][]eval.Datum, error) {
				roles, err := secretRoles(src, "pg_authid")
				if err != nil {
					return nil, err
				}
				var out [][]eval.Datum
				for _, r := range roles {
					boot := r.Bootstrap()
					out = append(out, []eval.Datum{eval.Int(int64(r.OID)), eval.Text(r.Name), eval.Bool(r.Superuser), eval.Bool(true), eval.Bool(r.CreateRole || boot),
						eval.Bool(boot), eval.Bool(r.Login), eval.Bool(boot), eval.Bool(boot), eval.Int(-1), verifierText(r.Verifier), eval.Null})
				}
				return out, nil
			}},
		{OID: 12005, Schema: "pg_catalog", Name: "pg_shadow", Kind: 'v',
			Columns: eval.Columns("usename", eval.TName, "usesysid", eval.TOid, "usecreatedb", eval.TBool, "usesuper", eval.TBool, "userepl", eval.TBool,
				"usebypassrls", eval.TBool, "passwd", eval.TText, "valuntil", eval.TypeByOID(eval.OIDTimestamptz), "useconfig", eval.TTextArr),
			Rows: func(src Source) ([][]eval.Datum, error) {
				roles, err := secretRoles(src, "pg_shadow")
				if err != nil {
					return nil, err
				}
				var out [][]eval.Datum
				for _, r := range roles {
					if !r.Login {
						continue
					}
					boot := r.Bootstrap()
					out = append(out, []eval.Datum{eval.Text(r.Name), eval.Int(int64(r.OID)), eval.Bool(boot), eval.Bool(r.Superuser), eval.Bool(boot), eval.Bool(boot),
						verifierText(r.Verifier), eval.Null, roleConfig(r.Settings)})
				}
				return out, nil
			}},
	}
}

// secretRoles are the roles with their verifiers, for a superuser only
// (PostgreSQL grants pg_authid and pg_shadow to none).
func secretRoles(src Source, rel string) ([]Role, error) {
	if !src.Superuser() {
		return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for %s %s", map[bool]string{true: "table", false: "view"}[rel == "pg_authid"], rel)
	}
	return src.Roles(), nil
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
