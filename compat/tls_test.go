package compat

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgwire"
	"github.com/seqd/seqd/server"
)

// testCA is a certificate authority a test makes.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(t *testing.T, name string) *testCA {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// serverCert writes a certificate for 127.0.0.1 and localhost signed by
// ca, and its key, to certFile and keyFile.
func (ca *testCA) serverCert(t *testing.T, certFile, keyFile string) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
}

// TestTLS: psql, pgx, psycopg and pgjdbc connect with sslmode=verify-full
// against a CA the test makes; after the certificate is swapped for one
// of another CA and the server reloads (what SIGHUP does), new
// connections use the new certificate and an old one goes on.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	ca1, ca2 := newCA(t, "seqd test CA 1"), newCA(t, "seqd test CA 2")
	ca1File, ca2File := filepath.Join(dir, "ca1.pem"), filepath.Join(dir, "ca2.pem")
	os.WriteFile(ca1File, ca1.pem, 0o600)
	os.WriteFile(ca2File, ca2.pem, 0o600)
	ca1.serverCert(t, certFile, keyFile)
	ctx := context.Background()
	srv, err := server.Start(ctx, server.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(ctx)
	_, port, _ := net.SplitHostPort(srv.Addr().String())
	url := func(ca string) string {
		return fmt.Sprintf("postgres://seqd@127.0.0.1:%s/seqd?sslmode=verify-full&sslrootcert=%s", port, ca)
	}
	old, err := pgx.Connect(ctx, url(ca1File))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close(ctx)
	if _, err := old.Exec(ctx, "create sequence s"); err != nil {
		t.Fatal(err)
	}
	if _, ok := old.PgConn().Conn().(*tls.Conn); !ok {
		t.Fatalf("pgx's connection is %T, not TLS", old.PgConn().Conn())
	}

	psql := testenv.Command(t, "psql")
	cmd := exec.Command(psql, "-X", "-At", "-h", "127.0.0.1", "-p", port, "-U", "seqd", "-d", "seqd", "-c", "select nextval('s')")
	cmd.Env = append(os.Environ(), "PGSSLMODE=verify-full", "PGSSLROOTCERT="+ca1File)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	script := fmt.Sprintf("import psycopg\nc = psycopg.connect(host='127.0.0.1', port=%s, user='seqd', dbname='seqd', sslmode='verify-full', sslrootcert=%q)\nprint(c.execute(\"select nextval('s')\").fetchone()[0], c.pgconn.ssl_in_use)", port, ca1File)
	if out, err := exec.Command(testenv.Python(t), "-c", script).CombinedOutput(); err != nil || !strings.Contains(string(out), "True") {
		t.Fatalf("psycopg: %v\n%s", err, out)
	}
	runJDBC(t, fmt.Sprintf("jdbc:postgresql://127.0.0.1:%s/seqd?sslmode=verify-full&sslrootcert=%s", port, ca1File), "seqd", "")

	// Swap the certificate and reload.
	ca2.serverCert(t, certFile, keyFile)
	if err := srv.Reload(); err != nil {
		t.Fatal(err)
	}
	if c, err := pgx.Connect(ctx, url(ca1File)); err == nil {
		c.Close(ctx)
		t.Fatal("after the reload the old CA still verifies the server")
	}
	c2, err := pgx.Connect(ctx, url(ca2File))
	if err != nil {
		t.Fatalf("after the reload: %v", err)
	}
	c2.Close(ctx)
	var v int64
	if err := old.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil {
		t.Fatalf("a connection from before the reload: %v", err)
	}
	// A bad file keeps the certificate in use.
	os.WriteFile(certFile, []byte("not a certificate"), 0o600)
	if err := srv.Reload(); err == nil {
		t.Fatal("reload of a bad certificate succeeded")
	}
	if c, err := pgx.Connect(ctx, url(ca2File)); err != nil {
		t.Fatalf("after a failed reload: %v", err)
	} else {
		c.Close(ctx)
	}
}

