package executor

import (
	"context"
	"errors"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// CREATE ROLE|USER, ALTER ROLE ... [WITH] options, DROP ROLE. Roles are
// who may connect under scram-sha-256 authentication and who holds
// privileges; in a transaction they take effect at COMMIT, as other DDL.

// roleOptions applies a role statement's options to r: PASSWORD 'x' (or
// NULL, or a SCRAM verifier), [NO]LOGIN, [NO]SUPERUSER, [NO]CREATEROLE;
// INHERIT, NOCREATEDB, NOREPLICATION, NOBYPASSRLS and CONNECTION LIMIT -1
// say what seqd's roles are (and CREATEDB, REPLICATION, BYPASSRLS beside
// SUPERUSER, which needs none), as pg_dumpall writes them; PostgreSQL's
// other role options mean nothing here and are refused rather than
// ignored.
func (c *planner) roleOptions(r *engine.Role, opts []*pg.Node) (password *string, err error) {
	seen := map[string]bool{}
	for _, o := range opts {
		d := o.GetDefElem()
		if seen[d.Defname] {
			return nil, c.ErrAt(d.Location, sqlerr.SyntaxError, "conflicting or redundant options")
		}
		seen[d.Defname] = true
		switch d.Defname {
		case "password":
			p := ""
			if str := d.Arg.GetString_(); str != nil {
				p = str.Sval
			} else {
				r.Verifier = nil // PASSWORD NULL
				continue
			}
			password = &p
		case "canlogin":
			r.Login = d.Arg.GetBoolean().GetBoolval()
		case "superuser":
			r.Superuser = d.Arg.GetBoolean().GetBoolval()
		case "createrole":
			r.CreateRole = d.Arg.GetBoolean().GetBoolval()
		case "inherit":
			// Members always inherit here (pg_roles.rolinherit).
			if !d.Arg.GetBoolean().GetBoolval() {
				return nil, c.ErrAt(d.Location, sqlerr.FeatureNotSupported, "seqd does not support NOINHERIT: members always inherit")
			}
		case "createdb", "isreplication", "bypassrls":
			// seqd has none of these to give; a superuser needs none
			// (pg_dumpall writes them for its bootstrap superuser).
			if d.Arg.GetBoolean().GetBoolval() && !superuserIn(opts) {
				return nil, c.ErrAt(d.Location, sqlerr.FeatureNotSupported, "seqd does not support the role option %s", roleOptionName(d.Defname))
			}
		case "connectionlimit":
			if d.Arg.GetInteger().GetIval() != -1 {
				return nil, c.ErrAt(d.Location, sqlerr.FeatureNotSupported, "seqd does not support CONNECTION LIMIT for a role (-max-connections bounds them all)")
			}
		default:
			return nil, c.ErrAt(d.Location, sqlerr.FeatureNotSupported, "seqd does not support the role option %s", roleOptionName(d.Defname))
		}
	}
	return password, nil
}

// superuserIn reports whether role options set SUPERUSER.
func superuserIn(opts []*pg.Node) bool {
	for _, o := range opts {
		if d := o.GetDefElem(); d.Defname == "superuser" && d.Arg.GetBoolean().GetBoolval() {
			return true
		}
	}
	return false
}

// roleOptionName is a role option as SQL spells it.
func roleOptionName(defname string) string {
	switch defname {
	case "isreplication":
		return "REPLICATION"
	case "canlogin":
		return "LOGIN"
	}
	return strings.ToUpper(defname)
}

func (c *planner) createRole(st *pg.CreateRoleStmt) (*Prepared, error) {
	if st.StmtType == pg.RoleStmtType_ROLESTMT_GROUP {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support CREATE GROUP")
	}
	name := st.Role
	r := engine.Role{Name: name, Login: st.StmtType == pg.RoleStmtType_ROLESTMT_USER}
	// IN ROLE, ROLE and ADMIN: memberships made with the role.
	var inRoles, members, admins []string
	var opts []*pg.Node
	for _, o := range st.Options {
		var list *[]string
		switch o.GetDefElem().GetDefname() {
		case "addroleto":
			list = &inRoles
		case "rolemembers":
			list = &members
		case "adminmembers":
			list = &admins
		default:
			opts = append(opts, o)
			continue
		}
		for _, n := range o.GetDefElem().GetArg().GetList().GetItems() {
			*list = append(*list, c.s.roleOf(n.GetRoleSpec()))
		}
	}
	password, err := c.roleOptions(&r, opts)
	if err != nil {
		return nil, err
	}
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("CREATE ROLE"); err != nil {
			return nil, err
		}
		// PostgreSQL 15's CreateRole: the privilege first, then the name.
		switch {
		case r.Superuser && !s.isSuperuser(s.cfg.User):
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to create superusers")
		case !s.mayAdministerRoles():
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied to create role")
		}
		if strings.HasPrefix(name, "pg_") {
			return nil, sqlerr.Errorf(sqlerr.ReservedName, "role name \"%s\" is reserved", name).WithDetail("Role names starting with \"pg_\" are reserved.")
		}
		if err := setPassword(&r, password); err != nil {
			return nil, err
		}
		return commandResult("CREATE ROLE"), s.createRoleWith(ctx, r, inRoles, members, admins)
	}), nil
}

