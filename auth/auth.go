// Package auth is SCRAM-SHA-256 for seqd, as PostgreSQL does it (its
// default password method since 14): verifiers for CREATE ROLE ...
// PASSWORD, and the server side of the exchange; and the checks MySQL's
// protocol makes against the same verifiers (mysql_native_password's
// hash, a password sent whole). The SCRAM mathematics is
// github.com/xdg-go/scram's.
package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"errors"

	"github.com/xdg-go/scram"

	"github.com/seqd/seqd/engine"
)

// Iterations is PostgreSQL's scram_iterations default.
const Iterations = 4096

// processSecret keys the made-up salts of names that have no verifier
// when the caller has no secret of its own (the store's, which keeps
// them the same across restarts and nodes, as PostgreSQL's mock nonce in
// its control file does).
var processSecret = func() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}()

// mockVerifier is a verifier no password matches, with a salt derived
// from user and secret: 16 bytes like a real one's, the same for every
// attempt.
func mockVerifier(user string, secret []byte) *engine.Verifier {
	if secret == nil {
		secret = processSecret
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("salt\x00" + user))
	salt := mac.Sum(nil)[:16]
	keys := make([]byte, 64)
	rand.Read(keys)
	return &engine.Verifier{Salt: salt, Iterations: Iterations, StoredKey: keys[:32], ServerKey: keys[32:]}
}

// NewVerifier derives a role's verifiers from a password: SCRAM-SHA-256's
// with a random salt, and mysql_native_password's hash. The password is
// not kept.
func NewVerifier(password string) (*engine.Verifier, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	cred, err := credentials(password, salt, Iterations)
	if err != nil {
		return nil, err
	}
	return &engine.Verifier{Salt: salt, Iterations: Iterations, StoredKey: cred.StoredKey, ServerKey: cred.ServerKey,
		Native: nativeHash(password)}, nil
}

// nativeHash is mysql_native_password's stored hash of a password:
// SHA1(SHA1(password)).
func nativeHash(password string) []byte {
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	return h2[:]
}

// CheckPassword reports whether password is the one v was derived from,
// by its SCRAM-SHA-256 verifier (a client that sent the password itself:
// caching_sha2_password's full authentication, over TLS or encrypted).
func CheckPassword(v *engine.Verifier, password string) bool {
	if v == nil {
		return false
	}
	cred, err := credentials(password, v.Salt, v.Iterations)
	return err == nil && hmac.Equal(cred.StoredKey, v.StoredKey)
}

// credentials are SCRAM-SHA-256's stored keys of a password under salt
// and iterations.
func credentials(password string, salt []byte, iters int) (scram.StoredCredentials, error) {
	c, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		return scram.StoredCredentials{}, err
	}
	return c.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: iters})
}

// CheckNative checks a mysql_native_password response to the 20-byte
// scramble the server sent: the client's SHA1(password) XOR
// SHA1(scramble, SHA1(SHA1(password))), recovered with the stored hash
// and hashed again to compare. A verifier without the hash fails
// (ErrNativeUnset), a wrong response ErrNoVerifier's way.
func CheckNative(v *engine.Verifier, scramble, response []byte) error {
	if v == nil {
		return ErrNoVerifier
	}
	if len(v.Native) != 20 {
		return ErrNativeUnset
	}
	if len(response) != 20 {
		return ErrNoVerifier
	}
	h := sha1.New()
	h.Write(scramble)
	h.Write(v.Native)
	mask := h.Sum(nil)
	stage1 := make([]byte, 20)
	for i := range stage1 {
		stage1[i] = response[i] ^ mask[i]
	}
	if got := sha1.Sum(stage1); !hmac.Equal(got[:], v.Native) {
		return ErrNoVerifier
	}
	return nil
}

// ErrNativeUnset: the role's password was set before seqd kept
// mysql_native_password's hash; setting it again makes one.
var ErrNativeUnset = errors.New("seqd: the role's password must be set again for MySQL's protocol")

// ErrNoVerifier: the role does not exist or has no password. A client is
// not told which (nor that it is not a wrong password).
var ErrNoVerifier = errors.New("seqd: no password for the role")

// Conversation is the server side of one SCRAM-SHA-256 exchange for the
// user the startup message named (PostgreSQL ignores SCRAM's own user
// name). With no verifier (no such role, one that cannot log in or has no
// password) the exchange still runs to the client's proof, against a
// made-up verifier whose salt is the same at every attempt for the same
// name (PostgreSQL's scram_mock_salt), so that it fails exactly as a wrong
// password does: the server's messages do not tell whether a role exists.
//
// secret keys the made-up salts: the store's (engine.Secret), so that a
// restart or another node does not change them while a real role's salt
// stays (which would tell the two apart); nil, the process's.
//
// binding, when not nil, is the connection's tls-server-end-point channel
// binding (SCRAM-SHA-256-PLUS): a client that binds must bind to it, and
// one that says it could have bound but thinks the server cannot (a
// downgrade) is refused.
func Conversation(v *engine.Verifier, user string, secret, binding []byte) *scram.ServerConversation {
	lookup := func(string) (scram.StoredCredentials, error) {
		if v == nil {
			v = mockVerifier(user, secret)
		}
		return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(v.Salt), Iters: v.Iterations},
			StoredKey: v.StoredKey, ServerKey: v.ServerKey}, nil
	}
	s, _ := scram.SHA256.NewServer(lookup) // never fails for SHA-256
	if binding != nil {
		return s.NewConversationWithChannelBinding(scram.ChannelBinding{Type: scram.ChannelBindingTLSServerEndpoint, Data: binding})
	}
	return s.NewConversation()
}
