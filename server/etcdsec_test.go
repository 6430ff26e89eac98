package server

import (
	"context"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/etcdtest"
)

// TestSecuredEtcd: a node reaches etcd members that require TLS client
// certificates only with one, and with etcd's authentication enabled
// only as a user with the right password; refused, it says why instead
// of starting.
func TestSecuredEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd")
	}
	cl := etcdtest.Start(t, 1)
	ctx := context.Background()
	withCert := EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey}
	start := func(sec EtcdSecurity, prefix string) (*Server, error) {
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		return Start(sctx, Config{Listen: "127.0.0.1:0", Etcd: cl.Endpoints, EtcdPrefix: prefix, LeaseTTL: 2 * time.Second,
			EtcdSecurity: sec, Logger: log.New(io.Discard, "", 0)})
	}
	// Without a client certificate (the CA alone verifies the members).
	began := time.Now()
	if s, err := start(EtcdSecurity{CA: cl.TLS.CA}, "/nocert/"); err == nil {
		s.Shutdown(ctx)
		t.Fatal("a node without a client certificate started")
	} else if !strings.Contains(err.Error(), "certificate required") {
		t.Fatalf("without a certificate, after %v: %v, want the handshake's reason", time.Since(began).Round(time.Millisecond), err)
	}
	s, err := start(withCert, "/cert/")
	if err != nil {
		t.Fatalf("with the client certificate: %v", err)
	}
	s.Shutdown(ctx)

	// etcd's users: root with a password, authentication on.
	cli := cl.Client(t)
	if _, err := cli.UserAdd(ctx, "root", "etcd-pw"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.UserGrantRole(ctx, "root", "root"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.AuthEnable(ctx); err != nil {
		t.Fatal(err)
	}
	wrong := withCert
	wrong.User, wrong.Password = "root", "nope"
	if s, err := start(wrong, "/auth/"); err == nil {
		s.Shutdown(ctx)
		t.Fatal("a node with a wrong etcd password started")
	} else if want := "authentication failed"; !strings.Contains(strings.ToLower(err.Error()), want) {
		t.Fatalf("wrong password: %v, want %q", err, want)
	}
	right := withCert
	right.User, right.Password = "root", "etcd-pw"
	s, err = start(right, "/auth/")
	if err != nil {
		t.Fatalf("with etcd's user and password: %v", err)
	}
	defer s.Shutdown(ctx)
	var c *pgx.Conn
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, err = pgx.Connect(ctx, "postgres://app@"+s.Addr().String()+"/app?target_session_attrs=read-write")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leader on the secured cluster: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create sequence s"); err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := c.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil || v != 1 {
		t.Fatalf("nextval on the secured cluster: %d %v", v, err)
	}
}
