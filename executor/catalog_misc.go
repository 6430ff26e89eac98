// Smaller relations of the catalog, as PostgreSQL 15 defines them: the
// groups (pg_group), the sessions' GSSAPI state (pg_stat_gssapi), and
// information_schema's character set and collations.

package executor

import (
	"crypto/tls"
	"strings"

	"github.com/seqd/seqd/eval"
)

// gssapiRows are pg_stat_gssapi's: seqd authenticates no session with
// GSSAPI nor encrypts one with it. Of a session whose role the reader
// does not hold, NULLs, as pg_stat_activity's.
func (s *Session) gssapiRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, b := range s.cfg.Activity.snapshot() {
		row := []eval.Datum{eval.Int(int64(b.pid)), eval.Null, eval.Null, eval.Null}
		if s.hasPrivsOfRole(b.user) {
			row[1], row[3] = eval.Bool(false), eval.Bool(false)
		}
		out = append(out, row)
	}
	return out, nil
}

// sslRows are pg_stat_ssl's: each session's TLS version, cipher (by
// OpenSSL's name, as PostgreSQL shows it), its key's bits, and the
// client certificate's subject, serial and issuer (RFC 2253 names), for
// the sessions whose role the reader holds; NULLs for the others.
func (s *Session) sslRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, b := range s.cfg.Activity.snapshot() {
		row := []eval.Datum{eval.Int(int64(b.pid)), eval.Null, eval.Null, eval.Null, eval.Null, eval.Null, eval.Null, eval.Null}
		switch {
		case !s.hasPrivsOfRole(b.user):
		case b.tls == nil:
			row[1] = eval.Bool(false)
		default:
			cipher, bits := cipherName(b.tls.CipherSuite)
			row[1], row[2], row[3], row[4] = eval.Bool(true), eval.Text(tlsVersionName(b.tls.Version)), eval.Text(cipher), eval.Int(bits)
			if len(b.tls.PeerCertificates) > 0 {
				c := b.tls.PeerCertificates[0]
				row[5], row[6], row[7] = eval.Text(c.Subject.String()), eval.Text(c.SerialNumber.String()), eval.Text(c.Issuer.String())
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// tlsVersionName is a TLS version as OpenSSL names it ("TLSv1.3").
func tlsVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS13:
		return "TLSv1.3"
	case tls.VersionTLS12:
		return "TLSv1.2"
	case tls.VersionTLS11:
		return "TLSv1.1"
	case tls.VersionTLS10:
		return "TLSv1"
	}
	return tls.VersionName(v)
}

// openSSLCiphers are the TLS 1.2 suites Go offers by default, by
// OpenSSL's names (TLS 1.3's are the same in both).
var openSSLCiphers = map[uint16]string{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256:       "ECDHE-ECDSA-AES128-GCM-SHA256",
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256:         "ECDHE-RSA-AES128-GCM-SHA256",
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384:       "ECDHE-ECDSA-AES256-GCM-SHA384",
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384:         "ECDHE-RSA-AES256-GCM-SHA384",
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256:   "ECDHE-RSA-CHACHA20-POLY1305",
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA:          "ECDHE-ECDSA-AES128-SHA",
	tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA:            "ECDHE-RSA-AES128-SHA",
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA:          "ECDHE-ECDSA-AES256-SHA",
	tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA:            "ECDHE-RSA-AES256-SHA",
}

// cipherName is a suite's OpenSSL name and its symmetric key's bits.
func cipherName(id uint16) (string, int64) {
	name, ok := openSSLCiphers[id]
	if !ok {
		name = tls.CipherSuiteName(id)
	}
	bits := int64(128)
	if strings.Contains(name, "AES256") || strings.Contains(name, "AES_256") || strings.Contains(name, "CHACHA20") {
		bits = 256
	}
	return name, bits
}
