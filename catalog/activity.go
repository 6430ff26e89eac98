package catalog

import (
	"crypto/tls"
	"strings"
	"time"

	"github.com/seqd/seqd/eval"
)

// The server's sessions as pg_stat_activity, pg_stat_ssl and
// pg_stat_gssapi show them, and the database's counters
// (pg_stat_database, pg_stat_database_conflicts), from the Source's
// Activity and DatabaseStats.

// timestamptz is t as a timestamp with time zone, shown in the Source's
// TimeZone; NULL for the zero time.
func timestamptz(src Source, t time.Time) eval.Datum {
	if t.IsZero() {
		return eval.Null
	}
	return eval.Timestamptz(t, src.Location())
}

// activityRows are pg_stat_activity's rows: every session, the reading
// session's included. Of a session whose role the reader does not hold
// (and it is no superuser), only who it is shows, as in PostgreSQL: its
// query reads <insufficient privilege>, the rest is NULL.
func activityRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, b := range src.Activity() {
		row := []eval.Datum{eval.Int(DatabaseOID), eval.Text(b.Database), eval.Int(int64(b.PID)), eval.Null,
			eval.Int(src.RoleOID(b.User)), eval.Text(b.User), eval.Text(b.Application)}
		if !src.HasPrivsOfRole(b.User) {
			for range 12 { // client_addr ... backend_xmin
				row = append(row, eval.Null)
			}
			row = append(row, eval.Null, eval.Text("<insufficient privilege>"), eval.Null)
			out = append(out, row)
			continue
		}
		addr, port := eval.Null, eval.Int(-1) // PostgreSQL's for a Unix socket
		if b.Addr != "" {
			addr, port = eval.Text(b.Addr), eval.Int(int64(b.Port))
		}
		waitType, wait, state := backendState(b)
		row = append(row, addr, eval.Null, port, timestamptz(src, b.Start), timestamptz(src, b.XactStart),
			timestamptz(src, b.QueryStart), timestamptz(src, b.Changed), waitType, wait, eval.Text(state), eval.Null, eval.Null, eval.Null,
			eval.Text(b.Query), eval.Text("client backend"))
		out = append(out, row)
	}
	return out, nil
}

// backendState is a session's wait_event_type, wait_event and state: a
// lock it waits for while it runs, or its client; its transaction's
// status while it waits for its client.
func backendState(b Backend) (waitType, wait eval.Datum, state string) {
	waitType, wait, state = eval.Null, eval.Null, "active"
	switch {
	case b.Disabled:
		state = "disabled"
		if b.WaitEvent != "" {
			waitType, wait = eval.Text("Lock"), eval.Text(b.WaitEvent)
		}
	case b.Active && b.WaitEvent != "":
		waitType, wait = eval.Text("Lock"), eval.Text(b.WaitEvent)
	case !b.Active:
		waitType, wait = eval.Text("Client"), eval.Text("ClientRead")
		state = map[byte]string{'I': "idle", 'T': "idle in transaction", 'E': "idle in transaction (aborted)"}[b.Status]
	}
	return waitType, wait, state
}

// gssapiRows are pg_stat_gssapi's: seqd authenticates no session with
// GSSAPI nor encrypts one with it. Of a session whose role the reader
// does not hold, NULLs, as pg_stat_activity's.
func gssapiRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, b := range src.Activity() {
		row := []eval.Datum{eval.Int(int64(b.PID)), eval.Null, eval.Null, eval.Null}
		if src.HasPrivsOfRole(b.User) {
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
func sslRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, b := range src.Activity() {
		row := []eval.Datum{eval.Int(int64(b.PID)), eval.Null, eval.Null, eval.Null, eval.Null, eval.Null, eval.Null, eval.Null}
		switch {
		case !src.HasPrivsOfRole(b.User):
		case b.TLS == nil:
			row[1] = eval.Bool(false)
		default:
			cipher, bits := cipherName(b.TLS.CipherSuite)
			row[1], row[2], row[3], row[4] = eval.Bool(true), eval.Text(tlsVersionName(b.TLS.Version)), eval.Text(cipher), eval.Int(bits)
			if len(b.TLS.PeerCertificates) > 0 {
				c := b.TLS.PeerCertificates[0]
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

// statDatabaseRows are pg_stat_database's rows: the shared objects' (no
// database; seqd counts nothing of them) and the database's, counted
// since the server started (stats_reset) over every front end's
// sessions. seqd has no tables, blocks, temporary files or recovery
// conflicts (their counters are 0), keeps no data checksums (NULL, as
// PostgreSQL without them) and does not count how sessions ended
// (sessions_abandoned, _fatal and _killed are NULL).
func statDatabaseRows(src Source) ([][]eval.Datum, error) {
	st := src.DatabaseStats()
	zero, f0 := eval.Int(0), eval.Float(0)
	shared := []eval.Datum{zero, eval.Null, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero,
		eval.Null, eval.Null, f0, f0, f0, f0, f0, zero, zero, zero, zero, eval.Null}
	db := []eval.Datum{eval.Int(DatabaseOID), eval.Text(src.Database()), eval.Int(st.Backends), eval.Int(st.Commits), eval.Int(st.Rollbacks),
		zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, eval.Int(st.Deadlocks), eval.Null, eval.Null, f0, f0,
		eval.Float(st.SessionTime), eval.Float(st.ActiveTime), eval.Float(st.IdleInTransactionTime), eval.Int(st.Sessions), eval.Null, eval.Null, eval.Null,
		timestamptz(src, st.Since)}
	return [][]eval.Datum{shared, db}, nil
}

// statConflictsRows are pg_stat_database_conflicts' rows: the
// database's, with no queries canceled by recovery conflicts (a seqd
// standby has none: it replays no data a query could be reading).
func statConflictsRows(src Source) ([][]eval.Datum, error) {
	zero := eval.Int(0)
	return [][]eval.Datum{{eval.Int(DatabaseOID), eval.Text(src.Database()), zero, zero, zero, zero, zero}}, nil
}
