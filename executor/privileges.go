package executor

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// Privileges on sequences, as PostgreSQL checks them: the owner and
// superusers may do everything; others what was granted to them or to
// PUBLIC (USAGE: nextval, currval; SELECT: currval, SELECT FROM s;
// UPDATE: nextval, setval). ALTER, DROP, renames and comments are the
// owner's. A connection whose user is no role at all (trust
// authentication, which lets anyone in as anyone) is a superuser, as it
// could name one. A session whose user was a role when it connected and
// has been dropped since is not: it has no privileges left.

// loginIsSuperuser reports whether the user who authenticated is a
// superuser (what SET SESSION AUTHORIZATION asks, whoever the session has
// become since).
func (s *Session) loginIsSuperuser() bool {
	r, ok := s.roles().Role(s.loginUser)
	if ok {
		return r.Superuser
	}
	return !s.userWasRole
}

// isSuperuser reports whether role is a superuser (or no role at all,
// unless it is the session's user and was a role when it connected).
func (s *Session) isSuperuser(role string) bool {
	r, ok := s.roles().Role(role)
	if ok {
		return r.Superuser
	}
	return role != s.cfg.User || !s.userWasRole
}

// sequencePrivileges are role's privileges on n in eng: its own and those
// of every role it is a member of (SUPERUSER is the role's own, not
// inherited by its members); PUBLIC's alone for engine.Public.
func (s *Session) sequencePrivileges(eng seqCatalog, n engine.Name, role string) (engine.Privs, error) {
	if role == engine.Public {
		return eng.Privileges(n, role, false)
	}
	var p engine.Privs
	for _, r := range s.rolesOf(role) {
		q, err := eng.Privileges(n, r, r == role && s.isSuperuser(r))
		if err != nil {
			return 0, err
		}
		p |= q
	}
	return p, nil
}

// privilegesOn are the session user's privileges on n, cached for the
// last sequence until a role, an ACL or a name changes.
func (s *Session) privilegesOn(n engine.Name) (engine.Privs, error) {
	eng := s.engFor(n)
	// The sequence's engine's ACLs and names, and the roles (kept by the
	// server's engine, which a temporary sequence's is not).
	ver := [3]uint64{eng.AuthVersion(), eng.CatalogVersion(), s.eng.AuthVersion()}
	c := &s.privCache
	if c.ok && c.n == n && c.eng == eng && c.ver == ver {
		return c.p, nil
	}
	p, err := s.sequencePrivileges(eng, n, s.cfg.User)
	if err != nil {
		return 0, err
	}
	*c = privCache{n: n, eng: eng, ver: ver, p: p, ok: true}
	return p, nil
}

type privCache struct {
	n   engine.Name
	eng seqCatalog
	ver [3]uint64 // see privilegesOn
	p   engine.Privs
	ok  bool
}

// checkPrivilege fails with PostgreSQL's 42501 unless the session user
// holds one of want on n.
func (s *Session) checkPrivilege(n engine.Name, want engine.Privs) error {
	p, err := s.privilegesOn(n)
	if err != nil {
		return err
	}
	if p&want == 0 {
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for sequence %s", n.Rel())
	}
	return nil
}

// checkOwner fails unless the session user owns n or is a superuser.
func (s *Session) checkOwner(n engine.Name) error {
	if s.isSuperuser(s.cfg.User) {
		return nil
	}
	a, err := s.engFor(n).ACL(n)
	if err != nil {
		return err
	}
	if !s.hasPrivsOfRole(a.Owner) {
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be owner of sequence %s", n.Rel())
	}
	return nil
}

// ownerName is how catalogs show the owner: a sequence that predates
// privileges has none recorded, and is shown as the bootstrap
// superuser's.
func (s *Session) ownerName(a engine.ACL) string {
	if a.Owner == "" {
		return s.bootstrapUser()
	}
	return a.Owner
}

// privNames maps GRANT's privilege words to sequence privileges.
var privNames = map[string]engine.Privs{"usage": engine.PrivUsage, "select": engine.PrivSelect, "update": engine.PrivUpdate}

