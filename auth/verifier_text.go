package auth

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/seqd/seqd/engine"
)

// VerifierText is a verifier as PostgreSQL's pg_authid.rolpassword shows
// one: SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>, base64.
func VerifierText(v *engine.Verifier) string {
	b := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", v.Iterations, b(v.Salt), b(v.StoredKey), b(v.ServerKey))
}

// ParseVerifierText reads a password that is a SCRAM-SHA-256 verifier in
// PostgreSQL's text form (what pg_dumpall writes), as PostgreSQL takes
// one: stored as it is, not hashed again. ok is false for any other
// password. Such a role has no mysql_native_password hash: it sets its
// password again to log in over MySQL's protocol.
func ParseVerifierText(password string) (v *engine.Verifier, ok bool) {
	rest, found := strings.CutPrefix(password, "SCRAM-SHA-256$")
	if !found {
		return nil, false
	}
	iterSalt, keys, found := strings.Cut(rest, "$")
	if !found {
		return nil, false
	}
	iter, salt, found1 := strings.Cut(iterSalt, ":")
	stored, server, found2 := strings.Cut(keys, ":")
	if !found1 || !found2 {
		return nil, false
	}
	n, err := strconv.Atoi(iter)
	if err != nil || n <= 0 {
		return nil, false
	}
	dec := base64.StdEncoding.DecodeString
	s, err1 := dec(salt)
	sk, err2 := dec(stored)
	srv, err3 := dec(server)
	if err1 != nil || err2 != nil || err3 != nil || len(s) == 0 || len(sk) != 32 || len(srv) != 32 {
		return nil, false
	}
	return &engine.Verifier{Salt: s, Iterations: n, StoredKey: sk, ServerKey: srv}, true
}
