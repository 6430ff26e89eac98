package server

import (
	"context"
	"io"
	"log"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestBootstrapOID: under SCRAM the catalog's OID 10 is the superuser seqd
// made at its first start for every session, a role that logs in or a
// role taken with SET ROLE, as PostgreSQL's bootstrap superuser: the owner
// of what predates ownership and of the catalog, its ACLs' grantor.
func TestBootstrapOID(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: filepath.Join(t.TempDir(), "d"), Listen: "127.0.0.1:0", MaxConns: 10,
		Auth: "scram-sha-256", Password: "pw", Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	connect := func(user, password string) *pgx.Conn {
		c, err := pgx.Connect(ctx, "postgres://"+user+":"+password+"@"+s.Addr().String()+"/seqd?sslmode=disable")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	su := connect("seqd", "pw")
	for _, q := range []string{"create role alice login password 'a'", "create sequence boot_s", "create sequence alice_s", "alter sequence alice_s owner to alice"} {
		if _, err := su.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	alice := connect("alice", "a")
	check := func(who string, c *pgx.Conn) {
		t.Helper()
		var boot, owner, aliceOwner, acl string
		var super bool
		err := c.QueryRow(ctx, `select rolname, rolsuper,
			(select pg_get_userbyid(relowner) from pg_class where relname = 'boot_s'),
			(select pg_get_userbyid(relowner) from pg_class where relname = 'alice_s'),
			(select relacl::text from pg_class where relname = 'pg_class')
			from pg_roles where oid = 10`).Scan(&boot, &super, &owner, &aliceOwner, &acl)
		if err != nil {
			t.Fatal(err)
		}
		if boot != "seqd" || !super || owner != "seqd" || aliceOwner != "alice" || acl != "{seqd=arwdDxt/seqd,=r/seqd}" {
			t.Errorf("as %s: OID 10 %s (superuser %v), owners %s and %s, pg_class's ACL %s; want seqd, seqd, alice, seqd's",
				who, boot, super, owner, aliceOwner, acl)
		}
		var n int
		if err := c.QueryRow(ctx, "select count(*) from pg_roles where rolname in ('seqd', 'alice')").Scan(&n); err != nil || n != 2 {
			t.Errorf("as %s: %d of seqd and alice in pg_roles (%v)", who, n, err)
		}
	}
	check("seqd", su)
	check("alice", alice)
	if _, err := su.Exec(ctx, "set role alice"); err != nil {
		t.Fatal(err)
	}
	check("seqd as alice", su)
}