// createRoleWith creates r, a member of inRoles, with members and admins
// (WITH ADMIN OPTION) as its members: in one transaction, as
// PostgreSQL's CREATE ROLE, with GRANT's checks of each membership.
func (s *Session) createRoleWith(ctx context.Context, r engine.Role, inRoles, members, admins []string) error {
	if len(inRoles)+len(members)+len(admins) == 0 {
		return s.roleDDL().PutRole(ctx, r, true)
	}
	cat := s.roleDDL()
	if !s.inBlock() {
		t := s.eng.Begin()
		defer t.Rollback()
		cat = t
		if err := s.putRoleWith(ctx, cat, r, inRoles, members, admins); err != nil {
			return err
		}
		return t.Commit(ctx)
	}
	return s.putRoleWith(ctx, cat, r, inRoles, members, admins)
}

func (s *Session) putRoleWith(ctx context.Context, cat roleCatalog, r engine.Role, inRoles, members, admins []string) error {
	for _, g := range inRoles {
		target, ok := s.roles().Role(g)
		switch {
		case !ok:
			return sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", g)
		case target.Superuser && !s.isSuperuser(s.cfg.User):
			return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to alter superusers")
		case slices.ContainsFunc(r.MemberOf, func(m engine.Membership) bool { return m.Role == g }):
			continue
		}
		r.MemberOf = append(r.MemberOf, engine.Membership{Role: g})
	}
	if err := cat.PutRole(ctx, r, true); err != nil {
		return err
	}
	for i, m := range append(append([]string(nil), members...), admins...) {
		member, ok := s.roles().Role(m)
		if !ok {
			return sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", m)
		}
		// The role is new: only a role it was made a member of can make
		// a cycle.
		for _, g := range inRoles {
			if g == m || s.isMemberOfNoSuper(g, m) {
				return sqlerr.Errorf(sqlerr.InvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", r.Name, m)
			}
		}
		admin := i >= len(members)
		member.MemberOf = slices.Clone(member.MemberOf) // the catalog's copy shares it
		k := slices.IndexFunc(member.MemberOf, func(ms engine.Membership) bool { return ms.Role == r.Name })
		if k >= 0 {
			member.MemberOf[k].Admin = member.MemberOf[k].Admin || admin
		} else {
			member.MemberOf = append(member.MemberOf, engine.Membership{Role: r.Name, Admin: admin})
		}
		if err := cat.PutRole(ctx, member, false); err != nil {
			return err
		}
	}
	return nil
}

// setPassword stores a verifier of the password, never the password.
func setPassword(r *engine.Role, password *string) error {
	if password == nil {
		return nil
	}
	if *password == "" {
		r.Verifier = nil // PostgreSQL: an empty password is no password
		return nil
	}
	// A SCRAM-SHA-256 verifier (pg_dumpall's) is kept as it is, as
	// PostgreSQL keeps one; an MD5 hash cannot become one.
	if v, ok := auth.ParseVerifierText(*password); ok {
		r.Verifier = v
		return nil
	}
	if len(*password) == 35 && strings.HasPrefix(*password, "md5") && strings.Trim((*password)[3:], "0123456789abcdef") == "" {
		return sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not take MD5 password hashes: give the password, or its SCRAM-SHA-256 verifier")
	}
	v, err := auth.NewVerifier(*password)
	if err != nil {
		return err
	}
	r.Verifier = v
	return nil
}

// mayAdministerRoles is PostgreSQL's have_createrole_privilege: the
// current user is a superuser or has CREATEROLE.
func (s *Session) mayAdministerRoles() bool {
	if s.isSuperuser(s.cfg.User) {
		return true
	}
	r, ok := s.roles().Role(s.cfg.User)
	return ok && r.CreateRole
}

// mayAlterRole is PostgreSQL 15's AlterRole check of who may change what:
// a superuser role, or the SUPERUSER attribute, only by a superuser;
// other roles by a superuser or a CREATEROLE role; without CREATEROLE,
// only one's own password.
func (s *Session) mayAlterRole(target engine.Role, opts []*pg.Node) error {
	if s.isSuperuser(s.cfg.User) {
		return nil
	}
	onlyPassword := len(opts) > 0
	for _, o := range opts {
		switch o.GetDefElem().Defname {
		case "superuser":
			return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
		case "password":
		default:
			onlyPassword = false
		}
	}
	switch {
	case target.Superuser:
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
	case s.mayAdministerRoles():
		return nil
	case onlyPassword && target.Name == s.cfg.User:
		return nil
	}
	return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied")
}

// roleOf is the name a RoleSpec stands for.
func (s *Session) roleOf(spec *pg.RoleSpec) string {
	switch spec.Roletype {
	case pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_SESSION_USER, pg.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		return s.cfg.User
	}
	return spec.Rolename
}

func (c *planner) alterRole(st *pg.AlterRoleStmt) (*Prepared, error) {
	s := c.s
	name := s.roleOf(st.Role)
	var changes engine.Role
	// The options are applied to the role as it is when the statement
	// runs; compile them once here to report errors at once.
	if _, err := c.roleOptions(&changes, st.Options); err != nil {
		return nil, err
	}
	return command(func(ctx context.Context) (*Result, error) {
		r, err := s.roleToAlter(name)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(r.Name, "pg_") { // pg_monitor, which seqd makes as PostgreSQL has it
			return nil, sqlerr.Errorf(sqlerr.ReservedName, "role name \"%s\" is reserved", r.Name).WithDetail("Cannot alter reserved roles.")
		}
		if err := s.mayAlterRole(r, st.Options); err != nil {
			return nil, err
		}
		password, err := c.roleOptions(&r, st.Options)
		if err != nil {
			return nil, err
		}
		if err := setPassword(&r, password); err != nil {
			return nil, err
		}
		if err := s.roleDDL().PutRole(ctx, r, false); err != nil {
			return nil, err
		}
		return commandResult("ALTER ROLE"), nil
	}), nil
}

func (c *planner) dropRole(st *pg.DropRoleStmt) (*Prepared, error) {
	s := c.s
	var names []string
	for _, n := range st.Roles {
		names = append(names, s.roleOf(n.GetRoleSpec()))
	}
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("DROP ROLE"); err != nil {
			return nil, err
		}
		// PostgreSQL 15's DropRole: CREATEROLE first; then, role by role,
		// existence, the current user, and superusers only by superusers.
		if !s.mayAdministerRoles() {
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied to drop role")
		}
		r := commandResult("DROP ROLE")
		for _, name := range names {
			if name == s.cfg.User {
				return nil, sqlerr.Errorf(sqlerr.ObjectInUse, "current user cannot be dropped")
			}
			if _, ok := s.roles().Role(name); ok && strings.HasPrefix(name, "pg_") {
				// pg_monitor, which seqd makes as PostgreSQL has it.
				return nil, sqlerr.Errorf(sqlerr.DependentObjectsStillExist, "cannot drop role %s because it is required by the database system", name)
			}
			if target, ok := s.roles().Role(name); ok && target.Superuser && !s.isSuperuser(s.cfg.User) {
				return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to drop superusers")
			}
			if deps := s.ownedBy(name); len(deps) > 0 {
				e := sqlerr.Errorf(sqlerr.DependentObjectsStillExist, "role \"%s\" cannot be dropped because some objects depend on it", name)
				e.Detail = strings.Join(deps, "\n")
				return nil, e
			}
			if err := s.dropMemberships(ctx, name); err != nil {
				return nil, err
			}
			err := s.roleDDL().DropRole(ctx, name)
			if errors.Is(err, engine.ErrNoRole) {
				if st.MissingOk {
					r.Notices = append(r.Notices, notice(sqlerr.SuccessfulCompletion, "role \"%s\" does not exist, skipping", name))
					continue
				}
				return nil, sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
			}
			if err != nil {
				return nil, err
			}
		}
		return r, nil
	}), nil
}

