package mysqlwire

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/selfsigned"
	"github.com/seqd/seqd/internal/testenv"
)

// sha2Scramble is a caching_sha2_password client's fast-path response to
// nonce: SHA256(password) XOR SHA256(SHA256(SHA256(password)), nonce).
func sha2Scramble(password string, nonce []byte) []byte {
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	h := sha256.New()
	h.Write(h2[:])
	h.Write(nonce)
	m := h.Sum(nil)
	for i := range m {
		m[i] ^= h1[i]
	}
	return m
}

// TestCachingSha2: caching_sha2_password's fast path has nothing to go on
// until a full authentication (the password itself, over TLS or
// encrypted) succeeded against the role's SCRAM verifier; then the right
// scramble is accepted and a wrong one sent back to the full
// authentication. A wrong password or an unknown role is refused; a role
// that may not log in is unknown; neither has a fast path of its own.
func TestCachingSha2(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	v, err := auth.NewVerifier("right pw")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []engine.Role{{Name: "app", Login: true, Verifier: v}, {Name: "nologin", Verifier: v}} {
		if err := eng.PutRole(ctx, r, true); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(Config{Engine: eng, Auth: AuthPassword, Logger: log.New(io.Discard, "", 0)}, ln)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &passwordServer{srv: s}
	addr := ln.Addr()
	nonce := []byte("0123456789abcdefghij")

	if _, state, err := p.UserEntryWithCacheHash(nil, nonce, "app", sha2Scramble("right pw", nonce), addr); err != nil || state != mysql.AuthNeedMoreData {
		t.Fatalf("the fast path before a full authentication: %v %v, want AuthNeedMoreData", state, err)
	}
	for _, bad := range []struct{ user, pw string }{{"app", "wrong"}, {"nobody", "right pw"}, {"nologin", "right pw"}} {
		if _, err := p.UserEntryWithPassword(nil, bad.user, bad.pw, addr); err == nil {
			t.Fatalf("full authentication of %s with %q accepted", bad.user, bad.pw)
		}
	}
	if _, state, err := p.UserEntryWithCacheHash(nil, nonce, "app", sha2Scramble("right pw", nonce), addr); err != nil || state != mysql.AuthNeedMoreData {
		t.Fatalf("the fast path after failed full authentications: %v %v", state, err)
	}
	if _, err := p.UserEntryWithPassword(nil, "app", "right pw", addr); err != nil {
		t.Fatalf("full authentication: %v", err)
	}
	if _, state, err := p.UserEntryWithCacheHash(nil, nonce, "app", sha2Scramble("right pw", nonce), addr); err != nil || state != mysql.AuthAccepted {
		t.Fatalf("the fast path after a full authentication: %v %v, want AuthAccepted", state, err)
	}
	other := []byte("abcdefghij0123456789")
	if _, state, _ := p.UserEntryWithCacheHash(nil, other, "app", sha2Scramble("right pw", nonce), addr); state == mysql.AuthAccepted {
		t.Fatal("a scramble for another nonce was accepted")
	}
	if _, state, _ := p.UserEntryWithCacheHash(nil, nonce, "app", sha2Scramble("wrong", nonce), addr); state == mysql.AuthAccepted {
		t.Fatal("a wrong password's scramble was accepted")
	}
	for _, u := range []string{"nobody", "nologin"} {
		// As a role the cache has nothing for: the full authentication
		// refuses it, in the same words.
		if _, state, err := p.UserEntryWithCacheHash(nil, nonce, u, sha2Scramble("right pw", nonce), addr); err != nil || state != mysql.AuthNeedMoreData {
			t.Fatalf("%s's fast path: %v %v, want AuthNeedMoreData", u, state, err)
		}
	}
	// A new password: the old one's fast path is gone.
	nv, err := auth.NewVerifier("new pw")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.PutRole(ctx, engine.Role{Name: "app", Login: true, Verifier: nv}, false); err != nil {
		t.Fatal(err)
	}
	if _, state, err := p.UserEntryWithCacheHash(nil, nonce, "app", sha2Scramble("right pw", nonce), addr); err != nil || state != mysql.AuthNeedMoreData {
		t.Fatalf("the old password's fast path after a new password: %v %v, want AuthNeedMoreData", state, err)
	}
	if _, err := p.UserEntryWithPassword(nil, "app", "right pw", addr); err == nil {
		t.Fatal("the old password after a new one")
	}
}

// TestCachingSha2Driver: go-sql-driver/mysql against a server announcing
// caching_sha2_password. The first login is the full authentication,
// checked against the SCRAM verifier: without TLS the password encrypted
// with the server's RSA key (the driver asks for its public half), over
// TLS the password itself; the next takes the fast path from the cache
// it filled (seen as the cache holding the role after the first, and a
// wrong password still refused). A password changed since empties the
// cache. A client given the server's public key beforehand sends the
// password encrypted at once; given another key, it is refused.
func TestCachingSha2Driver(t *testing.T) {
	tc, _ := serverTLS(t)
	eng := testenv.MemEngine(t)
	s := serve(t, eng, Config{DefaultAuth: "caching_sha2_password", TLS: tc})
	cached := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, ok := s.fast["app"]
		return ok
	}
	login := func(s *Server, password, params string) error {
		t.Helper()
		db, err := sql.Open("mysql", fmt.Sprintf("app:%s@tcp(%s)/?%s", password, s.Addr(), params))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var v string
		return db.QueryRow("SELECT CURRENT_USER()").Scan(&v)
	}
	if err := login(s, "wrong", "tls=false"); number(err) != 1045 {
		t.Fatalf("a wrong password without TLS: %v, want 1045", err)
	}
	if err := login(s, "app pw", "tls=false"); err != nil {
		t.Fatalf("full authentication without TLS (RSA): %v", err)
	}
	if !cached() {
		t.Fatal("no cache entry after a full authentication without TLS")
	}
	if err := login(s, "app pw", "tls=false"); err != nil {
		t.Fatalf("fast path without TLS: %v", err)
	}
	if err := login(s, "wrong", "tls=false"); number(err) != 1045 {
		t.Fatalf("a wrong password without TLS, cached: %v, want 1045", err)
	}
	r, _ := eng.Role("app")
	var err error
	if r.Verifier, err = auth.NewVerifier("new pw"); err != nil {
		t.Fatal(err)
	}
	if err := eng.PutRole(ctx, r, false); err != nil {
		t.Fatal(err)
	}
	if err := login(s, "app pw", "tls=skip-verify"); number(err) != 1045 {
		t.Fatalf("the old password after a change: %v, want 1045", err)
	}
	if err := login(s, "new pw", "tls=skip-verify"); err != nil {
		t.Fatalf("full authentication over TLS: %v", err)
	}
	if err := login(s, "new pw", "tls=skip-verify"); err != nil {
		t.Fatalf("fast path over TLS: %v", err)
	}
	if err := login(s, "wrong", "tls=skip-verify"); number(err) != 1045 {
		t.Fatalf("a wrong password over TLS: %v, want 1045", err)
	}

	key, other := rsaKey(t), rsaKey(t)
	pinned := serve(t, testenv.MemEngine(t), Config{DefaultAuth: "caching_sha2_password", RSAKey: key})
	gomysql.RegisterServerPubKey("seqd-test", &key.PublicKey)
	gomysql.RegisterServerPubKey("seqd-test-other", &other.PublicKey)
	if err := login(pinned, "app pw", "serverPubKey=seqd-test-other"); number(err) != 1045 {
		t.Fatalf("the password encrypted with another key: %v, want 1045", err)
	}
	if err := login(pinned, "app pw", "serverPubKey=seqd-test"); err != nil {
		t.Fatalf("the password encrypted with the server's key, given to the client: %v", err)
	}
}

