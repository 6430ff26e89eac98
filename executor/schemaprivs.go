package executor

import (
	"context"
	"strings"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sqlerr"
)

// Privileges on schemas and on the database, as PostgreSQL 15 checks
// them. A schema's USAGE lets a role look up sequences in it (a schema
// without it is skipped on the search path, and a name qualified with it
// fails with 42501); its CREATE lets a role create sequences in it or
// move them there. The database's CREATE lets a role create schemas,
// TEMPORARY create temporary sequences, CONNECT connect. Owners hold
// every privilege on what they own. A schema owned by no role (public,
// and schemas made before schema privileges) belongs to the database's
// owner, as public belongs to pg_database_owner in PostgreSQL 15; the
// database is owned by no role (superusers) until ALTER DATABASE ...
// OWNER TO. seqd keeps no grant options: only owners and superusers
// grant.

var (
	schemaPrivNames   = map[string]engine.Privs{"usage": engine.PrivUsage, "create": engine.PrivCreate}
	databasePrivNames = map[string]engine.Privs{"create": engine.PrivCreate, "connect": engine.PrivConnect,
		"temporary": engine.PrivTemp, "temp": engine.PrivTemp}
)

// schemaOwner is the role owning a schema with ACL a ("": superusers).
func (s *Session) schemaOwner(a engine.ACL) string {
	if a.Owner == "" {
		return s.cat().DatabaseACL().Owner
	}
	return a.Owner
}

// schemaPrivileges are role's privileges on the schema, which exists.
// role may be engine.Public (PUBLIC's own).
func (s *Session) schemaPrivileges(name, role string) (engine.Privs, error) {
	if role == engine.Public {
		return s.schemaPrivilegesOf(name, role)
	}
	if s.isSuperuser(role) {
		return engine.SchemaPrivs, nil
	}
	var p engine.Privs
	for _, r := range s.rolesOf(role) { // its own and its roles' (SUPERUSER is not inherited)
		q, err := s.schemaPrivilegesOf(name, r)
		if err != nil {
			return 0, err
		}
		p |= q
	}
	return p, nil
}

// schemaPrivilegesOf are role's own privileges on the schema, as owner
// or grantee.
func (s *Session) schemaPrivilegesOf(name, role string) (engine.Privs, error) {
	if _, ok := s.tempName(name); ok {
		return engine.SchemaPrivs, nil
	}
	switch name {
	case "pg_catalog", "information_schema":
		return engine.PrivUsage, nil
	case "pg_toast":
		return 0, nil
	}
	a, err := s.cat().SchemaACL(name)
	if err != nil {
		return 0, err
	}
	if role != engine.Public && role == s.schemaOwner(a) {
		return engine.SchemaPrivs, nil
	}
	return a.Privileges(role, false) & engine.SchemaPrivs, nil
}

// checkSchema fails with PostgreSQL's 42501 unless the session user holds
// every privilege of want on the schema.
func (s *Session) checkSchema(name string, want engine.Privs) error {
	if s.isSuperuser(s.cfg.User) {
		return nil
	}
	p, err := s.schemaPrivileges(name, s.cfg.User)
	if err != nil {
		return err
	}
	if p&want != want {
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for schema %s", name)
	}
	return nil
}

// usableSchema reports whether the session user may look up names in
// the schema (the search path skips those it may not).
func (s *Session) usableSchema(name string) bool {
	return s.checkSchema(name, engine.PrivUsage) == nil
}

// databasePrivileges are role's privileges on the database.
func (s *Session) databasePrivileges(role string) engine.Privs {
	if role == engine.Public {
		return s.cat().DatabaseACL().Privileges(role, false) & engine.DatabasePrivs
	}
	if s.isSuperuser(role) {
		return engine.DatabasePrivs
	}
	var p engine.Privs
	for _, r := range s.rolesOf(role) { // its own and its roles' (SUPERUSER is not inherited)
		p |= s.cat().DatabaseACL().Privileges(r, false) & engine.DatabasePrivs
	}
	return p
}

// checkDatabase fails unless the session user holds want on the database.
func (s *Session) checkDatabase(want engine.Privs) error {
	if s.databasePrivileges(s.cfg.User)&want != want {
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for database %s", s.cfg.Database)
	}
	return nil
}

