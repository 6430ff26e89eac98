// Smaller relations of the catalog, as PostgreSQL 15 defines them: the
// groups (pg_group), the sessions' GSSAPI state (pg_stat_gssapi), and
// information_schema's character set and collations.

package executor

import (
	"crypto/tls"
	"fmt"
	"strings"

	"github.com/seqd/seqd/eval"
)

// groupRows are pg_group's: the roles that cannot log in, each with its
// members' OIDs.
func (s *Session) groupRows() ([][]eval.Datum, error) {
	roles := s.roleList()
	var out [][]eval.Datum
	for _, g := range roles {
		if g.Login {
			continue
		}
		members := []eval.Datum{}
		for _, r := range roles {
			for _, m := range r.MemberOf {
				if m.Role == g.Name {
					members = append(members, eval.Int(int64(r.OID)))
				}
			}
		}
		out = append(out, []eval.Datum{eval.Text(g.Name), eval.Int(int64(g.OID)), eval.Array(members...)})
	}
	return out, nil
}

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

// characterSetsRows are information_schema.character_sets': the
// database's encoding, UTF8 (its collation, C.UTF-8, is none of
// pg_collation's, so no default collation is named).
func (s *Session) characterSetsRows() ([][]eval.Datum, error) {
	return [][]eval.Datum{{eval.Null, eval.Null, eval.Text("UTF8"), eval.Text("UCS"), eval.Text("UTF8"), eval.Text(s.cfg.Database), eval.Null, eval.Null}}, nil
}

// collationsRows are information_schema.collations': pg_collation's
// (builtinCollations), all for any encoding.
func (s *Session) collationsRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, c := range builtinCollations {
		out = append(out, []eval.Datum{eval.Text(s.cfg.Database), eval.Text("pg_catalog"), eval.Text(c), eval.Text("NO PAD")})
	}
	return out, nil
}

// collationApplicabilityRows are
// information_schema.collation_character_set_applicability's: each
// collation applies to UTF8.
func (s *Session) collationApplicabilityRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, c := range builtinCollations {
		out = append(out, []eval.Datum{eval.Text(s.cfg.Database), eval.Text("pg_catalog"), eval.Text(c), eval.Null, eval.Null, eval.Text("UTF8")})
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

// implementationInfoRows are information_schema.sql_implementation_info's
// rows: PostgreSQL 15's facts of its implementation, which seqd's SQL
// shares (cursors without HOLD close at COMMIT, READ COMMITTED, names
// stored as written, NULLs sorted high, DDL in transactions), with seqd's
// version (ServerVersion, as initdb writes PostgreSQL's).
func implementationInfoRows(*Session) ([][]eval.Datum, error) {
	// n < 0: no integer_value; text "-": no character_value.
	row := func(id, name string, n int64, text, comments string) []eval.Datum {
		r := []eval.Datum{eval.Text(id), eval.Text(name), eval.Null, eval.Text(text), eval.Null}
		if n >= 0 {
			r[2] = eval.Int(n)
		}
		if text == "-" {
			r[3] = eval.Null
		}
		if comments != "" {
			r[4] = eval.Text(comments)
		}
		return r
	}
	major, minor, _ := strings.Cut(strings.Fields(ServerVersion)[0], ".")
	version := fmt.Sprintf("%02s.%02s.0000", major, minor)
	return [][]eval.Datum{
		row("10003", "CATALOG NAME", -1, "Y", ""),
		row("10004", "COLLATING SEQUENCE", -1, "-", ""),
		row("23", "CURSOR COMMIT BEHAVIOR", 1, "-", "close cursors and retain prepared statements"),
		row("2", "DATA SOURCE NAME", -1, "", ""),
		row("17", "DBMS NAME", -1, "PostgreSQL", ""),
		row("26", "DEFAULT TRANSACTION ISOLATION", 2, "-", "READ COMMITTED; user-settable"),
		row("28", "IDENTIFIER CASE", 3, "-", "stored in mixed case - case sensitive"),
		row("85", "NULL COLLATION", 0, "-", "nulls higher than non-nulls"),
		row("13", "SERVER NAME", -1, "", ""),
		row("94", "SPECIAL CHARACTERS", -1, "", "all non-ASCII characters allowed"),
		row("46", "TRANSACTION CAPABLE", 2, "-", "both DML and DDL"),
		row("18", "DBMS VERSION", -1, version, ""),
	}, nil
}
