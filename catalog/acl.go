package catalog

import (
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/sqlerr"
)

// ACLs as PostgreSQL's aclitem[] (relacl, nspacl, datacl, acldefault):
// "grantee=privileges/grantor" items, PUBLIC an empty grantee, the
// privileges as PostgreSQL's letters in its order. seqd records no
// grantor: grants are shown made by the owner, as PostgreSQL records a
// grant its owner or a superuser made.

// aclLetters are the privileges seqd has, with their letters in
// PostgreSQL's order (ACL_ALL_RIGHTS_STR, "arwdDxtXUCTcsA").
var aclLetters = []struct {
	p      engine.Privs
	letter byte
}{{engine.PrivSelect, 'r'}, {engine.PrivUpdate, 'w'}, {engine.PrivUsage, 'U'}, {engine.PrivCreate, 'C'}, {engine.PrivTemp, 'T'}, {engine.PrivConnect, 'c'}}

// ACLKind is an object kind's letter (acldefault's), what its owner
// holds, and what PUBLIC holds by default.
type ACLKind struct {
	owner, public engine.Privs
}

var (
	ACLSequence = ACLKind{owner: engine.PrivAll}
	ACLSchema   = ACLKind{owner: engine.SchemaPrivs}
	ACLDatabase = ACLKind{owner: engine.DatabasePrivs, public: engine.PrivConnect | engine.PrivTemp}
)

// ACLItem is one item's text.
func ACLItem(grantee string, p engine.Privs, grantor string) string {
	var b strings.Builder
	if grantee != engine.Public {
		b.WriteString(ACLName(grantee))
	}
	b.WriteByte('=')
	for _, l := range aclLetters {
		if p&l.p != 0 {
			b.WriteByte(l.letter)
		}
	}
	b.WriteByte('/')
	b.WriteString(ACLName(grantor))
	return b.String()
}

// ACLName quotes a role name as aclitem's output does (putid): in double
// quotes unless it is letters, digits and underscores only.
func ACLName(name string) string {
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= 0x80) {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}

// ACLItems is an object's ACL as aclitem[]: NULL while no GRANT or
// REVOKE was made on it and it grants what its kind grants by default
// (PostgreSQL's NULL acl), else the owner's item and one per grantee,
// PUBLIC's first (a database's: PUBLIC's, then the owner's, as
// acldefault orders them): after a GRANT and a REVOKE back to the
// defaults, the default items, as PostgreSQL shows them.
func ACLItems(a engine.ACL, owner string, k ACLKind) eval.Datum {
	if !a.Explicit && a.OwnerRevoked == 0 && (len(a.Grants) == 0 && k.public == 0 || len(a.Grants) == 1 && k.public != 0 && a.Grants[engine.Public] == k.public) {
		return eval.Null
	}
	var items []eval.Datum
	if p := a.Grants[engine.Public]; k.public != 0 && p != 0 {
		items = append(items, eval.Text(ACLItem(engine.Public, p, owner)))
	}
	// The owner's item: what it has not revoked from itself (none, once
	// it revoked all, as PostgreSQL shows it).
	if p := k.owner&^a.OwnerRevoked | a.Grants[owner]&k.owner; p != 0 {
		items = append(items, eval.Text(ACLItem(owner, p, owner)))
	}
	for _, g := range a.Grantees() {
		if g == owner && g != engine.Public || g == engine.Public && k.public != 0 {
			continue
		}
		items = append(items, eval.Text(ACLItem(g, a.Grants[g], owner)))
	}
	return eval.Array(items...)
}

// ACLDefault is acldefault(kind, owner): what PostgreSQL's object of
// that kind grants by default, for the kinds it knows.
func ACLDefault(kind, owner string) (eval.Datum, error) {
	o := ACLName(owner)
	var items []string
	switch kind {
	case "s":
		items = []string{o + "=rwU/" + o}
	case "r":
		items = []string{o + "=arwdDxt/" + o}
	case "n":
		items = []string{o + "=UC/" + o}
	case "d":
		items = []string{"=Tc/" + o, o + "=CTc/" + o}
	case "f":
		items = []string{"=X/" + o, o + "=X/" + o}
	case "l", "T":
		items = []string{"=U/" + o, o + "=U/" + o}
	case "L":
		items = []string{o + "=rw/" + o}
	case "S", "F":
		items = []string{o + "=U/" + o}
	case "p":
		items = []string{o + "=sA/" + o}
	case "c":
	default:
		return eval.Null, sqlerr.Errorf(sqlerr.InternalError, "unrecognized object type abbreviation: %s", kind)
	}
	out := make([]eval.Datum, len(items))
	for i, it := range items {
		out[i] = eval.Text(it)
	}
	return eval.Array(out...), nil
}
