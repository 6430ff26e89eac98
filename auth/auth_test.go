package auth

import (
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
		cc, sc := c.NewConversation(), Conversation(v.v)
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
