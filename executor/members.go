package executor

import (
	"context"
	"slices"
	"strings"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sqlerr"
)

// Role membership, as PostgreSQL 15's: GRANT role TO role [WITH ADMIN
// OPTION] and REVOKE [ADMIN OPTION FOR] role FROM role; a member holds
// the privileges of every role it is a member of, directly or through
// others (INHERIT, PostgreSQL's default and the only behaviour here),
// and may SET ROLE to any of them. Memberships are kept in the member's
// role record (engine.Role.MemberOf), so they are transactional with
// the rest of the catalog and go when either role is dropped.

// rolesOf is role and every role it is a member of, directly or not.
func (s *Session) rolesOf(role string) []string {
	out := []string{role}
	seen := map[string]bool{role: true}
	for i := 0; i < len(out); i++ {
		r, ok := s.roles().Role(out[i])
		if !ok {
			continue
		}
		for _, m := range r.MemberOf {
			if !seen[m.Role] {
				seen[m.Role] = true
				out = append(out, m.Role)
			}
		}
	}
	return out
}

// isMemberOf reports whether member is role or a member of it, directly
// or not (superusers are members of every role).
func (s *Session) isMemberOf(member, role string) bool {
	return s.isSuperuser(member) || s.isMemberOfNoSuper(member, role)
}

// hasPrivsOfRole reports whether the current user holds role's
// privileges: it is role, a member of it, or a superuser. Owners are
// checked with it, as PostgreSQL's has_privs_of_role.
func (s *Session) hasPrivsOfRole(role string) bool {
	return s.isMemberOf(s.cfg.User, role)
}

// isAdminOf reports whether member may grant and revoke role: it holds
// role WITH ADMIN OPTION, directly or through a role it is a member of.
func (s *Session) isAdminOf(member, role string) bool {
	for _, r := range s.rolesOf(member) {
		rr, ok := s.roles().Role(r)
		if !ok {
			continue
		}
		for _, m := range rr.MemberOf {
			if m.Role == role && m.Admin {
				return true
			}
		}
	}
	return false
}

func (c *planner) grantRole(st *pg.GrantRoleStmt) (*Prepared, error) {
	s := c.s
	admin := false
	for _, o := range st.Opt {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "admin":
			// GRANT ... WITH ADMIN OPTION; REVOKE ADMIN OPTION FOR ...
			// (the grammar gives it as admin false: revoke only that).
			admin = true
		default:
			return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support the %s option of GRANT role (members always inherit)", strings.ToUpper(d.Defname))
		}
	}
	// seqd records every role grant as made by the bootstrap superuser
	// (pg_auth_members.grantor): GRANTED BY may name that role only
	// (pg_dumpall's), by a superuser or that role itself.
	if st.Grantor != nil {
		boot := s.roleName(superuserOID)
		if g := s.roleOf(st.Grantor); g != boot {
			return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd records role grants as made by %s: GRANTED BY %s is not supported", boot, g)
		}
		if !s.isSuperuser(s.cfg.User) && s.cfg.User != boot {
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to specify a grantor other than the current user")
		}
	}
	var granted, members []string
	for _, n := range st.GrantedRoles {
		granted = append(granted, n.GetAccessPriv().GetPrivName())
	}
	for _, n := range st.GranteeRoles {
		members = append(members, s.roleOf(n.GetRoleSpec()))
	}
	tag := "GRANT ROLE"
	if !st.IsGrant {
		tag = "REVOKE ROLE"
	}
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable(tag); err != nil {
			return nil, err
		}
		r := commandResult(tag)
		for _, role := range granted {
			target, ok := s.roles().Role(role)
			if !ok {
				return nil, sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", role)
			}
			// PostgreSQL 15's AddRoleMems and DelRoleMems.
			switch {
			case target.Superuser:
				if !s.isSuperuser(s.cfg.User) {
					return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to alter superusers")
				}
			case !s.mayAdministerRoles() && !s.isAdminOf(s.cfg.User, role):
				return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must have admin option on role \"%s\"", role)
			}
			for _, member := range members {
				m, ok := s.roles().Role(member)
				if !ok {
					return nil, sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", member)
				}
				notice, err := s.changeMembership(ctx, &m, role, st.IsGrant, admin)
				if err != nil {
					return nil, err
				}
				if notice != nil {
					r.Notices = append(r.Notices, *notice)
				}
			}
		}
		return r, nil
	}), nil
}

