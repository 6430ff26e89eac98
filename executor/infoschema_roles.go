// information_schema's relations of roles and of USAGE grants, as
// PostgreSQL 15 defines them over its catalog: enabled_roles,
// applicable_roles, administrable_role_authorizations, usage_privileges
// and role_usage_grants.

package executor

import (
	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// enabledRolesRows are the roles whose privileges the current user holds
// (itself, the roles it inherits; every role for a superuser).
func (s *Session) enabledRolesRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, r := range s.roleList() {
		if s.hasPrivsOfRole(r.Name) {
			out = append(out, []eval.Datum{eval.Text(r.Name)})
		}
	}
	return out, nil
}

// applicableRolesRows are the memberships of the enabled roles: grantee,
// role_name, is_grantable (WITH ADMIN OPTION); the database's owner is a
// member of pg_database_owner.
func (s *Session) applicableRolesRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	dba := s.cat().DatabaseACL().Owner
	for _, r := range s.roleList() {
		if !s.hasPrivsOfRole(r.Name) {
			continue
		}
		for _, m := range r.MemberOf {
			out = append(out, []eval.Datum{eval.Text(r.Name), eval.Text(m.Role), catalog.YesNo(m.Admin)})
		}
		if r.Name == dba {
			out = append(out, []eval.Datum{eval.Text(r.Name), eval.Text("pg_database_owner"), catalog.YesNo(false)})
		}
	}
	return out, nil
}

// administrableRolesRows are applicable_roles' rows held WITH ADMIN
// OPTION.
func (s *Session) administrableRolesRows() ([][]eval.Datum, error) {
	rows, err := s.applicableRolesRows()
	var out [][]eval.Datum
	for _, r := range rows {
		if r[2].S == "YES" {
			out = append(out, r)
		}
	}
	return out, err
}

// usagePrivilegesRows are the USAGE grants the current user may see
// (granted by or to a role it holds, or to PUBLIC): every collation's
// implicit one to PUBLIC, and each sequence's, as PostgreSQL lists them:
// a sequence whose ACL is still its default (relacl NULL) is not listed,
// as PostgreSQL reads a NULL one as a table's default, which has no
// USAGE. seqd has no domains, foreign-data wrappers or servers.
func (s *Session) usagePrivilegesRows() ([][]eval.Datum, error) {
	db := eval.Text(s.cfg.Database)
	row := func(grantor, grantee, schema, name, kind string, grantable bool) []eval.Datum {
		return []eval.Datum{eval.Text(grantor), eval.Text(grantee), db, eval.Text(schema), eval.Text(name), eval.Text(kind),
			eval.Text("USAGE"), catalog.YesNo(grantable)}
	}
	var out [][]eval.Datum
	super := s.roleName(superuserOID)
	for _, c := range catalog.BuiltinCollations {
		out = append(out, row(super, "PUBLIC", "pg_catalog", c, "COLLATION", false))
	}
	// A sequence without grants has no rows (its aclitem[] is NULL).
	granted, err := s.sequencesWhere(func(a engine.ACL, _ string) bool { return len(a.Grants) > 0 })
	if err != nil {
		return nil, err
	}
	for _, i := range granted {
		a, err := s.engFor(i.Name).ACL(i.Name)
		if err != nil {
			return nil, err
		}
		owner := s.ownerName(a)
		if catalog.ACLItems(a, owner, catalog.ACLSequence).IsNull() {
			continue
		}
		visible := s.hasPrivsOfRole(owner)
		if visible {
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
			if visible || g == engine.Public || s.hasPrivsOfRole(g) {
				out = append(out, row(owner, grantee, i.Name.Schema(), i.Name.Rel(), "SEQUENCE", g != engine.Public && s.isMemberOf(g, owner)))
			}
		}
	}
	return out, nil
}

// roleUsageGrantsRows are usage_privileges' rows granted by or to an
// enabled role.
func (s *Session) roleUsageGrantsRows() ([][]eval.Datum, error) {
	return s.byEnabledRoles(s.usagePrivilegesRows())
}

// isEnabledRole reports whether name is a role the current user holds
// (itself included, a role or not: a name trust authentication let in).
func (s *Session) isEnabledRole(name string) bool {
	if name == s.cfg.User {
		return true
	}
	_, ok := s.roles().Role(name)
	return ok && s.hasPrivsOfRole(name)
}