// TestAuthFailuresAlike: an unknown role, one that may not log in, one
// without a password and one whose password predates
// mysql_native_password's hash get from the server exactly the packets a
// role with a wrong password gets (their names aside), under both
// methods: caching_sha2_password used to refuse unknown roles at once
// and ask real ones for the full authentication, and
// mysql_native_password to say when a role's hash was missing. The right
// password still logs in.
func TestAuthFailuresAlike(t *testing.T) {
	eng := testenv.MemEngine(t)
	v, err := auth.NewVerifier("right pw")
	if err != nil {
		t.Fatal(err)
	}
	old := *v
	old.Native = nil
	for _, r := range []engine.Role{{Name: "nol", Verifier: v}, {Name: "nov", Login: true}, {Name: "old", Login: true, Verifier: &old}} {
		if err := eng.PutRole(ctx, r, true); err != nil {
			t.Fatal(err)
		}
	}
	addr := serve(t, eng, Config{}).Addr().String() // and "app" (password "app pw")
	for _, method := range []string{"mysql_native_password", "caching_sha2_password"} {
		seen := func(user, password string) (string, []byte) {
			c := dialRaw(t, addr)
			last := c.login(user, password, method)
			var all []byte
			for _, p := range c.seen {
				// The name as the error words it: the server's public
				// key, sent in the clear, may hold it by chance.
				all = append(all, bytes.ReplaceAll(p, []byte("user '"+user+"'"), []byte("user '???'"))...)
				all = append(all, '|')
			}
			return string(all), last
		}
		want, last := seen("app", "wrong")
		if n, _ := errorOf(last); n != 1045 {
			t.Fatalf("%s, a wrong password: %s", method, describe(last))
		}
		for _, r := range []struct{ user, password string }{{"unk", "right pw"}, {"nol", "right pw"}, {"nov", "right pw"}, {"old", "wrong"}} {
			if method == "mysql_native_password" && r.user == "old" {
				r.password = "right pw" // which its missing hash cannot prove
			}
			if got, _ := seen(r.user, r.password); got != want {
				t.Errorf("%s, role %s:\n%q\nwrong password:\n%q", method, r.user, got, want)
			}
		}
		if _, last := seen("app", "app pw"); last[0] != 0 {
			t.Fatalf("%s, the right password: %s", method, describe(last))
		}
	}
	// The password of a role without mysql_native_password's hash is
	// checked by caching_sha2_password's full authentication.
	if last := dialRaw(t, addr).login("old", "right pw", "caching_sha2_password"); last[0] != 0 {
		t.Fatalf("old, caching_sha2_password: %s", describe(last))
	}
}

func rsaKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// serverTLS is a TLS configuration with a new self-signed certificate for
// 127.0.0.1, and the certificate's file (its own CA).
func serverTLS(t *testing.T) (*tls.Config, string) {
	t.Helper()
	cert, key, err := selfsigned.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}}, cert
}
