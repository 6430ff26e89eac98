package server

import (
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// tlsFiles serves TLS from certificate files that Reload reads again
// (SIGHUP): connections made after a reload use the new files, those
// before it go on. It is safe for concurrent use.
type tlsFiles struct {
	cert, key, ca string
	state         atomic.Pointer[tls.Config]
}

// load reads the files; on failure the state in use is kept.
func (f *tlsFiles) load() error {
	cert, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return fmt.Errorf("seqd: TLS certificate: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if f.ca != "" {
		pem, err := os.ReadFile(f.ca)
		if err != nil {
			return fmt.Errorf("seqd: TLS client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return errors.New("seqd: TLS client CA: no certificate in " + f.ca)
		}
		// Client certificates are checked when given (PostgreSQL's
		// clientcert=verify-ca is per pg_hba line; here, per connection).
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.VerifyClientCertIfGiven
	}
	f.state.Store(cfg)
	return nil
}

// config is the tls.Config the protocol layer uses: each handshake takes
// the files' current state.
func (f *tlsFiles) config() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			return f.state.Load(), nil
		},
	}
}

// loadRSAKey reads an RSA private key from a PEM file (PKCS #1 or #8).
func loadRSAKey(path string) (*rsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seqd: MySQL RSA key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("seqd: MySQL RSA key: no PEM block in %s", path)
	}
	if key, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return key, nil
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("seqd: MySQL RSA key %s: %w", path, err)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("seqd: MySQL RSA key %s: a %T, not an RSA key", path, key)
	}
	return rk, nil
}
