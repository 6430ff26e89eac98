package auth

import (
	"strings"
	"testing"

	"github.com/xdg-go/scram"

	"github.com/seqd/seqd/engine"
)

// TestExchange runs the client and server sides against each other: the
// right password passes, a wrong one and a missing verifier fail.
func TestExchange(t *testing.T) {
	v, err := NewVerifier("sekret")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.StoredKey) != 32 || len(v.ServerKey) != 32 || len(v.Salt) != 16 || v.Iterations != Iterations {
		t.Fatalf("verifier %+v", v)
	}
	run := func(password string, v *verifierOf) bool {
		c, err := scram.SHA256.NewClient("", password, "")
		if err != nil {
			t.Fatal(err)
		}
		cc, sc := c.NewConversation(), Conversation(v.v, "u", nil, nil)
		msg, err := cc.Step("")
		for err == nil && !sc.Done() {
			var resp string
			if resp, err = sc.Step(msg); err != nil {
				break
			}
			msg, err = cc.Step(resp)
		}
		return err == nil && sc.Valid()
	}
	if !run("sekret", &verifierOf{v}) {
		t.Fatal("the right password failed")
	}
	if run("wrong", &verifierOf{v}) {
		t.Fatal("a wrong password passed")
	}
	if run("sekret", &verifierOf{nil}) {
		t.Fatal("a role without a verifier passed")
	}
}

type verifierOf struct{ v *engine.Verifier }

// TestUnknownRoleLooksLikeWrongPassword: without a verifier the exchange
// gets as far as a wrong password does (the server's first message with
// a salt and the iteration count) and fails at the same step; the made-up
// salt is the same at each attempt for a name and differs between names.
func TestUnknownRoleLooksLikeWrongPassword(t *testing.T) {
	real, err := NewVerifier("sekret")
	if err != nil {
		t.Fatal(err)
	}
	// exchange returns the server's first message and the step (1 or 2)
	// at which the server failed.
	storeSecret := []byte("the store's secret, 32 bytes....")
	exchangeWith := func(v *engine.Verifier, user string, secret []byte) (string, int) {
		c, _ := scram.SHA256.NewClient(user, "guess", "")
		cc, sc := c.NewConversation(), Conversation(v, user, secret, nil)
		first, _ := cc.Step("")
		serverFirst, err := sc.Step(first)
		if err != nil {
			return "", 1
		}
		final, err := cc.Step(serverFirst)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sc.Step(final); err != nil || !sc.Valid() {
			return serverFirst, 2
		}
		return serverFirst, 0
	}
	exchange := func(v *engine.Verifier, user string) (string, int) { return exchangeWith(v, user, storeSecret) }
	fields := func(serverFirst string) (salt, iters string) {
		for _, f := range strings.Split(serverFirst, ",") {
			switch {
			case strings.HasPrefix(f, "s="):
				salt = f
			case strings.HasPrefix(f, "i="):
				iters = f
			}
		}
		return salt, iters
	}
	realFirst, realStep := exchange(real, "app")
	mockFirst, mockStep := exchange(nil, "nobody")
	if realStep != 2 || mockStep != 2 {
		t.Fatalf("failed at step %d (wrong password) and %d (no role), want 2 and 2", realStep, mockStep)
	}
	rs, ri := fields(realFirst)
	ms, mi := fields(mockFirst)
	if ri != mi || len(rs) != len(ms) {
		t.Fatalf("server-first messages differ in shape: %q vs %q", realFirst, mockFirst)
	}
	again, _ := exchange(nil, "nobody")
	if s, _ := fields(again); s != ms {
		t.Fatalf("the made-up salt changed between attempts: %s, %s", ms, s)
	}
	other, _ := exchange(nil, "somebody")
	if s, _ := fields(other); s == ms {
		t.Fatal("two names got the same made-up salt")
	}
	// The salt is the store secret's: the same in another process (a
	// restart, another node) with the same store, another with another.
	otherStore, _ := exchangeWith(nil, "nobody", []byte("another store's secret, 32 bytes"))
	if s, _ := fields(otherStore); s == ms {
		t.Fatal("two store secrets gave the same made-up salt")
	}
}