// relationOnlyPrivs are table privileges PostgreSQL accepts in GRANT ... ON
// TABLE (or no keyword) and ignores, with a warning, for a sequence.
var relationOnlyPrivs = map[string]bool{"insert": true, "delete": true, "truncate": true, "references": true, "trigger": true}

// grant compiles GRANT and REVOKE of sequence privileges.
func (c *planner) grant(st *pg.GrantStmt) (*Prepared, error) {
	tag := "GRANT"
	if !st.IsGrant {
		tag = "REVOKE"
	}
	if st.GrantOption && st.IsGrant {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support WITH GRANT OPTION")
	}
	if st.Objtype == pg.ObjectType_OBJECT_SCHEMA || st.Objtype == pg.ObjectType_OBJECT_DATABASE {
		return c.grantOnSchemaOrDatabase(st, tag)
	}
	onTable := st.Objtype == pg.ObjectType_OBJECT_TABLE
	if st.Objtype != pg.ObjectType_OBJECT_SEQUENCE && !onTable {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support %s ON %s: it serves sequences only", tag, strings.TrimPrefix(st.Objtype.String(), "OBJECT_"))
	}
	var want engine.Privs
	var ignored []string // table privileges a sequence does not have (TABLE form)
	if len(st.Privileges) == 0 {
		want = engine.PrivAll // ALL [PRIVILEGES]
	}
	for _, n := range st.Privileges {
		ap := n.GetAccessPriv()
		if len(ap.Cols) > 0 {
			return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support column privileges")
		}
		name := ap.PrivName
		if p, ok := privNames[name]; ok {
			want |= p
			continue
		}
		if onTable && relationOnlyPrivs[name] {
			ignored = append(ignored, name)
			continue
		}
		what := "sequence"
		if onTable {
			what = "relation"
		}
		return nil, sqlerr.Errorf(sqlerr.InvalidGrantOperation, "invalid privilege type %s for %s", strings.ToUpper(name), what)
	}
	grantees := c.s.grantees(st)
	all := st.Targtype == pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA
	var targets []pgsql.QName
	var schemas []string
	for _, o := range st.Objects {
		if all {
			schemas = append(schemas, o.GetString_().Sval)
		} else {
			targets = append(targets, qnameOf(o.GetRangeVar()))
		}
	}
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable(tag); err != nil {
			return nil, err
		}
		if err := s.checkGrantees(grantees); err != nil {
			return nil, err
		}
		var names []engine.Name
		for _, q := range targets {
			n, err := s.lookupSequence(q)
			if err != nil {
				if rel, rerr := s.resolveRelation(q); rerr == nil && rel.kind != 'S' {
					return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support %s on \"%s\": it serves sequences only", tag, q.Rel)
				}
				return nil, err
			}
			names = append(names, n)
		}
		for _, sc := range schemas {
			if !s.cat().SchemaExists(sc) {
				return nil, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", sc)
			}
			if err := s.checkSchema(sc, engine.PrivUsage); err != nil {
				return nil, err
			}
			names = append(names, s.cat().SchemaSequences(sc)...)
		}
		r := commandResult(tag)
		su := s.isSuperuser(s.cfg.User)
		for _, n := range names {
			if len(ignored) > 0 {
				r.Notices = append(r.Notices, warning(sqlerr.InvalidGrantOperation, "sequence \"%s\" only supports USAGE, SELECT, and UPDATE privileges", n.Rel()))
			}
			eng := s.ddlFor(n) // in a block, the block's transaction
			a, err := eng.ACL(n)
			if err != nil {
				return nil, err
			}
			if !su && !s.hasPrivsOfRole(a.Owner) {
				// Without a grant option (seqd has none) only the owner
				// grants; holding some privilege makes it a warning.
				if a.Privileges(s.cfg.User, false) == 0 {
					return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for sequence %s", n.Rel())
				}
				r.Notices = append(r.Notices, notGranted(st.IsGrant, n.Rel()))
				continue
			}
			if want == 0 {
				continue
			}
			if err := eng.UpdateACL(ctx, n, applyGrant(st.IsGrant, grantees, want)); err != nil {
				return nil, err
			}
		}
		return r, nil
	}), nil
}

