package auth

import (
	"crypto/sha1"
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/xdg-go/scram"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/testenv"
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

// nativeResponse is a client's mysql_native_password response to
// scramble: SHA1(password) XOR SHA1(scramble, SHA1(SHA1(password))), as
// MySQL's clients compute it.
func nativeResponse(password string, scramble []byte) []byte {
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	h := sha1.New()
	h.Write(scramble)
	h.Write(h2[:])
	mask := h.Sum(nil)
	out := make([]byte, 20)
	for i := range out {
		out[i] = h1[i] ^ mask[i]
	}
	return out
}

// TestNativeHash: the stored hash is MySQL's (MariaDB's PASSWORD()), and
// a response checks only with the right password and scramble; a
// verifier from before the hash says its password must be set again.
func TestNativeHash(t *testing.T) {
	v, err := NewVerifier("s3cret pass")
	if err != nil {
		t.Fatal(err)
	}
	// MySQL's documented value of PASSWORD('password').
	if got := strings.ToUpper(hex.EncodeToString(nativeHash("password"))); got != "2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19" {
		t.Fatalf("nativeHash(password) = %s", got)
	}
	db, err := sql.Open("mysql", testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var theirs string
	if err := db.QueryRow("SELECT PASSWORD('s3cret pass')").Scan(&theirs); err != nil {
		t.Fatal(err)
	}
	if ours := "*" + strings.ToUpper(hex.EncodeToString(v.Native)); ours != theirs {
		t.Fatalf("native hash %s, MariaDB's PASSWORD() %s", ours, theirs)
	}
	scramble := []byte("abcdefghij0123456789")
	if err := CheckNative(v, scramble, nativeResponse("s3cret pass", scramble)); err != nil {
		t.Fatalf("the right password: %v", err)
	}
	for _, bad := range [][]byte{
		nativeResponse("s3cret pasS", scramble),
		nativeResponse("s3cret pass", []byte("abcdefghij012345678X")),
		nil,
		make([]byte, 20),
	} {
		if err := CheckNative(v, scramble, bad); !errors.Is(err, ErrNoVerifier) {
			t.Errorf("response %x: %v", bad, err)
		}
	}
	old := *v
	old.Native = nil
	if err := CheckNative(&old, scramble, nativeResponse("s3cret pass", scramble)); !errors.Is(err, ErrNativeUnset) {
		t.Errorf("a verifier without the hash: %v", err)
	}
	if !CheckPassword(v, "s3cret pass") || CheckPassword(v, "s3cret") || CheckPassword(nil, "s3cret pass") {
		t.Error("CheckPassword")
	}
}