// renameRole is ALTER ROLE name RENAME TO newname, with PostgreSQL 15's
// RenameRole checks in its order. The role keeps everything it owns,
// holds and is a member of (the engine rewrites every record naming it,
// in one transaction), its password (a SCRAM verifier does not depend
// on the name) and its settings; other sessions logged in as it follow
// it to its new name at their next statement.
func (c *planner) renameRole(from, newName string) (*Prepared, error) {
	s, to := c.s, pgsql.TruncateIdentifier(newName)
	return command(func(ctx context.Context) (*Result, error) {
		r, err := s.roleToAlter(from)
		if err != nil {
			return nil, err
		}
		switch {
		case from == s.sessionUser():
			return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "session user cannot be renamed")
		case from == s.cfg.User:
			return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "current user cannot be renamed")
		}
		for _, n := range []string{from, to} {
			if strings.HasPrefix(n, "pg_") {
				return nil, sqlerr.Errorf(sqlerr.ReservedName, "role name \"%s\" is reserved", n).WithDetail("Role names starting with \"pg_\" are reserved.")
			}
		}
		if _, exists := s.roles().Role(to); exists {
			return nil, sqlerr.Errorf(sqlerr.DuplicateObject, "role \"%s\" already exists", to)
		}
		switch {
		case r.Superuser && !s.isSuperuser(s.cfg.User):
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to rename superusers")
		case !r.Superuser && !s.mayAdministerRoles():
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied to rename role")
		}
		if err := s.roleDDL().RenameRole(ctx, from, to); err != nil {
			return nil, err
		}
		s.atCommit(func() { s.oids().renamedRole(from, to) })
		return commandResult("ALTER ROLE"), nil
	}), nil
}

