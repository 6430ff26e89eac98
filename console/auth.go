package console

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/engine"
)

// MonitorRole is the predefined role whose members may use the console,
// as PostgreSQL 15's pg_monitor lets its members read the monitoring
// views: a role needs it (directly or through other roles) or to be a
// superuser.
const MonitorRole = "pg_monitor"

// viewer is the role a request authenticated as, and what it holds.
type viewer struct {
	user      string
	superuser bool
	// roles are user and every role it is a member of, directly or not.
	roles []string
}

type viewerKey struct{}

func withViewer(ctx context.Context, v *viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

func viewerOf(ctx context.Context) *viewer { v, _ := ctx.Value(viewerKey{}).(*viewer); return v }

// authorize authenticates r as the driverless APIs do and checks that
// its role may monitor: 401 (with a Basic challenge) without valid
// credentials, 403 for a role without the privilege.
func (c *Console) authorize(w http.ResponseWriter, r *http.Request) (*viewer, bool) {
	if loopback(r.RemoteAddr) && !c.cfg.Plaintext && !loopbackHost(r.Host) {
		// A page of another site whose name its DNS turned to 127.0.0.1
		// (DNS rebinding) reaches a loopback listener as this browser's
		// own, where -auth trust lets anyone in: its requests name that
		// site as Host.
		writeError(w, http.StatusMisdirectedRequest, "a client on this host reaches the console at a loopback address or localhost, not at "+strconv.Quote(r.Host)+" (-api-insecure, for a proxy in front, allows any name)")
		return nil, false
	}
	cr := credentials(r)
	if (cr.Basic || cr.Bearer) && r.TLS == nil && !c.cfg.Plaintext && !loopback(r.RemoteAddr) {
		writeError(w, http.StatusForbidden, "credentials over plain HTTP from another host are refused (-api-insecure allows them behind a proxy that ends TLS)")
		return nil, false
	}
	user, err := c.cfg.Authenticate(cr, r.RemoteAddr)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Basic realm="seqd console", charset="UTF-8"`)
		writeError(w, http.StatusUnauthorized, "authentication failed")
		return nil, false
	}
	v := c.viewer(user)
	if !v.superuser && !v.member(MonitorRole) {
		writeError(w, http.StatusForbidden, "permission denied: the console needs superuser or membership in pg_monitor")
		return nil, false
	}
	return v, true
}

// credentials are what r presents: a bearer token, Basic, or nothing.
func credentials(r *http.Request) apicore.Credentials {
	if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return apicore.Credentials{Bearer: true, Token: strings.TrimSpace(token)}
	}
	if user, password, ok := r.BasicAuth(); ok {
		return apicore.Credentials{User: user, Password: password, Basic: true}
	}
	return apicore.Credentials{}
}

// loopbackHost reports whether a request's Host names this host: a
// loopback address, localhost or a name under .localhost (which
// browsers resolve to loopback themselves), or none (HTTP/1.0).
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return host == "" || host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// loopback reports whether addr (host:port) is a loopback address.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}

// viewer is user with its roles, as the engine's catalog holds them.
func (c *Console) viewer(user string) *viewer {
	eng := c.cfg.Engine()
	v := &viewer{user: user, roles: []string{user}}
	role, found := eng.Role(user)
	v.superuser = role.Superuser || !found && user == c.cfg.Superuser
	seen := map[string]bool{user: true}
	for i := 0; i < len(v.roles); i++ {
		r, ok := eng.Role(v.roles[i])
		if !ok {
			continue
		}
		for _, m := range r.MemberOf {
			if !seen[m.Role] {
				seen[m.Role] = true
				v.roles = append(v.roles, m.Role)
			}
		}
	}
	return v
}

// member reports whether the viewer is role or a member of it.
func (v *viewer) member(role string) bool {
	for _, r := range v.roles {
		if r == role {
			return true
		}
	}
	return false
}

// privileges are the viewer's privileges on a sequence of this ACL: its
// own and those of every role it is a member of (PostgreSQL's
// has_sequence_privilege, which members inherit).
func (v *viewer) privileges(acl engine.ACL) engine.Privs {
	if v.superuser {
		return engine.PrivAll
	}
	var p engine.Privs
	for _, r := range v.roles {
		p |= acl.Privileges(r, false)
	}
	return p & engine.PrivAll
}

// me describes the viewer.
func (c *Console) me(v *viewer, _ *http.Request) (any, error) {
	return map[string]any{"user": v.user, "superuser": v.superuser, "roles": v.roles}, nil
}
