package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/alloc"
	"github.com/seqd/seqd/storage"
)

func TestACLDurable(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "s")
	if _, err := e.CreateWith(ctx, n, alloc.Spec{}, CreateOptions{Owner: "alice"}); err != nil {
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
	if p := a.Privileges("alice", false); p != PrivAll {
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
	if p := a.Privileges("carol", true); p != PrivAll {
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
	if _, err := e.Create(ctx, n, alloc.Spec{}, false); err != nil {
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
