// A connection's start: the startup message (and SSLRequest, TLS), then
// authentication by SCRAM-SHA-256(-PLUS) or client certificate, then the
// session.

package pgwire

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// startup answers SSL/GSS requests with 'N' and accepts any user and
// database.
func (c *conn) startup() bool {
	c.nc.SetDeadline(time.Now().Add(c.srv.cfg.AuthTimeout))
	defer c.nc.SetDeadline(time.Time{})
	for {
		msg, err := c.recv.receiveStartup()
		var unsupported unsupportedProtocolError
		switch {
		case errors.As(err, &unsupported):
			c.fatal(sqlerr.FeatureNotSupported, err.Error())
		case errors.Is(err, errStartupLayout):
			c.fatal(sqlerr.ProtocolViolation, err.Error())
		}
		if err != nil {
			return false // PostgreSQL does not answer a bad length either
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if c.srv.cfg.TLS == nil || c.tls {
				if _, err := c.nc.Write([]byte{'N'}); err != nil {
					return false
				}
				continue
			}
			if !c.startTLS() {
				return false
			}
			continue
		case *pgproto3.GSSEncRequest:
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
			continue
		case *pgproto3.CancelRequest:
			c.srv.reg.Cancel(m.ProcessID, m.SecretKey)
			return false
		case *pgproto3.StartupMessage:
			return c.accept(m)
		default:
			return false
		}
	}
}

// startTLS answers an SSLRequest with 'S' and runs the TLS handshake; the
// connection then speaks the protocol over TLS. The client sends nothing
// before it reads 'S': what it did is refused, not read.
func (c *conn) startTLS() bool {
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return false
	}
	cfg := handshakeConfig(c.srv.cfg.TLS)
	tc := tls.Server(c.nc, cfg)
	if err := tc.Handshake(); err != nil {
		c.srv.log.Printf("TLS handshake with %s failed: %v", c.nc.RemoteAddr(), err)
		return false
	}
	c.binding, c.certName = endPointBinding(cfg), clientCertName(tc)
	var w io.Writer = tc
	if c.srv.cfg.IdleTimeout > 0 {
		w = writeTimeout{tc, c.srv.cfg.IdleTimeout}
	}
	clear := c.recv
	c.mu.Lock()
	c.nc, c.recv, c.w, c.tls = tc, newReceiver(tc, c.srv.cfg.MaxMessage), w, true
	c.mu.Unlock()
	if clear.buffered() {
		// Sent after the SSLRequest, before the handshake: not
		// encrypted, and maybe a man in the middle's (PostgreSQL's
		// answer since CVE-2021-23214).
		c.fatal(sqlerr.ProtocolViolation, "received unencrypted data after SSL request")
		return false
	}
	return true
}

