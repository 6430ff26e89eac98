package executor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// value runs q on s and returns its one value as text, or the error.
func value(t *testing.T, s *Session, q string) (string, error) {
	t.Helper()
	stmts, err := pgsql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.PrepareCached(&stmts[0])
	if err != nil {
		s.Abort()
		return "", err
	}
	r, err := s.Execute(context.Background(), p, nil)
	if err != nil {
		s.Abort()
		return "", err
	}
	defer s.Release(r)
	row, ok, err := r.Rows.Next()
	if err != nil || !ok {
		s.Abort()
		return "", err
	}
	return row[0].S, nil
}

func kindOf(err error) sqlerr.Kind {
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return se.Kind
	}
	return ""
}

// TestTokens: a role makes a token, which authenticates it (and no other
// role, nor a token changed in any part) until revoked; seqd_tokens shows
// the role's own and never a secret, a superuser's all; a token made in a
// rolled-back block never existed; bounds are refused; renaming the role
// ends its tokens.
func TestTokens(t *testing.T) {
	eng := testenv.MemEngine(t)
	su, err := NewSession(Config{Engine: eng, MaxBulkRows: 1000, User: "seqd", Superuser: "seqd", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"create role seqd superuser login", "create role app login", "create role other login", "create role nologin"} {
		if out := execTranscript(su, q); strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", q, out)
		}
	}
	session := func(user string) *Session {
		s, err := NewSession(Config{Engine: eng, MaxBulkRows: 1000, User: user, Superuser: "seqd", Database: "seqd"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	app, other := session("app"), session("other")
	tok, err := value(t, app, "select seqd_create_token('ci deploy', 30)")
	if err != nil || !strings.HasPrefix(tok, "seqd.") {
		t.Fatalf("create: %q %v", tok, err)
	}
	now := time.Now()
	if who, err := VerifyToken(eng, tok, now); err != nil || who != "app" {
		t.Fatalf("verify: %q %v", who, err)
	}
	if _, err := VerifyToken(eng, tok, now.Add(31*24*time.Hour)); err == nil {
		t.Error("a token verified past its expiry")
	}
	parts := strings.Split(tok, ".")
	for i := 1; i < len(parts); i++ { // every part changed: refused
		bad := append([]string(nil), parts...)
		bad[i] = strings.Map(func(r rune) rune {
			if r == 'A' {
				return 'B'
			}
			return 'A'
		}, bad[i])
		if _, err := VerifyToken(eng, strings.Join(bad, "."), now); err == nil {
			t.Errorf("token with part %d changed verified", i)
		}
	}
	for _, bad := range []string{"", "seqd.", "seqd...", tok + ".x", "Bearer " + tok, strings.TrimSuffix(tok, tok[len(tok)-1:])} {
		if _, err := VerifyToken(eng, bad, now); err == nil {
			t.Errorf("%q verified", bad)
		}
	}
	// seqd_tokens: app sees its token, other none; the superuser all.
	id, err := value(t, app, "select id from seqd_tokens")
	if err != nil || len(id) != 32 || !strings.Contains(tok, id) {
		t.Fatalf("app's seqd_tokens: %q %v", id, err)
	}
	if out := execTranscript(app, "select rolname, label, expires > created from seqd_tokens"); !strings.Contains(out, "app") || !strings.Contains(out, "ci deploy") {
		t.Errorf("app's seqd_tokens: %s", out)
	}
	if n, _ := value(t, other, "select count(*)::text from seqd_tokens"); n != "0" {
		t.Errorf("other sees %s tokens", n)
	}
	if n, _ := value(t, su, "select count(*)::text from seqd_tokens"); n != "1" {
		t.Errorf("the superuser sees %s tokens", n)
	}
	// other may not revoke app's; app may.
	if r, _ := value(t, other, "select seqd_revoke_token('"+id+"')::text"); r != "false" {
		t.Errorf("other revoking app's token: %s", r)
	}
	if _, err := VerifyToken(eng, tok, now); err != nil {
		t.Fatalf("still app's after other's try: %v", err)
	}
	if r, _ := value(t, app, "select seqd_revoke_token('"+id+"')::text"); r != "true" {
		t.Errorf("app revoking its token: %s", r)
	}
	if _, err := VerifyToken(eng, tok, now); err == nil {
		t.Error("a revoked token verified")
	}
	// A block rolled back: its token never existed.
	execTranscript(app, "begin")
	tok2, err := value(t, app, "select seqd_create_token(null)")
	if err != nil {
		t.Fatal(err)
	}
	execTranscript(app, "rollback")
	if _, err := VerifyToken(eng, tok2, now); err == nil {
		t.Error("a token of a rolled-back block verified")
	}
	// Bounds.
	for _, q := range []string{"select seqd_create_token('x', 0)", "select seqd_create_token('x', 3651)", "select seqd_create_token('x', null)",
		"select seqd_create_token('" + strings.Repeat("l", 256) + "')", "select seqd_revoke_token('zz')"} {
		if _, err := value(t, app, q); kindOf(err) != sqlerr.InvalidParameterValue {
			t.Errorf("%s: %v, want 22023", q, err)
		}
	}
	for range 100 {
		if _, err := value(t, app, "select seqd_create_token('many', 1)"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := value(t, app, "select seqd_create_token('one too many', 1)"); kindOf(err) != sqlerr.ProgramLimitExceeded {
		t.Errorf("the 101st token: %v, want 54000", err)
	}
	// A role that may not log in has no use of its tokens; a renamed
	// role's tokens end.
	nl := session("nologin")
	tok3, err := value(t, nl, "select seqd_create_token('x')")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyToken(eng, tok3, now); err == nil {
		t.Error("a token of a role that may not log in verified")
	}
	tok4, _ := value(t, other, "select seqd_create_token('x')")
	if out := execTranscript(su, "alter role other rename to other2"); strings.Contains(out, "ERROR") {
		t.Fatal(out)
	}
	if _, err := VerifyToken(eng, tok4, now); err == nil {
		t.Error("a token of a renamed role verified")
	}
}