// clientCert writes a client certificate for cn signed by ca, and its
// key, to certFile and keyFile.
func (ca *testCA) clientCert(t *testing.T, cn, certFile, keyFile string) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
}

// serverTLS makes, in a new directory, a CA (its certificate in caFile)
// and a server certificate it signed for 127.0.0.1 (certFile, keyFile).
func serverTLS(t *testing.T) (dir string, ca *testCA, caFile, certFile, keyFile string) {
	dir = t.TempDir()
	certFile, keyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	ca = newCA(t, "seqd test CA")
	caFile = filepath.Join(dir, "ca.pem")
	os.WriteFile(caFile, ca.pem, 0o600)
	ca.serverCert(t, certFile, keyFile)
	return dir, ca, caFile, certFile, keyFile
}

// psqlRun runs psql with the environment's connection settings and
// returns its output and whether it succeeded.
func psqlRun(t *testing.T, port string, env ...string) (string, bool) {
	return psqlQuery(t, port, "select 1", env...)
}

// psqlQuery is psqlRun of query.
func psqlQuery(t *testing.T, port, query string, env ...string) (string, bool) {
	psql := testenv.Command(t, "psql")
	cmd := exec.Command(psql, "-X", "-At", "-h", "127.0.0.1", "-p", port, "-U", "seqd", "-d", "seqd", "-c", query)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// TestTLSAuth: SCRAM-SHA-256-PLUS (psql with channel_binding=require),
// -tls-required refusing plaintext with PostgreSQL's message, and client
// certificate authentication (-auth cert).
func TestTLSAuth(t *testing.T) {
	dir, ca, caFile, certFile, keyFile := serverTLS(t)

	// SCRAM over TLS offers channel binding; psql requiring it gets in.
	_, port := startWith(t, server.Config{Auth: pgwire.AuthSCRAM, Password: "su-pw", TLSCert: certFile, TLSKey: keyFile})
	if out, ok := psqlRun(t, port, "PGPASSWORD=su-pw", "PGSSLMODE=verify-full", "PGSSLROOTCERT="+caFile, "PGCHANNELBINDING=require"); !ok {
		t.Fatalf("psql channel_binding=require: %s", out)
	}
	if out, ok := psqlRun(t, port, "PGPASSWORD=wrong", "PGSSLMODE=verify-full", "PGSSLROOTCERT="+caFile, "PGCHANNELBINDING=require"); ok || !strings.Contains(out, "password authentication failed") {
		t.Fatalf("a wrong password with channel binding: %s", out)
	}
	// Without TLS there is no channel to bind to: psql refuses itself.
	if out, ok := psqlRun(t, port, "PGPASSWORD=su-pw", "PGSSLMODE=disable", "PGCHANNELBINDING=require"); ok {
		t.Fatalf("channel_binding=require without TLS got in: %s", out)
	}
	// And plain SCRAM still works over TLS and without it.
	for _, mode := range []string{"require", "disable"} {
		if out, ok := psqlRun(t, port, "PGPASSWORD=su-pw", "PGSSLMODE="+mode, "PGCHANNELBINDING=disable"); !ok {
			t.Fatalf("SCRAM with sslmode=%s: %s", mode, out)
		}
	}

	// -tls-required: plaintext refused as PostgreSQL's hostssl-only
	// pg_hba.conf refuses it.
	_, port = startWith(t, server.Config{Auth: pgwire.AuthSCRAM, Password: "su-pw", TLSCert: certFile, TLSKey: keyFile, TLSRequired: true})
	out, ok := psqlRun(t, port, "PGPASSWORD=su-pw", "PGSSLMODE=disable")
	if want := `FATAL:  no pg_hba.conf entry for host "127.0.0.1", user "seqd", database "seqd", no encryption`; ok || !strings.Contains(out, want) {
		t.Fatalf("plaintext to a TLS-required server: %s\nwant %s", out, want)
	}
	if out, ok := psqlRun(t, port, "PGPASSWORD=su-pw", "PGSSLMODE=require"); !ok {
		t.Fatalf("TLS to a TLS-required server: %s", out)
	}

	// -auth cert: the certificate's common name is the role.
	_, port = startWith(t, server.Config{Auth: pgwire.AuthCert, TLSCert: certFile, TLSKey: keyFile, TLSClientCA: caFile})
	good, goodKey := filepath.Join(dir, "seqd.crt"), filepath.Join(dir, "seqd.key")
	ca.clientCert(t, "seqd", good, goodKey)
	other, otherKey := filepath.Join(dir, "other.crt"), filepath.Join(dir, "other.key")
	ca.clientCert(t, "mallory", other, otherKey)
	if out, ok := psqlRun(t, port, "PGSSLMODE=verify-full", "PGSSLROOTCERT="+caFile, "PGSSLCERT="+good, "PGSSLKEY="+goodKey); !ok {
		t.Fatalf("client certificate for seqd: %s", out)
	}
	if out, ok := psqlRun(t, port, "PGSSLMODE=verify-full", "PGSSLROOTCERT="+caFile, "PGSSLCERT="+other, "PGSSLKEY="+otherKey); ok || !strings.Contains(out, `certificate authentication failed for user "seqd"`) {
		t.Fatalf("another role's certificate: %s", out)
	}
	if out, ok := psqlRun(t, port, "PGSSLMODE=verify-full", "PGSSLROOTCERT="+caFile, "PGSSLCERT=/nonexistent", "PGSSLKEY=/nonexistent"); ok || !strings.Contains(out, "connection requires a valid client certificate") {
		t.Fatalf("no certificate: %s", out)
	}
}

// TestStatSSL: pg_stat_ssl shows psql's (libpq over OpenSSL) TLS session
// as PostgreSQL names it: the version and cipher by OpenSSL's names, the
// key's bits, and the client certificate's subject, serial and issuer;
// a session without TLS shows ssl false.
func TestStatSSL(t *testing.T) {
	dir, ca, caFile, certFile, keyFile := serverTLS(t)
	clientCert, clientKey := filepath.Join(dir, "seqd.crt"), filepath.Join(dir, "seqd.key")
	ca.clientCert(t, "seqd", clientCert, clientKey)
	pemBytes, _ := os.ReadFile(clientCert)
	block, _ := pem.Decode(pemBytes)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	// Given a CA, the server asks for a client certificate (and without
	// one, as PostgreSQL's, it would not).
	_, port := startWith(t, server.Config{Auth: pgwire.AuthTrust, TLSCert: certFile, TLSKey: keyFile, TLSClientCA: caFile})
	const q = "select ssl, version, cipher, bits, client_dn, client_serial, issuer_dn from pg_stat_ssl where pid = pg_backend_pid()"
	out, ok := psqlQuery(t, port, q, "PGSSLMODE=verify-full", "PGSSLROOTCERT="+caFile, "PGSSLCERT="+clientCert, "PGSSLKEY="+clientKey)
	if !ok {
		t.Fatalf("psql over TLS: %s", out)
	}
	want := map[string]bool{
		"t|TLSv1.3|TLS_AES_128_GCM_SHA256|128|CN=seqd|" + cert.SerialNumber.String() + "|CN=seqd test CA\n":       true,
		"t|TLSv1.3|TLS_AES_256_GCM_SHA384|256|CN=seqd|" + cert.SerialNumber.String() + "|CN=seqd test CA\n":       true,
		"t|TLSv1.3|TLS_CHACHA20_POLY1305_SHA256|256|CN=seqd|" + cert.SerialNumber.String() + "|CN=seqd test CA\n": true,
	}
	if !want[out] {
		t.Errorf("pg_stat_ssl over TLS with a client certificate: %q", out)
	}
	if out, ok := psqlQuery(t, port, q, "PGSSLMODE=disable"); !ok || out != "f||||||\n" {
		t.Errorf("pg_stat_ssl without TLS: %q", out)
	}
}
