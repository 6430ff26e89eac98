package server

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The console on a running server, as an attacker with one ordinary
// login and as a careless operator meet it: the -http listener's paths,
// the roles behind pg_monitor, the failed statements' passwords, slow
// clients on the listener's budget, credentials from another host, and
// a browser's page on another site.

// advConsole starts a server with the console under cfg's -auth (and a
// SCRAM superuser's password "boot"), and its superuser's connection.
func advConsole(t *testing.T, cfg Config) (*Server, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	cfg.DataDir, cfg.Listen = filepath.Join(t.TempDir(), "d"), "127.0.0.1:0"
	if cfg.HTTP == "" {
		cfg.HTTP = "127.0.0.1:0"
	}
	if cfg.Auth != "" {
		cfg.Password = "boot"
	}
	cfg.Logger = log.New(io.Discard, "", 0)
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	c, err := pgx.Connect(ctx, "postgres://seqd:boot@"+s.Addr().String()+"/seqd?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return s, c
}

func advExec(t *testing.T, c *pgx.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// advCode is err's SQLSTATE, "" for none.
func advCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// advRaw sends one request as written (method, target, headers) to addr
// and reads the answer: its status and body.
func advRaw(t *testing.T, addr, method, target string, header ...string) (int, http.Header, string) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	req := method + " " + target + " HTTP/1.1\r\nConnection: close\r\n"
	if !strings.Contains(strings.Join(header, "\n"), "Host:") {
		req += "Host: " + addr + "\r\n"
	}
	for _, h := range header {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(nc, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(nc), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func advBasic(user, password string) string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// TestConsoleAdversarialPaths: through the -http listener's own router,
// no spelling of a console path (dot segments, doubled slashes, escapes,
// case, a trailing slash, a NUL) gets an ordinary role or a client
// without credentials past the console's refusal: each is refused,
// redirected to a clean path, or not found, by GET and HEAD alike, and
// nothing of the sequences is shown.
func TestConsoleAdversarialPaths(t *testing.T) {
	s, c := advConsole(t, Config{Auth: "scram-sha-256"})
	advExec(t, c, "CREATE ROLE app LOGIN PASSWORD 'pw'", "CREATE SEQUENCE secret_orders", "GRANT USAGE ON SEQUENCE secret_orders TO app")
	addr := s.HTTPAddr().String()
	for _, target := range []string{"/console/", "/console", "/console/index.html", "/console/app.js",
		"/console/api/me", "/console/api/sequences", "/console/api/sequences?q=secret", "/console/api/sequences?sort=used",
		"/console/api/sequence?schema=public&name=secret_orders", "/console/api/cluster", "/console/api/failures",
		"/console/../console/api/sequences", "/console/./api/sequences", "//console/api/sequences", "/console//api/sequences",
		"/console/api/%73equences", "/%63onsole/api/sequences", "/console%2fapi/sequences", "/console/api/sequences%2f",
		"/CONSOLE/api/sequences", "/Console/api/sequences", "/console/api/sequences/", "/console/api/sequences;x",
		"/console/api/sequences%00", "/console/api/sequences%20", "/console/api/sequences#x", "/console/api/sequences?%00=1",
		"/console/%2e%2e/console/api/sequences", "/console/api/..%2fapi/sequences", "/./console/api/sequences",
		"http://" + addr + "/console/api/sequences", "*"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			for _, who := range []string{advBasic("app", "pw"), advBasic("app", "wrong"), advBasic("nobody", "pw"), "X-None: 1"} {
				code, h, body := advRaw(t, addr, method, target, who)
				switch code {
				case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusBadRequest, http.StatusMethodNotAllowed:
				case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
					if loc := h.Get("Location"); !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
						t.Errorf("%s %s: redirected to %q, not a path of this server", method, target, loc)
					}
				default:
					t.Errorf("%s %s (%s): %d %.200s", method, target, who, code, body)
				}
				if strings.Contains(body, "secret_orders\"") || strings.Contains(body, `"total"`) || strings.Contains(body, `"superuser"`) {
					t.Errorf("%s %s (%s): %d shows %.200s", method, target, who, code, body)
				}
			}
		}
	}
}

// TestConsoleAdversarialRoles: an ordinary role cannot make itself a
// member of pg_monitor, nobody can drop it or take its name; and the
// console follows the roles as they change while a page is open: a
// revoked member is refused at its next request, a renamed one is
// known by its new name only, a dropped one not at all.
func TestConsoleAdversarialRoles(t *testing.T) {
	ctx := context.Background()
	s, c := advConsole(t, Config{Auth: "scram-sha-256"})
	advExec(t, c, "CREATE ROLE app LOGIN PASSWORD 'pw'", "CREATE ROLE mon LOGIN PASSWORD 'monpw'", "CREATE ROLE admin CREATEROLE LOGIN PASSWORD 'adminpw'")
	app, err := pgx.Connect(ctx, "postgres://app:pw@"+s.Addr().String()+"/seqd?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close(ctx)
	admin, err := pgx.Connect(ctx, "postgres://admin:adminpw@"+s.Addr().String()+"/seqd?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, tc := range []struct {
		c    *pgx.Conn
		q    string
		code string
	}{
		{app, "GRANT pg_monitor TO app", "42501"},
		{app, "CREATE ROLE sneaky IN ROLE pg_monitor", "42501"},
		{admin, "ALTER ROLE app RENAME TO pg_monitor", "42939"},
		{admin, "DROP ROLE pg_monitor", "2BP01"},
		{admin, "ALTER ROLE pg_monitor RENAME TO monitors", "42939"},
		{admin, "ALTER ROLE pg_monitor LOGIN PASSWORD 'x'", "42939"},
		{admin, "CREATE ROLE pg_monitor2", "42939"},
		{c, "DROP ROLE pg_monitor", "2BP01"},
		{c, "ALTER ROLE app RENAME TO pg_monitor", "42939"},
	} {
		if _, err := tc.c.Exec(ctx, tc.q); advCode(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.q, err, tc.code)
		}
	}
	status := func(user, password string) int {
		code, _, _ := advRaw(t, s.HTTPAddr().String(), "GET", "/console/api/me", advBasic(user, password))
		return code
	}
	if got := status("app", "pw"); got != http.StatusForbidden {
		t.Errorf("app: %d, want 403", got)
	}
	advExec(t, c, "GRANT pg_monitor TO mon")
	if got := status("mon", "monpw"); got != http.StatusOK {
		t.Fatalf("mon, granted pg_monitor: %d", got)
	}
	advExec(t, c, "REVOKE pg_monitor FROM mon")
	if got := status("mon", "monpw"); got != http.StatusForbidden {
		t.Errorf("mon, revoked: %d, want 403", got)
	}
	// Through a group, the group then revoked.
	advExec(t, c, "CREATE ROLE watchers", "GRANT pg_monitor TO watchers", "GRANT watchers TO mon")
	if got := status("mon", "monpw"); got != http.StatusOK {
		t.Fatalf("mon through watchers: %d", got)
	}
	advExec(t, admin, "REVOKE pg_monitor FROM watchers")
	if got := status("mon", "monpw"); got != http.StatusForbidden {
		t.Errorf("mon, watchers' pg_monitor revoked: %d, want 403", got)
	}
	advExec(t, c, "GRANT pg_monitor TO mon", "ALTER ROLE mon RENAME TO mon2")
	if got := status("mon", "monpw"); got != http.StatusUnauthorized {
		t.Errorf("the old name after a rename: %d, want 401", got)
	}
	if got := status("mon2", "monpw"); got != http.StatusOK {
		t.Errorf("the new name after a rename: %d, want 200", got)
	}
	advExec(t, c, "DROP ROLE mon2")
	if got := status("mon2", "monpw"); got != http.StatusUnauthorized {
		t.Errorf("a dropped role: %d, want 401", got)
	}
}

// TestConsoleAdversarialPasswords: statements setting a password that
// fail, over PostgreSQL's protocol and MySQL's, show the password in
// their text and often in their error (the parser quotes the token it
// stopped at): a member of pg_monitor sees neither, a superuser both.
func TestConsoleAdversarialPasswords(t *testing.T) {
	ctx := context.Background()
	s, c := advConsole(t, Config{Auth: "scram-sha-256", MySQLListen: "127.0.0.1:0"})
	advExec(t, c, "CREATE ROLE mon LOGIN PASSWORD 'monpw'", "GRANT pg_monitor TO mon")
	secrets := []string{"hunter2a", "hunter2b", "hunter2c", "hunter2d", "hunter2e"}
	for _, q := range []string{
		"CREATE ROLE x PASSWORD hunter2a",
		"CREATE ROLE x PASSWORD 'hunter2b",
		"ALTER ROLE seqd PASSWORD 'hunter2c' hunter2c",
		"CREATE USER x WITH LOGIN PASSWORD 'x' 'hunter2d'",
	} {
		if _, err := c.Exec(ctx, q); err == nil {
			t.Fatalf("%s succeeded", q)
		}
	}
	my, err := sql.Open("mysql", "seqd:boot@tcp("+s.MySQLAddr().String()+")/public")
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	if _, err := my.Exec("CREATE USER x IDENTIFIED BY hunter2e"); err == nil {
		t.Fatal("MySQL's CREATE USER succeeded")
	}
	mon := consoleGet(t, s, "mon", "monpw", "/console/api/failures")
	for _, secret := range secrets {
		if strings.Contains(mon, secret) {
			t.Errorf("a member of pg_monitor sees %s: %s", secret, mon)
		}
	}
	if !strings.Contains(mon, "42601") || !strings.Contains(mon, `(user \"seqd\"`) {
		t.Errorf("a member of pg_monitor sees neither the codes nor who sent them: %s", mon)
	}
	super := consoleGet(t, s, "seqd", "boot", "/console/api/failures")
	for _, secret := range secrets {
		if !strings.Contains(super, secret) {
			t.Errorf("the superuser does not see the statement holding %s: %s", secret, super)
		}
	}
}

// TestConsoleAdversarialSlowClients: -http's 64 places taken by clients
// that send a request and never read its answer (a monitor's pages of
// 500 long names, into a receive buffer of 1 KiB), or send half a
// request and stop, leave /healthz and /metrics answering at once.
func TestConsoleAdversarialSlowClients(t *testing.T) {
	s, c := advConsole(t, Config{})
	advExec(t, c, "CREATE ROLE mon LOGIN", "GRANT pg_monitor TO mon")
	long := strings.Repeat("x", 50)
	for first := 0; first < 600; first += 100 {
		var b strings.Builder
		for i := first; i < first+100; i++ {
			fmt.Fprintf(&b, "CREATE SEQUENCE s%03d_%s;", i, long)
		}
		advExec(t, c, "BEGIN;"+b.String()+"COMMIT")
	}
	addr := s.HTTPAddr().String()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1024) })
	}}
	for i := range metricsConns + 16 {
		nc, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		req := "GET /console/api/sequences?limit=500 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + advBasic("mon", "") + "\r\n\r\n"
		if i%4 == 3 {
			req = "GET /console/api/sequences?limit=500 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " // and never the rest
		}
		if _, err := io.WriteString(nc, req); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for _, path := range []string{"/healthz", "/metrics", "/readyz"} {
		start := time.Now()
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			t.Errorf("%s beside %d slow clients: %v", path, metricsConns+16, err)
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || time.Since(start) > 2*time.Second {
			t.Errorf("%s beside %d slow clients: %d in %v", path, metricsConns+16, resp.StatusCode, time.Since(start))
		}
	}
}

