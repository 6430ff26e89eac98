package auth

import (
	"bytes"
	"testing"
)

// TestVerifierText: a verifier's text form reads back to the same
// verifier, which checks the password; PostgreSQL's own verifier of a
// password reads and checks it too; anything else is not a verifier.
func TestVerifierText(t *testing.T) {
	v, err := NewVerifier("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	back, ok := ParseVerifierText(VerifierText(v))
	if !ok || !bytes.Equal(back.StoredKey, v.StoredKey) || !bytes.Equal(back.ServerKey, v.ServerKey) || !bytes.Equal(back.Salt, v.Salt) || back.Iterations != v.Iterations {
		t.Fatalf("read back %+v, want %+v", back, v)
	}
	if !CheckPassword(back, "s3cret") || CheckPassword(back, "other") {
		t.Fatal("the verifier read back does not check the password")
	}
	// PostgreSQL 15: CREATE ROLE r PASSWORD 'pw'; SELECT rolpassword FROM pg_authid.
	pg := "SCRAM-SHA-256$4096:tK2szHwd6oq5Hr6lvtiing==$zxraoVPd0M5zzETFLu/csTbIvzLWZD0Tr4CICKd11dM=:8TSq9bmF6Ouya8/wqBRDAn5bc+yA39t7LZQhDwYIgnw="
	if pv, ok := ParseVerifierText(pg); !ok || pv.Iterations != 4096 || !CheckPassword(pv, "pw") {
		t.Fatalf("PostgreSQL's verifier of pw: %v %+v", ok, pv)
	}
	for _, p := range []string{"pw", "SCRAM-SHA-256$", "SCRAM-SHA-256$x:abc=$a:b", "md5" + "0123456789abcdef0123456789abcdef", "SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA"} {
		if _, ok := ParseVerifierText(p); ok {
			t.Errorf("%q read as a verifier", p)
		}
	}
}
