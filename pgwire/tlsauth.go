package pgwire

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"hash"
)

// TLS's part in authentication: the tls-server-end-point channel binding
// that SCRAM-SHA-256-PLUS binds an exchange to (RFC 5929: a hash of the
// server's certificate, so a man in the middle with another certificate
// cannot relay the exchange), and client certificates for AuthCert.

// handshakeConfig is the tls.Config a handshake uses: the server's, or
// the one its GetConfigForClient gives (the certificate files' state at
// this moment, which a SIGHUP may replace), so that the channel binding
// is computed from the certificate the handshake presents.
func handshakeConfig(cfg *tls.Config) *tls.Config {
	if cfg.GetConfigForClient == nil {
		return cfg
	}
	if c, err := cfg.GetConfigForClient(nil); err == nil && c != nil {
		return c
	}
	return cfg
}

// endPointBinding is RFC 5929's tls-server-end-point data for the
// certificate cfg presents: its hash with the hash of its signature
// algorithm (SHA-256 for MD5 and SHA-1); nil when it cannot be computed
// (then SCRAM-SHA-256-PLUS is not offered).
func endPointBinding(cfg *tls.Config) []byte {
	if len(cfg.Certificates) == 0 || len(cfg.Certificates[0].Certificate) == 0 {
		return nil
	}
	der := cfg.Certificates[0].Certificate[0]
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil
	}
	var h hash.Hash
	switch leaf.SignatureAlgorithm {
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	case x509.MD5WithRSA, x509.SHA1WithRSA, x509.DSAWithSHA1, x509.ECDSAWithSHA1,
		x509.SHA256WithRSA, x509.SHA256WithRSAPSS, x509.ECDSAWithSHA256, x509.PureEd25519:
		h = sha256.New()
	default:
		return nil
	}
	h.Write(der)
	return h.Sum(nil)
}

// clientCertName is the common name of the client certificate the
// handshake verified against the server's client CA, "" without one.
func clientCertName(tc *tls.Conn) string {
	st := tc.ConnectionState()
	if len(st.VerifiedChains) == 0 || len(st.PeerCertificates) == 0 {
		return ""
	}
	return st.PeerCertificates[0].Subject.CommonName
}