// checkMember fails unless the session user may act as role: be it, or
// be a superuser (seqd has no role membership).
func (s *Session) checkMember(role string) error {
	if !s.hasPrivsOfRole(role) {
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be member of role \"%s\"", role)
	}
	return nil
}

// checkRoleExists fails with 42704 unless role is a role (or the session
// user, which is one under trust authentication).
func (s *Session) checkRoleExists(role string) error {
	if _, ok := s.roles().Role(role); !ok && role != s.cfg.User {
		return sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", role)
	}
	return nil
}

// checkedRole is the role a has_*_privilege function asks about: a role
// that exists, or PUBLIC (spelled "public").
func (s *Session) checkedRole(name string) (string, error) {
	if name == "public" {
		return engine.Public, nil
	}
	return name, s.checkRoleExists(name)
}

// privilegeArgs splits a has_*_privilege function's arguments: the role
// asked about (the session user unless given first) and the rest.
func (s *Session) privilegeArgs(a []eval.Datum) (string, []eval.Datum, error) {
	if len(a) < 3 {
		return s.cfg.User, a, nil
	}
	r, err := s.checkedRole(a[0].S)
	return r, a[1:], err
}

// parsePrivileges reads a has_*_privilege privilege list: words of names,
// each maybe followed by WITH GRANT OPTION.
func parsePrivileges[P engine.Privs | tablePrivs](text string, names map[string]P) (want, wantGrantable P, err error) {
	for _, w := range strings.Split(text, ",") {
		w = strings.ToLower(strings.TrimSpace(w))
		grantable := strings.HasSuffix(w, "with grant option")
		w = strings.TrimSpace(strings.TrimSuffix(w, "with grant option"))
		p, ok := names[w]
		if !ok {
			return 0, 0, sqlerr.Errorf(sqlerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", w)
		}
		if grantable {
			wantGrantable |= p
		} else {
			want |= p
		}
	}
	return want, wantGrantable, nil
}

// hasPrivilege answers a has_*_privilege function: any one of want, or of
// wantGrantable with a grant option (which only owners and superusers
// hold in seqd).
func hasPrivilege[P engine.Privs | tablePrivs](have, want, wantGrantable P, owns bool) eval.Datum {
	return eval.Bool(have&want != 0 || wantGrantable != 0 && owns)
}

// hasSchemaPrivilege is has_schema_privilege([role,] schema, privileges).
func hasSchemaPrivilege(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
	s := sessionOf(e)
	role, a, err := s.privilegeArgs(a)
	if err != nil {
		return eval.Null, err
	}
	var name string
	if a[0].Kind == eval.KText {
		name = a[0].S
		if t, ok := s.tempName(name); ok {
			name = t
		}
		if name == "" || !s.schemaExists(name) {
			return eval.Null, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", a[0].S)
		}
	} else {
		for _, n := range s.schemaNames() {
			if int64(s.oids().forSchema(n)) == a[0].I {
				name = n
			}
		}
		if name == "" {
			return eval.Null, nil // PostgreSQL: NULL for an OID that is no schema
		}
	}
	want, wantGrantable, err := parsePrivileges(a[1].S, schemaPrivNames)
	if err != nil {
		return eval.Null, err
	}
	p, err := s.schemaPrivileges(name, role)
	if err != nil {
		return eval.Null, err
	}
	return hasPrivilege(p, want, wantGrantable, p == engine.SchemaPrivs && role != engine.Public && s.ownsSchema(name, role)), nil
}

// ownsSchema reports whether role owns the schema or is a superuser.
func (s *Session) ownsSchema(name, role string) bool {
	if s.isSuperuser(role) {
		return true
	}
	a, err := s.cat().SchemaACL(name)
	return err == nil && s.schemaOwner(a) == role
}

// hasDatabasePrivilege is has_database_privilege([role,] database,
// privileges).
func hasDatabasePrivilege(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
	s := sessionOf(e)
	role, a, err := s.privilegeArgs(a)
	if err != nil {
		return eval.Null, err
	}
	if a[0].Kind == eval.KText {
		if a[0].S != s.cfg.Database {
			return eval.Null, sqlerr.Errorf(sqlerr.UndefinedDatabase, "database \"%s\" does not exist", a[0].S)
		}
	} else if a[0].I != seqdDatabaseOID {
		return eval.Null, nil
	}
	want, wantGrantable, err := parsePrivileges(a[1].S, databasePrivNames)
	if err != nil {
		return eval.Null, err
	}
	owns := role != engine.Public && (s.isSuperuser(role) || s.cat().DatabaseACL().Owner == role)
	return hasPrivilege(s.databasePrivileges(role), want, wantGrantable, owns), nil
}

// grantees are a GRANT's or REVOKE's roles (engine.Public for PUBLIC).
func (s *Session) grantees(st *pg.GrantStmt) []string {
	var out []string
	for _, g := range st.Grantees {
		rs := g.GetRoleSpec()
		if rs.Roletype == pg.RoleSpecType_ROLESPEC_PUBLIC {
			out = append(out, engine.Public)
		} else {
			out = append(out, s.roleOf(rs))
		}
	}
	return out
}

// checkGrantees fails unless every grantee is a role (or PUBLIC).
func (s *Session) checkGrantees(grantees []string) error {
	for _, g := range grantees {
		if g != engine.Public {
			if err := s.checkRoleExists(g); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyGrant changes an ACL as GRANT or REVOKE does.
func applyGrant(grant bool, grantees []string, want engine.Privs) func(*engine.ACL) error {
	return func(a *engine.ACL) error {
		for _, g := range grantees {
			if grant {
				a.Grant(g, want)
			} else {
				a.Revoke(g, want)
			}
		}
		return nil
	}
}

// notGranted is what GRANT or REVOKE says to a role that does not own
// the object but holds some privilege on it: a warning, and nothing done
// (seqd keeps no grant options).
func notGranted(grant bool, name string) Notice {
	if grant {
		return warning(sqlerr.WarningPrivilegeNotGranted, "no privileges were granted for \"%s\"", name)
	}
	return warning(sqlerr.WarningPrivilegeNotRevoked, "no privileges could be revoked for \"%s\"", name)
}

// grantOnSchemaOrDatabase compiles GRANT and REVOKE ON SCHEMA | DATABASE.
func (c *planner) grantOnSchemaOrDatabase(st *pg.GrantStmt, tag string) (*Prepared, error) {
	database := st.Objtype == pg.ObjectType_OBJECT_DATABASE
	what, names, every := "schema", schemaPrivNames, engine.SchemaPrivs
	if database {
		what, names, every = "database", databasePrivNames, engine.DatabasePrivs
	}
	var want engine.Privs
	if len(st.Privileges) == 0 {
		want = every // ALL [PRIVILEGES]
	}
	for _, n := range st.Privileges {
		ap := n.GetAccessPriv()
		if len(ap.Cols) > 0 {
			return nil, sqlerr.Errorf(sqlerr.InvalidGrantOperation, "column privileges are only valid for relations")
		}
		p, ok := names[ap.PrivName]
		if !ok {
			return nil, sqlerr.Errorf(sqlerr.InvalidGrantOperation, "invalid privilege type %s for %s", strings.ToUpper(ap.PrivName), what)
		}
		want |= p
	}
	var targets []string
	for _, o := range st.Objects {
		targets = append(targets, o.GetString_().Sval)
	}
	s := c.s
	grantees := s.grantees(st)
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable(tag); err != nil {
			return nil, err
		}
		if err := s.checkGrantees(grantees); err != nil {
			return nil, err
		}
		r := commandResult(tag)
		su := s.isSuperuser(s.cfg.User)
		for _, name := range targets {
			var owner string
			var have engine.Privs
			if database {
				if name != s.cfg.Database {
					return nil, sqlerr.Errorf(sqlerr.UndefinedDatabase, "database \"%s\" does not exist", name)
				}
				owner, have = s.cat().DatabaseACL().Owner, s.databasePrivileges(s.cfg.User)
			} else {
				a, err := s.userSchemaACL(name, "privileges")
				if err != nil {
					return nil, err
				}
				owner = s.schemaOwner(a)
				if have, err = s.schemaPrivileges(name, s.cfg.User); err != nil {
					return nil, err
				}
			}
			if !su && !s.hasPrivsOfRole(owner) {
				if have == 0 {
					return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for %s %s", what, name)
				}
				r.Notices = append(r.Notices, notGranted(st.IsGrant, name))
				continue
			}
			var err error
			if database {
				err = s.ddlCat().UpdateDatabaseACL(ctx, applyGrant(st.IsGrant, grantees, want))
			} else {
				err = s.ddlCat().UpdateSchemaACL(ctx, name, applyGrant(st.IsGrant, grantees, want))
			}
			if err != nil {
				return nil, err
			}
		}
		return r, nil
	}), nil
}

// alterOwner compiles ALTER SCHEMA | DATABASE ... OWNER TO.
func (c *planner) alterOwner(st *pg.AlterOwnerStmt) (*Prepared, error) {
	database := st.ObjectType == pg.ObjectType_OBJECT_DATABASE
	tag := "ALTER SCHEMA"
	if database {
		tag = "ALTER DATABASE"
	} else if st.ObjectType != pg.ObjectType_OBJECT_SCHEMA {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support ALTER %s: it serves sequences only", objectWord(st.ObjectType))
	}
	name := st.Object.GetString_().Sval
	s := c.s
	newOwner := s.roleOf(st.Newowner)
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable(tag); err != nil {
			return nil, err
		}
		if err := s.checkRoleExists(newOwner); err != nil {
			return nil, err
		}
		su := s.isSuperuser(s.cfg.User)
		setOwner := func(a *engine.ACL) error { a.Owner = newOwner; return nil }
		if database {
			if name != s.cfg.Database {
				return nil, sqlerr.Errorf(sqlerr.UndefinedDatabase, "database \"%s\" does not exist", name)
			}
			owner := s.cat().DatabaseACL().Owner
			if owner == newOwner {
				return commandResult(tag), nil
			}
			if !su && !s.hasPrivsOfRole(owner) {
				return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be owner of database %s", name)
			}
			if err := s.checkMember(newOwner); err != nil {
				return nil, err
			}
			if !su { // PostgreSQL asks for CREATEDB, which only superusers have in seqd
				return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied to change owner of database")
			}
			if err := s.ddlCat().UpdateDatabaseACL(ctx, setOwner); err != nil {
				return nil, err
			}
			return commandResult(tag), nil
		}
		a, err := s.userSchemaACL(name, "owner")
		if err != nil {
			return nil, err
		}
		if a.Owner == newOwner {
			return commandResult(tag), nil
		}
		owner := s.schemaOwner(a)
		if !su && !s.hasPrivsOfRole(owner) {
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be owner of schema %s", name)
		}
		if err := s.checkMember(newOwner); err != nil {
			return nil, err
		}
		if err := s.checkDatabase(engine.PrivCreate); err != nil {
			return nil, err
		}
		if err := s.ddlCat().UpdateSchemaACL(ctx, name, setOwner); err != nil {
			return nil, err
		}
		return commandResult(tag), nil
	}), nil
}

