package catalog

import (
	"cmp"
	"slices"
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// A role's privileges as MariaDB 10.11 shows an account's (SHOW GRANTS,
// information_schema's USER_PRIVILEGES, SCHEMA_PRIVILEGES and
// TABLE_PRIVILEGES), each as the privileges that let a MariaDB account
// do what the role may:
//
//   - a superuser: ALL PRIVILEGES ON *.* WITH GRANT OPTION; any other
//     role: USAGE ON *.*;
//   - the owner of a schema: ALL PRIVILEGES ON `db`.*; CREATE on a
//     schema: CREATE ON `db`.* (USAGE on a schema, which lets a role
//     look a sequence up in it, has no MariaDB counterpart: a MariaDB
//     account needs none);
//   - the owner of a sequence: ALL PRIVILEGES ON `db`.`s` (less what it
//     revoked from itself); a grant on one: SELECT for SELECT, INSERT for
//     USAGE (by which NEXT VALUE FOR takes a value, as MariaDB's takes
//     one by INSERT), UPDATE for UPDATE, as MariaDBColumnPrivileges
//     names them;
//   - a role granted to it: GRANT `r` TO `u`@`%`.
//
// A role is an account of any host: '%'. Grants to PUBLIC are not shown
// (MariaDB lists them as PUBLIC's, not an account's). A role that is not
// a superuser sees its own, as a MariaDB account without SELECT on the
// mysql schema sees its own; a superuser sees every role's.

// MariaDB's privileges in the order it lists them: every global one (a
// superuser's), a schema's (ALL PRIVILEGES ON db.*) and a table's.
var (
	mariadbGlobalPrivs = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "RELOAD", "SHUTDOWN", "PROCESS",
		"FILE", "REFERENCES", "INDEX", "ALTER", "SHOW DATABASES", "SUPER", "CREATE TEMPORARY TABLES", "LOCK TABLES", "EXECUTE",
		"REPLICATION SLAVE", "BINLOG MONITOR", "CREATE VIEW", "SHOW VIEW", "CREATE ROUTINE", "ALTER ROUTINE", "CREATE USER",
		"EVENT", "TRIGGER", "CREATE TABLESPACE", "DELETE HISTORY", "SET USER", "FEDERATED ADMIN", "CONNECTION ADMIN",
		"READ_ONLY ADMIN", "REPLICATION SLAVE ADMIN", "REPLICATION MASTER ADMIN", "BINLOG ADMIN", "BINLOG REPLAY", "SLAVE MONITOR"}
	mariadbSchemaPrivs = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "REFERENCES", "INDEX", "ALTER",
		"CREATE TEMPORARY TABLES", "LOCK TABLES", "EXECUTE", "CREATE VIEW", "SHOW VIEW", "CREATE ROUTINE", "ALTER ROUTINE", "EVENT",
		"TRIGGER", "DELETE HISTORY"}
	mariadbTablePrivs = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "REFERENCES", "INDEX", "ALTER",
		"CREATE VIEW", "SHOW VIEW", "TRIGGER", "DELETE HISTORY"}
)

// mariadbGrant is one of a role's grants: on *.* (Schema ""), on a
// schema's every table (Table ""), or on one; All: ALL PRIVILEGES, which
// Privs lists.
type mariadbGrant struct {
	Schema, Table  string
	Privs          []string
	All, Grantable bool
}

