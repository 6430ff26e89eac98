// Package auth is SCRAM-SHA-256 for seqd, as PostgreSQL does it (its
// default password method since 14): verifiers for CREATE ROLE ...
// PASSWORD, and the server side of the exchange. The SCRAM mathematics
// is github.com/xdg-go/scram's.
package auth

import (
	"crypto/rand"
	"errors"

	"github.com/xdg-go/scram"

	"github.com/seqd/seqd/engine"
)

// Iterations is PostgreSQL's scram_iterations default.
const Iterations = 4096

// NewVerifier derives a SCRAM-SHA-256 verifier from a password, with a
// random salt. The password is not kept.
func NewVerifier(password string) (*engine.Verifier, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	c, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		return nil, err
	}
	cred, err := c.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: Iterations})
	if err != nil {
		return nil, err
	}
	return &engine.Verifier{Salt: salt, Iterations: Iterations, StoredKey: cred.StoredKey, ServerKey: cred.ServerKey}, nil
}

// ErrNoVerifier: the role does not exist or has no password. A client is
// not told which (nor that it is not a wrong password).
var ErrNoVerifier = errors.New("seqd: no password for the role")

// Conversation is the server side of one SCRAM-SHA-256 exchange for the
// user the startup message named (PostgreSQL ignores SCRAM's own user
// name). With no verifier the exchange still runs, against a made-up one,
// so that it fails the same way a wrong password does.
func Conversation(v *engine.Verifier) *scram.ServerConversation {
	lookup := func(string) (scram.StoredCredentials, error) {
		if v == nil {
			return scram.StoredCredentials{}, ErrNoVerifier
		}
		return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(v.Salt), Iters: v.Iterations},
			StoredKey: v.StoredKey, ServerKey: v.ServerKey}, nil
	}
	s, _ := scram.SHA256.NewServer(lookup) // never fails for SHA-256
	return s.NewConversation()
}