// userSchemaACL is the ACL of a schema GRANT or ALTER ... OWNER TO may
// change (what: "privileges" or "owner"): one that exists and is not the
// system's.
func (s *Session) userSchemaACL(name, what string) (engine.ACL, error) {
	if _, ok := s.tempName(name); ok || isBuiltinSchema(name) {
		return engine.ACL{}, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not change the %s of schema %s: it is the system's", what, name)
	}
	if !s.cat().SchemaExists(name) {
		return engine.ACL{}, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", name)
	}
	return s.cat().SchemaACL(name)
}

// ownerOID is the OID catalogs show for an owning role ("": the
// connecting user, as for objects from before owners were kept).
func (s *Session) ownerOID(role string) int64 {
	if role == "" || role == s.bootstrapUser() {
		return superuserOID
	}
	return int64(s.oids().forSchema(roleOIDPrefix + role))
}

// schemaOwnerOID is pg_namespace.nspowner: a schema owned by no role
// shows as pg_database_owner's if it is public (as PostgreSQL 15's
// public), else as the database owner's.
func (s *Session) schemaOwnerOID(name string) int64 {
	if isBuiltinSchema(name) {
		return superuserOID
	}
	if _, ok := s.tempName(name); ok {
		return superuserOID
	}
	a, err := s.cat().SchemaACL(name)
	if err != nil {
		return superuserOID
	}
	if a.Owner == "" && name == engine.DefaultSchema {
		return dbOwnerOID
	}
	return s.ownerOID(s.schemaOwner(a))
}