// hasSequencePrivilege is has_sequence_privilege([role,] sequence, privileges).
func hasSequencePrivilege(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
	s := sessionOf(e)
	role, a, err := s.privilegeArgs(a)
	if err != nil {
		return eval.Null, err
	}
	want, wantGrantable, err := parsePrivileges(a[1].S, privNames)
	if err != nil {
		return eval.Null, err
	}
	var n engine.Name
	if a[0].Kind == eval.KText {
		q, perr := pgsql.ParseQualifiedName(a[0].S)
		if perr != nil {
			return eval.Null, perr
		}
		if n, err = s.lookupSequence(q); err != nil {
			if rel, rerr := s.resolveRelation(q); rerr == nil && rel.kind != 'S' {
				return eval.Null, sqlerr.Errorf(sqlerr.WrongObjectType, "\"%s\" is not a sequence", q.Rel)
			}
			return eval.Null, err
		}
	} else if n, err = s.sequenceByOID(uint32(a[0].I)); err != nil {
		return eval.Null, err
	}
	su := role != engine.Public && s.isSuperuser(role)
	p, owns, err := s.sequencePrivilegesOwned(n, role)
	if err != nil {
		return eval.Null, err
	}
	return hasPrivilege(p, want, wantGrantable, su || owns), nil
}

// sequencePrivilegesOwned is sequencePrivileges of n on its own engine,
// and whether role owns n (PUBLIC owns nothing).
func (s *Session) sequencePrivilegesOwned(n engine.Name, role string) (engine.Privs, bool, error) {
	p, err := s.sequencePrivileges(s.engFor(n), n, role)
	if err != nil {
		return 0, false, err
	}
	acl, err := s.engFor(n).ACL(n)
	if err != nil {
		return 0, false, err
	}
	return p, role != engine.Public && acl.Owner == role, nil
}

// ownedBy describes what in the catalog depends on role, as DROP ROLE's
// DETAIL lists it: the schemas, sequences and database it owns or was
// granted privileges on. PostgreSQL lists them in OID order; seqd lists
// schemas by name, then sequences in the order they were created, then
// the database.
func (s *Session) ownedBy(role string) []string {
	var out []string
	describe := func(what, name string, a engine.ACL) {
		if a.Owner == role {
			out = append(out, fmt.Sprintf("owner of %s %s", what, name))
		} else if _, ok := a.Grants[role]; ok {
			out = append(out, fmt.Sprintf("privileges for %s %s", what, name))
		}
	}
	for _, n := range s.cat().Schemas() {
		if a, err := s.cat().SchemaACL(n); err == nil {
			describe("schema", n, a)
		}
	}
	infos := s.cat().List()
	sort.Slice(infos, func(i, j int) bool { return infos[i].ID < infos[j].ID })
	acls := s.cat().ACLs()
	for _, i := range infos {
		if a, ok := acls[i.ID]; ok {
			describe("sequence", i.Name.Rel(), a)
		}
	}
	describe("database", s.cfg.Database, s.cat().DatabaseACL())
	return out
}

// changeOwner is OWNER TO role: the role must exist, and a role that is
// not a superuser can give its sequences to none but itself (seqd has no
// role membership).
func (s *Session) changeOwner(ctx context.Context, n engine.Name, role string) error {
	if err := s.checkRoleExists(role); err != nil {
		return err
	}
	if err := s.checkMember(role); err != nil {
		return err
	}
	// As PostgreSQL: a new owner, unless a superuser gives it, must be
	// able to create in the schema.
	if !s.isSuperuser(s.cfg.User) && !s.isTemp(n) {
		if p, err := s.schemaPrivileges(n.Schema(), role); err != nil || p&engine.PrivCreate == 0 {
			return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for schema %s", n.Schema())
		}
	}
	return s.ddlFor(n).UpdateACL(ctx, n, func(a *engine.ACL) error {
		a.Owner = role
		return nil
	})
}
