package apicore

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sqlerr"
)

// Credentials are what a call presents: a role's name and password
// (Basic: HTTP Basic, or the same in gRPC's metadata), a bearer token
// (Token), or nothing.
type Credentials struct {
	User, Password string
	Basic          bool
	// Bearer: the call presented Token as a bearer token.
	Bearer bool
	Token  string
}

// Authenticate is the call's user, for a call from the address from. A
// bearer token authenticates the role it was made by (one that may log
// in; 28P01 for a token malformed, revoked or expired), under any method.
// Otherwise, under AuthPassword: Basic credentials checked against a
// login role's verifier (28000 without, 28P01 for wrong ones); under
// trust: the name given, or the bootstrap superuser without one. A
// failure is logged at WARN with its reason, as the SQL front ends log
// theirs; the caller is told only that it failed.
func (c *Core) Authenticate(cr Credentials, from string) (string, error) {
	eng, _ := c.Engine()
	if cr.Bearer {
		user, err := executor.VerifyToken(eng, cr.Token, time.Now())
		if err != nil {
			slog.Warn("authentication failed", "api", c.cfg.AppName, "from", from, "reason", "bearer token not valid")
		}
		return user, err
	}
	if c.AuthMethod() != AuthPassword {
		user := c.cfg.Superuser
		if cr.Basic && cr.User != "" {
			user = cr.User
		}
		// Trust skips the password, not the role's LOGIN: PostgreSQL
		// refuses a NOLOGIN role under any method (28000).
		if role, found := eng.Role(user); found && !role.Login {
			slog.Warn("authentication failed", "api", c.cfg.AppName, "user", user, "from", from, "reason", "role cannot log in")
			return "", NewError(sqlerr.InvalidAuthorization, fmt.Sprintf("role \"%s\" is not permitted to log in", user))
		}
		return user, nil
	}
	if !cr.Basic {
		slog.Warn("authentication failed", "api", c.cfg.AppName, "from", from, "reason", "no credentials")
		return "", NewError(sqlerr.InvalidAuthorization, "this API wants the credentials of a role that may log in (Basic) or a bearer token")
	}
	role, found := eng.Role(cr.User)
	v, why := role.Verifier, "wrong password"
	switch {
	case !found:
		why = "no such role"
	case !role.Login:
		why = "role cannot log in"
	case role.Verifier == nil:
		why = "role has no password"
	}
	if why != "wrong password" {
		// The same check, at the same cost, as for a role: no telling
		// which roles exist.
		v = dummyVerifier()
	}
	if ok := c.creds.check(cr.User, cr.Password, v, eng.AuthVersion()); !ok || why != "wrong password" {
		slog.Warn("authentication failed", "api", c.cfg.AppName, "user", cr.User, "from", from, "reason", why)
		return "", NewError(sqlerr.InvalidPassword, fmt.Sprintf("password authentication failed for user \"%s\"", cr.User))
	}
	return cr.User, nil
}

// dummyVerifier is checked against for a role that does not exist or may
// not log in, so that such a refusal takes as long as a wrong password.
// Its password is random, known to no one: no credentials match it,
// so none is cached for a name that is no role's.
var dummyVerifier = sync.OnceValue(func() *engine.Verifier {
	v, _ := auth.NewVerifier(rand.Text())
	return v
})

// credentialCache remembers the credentials checked since the roles last
// changed, so that a client sending its password with every call pays
// the verifier's key derivation once, not per call. It keeps a digest of
// each, never the password, and at most maxCredentials.
type credentialCache struct {
	mu sync.Mutex
	ok map[[32]byte]struct{ version uint64 }
}

const maxCredentials = 4096

func (c *credentialCache) check(user, password string, v *engine.Verifier, version uint64) bool {
	key := sha256.Sum256([]byte(user + "\x00" + password + "\x00" + auth.VerifierText(v)))
	c.mu.Lock()
	cr, hit := c.ok[key]
	c.mu.Unlock()
	if hit && cr.version == version {
		return true
	}
	if !auth.CheckPassword(v, password) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ok) >= maxCredentials {
		for k := range c.ok { // drop one at random
			delete(c.ok, k)
			break
		}
	}
	c.ok[key] = struct{ version uint64 }{version}
	return true
}