// mariadbGrants are every role's grants, by name, each role's in the
// order SHOW GRANTS lists them: *.*, then schemas, then sequences, each
// by name. Made in one pass over the schemas and sequences, whatever the
// number of roles read.
func mariadbGrants(src Source, roles []engine.Role) map[string][]mariadbGrant {
	out := make(map[string][]mariadbGrant, len(roles))
	for _, r := range roles {
		out[r.Name] = []mariadbGrant{{Privs: []string{"USAGE"}}}
		if r.Superuser {
			out[r.Name][0] = mariadbGrant{Privs: mariadbGlobalPrivs, All: true, Grantable: true}
		}
	}
	add := func(role string, g mariadbGrant) {
		if gs, ok := out[role]; ok {
			out[role] = append(gs, g)
		}
	}
	schemas, _ := src.SchemaACLs()
	slices.SortFunc(schemas, func(a, b SchemaACL) int { return strings.Compare(a.Name, b.Name) })
	for _, s := range schemas {
		add(s.ACL.Owner, mariadbGrant{Schema: s.Name, Privs: mariadbSchemaPrivs, All: true})
		for _, role := range s.ACL.Grantees() {
			if role != s.ACL.Owner && s.ACL.Grants[role]&engine.PrivCreate != 0 {
				add(role, mariadbGrant{Schema: s.Name, Privs: []string{"CREATE"}})
			}
		}
	}
	seqs, _ := src.SequenceACLs()
	slices.SortFunc(seqs, func(a, b SequenceACL) int {
		return cmp.Or(strings.Compare(a.Name.Schema(), b.Name.Schema()), strings.Compare(a.Name.Rel(), b.Name.Rel()))
	})
	for _, s := range seqs {
		if !mysqlSchema(s.Name.Schema()) || src.Temporary(s.Name) {
			continue
		}
		owner := s.ACL.Owner
		if privs := engine.PrivAll&^s.ACL.OwnerRevoked | s.ACL.Grants[owner]; privs&engine.PrivAll == engine.PrivAll {
			add(owner, mariadbGrant{Schema: s.Name.Schema(), Table: s.Name.Rel(), Privs: mariadbTablePrivs, All: true})
		} else {
			addSome(add, owner, s, privs)
		}
		for _, role := range s.ACL.Grantees() {
			if role != owner {
				addSome(add, role, s, s.ACL.Grants[role])
			}
		}
	}
	return out
}

// addSome adds role's grant of privs on the sequence s, as
// MariaDBColumnPrivileges names them, if it holds any.
func addSome(add func(string, mariadbGrant), role string, s SequenceACL, privs engine.Privs) {
	if names := MariaDBColumnPrivileges(privs&engine.PrivAll, false); names != "" {
		add(role, mariadbGrant{Schema: s.Name.Schema(), Table: s.Name.Rel(), Privs: strings.Split(strings.ToUpper(names), ",")})
	}
}

// mariadbAccount is role as MariaDB names an account: 'u'@'%' in
// information_schema, `u`@`%` in SHOW GRANTS.
func mariadbAccount(role string, quote byte) string {
	q := string(quote)
	return q + strings.ReplaceAll(role, q, q+q) + q + "@" + q + "%" + q
}

