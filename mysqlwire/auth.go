package mysqlwire

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"net"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
)

// user is an authenticated user, as the listener keeps it.
type user string

func (u user) Get() *querypb.VTGateCallerID { return &querypb.VTGateCallerID{Username: string(u)} }

// passwordServer checks passwords against the roles' verifiers (under
// AuthTrust it lets anyone in as any user):
// mysql_native_password against the stored hash; caching_sha2_password by
// the password itself (over TLS, or RSA-encrypted) against the SCRAM
// verifier, then by the fast path, from the SHA256(SHA256(password)) kept
// in memory after that, as MySQL's server does.
//
// A role that does not exist, may not log in, has no password or has no
// mysql_native_password hash fails exactly as a wrong password does, so
// that the server's packets do not tell which: as MySQL 8 runs an unknown
// user through a made-up account, its name is checked against a verifier
// of the server's own that no password matches (dummy), with the same
// work a role's check takes, and caching_sha2_password's fast path sends
// it on to the full authentication as it sends a role it has no cache
// for. The log says which it was (refused).
type passwordServer struct{ srv *Server }

func (p *passwordServer) AuthMethods() []mysql.AuthMethod {
	return []mysql.AuthMethod{
		mysql.NewMysqlNativeAuthMethod(p, p),
		mysql.NewSha2CachingAuthMethodRSA(p, p, p, p.srv.rsaKey),
	}
}

func (p *passwordServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.AuthMethodDescription(p.srv.cfg.DefaultAuth)
}

func (p *passwordServer) HandleUser(string, net.Addr) bool { return true }

// newDummy is a verifier for a password of 32 random bytes, which no
// client sends, and its caching_sha2_password hash.
func newDummy() (*engine.Verifier, []byte, error) {
	b := make([]byte, 32)
	rand.Read(b)
	v, err := auth.NewVerifier(hex.EncodeToString(b))
	if err != nil {
		return nil, nil, err
	}
	h := sha256.Sum256(b)
	return v, h[:], nil
}

// verifier is the verifier user's password is checked against: its
// role's, or the dummy one, why saying why (empty for a role's).
func (s *Server) verifier(user string) (v *engine.Verifier, why string) {
	eng, _ := s.engine()
	r, ok := eng.Role(user)
	switch {
	case !ok:
		return s.dummy, "no such role"
	case !r.Login:
		return s.dummy, "role cannot log in"
	case r.Verifier == nil:
		return s.dummy, "role has no password"
	}
	return r.Verifier, ""
}

// refused logs a failed authentication with its reason and returns
// MariaDB's 1045 for it, the same whatever the reason.
func (s *Server) refused(u string, addr net.Addr, method, why string, usingPassword bool) error {
	frontend.Warn(s.log, "mysql: authentication failed: user %q from %s (%s): %s", u, addr, method, why)
	return mysql.AccessDenied(u, addr, usingPassword)
}

// UserEntryWithHash is mysql_native_password's check. A role whose
// password was set before seqd kept mysql_native_password's hash has
// none to check against: it fails as a wrong password does, the log
// saying to set the password again (ALTER ROLE ... PASSWORD).
func (p *passwordServer) UserEntryWithHash(_ []*x509.Certificate, salt []byte, u string, response []byte, addr net.Addr) (mysql.Getter, error) {
	if p.srv.trust.Load() {
		return user(u), nil
	}
	v, why := p.srv.verifier(u)
	if why == "" && len(v.Native) != 20 {
		v, why = p.srv.dummy, "role has no mysql_native_password hash: its password was set before seqd spoke MySQL's protocol; set it again (ALTER ROLE ... PASSWORD)"
	}
	err := auth.CheckNative(v, salt, response)
	if why == "" && err != nil {
		why = "wrong password"
	}
	if why != "" {
		return nil, p.srv.refused(u, addr, "mysql_native_password", why, len(response) > 0)
	}
	return user(u), nil
}

// UserEntryWithPassword is caching_sha2_password's full authentication:
// the password against the role's SCRAM verifier. It fills the fast
// path's cache.
func (p *passwordServer) UserEntryWithPassword(_ []*x509.Certificate, u, password string, addr net.Addr) (mysql.Getter, error) {
	if p.srv.trust.Load() {
		return user(u), nil
	}
	v, why := p.srv.verifier(u)
	ok := auth.CheckPassword(v, password)
	if why == "" && !ok {
		why = "wrong password"
	}
	if why != "" {
		return nil, p.srv.refused(u, addr, "caching_sha2_password", why, password != "")
	}
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	p.srv.mu.Lock()
	p.srv.fast[u] = fastEntry{hash: h2[:], storedKey: v.StoredKey}
	p.srv.mu.Unlock()
	return user(u), nil
}

// UserEntryWithCacheHash is caching_sha2_password's fast path: accepted
// when the scramble matches the hash a full authentication cached for the
// role's present password; anything else, an unknown role included, goes
// on to the full authentication (AuthNeedMoreData), as MySQL's server
// sends a user it has no cache entry for.
func (p *passwordServer) UserEntryWithCacheHash(_ []*x509.Certificate, salt []byte, u string, response []byte, addr net.Addr) (mysql.Getter, mysql.CacheState, error) {
	if p.srv.trust.Load() {
		return user(u), mysql.AuthAccepted, nil
	}
	v, why := p.srv.verifier(u)
	p.srv.mu.Lock()
	cached, ok := p.srv.fast[u]
	if ok && (why != "" || !bytes.Equal(cached.storedKey, v.StoredKey)) {
		delete(p.srv.fast, u) // the password changed since, or the role
		ok = false
	}
	p.srv.mu.Unlock()
	hash := cached.hash
	if !ok {
		hash = p.srv.dummyFast // the same work
	}
	if fastAuth(hash, salt, response) && ok {
		return user(u), mysql.AuthAccepted, nil
	}
	return nil, mysql.AuthNeedMoreData, nil
}

// fastAuth checks caching_sha2_password's scramble: XOR(SHA256(password),
// SHA256(SHA256(SHA256(password)), nonce)) against the cached
// SHA256(SHA256(password)).
func fastAuth(cached, nonce, scramble []byte) bool {
	if len(scramble) != sha256.Size {
		return false
	}
	h := sha256.New()
	h.Write(cached)
	h.Write(nonce)
	m := h.Sum(nil)
	for i := range m {
		m[i] ^= scramble[i]
	}
	got := sha256.Sum256(m)
	return subtle.ConstantTimeCompare(got[:], cached) == 1
}

// rsaKey is the configured RSA key, or one generated when first needed.
func (s *Server) rsaKey() (*rsa.PrivateKey, error) {
	s.rsaOnce.Do(func() {
		if s.cfg.RSAKey == nil {
			s.cfg.RSAKey, s.rsaErr = rsa.GenerateKey(rand.Reader, 2048)
		}
	})
	return s.cfg.RSAKey, s.rsaErr
}