// changeMembership grants role to member (or revokes it), with or
// without the admin option; a grant or revoke that changes nothing is
// PostgreSQL's notice or warning.
func (s *Session) changeMembership(ctx context.Context, member *engine.Role, role string, grant, admin bool) (*Notice, error) {
	// The catalog's copy shares this slice: changed in place, a grant
	// that then fails or is rolled back would stay in effect.
	member.MemberOf = slices.Clone(member.MemberOf)
	i := -1
	for k, m := range member.MemberOf {
		if m.Role == role {
			i = k
		}
	}
	if grant {
		if i >= 0 && (!admin || member.MemberOf[i].Admin) {
			n := notice(sqlerr.SuccessfulCompletion, "role \"%s\" is already a member of role \"%s\"", member.Name, role)
			return &n, nil
		}
		if i < 0 {
			// A role a member of itself, or of one of its own members,
			// would make a cycle.
			if member.Name == role || s.isMemberOfNoSuper(role, member.Name) {
				return nil, sqlerr.Errorf(sqlerr.InvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", role, member.Name)
			}
			member.MemberOf = append(member.MemberOf, engine.Membership{Role: role, Admin: admin})
		} else {
			member.MemberOf[i].Admin = true
		}
	} else {
		if i < 0 {
			n := warning(sqlerr.Warning, "role \"%s\" is not a member of role \"%s\"", member.Name, role)
			return &n, nil
		}
		if admin { // REVOKE ADMIN OPTION FOR
			member.MemberOf[i].Admin = false
		} else {
			member.MemberOf = append(member.MemberOf[:i:i], member.MemberOf[i+1:]...)
		}
	}
	return nil, s.roleDDL().PutRole(ctx, *member, false)
}

// isMemberOfNoSuper is isMemberOf without the superuser shortcut
// (PostgreSQL's is_member_of_role_nosuper), for cycles.
func (s *Session) isMemberOfNoSuper(member, role string) bool {
	for _, r := range s.rolesOf(member) {
		if r == role {
			return true
		}
	}
	return false
}

// dropMemberships removes every membership in role (the role is being
// dropped): PostgreSQL deletes its pg_auth_members rows with it.
func (s *Session) dropMemberships(ctx context.Context, role string) error {
	for _, r := range s.roles().Roles() {
		kept := r.MemberOf[:0:0]
		for _, m := range r.MemberOf {
			if m.Role != role {
				kept = append(kept, m)
			}
		}
		if len(kept) != len(r.MemberOf) {
			r.MemberOf = kept
			if err := s.roleDDL().PutRole(ctx, r, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkIdentitySetting checks SET SESSION AUTHORIZATION and SET ROLE,
// the settings that change who the session is; others pass.
func (s *Session) checkIdentitySetting(name, value string) error {
	switch name {
	case "session_authorization":
		return s.checkSessionAuthorization(value)
	case "role":
		return s.checkSetRole(value)
	}
	return nil
}

// checkSessionAuthorization is PostgreSQL 15's SetSessionAuthorization:
// only a session that authenticated as a superuser may become another
// user.
func (s *Session) checkSessionAuthorization(user string) error {
	if user == s.loginUser {
		return nil
	}
	if _, ok := s.roles().Role(user); !ok {
		return sqlerr.Errorf(sqlerr.InvalidParameterValue, "role \"%s\" does not exist", user)
	}
	if !s.loginIsSuperuser() {
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied to set session authorization \"%s\"", user)
	}
	return nil
}

// checkSetRole is SET ROLE's check: the role exists, and the session's
// user (who authenticated, or became by SET SESSION AUTHORIZATION) is a
// member of it or a superuser.
func (s *Session) checkSetRole(role string) error {
	if strings.EqualFold(role, "none") {
		return nil
	}
	if _, ok := s.roles().Role(role); !ok {
		return sqlerr.Errorf(sqlerr.InvalidParameterValue, "role \"%s\" does not exist", role)
	}
	if !s.isMemberOf(s.sessionUser(), role) {
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied to set role \"%s\"", role)
	}
	return nil
}

// sessionUser is PostgreSQL's session_user: who authenticated, or whom
// SET SESSION AUTHORIZATION made the session.
func (s *Session) sessionUser() string {
	if u := s.settings.get("session_authorization"); u != "" {
		return u
	}
	return s.loginUser
}

// pgHasRole is pg_has_role([user,] role, privilege): MEMBER or USAGE
// (the same here: members always inherit), either WITH ADMIN OPTION.
func pgHasRole(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
	s := sessionOf(e)
	user := s.cfg.User
	if len(a) == 3 {
		u, err := s.checkedRole(a[0].S)
		if err != nil {
			return eval.Null, err
		}
		user, a = u, a[1:]
	}
	role := a[0].S
	if _, ok := s.roles().Role(role); !ok && role != s.cfg.User {
		return eval.Null, sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", role)
	}
	any := false
	for _, w := range strings.Split(a[1].S, ",") {
		w = strings.ToLower(strings.Join(strings.Fields(w), " "))
		admin := false
		for _, suffix := range []string{" with admin option", " with grant option"} {
			if strings.HasSuffix(w, suffix) {
				w, admin = strings.TrimSuffix(w, suffix), true
			}
		}
		if w != "member" && w != "usage" {
			return eval.Null, sqlerr.Errorf(sqlerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", w)
		}
		if admin {
			any = any || s.isSuperuser(user) || s.isAdminOf(user, role)
		} else {
			any = any || s.isMemberOf(user, role)
		}
	}
	return eval.Bool(any), nil
}

// followRenames keeps the roles the session holds by name (who logged
// in, whom SET SESSION AUTHORIZATION and SET ROLE made it, in its
// settings and in those a ROLLBACK would restore) its own when another
// session renames them, as PostgreSQL's sessions hold roles by OID; the
// owners and grantees of its temporary sequences follow once no block
// holds them. One atomic load per statement when nothing changed.
func (s *Session) followRenames() {
	if s.eng.AuthVersion() == s.authSeen && s.tempRenames == nil {
		return
	}
	renames, v := s.eng.RoleRenamesSince(s.authSeen)
	s.authSeen = v
	for _, r := range renames {
		s.renameHeld(r.From, r.To)
	}
	if s.tempEng != nil {
		s.tempRenames = append(s.tempRenames, renames...)
	}
	if s.tempTxn == nil {
		s.renameInTemp()
	}
}

// renameHeld makes every name of role from the session holds to.
func (s *Session) renameHeld(from, to string) {
	if s.loginUser == from {
		s.loginUser = to
	}
	if s.cfg.User == from {
		s.cfg.User = to
		s.privCache = privCache{}
		s.pathVersion++
	}
	s.settings.renameRole(from, to)
	renameIn := func(m map[string]string) {
		for _, k := range []string{"session_authorization", "role"} {
			if m[k] == from {
				m[k] = to
			}
		}
	}
	renameIn(s.tx.saved)
	for _, sp := range s.tx.savepoints {
		renameIn(sp.settings)
	}
}

// renameInTemp applies the pending renames to the temporary sequences'
// ACLs. REQUIRES: no block holds the temporary engine's locks (tempTxn
// nil), so that nothing waits.
func (s *Session) renameInTemp() {
	for _, r := range s.tempRenames {
		for _, i := range s.tempEng.List() {
			if a, err := s.tempEng.ACL(i.Name); err == nil && a.Names(r.From) {
				// The temporary engine lives in memory: this cannot fail
				// but for a closed engine, which holds nothing.
				_ = s.tempEng.UpdateACL(context.Background(), i.Name, func(a *engine.ACL) error {
					a.RenameRole(r.From, r.To)
					return nil
				})
			}
		}
	}
	s.tempRenames = nil
}