// visibleRoles are the stored roles whose grants the reader sees, by
// name (pg_roles' roles, the bootstrap superuser's too).
func visibleRoles(src Source) []engine.Role {
	var out []engine.Role
	for _, r := range src.Roles() { // the bootstrap superuser's too
		if src.Superuser() || r.Name == src.User() {
			out = append(out, r.Role)
		}
	}
	slices.SortFunc(out, func(a, b engine.Role) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// privilegeRows are USER_PRIVILEGES', SCHEMA_PRIVILEGES' and
// TABLE_PRIVILEGES' rows (level 0, 1 and 2): a row per privilege of
// each grant at that level of each role the reader sees.
func privilegeRows(level int) func(Source) ([][]eval.Datum, error) {
	return func(src Source) ([][]eval.Datum, error) {
		var out [][]eval.Datum
		roles := visibleRoles(src)
		grants := mariadbGrants(src, roles)
		for _, r := range roles {
			grantee := eval.Text(mariadbAccount(r.Name, '\''))
			for _, g := range grants[r.Name] {
				at := 0
				if g.Schema != "" {
					at = 1
				}
				if g.Table != "" {
					at = 2
				}
				if at != level {
					continue
				}
				grantable := eval.Text("NO")
				if g.Grantable {
					grantable = eval.Text("YES")
				}
				for _, p := range g.Privs {
					row := []eval.Datum{grantee, eval.Text("def")}
					if g.Schema != "" {
						row = append(row, eval.Text(g.Schema))
					}
					if g.Table != "" {
						row = append(row, eval.Text(g.Table))
					}
					out = append(out, append(row, eval.Text(p), grantable))
				}
			}
		}
		return out, nil
	}
}

// MariaDBGrantLines are role's grants as MariaDB's SHOW GRANTS FOR lists
// them: the roles granted to it, then its privileges on *.*, on
// schemas, on sequences. seen is false where the reader may not see
// role's (not its own, and it is no superuser: whether it is there is
// not told either), found false for a role that is not there.
func MariaDBGrantLines(src Source, role string) (lines []string, found, seen bool) {
	if !src.Superuser() && role != src.User() {
		return nil, false, false
	}
	for _, sr := range src.Roles() {
		r := sr.Role
		if r.Name != role {
			continue
		}
		to := " TO " + mariadbAccount(r.Name, '`')
		for _, m := range r.MemberOf {
			lines = append(lines, "GRANT "+mariadbQuote(m.Role)+to)
		}
		for _, g := range mariadbGrants(src, []engine.Role{r})[r.Name] {
			privs := strings.Join(g.Privs, ", ")
			if g.All {
				privs = "ALL PRIVILEGES"
			}
			on := "*.*"
			switch {
			case g.Table != "":
				on = mariadbQuote(g.Schema) + "." + mariadbQuote(g.Table)
			case g.Schema != "":
				on = mariadbQuote(g.Schema) + ".*"
			}
			line := "GRANT " + privs + " ON " + on + to
			if g.Grantable {
				line += " WITH GRANT OPTION"
			}
			lines = append(lines, line)
		}
		return lines, true, true
	}
	return nil, false, true
}

// mariadbQuote is name quoted with backticks, as SHOW GRANTS quotes it.
func mariadbQuote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// The roles granted to the current role, as MariaDB 10.11's
// APPLICABLE_ROLES and ENABLED_ROLES show an account's. A role granted
// to the login role is MariaDB's role granted to the account (GRANTEE
// u@%, as MariaDB writes it there, unquoted), one granted to such a
// role its grant to a role (GRANTEE r); IS_GRANTABLE is WITH ADMIN
// OPTION. As SHOW GRANTS shows them, the account has no default role,
// and a MySQL session sets none (seqd has no SET ROLE there): so no
// role is its default (IS_DEFAULT NO) and none is enabled (ENABLED_ROLES'
// one NULL row), as MariaDB shows an account granted roles it has not
// set. Their privileges are in effect all the same, as PostgreSQL's
// INHERIT has them, where a MariaDB account's take SET ROLE. A
// superuser's are its own, as MariaDB's root sees its own.

// applicableRoleRows are APPLICABLE_ROLES' rows: the current role's
// grants, then, depth first, those of each role granted, in the order
// granted, each role's once, as MariaDB walks an account's.
func applicableRoleRows(src Source) ([][]eval.Datum, error) {
	byName := map[string]engine.Role{}
	for _, r := range src.Roles() {
		byName[r.Name] = r.Role
	}
	user, ok := byName[src.User()]
	if !ok {
		return nil, nil
	}
	var out [][]eval.Datum
	seen := map[string]bool{user.Name: true}
	var walk func(r engine.Role, grantee, isDefault eval.Datum)
	walk = func(r engine.Role, grantee, isDefault eval.Datum) {
		for _, m := range r.MemberOf {
			out = append(out, []eval.Datum{grantee, eval.Text(m.Role), YesNo(m.Admin), isDefault})
			if held, ok := byName[m.Role]; ok && !seen[m.Role] {
				seen[m.Role] = true
				walk(held, eval.Text(held.Name), eval.Null)
			}
		}
	}
	walk(user, eval.Text(user.Name+"@%"), YesNo(false))
	return out, nil
}

// enabledRoleRows are ENABLED_ROLES' rows: one NULL, no role being set.
func enabledRoleRows(Source) ([][]eval.Datum, error) { return [][]eval.Datum{{eval.Null}}, nil }