// TestConsoleAdversarialOffLoopback: -http on every address, a client
// of another address sending credentials over plain HTTP is refused
// before they are checked (403 alike for a right and a wrong password:
// no guessing over the wire), and one without any is asked for some.
func TestConsoleAdversarialOffLoopback(t *testing.T) {
	var ip net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("no address but loopback on this host")
	}
	s, c := advConsole(t, Config{Auth: "scram-sha-256", HTTP: "0.0.0.0:0"})
	advExec(t, c, "CREATE ROLE mon LOGIN PASSWORD 'monpw'", "GRANT pg_monitor TO mon")
	_, port, _ := net.SplitHostPort(s.HTTPAddr().String())
	addr := net.JoinHostPort(ip.String(), port)
	for _, tc := range []struct {
		header string
		code   int
	}{
		{advBasic("mon", "monpw"), http.StatusForbidden},
		{advBasic("mon", "wrong"), http.StatusForbidden},
		{advBasic("seqd", "boot"), http.StatusForbidden},
		{"Authorization: Bearer abc", http.StatusForbidden},
		{"X-None: 1", http.StatusUnauthorized},
	} {
		code, _, body := advRaw(t, addr, "GET", "/console/api/me", tc.header)
		if code != tc.code || strings.Contains(body, `"user"`) {
			t.Errorf("from %s with %q: %d %s, want %d", ip, tc.header, code, body, tc.code)
		}
	}
	if code, _, _ := advRaw(t, s.HTTPAddr().String(), "GET", "/console/api/me", advBasic("mon", "monpw"), "Host: 127.0.0.1"); code != http.StatusOK {
		t.Errorf("from loopback: %d", code)
	}
}

