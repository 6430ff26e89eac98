package torture

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// secure is how a secure run reaches seqd: over TLS, as its superuser
// with a password (SCRAM-SHA-256).
type secure struct {
	cert, key string
	password  string
}

const torturePassword = "torture-pw"

// newSecure writes a self-signed certificate for 127.0.0.1 into dir.
func newSecure(dir string) (*secure, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	s := &secure{cert: filepath.Join(dir, "server.crt"), key: filepath.Join(dir, "server.key"), password: torturePassword}
	if err := os.WriteFile(s.cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(s.key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return nil, err
	}
	return s, nil
}

// dsnFor is the connection string of a run's clients.
func dsnFor(addr string, s *secure) string {
	if s == nil {
		return "postgres://torture@" + addr + "/seqd?sslmode=disable"
	}
	return "postgres://seqd:" + s.password + "@" + addr + "/seqd?sslmode=require"
}
