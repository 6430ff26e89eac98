package engine

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/memstore"
)

func TestACLDurable(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "s")
	if _, err := e.CreateWith(ctx, n, seqmath.Spec{}, CreateOptions{Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	a, err := e.ACL(n)
	if err != nil || a.Owner != "alice" || len(a.Grants) != 0 {
		t.Fatalf("new sequence: %+v, %v", a, err)
	}
	if err := e.UpdateACL(ctx, n, func(a *ACL) error {
		a.Grants["bob"] |= PrivUsage | PrivSelect
		a.Grants[Public] |= PrivSelect
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if p := a.Privileges("alice", false) & PrivAll; p != PrivAll {
		t.Fatalf("owner: %v", p)
	}
	// Renamed, it keeps its ACL (keyed by ID); reopened, too.
	to := mustName(t, "t")
	if err := e.Rename(ctx, n, to); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = openFS(t, fs)
	a, err = e.ACL(to)
	if err != nil || a.Owner != "alice" || a.Grants["bob"] != PrivUsage|PrivSelect || a.Grants[Public] != PrivSelect {
		t.Fatalf("after rename and reopen: %+v, %v", a, err)
	}
	if p := a.Privileges("bob", false); p != PrivUsage|PrivSelect {
		t.Fatalf("bob: %v", p)
	}
	if p := a.Privileges("carol", false); p != PrivSelect {
		t.Fatalf("carol (PUBLIC): %v", p)
	}
	if p := a.Privileges("carol", true) & PrivAll; p != PrivAll {
		t.Fatalf("a superuser: %v", p)
	}
	// Revoking everything leaves no entry; dropping removes the record.
	if err := e.UpdateACL(ctx, to, func(a *ACL) error { a.Grants["bob"] = 0; return nil }); err != nil {
		t.Fatal(err)
	}
	if a, _ := e.ACL(to); len(a.Grants) != 1 {
		t.Fatalf("after revoking bob's: %+v", a)
	}
	if err := e.Drop(ctx, to); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	if len(e.ACLs()) != 0 {
		t.Fatalf("a dropped sequence's privileges remain: %v", e.ACLs())
	}
	var left []string
	e.store.Load(ctx, func(kv storage.KV) error { left = append(left, kv.Key); return nil })
	for _, k := range left {
		if len(k) > len(aclPrefix) && k[:len(aclPrefix)] == aclPrefix {
			t.Fatalf("record %q left", k)
		}
	}
}

// TestACLOwnerOnly: a sequence whose ACL is its owner alone is kept
// without a pointer (ownerOnly, one name per owner); a grant moves it to
// the full records and revoking it back; the representation changes
// nothing a caller sees, after a reopen either, and a drop forgets both.
func TestACLOwnerOnly(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	var names []Name
	for i := range 3 {
		n := mustName(t, fmt.Sprintf("s%d", i))
		names = append(names, n)
		if _, err := e.CreateWith(ctx, n, seqmath.Spec{}, CreateOptions{Owner: "alice"}); err != nil {
			t.Fatal(err)
		}
	}
	layout := func(what string, ownerOnly, full int) {
		t.Helper()
		e.catMu.RLock()
		defer e.catMu.RUnlock()
		if len(e.ownerOnly) != ownerOnly || len(e.acls) != full || len(e.ownerNames) != 1 {
			t.Fatalf("%s: %d owner-only, %d full, owners %q; want %d, %d, [alice]", what, len(e.ownerOnly), len(e.acls), e.ownerNames, ownerOnly, full)
		}
	}
	layout("created", 3, 0)
	grant := func(p Privs) {
		t.Helper()
		if err := e.UpdateACL(ctx, names[1], func(a *ACL) error { a.Grants["bob"] = p; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	grant(PrivUsage)
	layout("granted", 2, 1)
	if a, err := e.ACL(names[1]); err != nil || a.Owner != "alice" || a.Grants["bob"] != PrivUsage {
		t.Fatalf("granted: %+v %v", a, err)
	}
	if a, err := e.ACL(names[0]); err != nil || a.Owner != "alice" || len(a.Grants) != 0 {
		t.Fatalf("owner alone: %+v %v", a, err)
	}
	grant(0)
	layout("revoked", 3, 0)
	grant(PrivSelect)
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	layout("reopened", 2, 1)
	acls := e.ACLs()
	if len(acls) != 3 || acls[mustInfo(t, e, names[1]).ID].Grants["bob"] != PrivSelect || acls[mustInfo(t, e, names[2]).ID].Owner != "alice" {
		t.Fatalf("ACLs after reopening: %v", acls)
	}
	for _, n := range names[:2] {
		if err := e.Drop(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	layout("two dropped", 1, 0)
}

func mustInfo(t *testing.T, e *Engine, n Name) Info {
	t.Helper()
	info, err := e.Info(n)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func TestACLRecord(t *testing.T) {
	a := ACL{Owner: "o", Grants: map[string]Privs{Public: PrivSelect, "x": PrivAll}}
	b, err := decodeACL(a.encode())
	if err != nil || b.Owner != "o" || len(b.Grants) != 2 || b.Grants["x"] != PrivAll {
		t.Fatalf("%+v %v", b, err)
	}
	enc := a.encode()
	for _, bad := range [][]byte{nil, {2}, enc[:len(enc)-1], append(append([]byte{}, enc...), 0)} {
		if _, err := decodeACL(bad); err == nil {
			t.Errorf("%v decoded", bad)
		}
	}
}

// TestLegacyACL: a sequence created without an owner (as before
// privileges existed) stays open to every role until its ACL is written.
func TestLegacyACL(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	n := mustName(t, "old")
	if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	if p, err := e.Privileges(n, "anyone", false); err != nil || p != PrivAll {
		t.Fatalf("legacy: %v, %v", p, err)
	}
	if err := e.UpdateACL(ctx, n, func(a *ACL) error { a.Grants[Public] &^= PrivUpdate; return nil }); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.Privileges(n, "anyone", false); p != PrivUsage|PrivSelect {
		t.Fatalf("after REVOKE UPDATE FROM PUBLIC: %v", p)
	}
}

// TestSchemaAndDatabaseACL: schemas and the database keep owners and
// grants durably, changed in transactions like every other catalog
// record; a schema recorded before schema privileges reads as PostgreSQL
// 15's public schema (PUBLIC may use it, superusers create in it).
func TestSchemaAndDatabaseACL(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	if a, err := e.SchemaACL("public"); err != nil || a.Owner != "" || len(a.Grants) != 1 || a.Grants[Public] != PrivUsage {
		t.Fatalf("a new store's public: %+v, %v", a, err)
	}
	if a := e.DatabaseACL(); a.Owner != "" || a.Grants[Public] != PrivConnect|PrivTemp || len(a.Grants) != 1 {
		t.Fatalf("the database's defaults: %+v", a)
	}
	if _, err := e.SchemaACL("nosuch"); !errors.Is(err, ErrNoSchema) {
		t.Fatalf("missing schema: %v", err)
	}
	if _, err := e.CreateSchema(ctx, "app", "alice", false); err != nil {
		t.Fatal(err)
	}
	if a, _ := e.SchemaACL("app"); a.Owner != "alice" || len(a.Grants) != 0 || a.Privileges("alice", false)&SchemaPrivs != SchemaPrivs {
		t.Fatalf("a new schema: %+v", a)
	}
	v := e.AuthVersion()
	if err := e.UpdateSchemaACL(ctx, "app", func(a *ACL) error { a.Grants["bob"] |= PrivUsage | PrivCreate; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateDatabaseACL(ctx, func(a *ACL) error { a.Grants["bob"] |= PrivCreate; return nil }); err != nil {
		t.Fatal(err)
	}
	if e.AuthVersion() == v {
		t.Fatal("AuthVersion did not move")
	}

	// In a transaction: seen through it only; undone by ROLLBACK TO and
	// by rollback; created with the schema.
	tx := e.Begin()
	sp := tx.Savepoint()
	if err := tx.UpdateSchemaACL(ctx, "app", func(a *ACL) error { a.Grants["bob"] &^= PrivCreate; return nil }); err != nil {
		t.Fatal(err)
	}
	if a, _ := tx.SchemaACL("app"); a.Grants["bob"] != PrivUsage {
		t.Fatalf("in the transaction: %+v", a)
	}
	if a, _ := e.SchemaACL("app"); a.Grants["bob"] != PrivUsage|PrivCreate {
		t.Fatalf("outside it: %+v", a)
	}
	tx.RollbackTo(sp)
	if a, _ := tx.SchemaACL("app"); a.Grants["bob"] != PrivUsage|PrivCreate {
		t.Fatalf("after ROLLBACK TO: %+v", a)
	}
	if err := tx.UpdateDatabaseACL(ctx, func(a *ACL) error { a.Grants[Public] = 0; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CreateSchema(ctx, "tmp", "carol", false); err != nil {
		t.Fatal(err)
	}
	if a, _ := tx.SchemaACL("tmp"); a.Owner != "carol" {
		t.Fatalf("created in the transaction: %+v", a)
	}
	tx.Rollback()
	if a := e.DatabaseACL(); a.Grants[Public] != PrivConnect|PrivTemp || a.Grants["bob"] != PrivCreate {
		t.Fatalf("after rollback: %+v", a)
	}
	if e.SchemaExists("tmp") {
		t.Fatal("a rolled back schema exists")
	}

	// A schema dropped and made again in one transaction gets the new
	// owner and no grants; committed, both survive a reopen.
	tx = e.Begin()
	if _, err := tx.DropSchema(ctx, "app", false); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CreateSchema(ctx, "app", "dave", false); err != nil {
		t.Fatal(err)
	}
	if err := tx.UpdateDatabaseACL(ctx, func(a *ACL) error { a.Owner = "dave"; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = openFS(t, fs)
	if a, _ := e.SchemaACL("app"); a.Owner != "dave" || len(a.Grants) != 0 {
		t.Fatalf("recreated, reopened: %+v", a)
	}
	if a := e.DatabaseACL(); a.Owner != "dave" || a.Grants["bob"] != PrivCreate || a.Grants[Public] != PrivConnect|PrivTemp {
		t.Fatalf("database, reopened: %+v", a)
	}
	e.Close()

	// A schema record of version 1 (an older seqd's).
	writeRawKV(t, fs, schemaKey+"old", []byte{schemaVersion})
	e = openFS(t, fs)
	defer e.Close()
	if a, err := e.SchemaACL("old"); err != nil || a.Owner != "" || a.Grants[Public] != PrivUsage || len(a.Grants) != 1 {
		t.Fatalf("a version 1 schema: %+v, %v", a, err)
	}
}

func TestSchemaRecord(t *testing.T) {
	a := ACL{Owner: "o", Grants: map[string]Privs{Public: PrivUsage, "x": SchemaPrivs}}
	b, _, err := decodeSchema(encodeSchema(a, nil))
	if err != nil || b.Owner != "o" || b.Grants["x"] != SchemaPrivs || b.Grants[Public] != PrivUsage {
		t.Fatalf("%+v %v", b, err)
	}
	for _, bad := range [][]byte{nil, {0}, {4}, {2}, {1, 0}} {
		if _, _, err := decodeSchema(bad); err == nil {
			t.Errorf("%v decoded", bad)
		}
	}
}

// TestRoleRecord: every attribute survives encoding, a version-1 record
// written before CREATEROLE existed reads as before, and flags this
// version does not know are refused.
func TestRoleRecord(t *testing.T) {
	v := &Verifier{Salt: []byte("salt"), Iterations: 4096, StoredKey: make([]byte, 32), ServerKey: make([]byte, 32)}
	for _, r := range []Role{
		{Name: "a"},
		{Name: "b", Superuser: true, Login: true, CreateRole: true, Verifier: v},
		{Name: "c", CreateRole: true},
		{Name: "d", Login: true, Verifier: v},
		{Name: "e", Verifier: v, MemberOf: []Membership{{Role: "a", Admin: true}, {Role: "b"}}},
		{Name: "f", MemberOf: []Membership{{Role: "c"}}},
		{Name: "g", Verifier: v, MemberOf: []Membership{{Role: "a"}}, Settings: []Setting{{"statement_timeout", "5s"}, {"search_path", `"$user", public`}}},
		{Name: "h", Settings: []Setting{{"lock_timeout", "1s"}}},
		{Name: "i", Login: true, Verifier: &Verifier{Salt: []byte("salt"), Iterations: 4096, StoredKey: make([]byte, 32), ServerKey: make([]byte, 32),
			Native: []byte("0123456789abcdefghij")}, Settings: []Setting{{"lock_timeout", "1s"}}},
		{Name: "j", Login: true, Verifier: v, Settings: []Setting{{"lock_timeout", "1s"}}, Tokens: []Token{
			{ID: [16]byte{1, 2}, Hash: [32]byte{3, 4}, Label: "ci deploy", Created: time.UnixMicro(1_795_000_000_000_001), Expires: time.UnixMicro(1_800_000_000_000_000)},
			{ID: [16]byte{5}, Hash: [32]byte{6}, Created: time.UnixMicro(1), Expires: time.UnixMicro(2)}}},
	} {
		got, err := decodeRole(r.Name, r.encode())
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		if got.Superuser != r.Superuser || got.Login != r.Login || got.CreateRole != r.CreateRole || (got.Verifier == nil) != (r.Verifier == nil) ||
			fmt.Sprint(got.MemberOf) != fmt.Sprint(r.MemberOf) || fmt.Sprint(got.Settings) != fmt.Sprint(r.Settings) ||
			r.Verifier != nil && string(got.Verifier.Native) != string(r.Verifier.Native) || fmt.Sprint(got.Tokens) != fmt.Sprint(r.Tokens) {
			t.Fatalf("%s: decoded %+v from %+v", r.Name, got, r)
		}
		// A record without a native hash is version 1, as before there was
		// one, so that a seqd of before reads it.
		// Tokens make it version 3.
		want := byte(1)
		if r.Verifier != nil && r.Verifier.Native != nil {
			want = 2
		}
		if len(r.Tokens) > 0 {
			want = 3
		}
		if r.encode()[0] != want {
			t.Fatalf("%s: version %d, want %d", r.Name, r.encode()[0], want)
		}
		// Every strict prefix is refused as damage.
		enc := r.encode()
		for n := 2; n < len(enc); n++ {
			if _, err := decodeRole(r.Name, enc[:n]); err == nil && len(r.Tokens) > 0 {
				t.Fatalf("%s: %d of %d bytes decoded", r.Name, n, len(enc))
			}
		}
	}
	// Written by an older seqd: superuser and login, no password.
	if got, err := decodeRole("old", []byte{1, 3}); err != nil || !got.Superuser || !got.Login || got.CreateRole {
		t.Fatalf("older record: %+v, %v", got, err)
	}
	for _, bad := range [][]byte{{1, 128}, {2, 128}, {1, 64 | 4}, {2, 64}} {
		if _, err := decodeRole("new", append(bad, make([]byte, 90)...)); err == nil {
			t.Fatalf("a record with flags %08b in version %d was accepted", bad[1], bad[0])
		}
	}
}

// TestNewerRecords: a record of a version this seqd does not know is
// refused as a newer seqd's, not as damage.
func TestNewerRecords(t *testing.T) {
	if _, err := decodeRecord([]byte{9, 0}); err == nil || !strings.Contains(err.Error(), "written by a newer seqd") {
		t.Fatalf("sequence record of version 9: %v", err)
	}
	if _, err := decodeRole("r", []byte{4, 0}); err == nil || !strings.Contains(err.Error(), "written by a newer seqd") {
		t.Fatalf("role record of version 4: %v", err)
	}
}

// TestRoleRenameDurable: a renamed role keeps, after a reopen, what every
// record named it in: sequences it owns and was granted, a schema, the
// database, and other roles' memberships; the old name is gone from all.
func TestRoleRenameDurable(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	for _, r := range []Role{{Name: "alice", Login: true}, {Name: "grp"}, {Name: "bob", MemberOf: []Membership{{Role: "alice", Admin: true}}}} {
		if err := e.PutRole(ctx, r, true); err != nil {
			t.Fatal(err)
		}
	}
	owned, granted := mustName(t, "owned"), mustName(t, "granted")
	if _, err := e.CreateWith(ctx, owned, seqmath.Spec{}, CreateOptions{Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateWith(ctx, granted, seqmath.Spec{}, CreateOptions{Owner: "grp"}); err != nil {
		t.Fatal(err)
	}
	grant := func(a *ACL) error { a.Grants["alice"] |= PrivUsage; return nil }
	if err := e.UpdateACL(ctx, granted, grant); err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateSchemaACL(ctx, "public", grant); err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateDatabaseACL(ctx, grant); err != nil {
		t.Fatal(err)
	}
	before := e.AuthVersion()
	if err := e.RenameRole(ctx, "alice", "alicia"); err != nil {
		t.Fatal(err)
	}
	if err := e.RenameRole(ctx, "alice", "x"); !errors.Is(err, ErrNoRole) {
		t.Fatalf("renaming a role that is gone: %v", err)
	}
	if err := e.RenameRole(ctx, "alicia", "grp"); !errors.Is(err, ErrRoleExists) {
		t.Fatalf("renaming onto a role: %v", err)
	}
	renames, now := e.RoleRenamesSince(before)
	if len(renames) != 1 || renames[0].From != "alice" || renames[0].To != "alicia" || now != e.AuthVersion() {
		t.Fatalf("renames since %d: %+v (now %d)", before, renames, now)
	}
	e.Close()
	e = openFS(t, fs)
	if _, ok := e.Role("alice"); ok {
		t.Fatal("the old name is still a role")
	}
	if r, ok := e.Role("alicia"); !ok || !r.Login {
		t.Fatalf("renamed role: %+v, %v", r, ok)
	}
	if r, _ := e.Role("bob"); len(r.MemberOf) != 1 || r.MemberOf[0] != (Membership{Role: "alicia", Admin: true}) {
		t.Fatalf("bob's memberships: %+v", r.MemberOf)
	}
	if a, _ := e.ACL(owned); a.Owner != "alicia" || a.Names("alice") {
		t.Fatalf("owned: %+v", a)
	}
	if a, _ := e.ACL(granted); a.Grants["alicia"] != PrivUsage || a.Names("alice") {
		t.Fatalf("granted: %+v", a)
	}
	if a, _ := e.SchemaACL("public"); a.Grants["alicia"] != PrivUsage || a.Names("alice") {
		t.Fatalf("schema: %+v", a)
	}
	if a := e.DatabaseACL(); a.Grants["alicia"] != PrivUsage || a.Names("alice") {
		t.Fatalf("database: %+v", a)
	}
}

// TestACLOwnerNames: the owners' names are kept while a record refers to
// them and reclaimed after (roles come and go: a name per role ever seen
// would grow without bound), through random creates, owner changes,
// grants, revokes and drops checked against a model, and a clone.
func TestACLOwnerNames(t *testing.T) {
	e, err := Open(ctx, Config{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	owners := map[Name]string{}
	granted := map[Name]bool{}
	var names []Name
	check := func(round int, e *Engine) {
		t.Helper()
		for _, n := range names {
			if a, err := e.ACL(n); err != nil || a.Owner != owners[n] || len(a.Grants) > 0 != granted[n] {
				t.Fatalf("round %d: %s: %+v %v, want owner %s, granted %v", round, n, a, err, owners[n], granted[n])
			}
		}
		e.catMu.RLock()
		defer e.catMu.RUnlock()
		want := map[string]uint32{}
		for _, n := range names {
			if !granted[n] {
				want[owners[n]]++
			}
		}
		if len(e.ownerIdx) != len(want) {
			t.Fatalf("round %d: %d owners' names kept, %d referred to", round, len(e.ownerIdx), len(want))
		}
		for name, refs := range want {
			i, ok := e.ownerIdx[name]
			if !ok || e.ownerNames[i] != name || e.ownerRefs[i] != refs {
				t.Fatalf("round %d: owner %s: index %d (%v), refs %d, want %d", round, name, i, ok, e.ownerRefs[i], refs)
			}
		}
		if len(e.ownerNames)-len(e.ownerFree) != len(want) || len(e.ownerNames) > 8 {
			t.Fatalf("round %d: %d names, %d free, for %d owners", round, len(e.ownerNames), len(e.ownerFree), len(want))
		}
	}
	for round := range 400 {
		role := fmt.Sprintf("role%d", round/3) // a few rounds each, then gone
		switch op := rng.IntN(5); {
		case op == 0 || len(names) == 0:
			n := mustName(t, fmt.Sprintf("o%d", round))
			if _, err := e.CreateWith(ctx, n, seqmath.Spec{}, CreateOptions{Owner: role}); err != nil {
				t.Fatal(err)
			}
			names, owners[n] = append(names, n), role
		case op == 1:
			n := names[rng.IntN(len(names))]
			if err := e.UpdateACL(ctx, n, func(a *ACL) error { a.Owner = role; return nil }); err != nil {
				t.Fatal(err)
			}
			owners[n] = role
		case op == 2:
			n := names[rng.IntN(len(names))]
			if err := e.UpdateACL(ctx, n, func(a *ACL) error {
				if granted[n] {
					clear(a.Grants)
				} else {
					a.Grants["bob"] = PrivUsage
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			granted[n] = !granted[n]
		default:
			i := rng.IntN(len(names))
			if err := e.Drop(ctx, names[i]); err != nil {
				t.Fatal(err)
			}
			delete(owners, names[i])
			delete(granted, names[i])
			names = append(names[:i], names[i+1:]...)
		}
		check(round, e)
	}
	p, err := newEngine(Config{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	e.copyInto(p) // as Promote makes its engine
	p.catMu.RLock()
	same := slices.Equal(p.ownerNames, e.ownerNames) && maps.Equal(p.ownerIdx, e.ownerIdx) &&
		slices.Equal(p.ownerRefs, e.ownerRefs) && slices.Equal(p.ownerFree, e.ownerFree) && maps.Equal(p.ownerOnly, e.ownerOnly)
	p.catMu.RUnlock()
	if !same {
		t.Fatal("a copy's owners differ")
	}
}

// TestACLOwnerRevoked: an owner's rights are revocable, as PostgreSQL's
// (REVOKE ... FROM the owner, then GRANT some back); the record keeps
// version 1 while the owner holds all, and the owner-only layout is used
// only while it does.
func TestACLOwnerRevoked(t *testing.T) {
	a := ACL{Owner: "o", Grants: map[string]Privs{}}
	a.Revoke("o", PrivAll)
	if p := a.Privileges("o", false); p&PrivAll != 0 {
		t.Fatalf("owner after REVOKE ALL: %b", p)
	}
	if p := a.Privileges("o", true); p&PrivAll != PrivAll {
		t.Fatalf("a superuser owner: %b", p)
	}
	a.Grant("o", PrivSelect)
	a.Grant(Public, PrivUsage)
	if p := a.Privileges("o", false) & PrivAll; p != PrivSelect|PrivUsage {
		t.Fatalf("owner with SELECT back and PUBLIC's USAGE: %b", p)
	}
	if len(a.Grants) != 1 {
		t.Fatalf("the owner's rights went into Grants: %v", a.Grants)
	}
	enc := a.encode()
	if enc[0] != aclVersionV2 {
		t.Fatalf("version %d, want 2", enc[0])
	}
	b, err := decodeACL(enc)
	if err != nil || b.OwnerRevoked != PrivUsage|PrivUpdate || b.Grants[Public] != PrivUsage {
		t.Fatalf("decoded %+v %v", b, err)
	}
	for _, bad := range [][]byte{enc[:len(enc)-1], append(enc[:len(enc)-1:len(enc)-1], 0), append(enc[:len(enc)-1:len(enc)-1], 0x80)} {
		if _, err := decodeACL(bad); err == nil {
			t.Errorf("%v decoded", bad)
		}
	}
	a.Grant("o", PrivAll)
	if a.OwnerRevoked != 0 || a.encode()[0] != aclVersion {
		t.Fatalf("all granted back: %+v, version %d", a, a.encode()[0])
	}

	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "s")
	if _, err := e.CreateWith(ctx, n, seqmath.Spec{}, CreateOptions{Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateACL(ctx, n, func(a *ACL) error { a.Revoke("alice", PrivUpdate); return nil }); err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		if p, err := e.Privileges(n, "alice", false); err != nil || p != PrivUsage|PrivSelect {
			t.Fatalf("%s: alice holds %b (%v), want USAGE and SELECT", what, p, err)
		}
		e.catMu.RLock()
		defer e.catMu.RUnlock()
		if len(e.ownerOnly) != 0 || len(e.acls) != 1 {
			t.Fatalf("%s: %d owner-only, %d full: the owner-only layout would say alice holds all", what, len(e.ownerOnly), len(e.acls))
		}
	}
	check("revoked")
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	check("reopened")
}

// TestACLExplicit: a GRANT and its REVOKE leave the ACL explicit (as
// PostgreSQL's relacl is, no longer NULL), kept durably in a version 3
// record only where nothing else in it says so, and out of the
// owner-only layout; version 1 and 2 records read as before.
func TestACLExplicit(t *testing.T) {
	for _, tc := range []struct {
		acl     ACL
		version byte
	}{
		{ACL{Owner: "o"}, aclVersion},
		{ACL{Owner: "o", Explicit: true}, aclVersionV3},
		{ACL{Owner: "o", Grants: map[string]Privs{"r": PrivSelect}, Explicit: true}, aclVersion},
		{ACL{Owner: "o", OwnerRevoked: PrivSelect, Explicit: true}, aclVersionV2},
		{ACL{Owner: "o", Grants: map[string]Privs{Public: PrivConnect | PrivTemp}}, aclVersionV3}, // a database's default
	} {
		enc := tc.acl.encode()
		got, err := decodeACL(enc)
		if err != nil || enc[0] != tc.version || got.Explicit != tc.acl.Explicit || got.OwnerRevoked != tc.acl.OwnerRevoked || len(got.Grants) != len(tc.acl.Grants) {
			t.Errorf("%+v: version %d, decoded %+v %v; want version %d", tc.acl, enc[0], got, err, tc.version)
		}
	}
	// Version 3 saying what the rest says is written by nobody.
	if _, err := decodeACL([]byte{aclVersionV3, 0, 1, 'o', 0, 0, 0, 0}); err == nil {
		t.Error("a version 3 record of an ACL not explicit decoded")
	}

	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "s")
	if _, err := e.CreateWith(ctx, n, seqmath.Spec{}, CreateOptions{Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*ACL){func(a *ACL) { a.Grant("bob", PrivSelect) }, func(a *ACL) { a.Revoke("bob", PrivSelect) }} {
		if err := e.UpdateACL(ctx, n, func(a *ACL) error { f(a); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string) {
		t.Helper()
		a, err := e.ACL(n)
		e.catMu.RLock()
		_, ownerOnly := e.ownerOnly[mustInfo(t, e, n).ID]
		e.catMu.RUnlock()
		if err != nil || !a.Explicit || len(a.Grants) != 0 || a.OwnerRevoked != 0 || ownerOnly {
			t.Fatalf("%s: %+v %v, owner-only layout %v", what, a, err, ownerOnly)
		}
	}
	check("granted and revoked")
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	check("reopened")
}