// accept authenticates a connection whose startup message arrived,
// registers it and sets up its session.
func (c *conn) accept(m *pgproto3.StartupMessage) bool {
	// Under the server's lock, so that Uses sees the engine as soon as
	// Node has handed it out.
	c.srv.mu.Lock()
	c.mu.Lock()
	c.eng = c.srv.cfg.Engine
	if c.srv.cfg.Node != nil {
		c.eng, c.standby = c.srv.cfg.Node()
	}
	c.mu.Unlock()
	c.srv.mu.Unlock()
	c.user = m.Parameters["user"]
	if c.user == "" {
		c.fatal(sqlerr.InvalidAuthorization, "no PostgreSQL user name specified in startup packet")
		return false
	}
	// A later 3.x than 3.0, or protocol options (_pq_.*), are answered
	// as PostgreSQL answers them: the connection speaks 3.0 without them.
	if options := c.recv.options; m.ProtocolVersion != pgproto3.ProtocolVersion30 || options != nil {
		c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: options})
	}
	if (c.srv.cfg.TLSRequired || c.srv.auth.Load().(string) == AuthCert) && !c.tls {
		host, _, _ := net.SplitHostPort(c.nc.RemoteAddr().String())
		db := m.Parameters["database"]
		if db == "" {
			db = c.user
		}
		slog.Warn("connection refused: TLS required", "user", c.user, "from", c.nc.RemoteAddr().String())
		c.fatal(sqlerr.InvalidAuthorization, fmt.Sprintf("no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", no encryption", host, c.user, db))
		return false
	}
	switch c.srv.auth.Load().(string) {
	case AuthSCRAM:
		if !c.authenticate(m.Parameters["user"]) {
			return false
		}
	case AuthCert:
		if !c.authenticateCert(m.Parameters["user"]) {
			return false
		}
	}
	// Registered only once authenticated, so that connections still
	// authenticating (a client that stops in the middle of SCRAM) hold
	// none of the places MayUseSlot counts; they are bounded as every
	// connection is (frontend.Listener). A CancelRequest still reaches
	// the connections that are in.
	if !c.srv.register(c) {
		c.fatal(sqlerr.TooManyConnections, "sorry, too many clients already")
		return false
	}
	if !c.srv.mayUseSlot(c, m.Parameters["user"]) {
		c.fatal(sqlerr.TooManyConnections, "remaining connection slots are reserved for non-replication superuser connections")
		return false
	}
	// In, before the client is told so: a connection its client holds
	// as a session must not be evicted by the next one accepted.
	c.admitted.Authenticated()
	params := map[string]string{}
	for k, v := range m.Parameters {
		if k != "user" && k != "database" && k != "replication" {
			params[k] = v
		}
	}
	sess, err := executor.NewSession(executor.Config{Engine: c.eng, MaxBulkRows: c.srv.cfg.MaxBulkRows, MaxStatementMemory: c.srv.cfg.MaxStatementMemory,
		Defaults: c.srv.cfg.SessionDefaults, Superuser: c.srv.cfg.Superuser,
		User: m.Parameters["user"], Database: m.Parameters["database"], Params: params, BackendPID: c.pid, Standby: c.standby,
		Activity: c.srv.reg.Activity(), ClientAddr: c.nc.RemoteAddr().String(), TLS: frontend.TLSState(c.nc), Protocol: "pgwire"})
	if err != nil {
		r := toErrorResponse(err)
		r.Severity, r.SeverityUnlocalized = "FATAL", "FATAL"
		c.send(r)
		c.flush()
		return false
	}
	c.sess = sess
	c.send(&pgproto3.AuthenticationOk{})
	for _, p := range sess.Reported() {
		c.send(&pgproto3.ParameterStatus{Name: p.Name, Value: p.Value})
	}
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	c.send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	return c.flush() == nil
}

// maxAuthMessage bounds a SASL message's body, as PostgreSQL's
// PG_MAX_AUTH_TOKEN_LENGTH does: a SCRAM message is some 200 bytes.
const maxAuthMessage = 65535

// authenticate runs SCRAM-SHA-256 for user. A role that does not exist,
// cannot log in or has no password fails exactly as a wrong password does
// (28P01), and the failure is logged with its reason.
func (c *conn) authenticate(user string) bool {
	var v *engine.Verifier
	reason := "no such role"
	if role, ok := c.eng.Role(user); ok {
		switch {
		case !role.Login:
			reason = "role cannot log in"
		case role.Verifier == nil:
			reason = "role has no password"
		default:
			v, reason = role.Verifier, "wrong password"
		}
	}
	fail := func(why string) bool {
		slog.Warn("authentication failed", "user", user, "from", c.nc.RemoteAddr().String(), "reason", why)
		c.fatal(sqlerr.InvalidPassword, fmt.Sprintf("password authentication failed for user \"%s\"", user))
		return false
	}
	conv := auth.Conversation(v, user, c.eng.Secret(), c.binding)
	mechanisms := []string{"SCRAM-SHA-256"}
	if c.binding != nil {
		mechanisms = []string{"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"}
	}
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: mechanisms})
	if err := c.flush(); err != nil {
		return false
	}
	// Before a client is in, its messages are bounded as PostgreSQL
	// bounds them, or by MaxMessage if it is smaller: each connection
	// still authenticating may hold one message's body.
	c.recv.maxBody = min(maxAuthMessage, c.srv.cfg.MaxMessage)
	defer func() { c.recv.maxBody = c.srv.cfg.MaxMessage }()
	for _, step := range []uint32{pgproto3.AuthTypeSASL, pgproto3.AuthTypeSASLContinue} {
		c.recv.authType = step
		msg, err := c.recv.receive()
		var tooLong *pgproto3.ExceededMaxBodyLenErr
		if errors.As(err, &tooLong) {
			return fail(fmt.Sprintf("SASL message of %d bytes", tooLong.ActualBodyLen))
		}
		if err != nil {
			return false // the client went away
		}
		var data []byte
		switch m := msg.(type) {
		case *pgproto3.SASLInitialResponse:
			switch {
			case m.AuthMechanism == "SCRAM-SHA-256":
			case m.AuthMechanism == "SCRAM-SHA-256-PLUS" && c.binding != nil:
				// PLUS means binding to the channel: "p=..." first.
				if !strings.HasPrefix(string(m.Data), "p=") {
					return fail("SCRAM-SHA-256-PLUS without channel binding")
				}
			default:
				return fail("mechanism " + m.AuthMechanism)
			}
			data = m.Data
		case *pgproto3.SASLResponse:
			data = m.Data
		default:
			c.fatal(sqlerr.ProtocolViolation, fmt.Sprintf("expected SASL response, got message type %c", msgType(msg)))
			return false
		}
		resp, err := conv.Step(string(data))
		if err != nil {
			return fail(reason)
		}
		if conv.Done() {
			if !conv.Valid() {
				return fail(reason)
			}
			c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte(resp)})
			return true
		}
		c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(resp)})
		if err := c.flush(); err != nil {
			return false
		}
	}
	return fail(reason)
}

// authenticateCert is PostgreSQL's cert method: the TLS handshake
// verified a client certificate against the client CA, and its common
// name is the user, which is a role that may log in.
func (c *conn) authenticateCert(user string) bool {
	if c.certName == "" {
		slog.Warn("authentication failed", "user", user, "from", c.nc.RemoteAddr().String(), "reason", "no client certificate")
		c.fatal(sqlerr.InvalidAuthorization, "connection requires a valid client certificate")
		return false
	}
	role, ok := c.eng.Role(user)
	if c.certName != user || !ok || !role.Login {
		slog.Warn("authentication failed", "user", user, "from", c.nc.RemoteAddr().String(), "reason", "certificate for \""+c.certName+"\"")
		c.fatal(sqlerr.InvalidAuthorization, fmt.Sprintf("certificate authentication failed for user \"%s\"", user))
		return false
	}
	return true
}
