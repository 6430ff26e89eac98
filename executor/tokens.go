package executor

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/sqlerr"
)

// Bearer tokens for the driverless APIs (HTTP and gRPC): a role makes its
// own with seqd_create_token, sees them in seqd_tokens and revokes them
// with seqd_revoke_token. A token is
//
//	seqd.<base64url of the role's name>.<the ID, hex>.<base64url of a 256-bit secret>
//
// The role's record keeps the ID, the SHA-256 of the secret, a label and
// the expiry (engine.Token): never the secret, which is shown once. A
// token names its role, so renaming the role ends its tokens; dropping
// it drops them with its record.

const (
	tokenPrefix      = "seqd."
	defaultTokenDays = 90
	maxTokenDays     = 3650
)

func init() {
	create := func(e *eval.Env, label string, days int64) (eval.Datum, error) {
		token, err := sessionOf(e).createToken(e.Ctx, label, days)
		if err != nil {
			return eval.Null, err
		}
		return eval.Text(token), nil
	}
	eval.Define("seqd_create_token", eval.TText, false, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return create(e, a[0].S, defaultTokenDays)
	}, eval.TText)
	eval.Define("seqd_create_token", eval.TText, false, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		if a[1].IsNull() {
			return eval.Null, sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_create_token: the days a token is valid for cannot be NULL")
		}
		return create(e, a[0].S, a[1].I)
	}, eval.TText, eval.TInt4)
	eval.Define("seqd_revoke_token", eval.TBool, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		revoked, err := sessionOf(e).revokeToken(e.Ctx, a[0].S)
		if err != nil {
			return eval.Null, err
		}
		return eval.Bool(revoked), nil
	}, eval.TText)
}

// createToken makes a token of the session's role, valid for days, and
// returns it: the only time its secret is seen.
func (s *Session) createToken(ctx context.Context, label string, days int64) (string, error) {
	if err := s.checkWritable("seqd_create_token()"); err != nil {
		return "", err
	}
	if days < 1 || days > maxTokenDays {
		return "", sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_create_token: a token is valid for 1 to %d days, not %d", maxTokenDays, days)
	}
	if len(label) > engine.MaxTokenLabel {
		return "", sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_create_token: a label is at most %d bytes", engine.MaxTokenLabel)
	}
	user := s.cfg.User
	r, ok := s.roles().Role(user)
	if !ok {
		return "", sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", user)
	}
	now := time.Now()
	// Expired tokens go as a new one comes; a fresh slice, so that the
	// catalog's copy of the role is not changed in place.
	kept := make([]engine.Token, 0, len(r.Tokens)+1)
	for _, t := range r.Tokens {
		if t.Expires.After(now) {
			kept = append(kept, t)
		}
	}
	if len(kept) >= engine.MaxTokens {
		return "", sqlerr.Errorf(sqlerr.ProgramLimitExceeded, "role \"%s\" has %d tokens already, the most it may hold: revoke one (seqd_revoke_token)", user, len(kept))
	}
	var secret [32]byte
	t := engine.Token{Label: label, Created: now, Expires: now.Add(time.Duration(days) * 24 * time.Hour)}
	rand.Read(t.ID[:])
	rand.Read(secret[:])
	t.Hash = sha256.Sum256(secret[:])
	r.Tokens = append(kept, t)
	if err := s.roleDDL().PutRole(ctx, r, false); err != nil {
		return "", err
	}
	return tokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(user)) + "." + hex.EncodeToString(t.ID[:]) + "." +
		base64.RawURLEncoding.EncodeToString(secret[:]), nil
}

// revokeToken drops the token of ID id (hex) from the session's role, or
// for a superuser from any role's: true if there was one.
func (s *Session) revokeToken(ctx context.Context, id string) (bool, error) {
	if err := s.checkWritable("seqd_revoke_token()"); err != nil {
		return false, err
	}
	raw, err := hex.DecodeString(id)
	if err != nil || len(raw) != 16 {
		return false, sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_revoke_token: %q is not a token's ID (32 hexadecimal digits, as seqd_tokens shows it)", id)
	}
	roles := []engine.Role{}
	if s.isSuperuser(s.cfg.User) {
		roles = s.roles().Roles()
	} else if r, ok := s.roles().Role(s.cfg.User); ok {
		roles = append(roles, r)
	}
	for _, r := range roles {
		i := slices.IndexFunc(r.Tokens, func(t engine.Token) bool { return string(t.ID[:]) == string(raw) })
		if i < 0 {
			continue
		}
		r.Tokens = slices.Delete(slices.Clone(r.Tokens), i, i+1)
		if err := s.roleDDL().PutRole(ctx, r, false); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// VerifyToken is the role a bearer token authenticates: one that may log
// in, holding the token unexpired. The comparison of the secret's hash
// takes the same time wherever it differs.
func VerifyToken(eng *engine.Engine, token string, now time.Time) (string, error) {
	bad := sqlerr.Errorf(sqlerr.InvalidPassword, "the bearer token is not valid (malformed, revoked, expired, or its role may not log in)")
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return "", bad
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return "", bad
	}
	name, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	id, err2 := hex.DecodeString(parts[1])
	secret, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || len(id) != 16 || len(secret) != 32 || !utf8.Valid(name) {
		return "", bad
	}
	r, ok := eng.Role(string(name))
	if !ok || !r.Login {
		return "", bad
	}
	hash := sha256.Sum256(secret)
	for _, t := range r.Tokens {
		if string(t.ID[:]) == string(id) {
			if subtle.ConstantTimeCompare(t.Hash[:], hash[:]) != 1 || !now.Before(t.Expires) {
				return "", bad
			}
			return r.Name, nil
		}
	}
	return "", bad
}

// tokenRows are seqd_tokens' rows, as the catalog makes them from the
// session's roles (the typed Tokens reads them).
func (s *Session) tokenRows() [][]eval.Datum {
	rows, _ := catalogRelation("pg_catalog", "seqd_tokens").rows(s) // made of the roles, never an error
	return rows
}
