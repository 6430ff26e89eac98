package catalog

import (
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// information_schema's relations of roles and of USAGE grants, as
// PostgreSQL 15 defines them over its catalog: enabled_roles,
// applicable_roles, administrable_role_authorizations, usage_privileges
// and role_usage_grants.

// enabledRolesRows are the roles whose privileges the current role
// holds (itself, the roles it inherits; every role for a superuser).
func enabledRolesRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, r := range src.Roles() {
		if src.HasPrivsOfRole(r.Name) {
			out = append(out, []eval.Datum{eval.Text(r.Name)})
		}
	}
	return out, nil
}

// applicableRolesRows are the memberships of the enabled roles: grantee,
// role_name, is_grantable (WITH ADMIN OPTION); the database's owner is a
// member of pg_database_owner.
func applicableRolesRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	dba := src.DatabaseACL().Owner
	for _, r := range src.Roles() {
		if !src.HasPrivsOfRole(r.Name) {
			continue
		}
		for _, m := range r.MemberOf {
			out = append(out, []eval.Datum{eval.Text(r.Name), eval.Text(m.Role), YesNo(m.Admin)})
		}
		if r.Name == dba {
			out = append(out, []eval.Datum{eval.Text(r.Name), eval.Text("pg_database_owner"), YesNo(false)})
		}
	}
	return out, nil
}

// administrableRolesRows are applicable_roles' rows held WITH ADMIN
// OPTION.
func administrableRolesRows(src Source) ([][]eval.Datum, error) {
	rows, err := applicableRolesRows(src)
	var out [][]eval.Datum
	for _, r := range rows {
		if r[2].S == "YES" {
			out = append(out, r)
		}
	}
	return out, err
}

// usagePrivilegesRows are the USAGE grants the current role may see
// (granted by or to a role it holds, or to PUBLIC): every collation's
// implicit one to PUBLIC, and each sequence's, as PostgreSQL lists them:
// a sequence whose ACL is still its default (relacl NULL) is not listed,
// as PostgreSQL reads a NULL one as a table's default, which has no
// USAGE. seqd has no domains, foreign-data wrappers or servers.
func usagePrivilegesRows(src Source) ([][]eval.Datum, error) {
	db := eval.Text(src.Database())
	row := func(grantor, grantee, schema, name, kind string, grantable bool) []eval.Datum {
		return []eval.Datum{eval.Text(grantor), eval.Text(grantee), db, eval.Text(schema), eval.Text(name), eval.Text(kind),
			eval.Text("USAGE"), YesNo(grantable)}
	}
	var out [][]eval.Datum
	super := src.RoleName(SuperuserOID)
	for _, c := range BuiltinCollations {
		out = append(out, row(super, "PUBLIC", "pg_catalog", c, "COLLATION", false))
	}
	seqs, err := src.SequenceACLs()
	if err != nil {
		return nil, err
	}
	for _, i := range seqs {
		// A sequence whose aclitem[] is NULL has no rows.
		a := i.ACL
		owner := src.Owner(a)
		if ACLItems(a, owner, ACLSequence).IsNull() {
			continue
		}
		visible := src.HasPrivsOfRole(owner)
		if visible && (engine.PrivAll&^a.OwnerRevoked|a.Grants[owner])&engine.PrivUsage != 0 {
			out = append(out, row(owner, owner, i.Name.Schema(), i.Name.Rel(), "SEQUENCE", true))
		}
		for _, g := range a.Grantees() {
			if g == owner || a.Grants[g]&engine.PrivUsage == 0 {
				continue
			}
			grantee := g
			if g == engine.Public {
				grantee = "PUBLIC"
			}
			if visible || g == engine.Public || src.HasPrivsOfRole(g) {
				out = append(out, row(owner, grantee, i.Name.Schema(), i.Name.Rel(), "SEQUENCE", g != engine.Public && src.IsMemberOf(g, owner)))
			}
		}
	}
	return out, nil
}

// byEnabledRoles are a view's rows granted by or to an enabled role
// (their first two columns, grantor and grantee): role_usage_grants of
// usage_privileges, and the like.
func byEnabledRoles(rows func(Source) ([][]eval.Datum, error)) func(Source) ([][]eval.Datum, error) {
	return func(src Source) ([][]eval.Datum, error) {
		all, err := rows(src)
		if err != nil {
			return nil, err
		}
		roles := map[string]bool{}
		for _, r := range src.StoredRoles() {
			roles[r.Name] = true
		}
		// A role the current role holds, itself included, a role or not
		// (a name trust authentication let in).
		enabled := func(name string) bool { return name == src.User() || roles[name] && src.HasPrivsOfRole(name) }
		out := all[:0]
		for _, r := range all {
			if enabled(r[0].S) || enabled(r[1].S) {
				out = append(out, r)
			}
		}
		return out, nil
	}
}
