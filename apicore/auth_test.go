package apicore

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/testenv"
)

// TestAuthenticateFailures: an unknown role, one that may not log in,
// one without a password and a wrong password get the same error, and
// the log says which it was, with the caller's address; a bearer token
// not valid and no credentials are logged too; a success logs nothing.
func TestAuthenticateFailures(t *testing.T) {
	eng := testenv.MemEngine(t)
	v, err := auth.NewVerifier("right")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []engine.Role{{Name: "app", Login: true, Verifier: v}, {Name: "nl", Verifier: v}, {Name: "nopw", Login: true}} {
		if err := eng.PutRole(context.Background(), r, true); err != nil {
			t.Fatal(err)
		}
	}
	c := New(Config{Engine: eng, Auth: AuthPassword, AppName: "test api"})
	defer c.Close()
	var logged bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(old)

	basic := func(user, password string) Credentials {
		return Credentials{User: user, Password: password, Basic: true}
	}
	for _, tc := range []struct {
		cr     Credentials
		reason string
	}{
		{basic("nobody", "right"), "no such role"},
		{basic("nl", "right"), "role cannot log in"},
		{basic("nopw", "right"), "role has no password"},
		{basic("app", "wrong"), "wrong password"},
		{Credentials{Bearer: true, Token: "seqd_nothing"}, "bearer token not valid"},
		{Credentials{}, "no credentials"},
	} {
		logged.Reset()
		_, err := c.Authenticate(tc.cr, "192.0.2.1:5")
		if err == nil {
			t.Fatalf("%s: authenticated", tc.reason)
		}
		var e *Error
		if tc.cr.Basic && (!errors.As(err, &e) || e.Code != "28P01" || e.Msg != `password authentication failed for user "`+tc.cr.User+`"`) {
			t.Errorf("%s: %v, want 28P01 as for a wrong password", tc.reason, err)
		}
		line := logged.String()
		if !strings.Contains(line, "authentication failed") || !strings.Contains(line, `reason="`+tc.reason+`"`) ||
			!strings.Contains(line, "from=192.0.2.1:5") || !strings.Contains(line, `api="test api"`) {
			t.Errorf("%s: logged %q", tc.reason, line)
		}
	}
	logged.Reset()
	if user, err := c.Authenticate(basic("app", "right"), "192.0.2.1:5"); err != nil || user != "app" || logged.Len() != 0 {
		t.Fatalf("the right password: %q %v, logged %q", user, err, logged.String())
	}
}