// roleCatalog is where roles are read and written: the engine, or a
// transaction's overlay.
type roleCatalog interface {
	Role(name string) (engine.Role, bool)
	Roles() []engine.Role
	PutRole(ctx context.Context, r engine.Role, create bool) error
	DropRole(ctx context.Context, name string) error
	RenameRole(ctx context.Context, from, to string) error
}

// roles is the role catalog as the session sees it.
func (s *Session) roles() roleCatalog {
	if s.txn != nil {
		return s.txn
	}
	return s.eng
}

// roleDDL is the role catalog role commands write to: in a block or a
// Query's implicit transaction, its transaction (begun now if need be),
// so that ROLLBACK or an error undoes them, as in PostgreSQL.
func (s *Session) roleDDL() roleCatalog {
	if !s.inBlock() {
		return s.eng
	}
	s.ddlCat()
	return s.txn
}

// alterRoleSet is ALTER ROLE name SET parameter = value | RESET parameter
// | RESET ALL: the role's defaults for its sessions from their start
// (a client's startup parameters and SET still win), PostgreSQL's
// pg_db_role_setting. Who may: as for its other attributes, except that
// a role may change its own.
func (c *planner) alterRoleSet(st *pg.AlterRoleSetStmt) (*Prepared, error) {
	s := c.s
	if st.Role == nil {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support ALTER ROLE ALL SET")
	}
	if st.Database != "" {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support ALTER ROLE ... IN DATABASE: it serves one database")
	}
	name := s.roleOf(st.Role)
	vs := st.Setstmt
	param := strings.ToLower(vs.Name)
	value := ""
	switch vs.Kind {
	case pg.VariableSetKind_VAR_SET_VALUE:
		value = setValue(vs.Args, param == "search_path")
		if err := CheckSetting(param, value); err != nil {
			return nil, err
		}
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT, pg.VariableSetKind_VAR_RESET_ALL:
	default:
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support this form of ALTER ROLE ... SET")
	}
	return command(func(ctx context.Context) (*Result, error) {
		r, err := s.roleToAlter(name)
		if err != nil {
			return nil, err
		}
		// PostgreSQL 15's AlterRoleSet: superuser roles by superusers;
		// others by CREATEROLE roles, or the role itself.
		switch {
		case r.Superuser && !s.isSuperuser(s.cfg.User):
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be superuser to alter superusers")
		case !r.Superuser && !s.mayAdministerRoles() && name != s.cfg.User:
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied")
		}
		// A parameter a session cannot set, a role's defaults cannot
		// hold either (PostgreSQL checks it as SET would).
		if d := settingDefs[param]; d.pg != nil && vs.Kind == pg.VariableSetKind_VAR_SET_VALUE {
			if err := d.pg.checkContext(false, s.isSuperuser(s.cfg.User)); err != nil {
				return nil, err
			}
		}
		var kept []engine.Setting
		if vs.Kind != pg.VariableSetKind_VAR_RESET_ALL {
			for _, st := range r.Settings {
				if st.Name != param {
					kept = append(kept, st)
				}
			}
		}
		if vs.Kind == pg.VariableSetKind_VAR_SET_VALUE {
			kept = append(kept, engine.Setting{Name: param, Value: value})
		}
		r.Settings = kept
		if err := s.roleDDL().PutRole(ctx, r, false); err != nil {
			return nil, err
		}
		return commandResult("ALTER ROLE"), nil
	}), nil
}

// roleToAlter is the role ALTER ROLE changes, in a writable transaction.
func (s *Session) roleToAlter(name string) (engine.Role, error) {
	if err := s.checkWritable("ALTER ROLE"); err != nil {
		return engine.Role{}, err
	}
	r, ok := s.roles().Role(name)
	if !ok {
		return engine.Role{}, sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	return r, nil
}