// TestConsoleAdversarialRebinding: under the default -auth (trust on a
// loopback address) a request naming another site as Host, as a page of
// a site whose DNS name was turned to 127.0.0.1 sends it, is refused
// with 421 and nothing shown; one naming a loopback address or
// localhost is the bootstrap superuser's, as documented.
func TestConsoleAdversarialRebinding(t *testing.T) {
	s, c := advConsole(t, Config{})
	advExec(t, c, "CREATE SEQUENCE orders")
	addr := s.HTTPAddr().String()
	for _, host := range []string{"evil.example", "evil.example:" + strings.Split(addr, ":")[1], "127.0.0.1.nip.example"} {
		for _, who := range []string{"X-None: 1", advBasic("seqd", "")} {
			code, _, body := advRaw(t, addr, "GET", "/console/api/sequences", "Host: "+host, who)
			if code != http.StatusMisdirectedRequest || strings.Contains(body, "orders") {
				t.Errorf("Host %s (%s): %d %.200s, want 421", host, who, code, body)
			}
		}
	}
	for _, host := range []string{"127.0.0.1", "localhost:1", addr} {
		if code, _, body := advRaw(t, addr, "GET", "/console/api/sequences", "Host: "+host); code != http.StatusOK || !strings.Contains(body, "orders") {
			t.Errorf("Host %s: %d %.200s", host, code, body)
		}
	}
}
