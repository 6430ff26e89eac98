package httpapi

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/internal/selfsigned"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/seqmath"
)

// startBudget serves the API over a fresh engine holding sequence
// public.s, its connections counted in reg, and returns its address.
func startBudget(t *testing.T, reg *frontend.Registry, authTimeout time.Duration) string {
	t.Helper()
	addr, _ := startBudgetEngine(t, reg, authTimeout)
	return addr
}

// startBudgetEngine is startBudget returning the engine too.
func startBudgetEngine(t *testing.T, reg *frontend.Registry, authTimeout time.Duration) (string, *engine.Engine) {
	t.Helper()
	eng := testenv.MemEngine(t)
	if _, err := eng.Create(context.Background(), mustName(t, "public", "s"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Registry: reg, AuthTimeout: authTimeout}})
	go s.Serve(l)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return l.Addr().String(), eng
}

// holdS holds public.s's lock in an ALTER not yet committed, so a
// nextval of it waits, until the returned release.
func holdS(t *testing.T, eng *engine.Engine) (release func()) {
	t.Helper()
	tx := eng.Begin()
	inc := int64(2)
	if err := tx.Alter(context.Background(), mustName(t, "public", "s"), seqmath.Spec{Increment: &inc}); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			tx.Rollback()
		}
	}
	t.Cleanup(release)
	return release
}

// testCert is a self-signed certificate for the server's TLS.
func testCert(t *testing.T) tls.Certificate {
	t.Helper()
	certFile, keyFile, err := selfsigned.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// rawConn is a client connection spoken to byte by byte.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// nextval sends a nextval of public.s (headers, and body as given) and
// leaves the connection kept alive.
func (c *rawConn) nextval(t *testing.T, headers, body string) {
	t.Helper()
	req := "POST /v1/sequences/public/s/nextval HTTP/1.1\r\nHost: seqd\r\n" + headers + "\r\n" + body
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
}

// answer reads one answer within 5 s.
func (c *rawConn) answer(t *testing.T) *http.Response {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatalf("reading an answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	return resp
}

// closed reports whether the server closed c within d.
func (c *rawConn) closed(d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := c.r.ReadByte()
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// waitAdmitted waits until reg counts n connections.
func waitAdmitted(t *testing.T, reg *frontend.Registry, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); reg.Admitted() != n; {
		if time.Now().After(deadline) {
			t.Fatalf("the budget counts %d connections, want %d", reg.Admitted(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestIdleKeepAliveEvicted: each connection is counted in the shared
// budget from accept; with the budget full of kept-alive connections
// idle between requests, each new client is served in the place of one
// of them, which is closed.
func TestIdleKeepAliveEvicted(t *testing.T) {
	const n = 3
	reg := frontend.NewRegistry(n, 0)
	addr := startBudget(t, reg, time.Minute)
	var idle []*rawConn
	for range n {
		c := dialRaw(t, addr)
		c.nextval(t, "", "")
		if resp := c.answer(t); resp.StatusCode != http.StatusOK {
			t.Fatalf("a first request: %s", resp.Status)
		}
		idle = append(idle, c)
	}
	waitAdmitted(t, reg, n)
	time.Sleep(50 * time.Millisecond) // the server marking the last idle after its answer
	gone := map[int]bool{}
	for k := 1; k <= n; k++ {
		c := dialRaw(t, addr)
		c.nextval(t, "", "")
		if resp := c.answer(t); resp.StatusCode != http.StatusOK {
			t.Fatalf("new client %d with the budget full of idle connections: %s", k, resp.Status)
		}
		for i, old := range idle {
			if !gone[i] && old.closed(200*time.Millisecond) {
				gone[i] = true
			}
		}
		if len(gone) != k {
			t.Fatalf("after new client %d, %d idle connections closed, want %d", k, len(gone), k)
		}
		if reg.Admitted() != n {
			t.Fatalf("the budget counts %d connections, want %d", reg.Admitted(), n)
		}
	}
}

// TestMidHeadersEvictable: new connections that sent part of a request's
// headers are not authenticated, and give their places to a client that
// sends a whole request.
func TestMidHeadersEvictable(t *testing.T) {
	const n = 3
	reg := frontend.NewRegistry(n, 0)
	addr := startBudget(t, reg, time.Minute)
	var slow []*rawConn
	for range n {
		c := dialRaw(t, addr)
		io.WriteString(c, "POST /v1/sequences/public/s/nextval HTTP/1.1\r\nHost: se")
		slow = append(slow, c)
	}
	waitAdmitted(t, reg, n)
	time.Sleep(50 * time.Millisecond) // the server reading their headers
	c := dialRaw(t, addr)
	c.nextval(t, "", "")
	if resp := c.answer(t); resp.StatusCode != http.StatusOK {
		t.Fatalf("a new client with the budget full of connections mid-headers: %s", resp.Status)
	}
	if !slow[0].closed(5 * time.Second) {
		t.Fatal("the oldest connection mid-headers was not evicted")
	}
	waitAdmitted(t, reg, n)
}

// TestUnauthenticatedEvictable: under password authentication, kept-alive
// connections whose requests were all refused (401) keep no place a
// client with credentials needs, and are closed at AuthTimeout.
func TestUnauthenticatedEvictable(t *testing.T) {
	const n = 3
	reg := frontend.NewRegistry(n, 0)
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	if _, err := eng.Create(ctx, mustName(t, "public", "s"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	v, err := auth.NewVerifier("app pw")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.PutRole(ctx, engine.Role{Name: "app", Login: true, Superuser: true, Verifier: v}, true); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Registry: reg, Auth: AuthPassword, AuthTimeout: 700 * time.Millisecond}})
	go s.Serve(l)
	defer s.Shutdown(ctx)
	addr := l.Addr().String()
	var refused []*rawConn
	for range n {
		c := dialRaw(t, addr)
		c.nextval(t, "", "")
		if resp := c.answer(t); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a request without credentials: %s", resp.Status)
		}
		refused = append(refused, c)
	}
	waitAdmitted(t, reg, n)
	c := dialRaw(t, addr)
	c.nextval(t, "Authorization: Basic YXBwOmFwcCBwdw==\r\n", "") // app:app pw
	if resp := c.answer(t); resp.StatusCode != http.StatusOK {
		t.Fatalf("a client with credentials, the budget full of refused ones: %s", resp.Status)
	}
	if !refused[0].closed(5 * time.Second) {
		t.Fatal("the oldest refused connection was not evicted")
	}
	for i, r := range refused[1:] {
		if !r.closed(5 * time.Second) {
			t.Fatalf("refused connection %d outlived AuthTimeout", i+1)
		}
	}
	waitAdmitted(t, reg, 1)
}

// TestSilentClosedAtAuthTimeout: connections that send nothing are
// counted from accept and closed at AuthTimeout, and their places are
// free again.
func TestSilentClosedAtAuthTimeout(t *testing.T) {
	const n = 4
	reg := frontend.NewRegistry(n, 0)
	addr := startBudget(t, reg, 300*time.Millisecond)
	var silent []*rawConn
	for range n {
		silent = append(silent, dialRaw(t, addr))
	}
	waitAdmitted(t, reg, n)
	for i, c := range silent {
		if !c.closed(5 * time.Second) {
			t.Fatalf("silent connection %d outlived AuthTimeout", i)
		}
	}
	waitAdmitted(t, reg, 0)
}

// TestBusyRefused: with the budget full of connections whose
// authenticated requests are under way (each nextval waiting for the
// sequence's lock), a new connection is answered at once, before it
// sends anything, with 429 and the problem document of 53300, and
// closed; the places come back as the requests end.
func TestBusyRefused(t *testing.T) {
	const n = 3
	reg := frontend.NewRegistry(n, 0)
	addr, eng := startBudgetEngine(t, reg, time.Minute)
	release := holdS(t, eng)
	var busy []*rawConn
	for range n {
		c := dialRaw(t, addr)
		c.nextval(t, "", "")
		busy = append(busy, c)
	}
	waitAdmitted(t, reg, n)
	time.Sleep(50 * time.Millisecond) // the handlers waiting for the lock
	c := dialRaw(t, addr)
	resp := c.answer(t)
	var p map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != http.StatusTooManyRequests ||
		p["sqlstate"] != "53300" || resp.Header.Get("Content-Type") != "application/problem+json" ||
		resp.Header.Get("Retry-After") == "" || !resp.Close {
		t.Fatalf("a new connection, the budget full of busy ones: %s %v %v (%v)", resp.Status, resp.Header, p, err)
	}
	if !c.closed(5 * time.Second) {
		t.Fatal("the refused connection was left open")
	}
	if reg.Admitted() != n {
		t.Fatalf("the budget counts %d connections, want %d", reg.Admitted(), n)
	}
	release()
	for _, b := range busy {
		if resp := b.answer(t); resp.StatusCode != http.StatusOK {
			t.Fatalf("a waiting request: %s", resp.Status)
		}
	}
	c = dialRaw(t, addr)
	c.nextval(t, "", "")
	if resp := c.answer(t); resp.StatusCode != http.StatusOK {
		t.Fatalf("a new client once the requests ended: %s", resp.Status)
	}
}

// TestSlowBodyEvictable: a request whose body is still coming holds no
// place its sender cannot lose, whether it is the connection's first
// (not authenticated yet) or a later one on a connection that
// authenticated: with the budget full of such, a new client is served
// and the oldest slow one is closed. (A slowloris with one login's
// credentials must not lock everyone out.)
func TestSlowBodyEvictable(t *testing.T) {
	const n = 2
	reg := frontend.NewRegistry(n, 0)
	addr := startBudget(t, reg, time.Minute)
	first := dialRaw(t, addr) // a first request's body to come
	first.nextval(t, "Content-Type: application/json\r\nContent-Length: 14\r\n", `{"count"`)
	later := dialRaw(t, addr) // a later request's body to come
	later.nextval(t, "", "")
	if resp := later.answer(t); resp.StatusCode != http.StatusOK {
		t.Fatalf("a first request: %s", resp.Status)
	}
	later.nextval(t, "Content-Type: application/json\r\nContent-Length: 14\r\n", `{"count"`)
	waitAdmitted(t, reg, n)
	time.Sleep(50 * time.Millisecond) // the handlers reading the bodies
	for i, slow := range []*rawConn{first, later} {
		c := dialRaw(t, addr)
		c.nextval(t, "", "")
		if resp := c.answer(t); resp.StatusCode != http.StatusOK {
			t.Fatalf("new client %d, the budget full of slow bodies: %s", i, resp.Status)
		}
		if !slow.closed(5 * time.Second) {
			t.Fatalf("slow connection %d was not closed for the new client", i)
		}
		// c, kept alive, is now younger than the other slow one.
		waitAdmitted(t, reg, n)
	}
}

// TestBudgetShared: the API's connections and another front end's are
// counted in one budget: with the other's holding all but one place, one
// API connection fits and a second is refused.
func TestBudgetShared(t *testing.T) {
	const n = 3
	reg := frontend.NewRegistry(n, 0)
	addr, eng := startBudgetEngine(t, reg, time.Minute)
	release := holdS(t, eng)
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ol := frontend.Listen(other, frontend.ListenerConfig{Registry: reg, AuthTimeout: -1})
	for range n - 1 {
		dialRaw(t, other.Addr().String())
		fc, err := ol.Accept()
		if err != nil {
			t.Fatal(err)
		}
		fc.(*frontend.Conn).Authenticated() // busy: not evictable
		defer fc.Close()
	}
	c := dialRaw(t, addr)
	c.nextval(t, "", "") // busy, waiting for the lock
	waitAdmitted(t, reg, n)
	time.Sleep(50 * time.Millisecond)
	refused := dialRaw(t, addr)
	if resp := refused.answer(t); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("an API connection past the shared budget: %s", resp.Status)
	}
	release()
	if resp := c.answer(t); resp.StatusCode != http.StatusOK {
		t.Fatalf("the API's connection: %s", resp.Status)
	}
}

// TestHTTP2Bounded: over TLS the API speaks HTTP/2 with explicit bounds
// (100 streams a connection, a stream's window the largest body, the
// header list MaxHeaderBytes), and its connections are counted and
// evicted as HTTP/1's are: an idle one after a request, an
// unauthenticated one that made none.
func TestHTTP2Bounded(t *testing.T) {
	cert := testCert(t)
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	if _, err := eng.Create(ctx, mustName(t, "public", "s"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	reg := frontend.NewRegistry(2, 0)
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Registry: reg}, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	go s.Serve(l)
	defer s.Shutdown(ctx)
	addr := l.Addr().String()

	raw, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if p := raw.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("negotiated %q, want h2", p)
	}
	io.WriteString(raw, http2.ClientPreface)
	fr := http2.NewFramer(raw, raw)
	fr.WriteSettings()
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok {
		t.Fatalf("the server's first frame: %v", f)
	}
	for id, want := range map[http2.SettingID]uint32{http2.SettingMaxConcurrentStreams: 100, http2.SettingInitialWindowSize: maxBody} {
		if v, ok := sf.Value(id); !ok || v != want {
			t.Errorf("%v: %d (sent: %v), want %d", id, v, ok, want)
		}
	}
	if v, ok := sf.Value(http2.SettingMaxHeaderListSize); !ok || v > 32<<10 {
		t.Errorf("max header list size %d (sent: %v), want at most 32 KiB", v, ok)
	}

	h2 := func() *http.Client {
		return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}}
	}
	url := "https://" + addr + "/v1/sequences/public/s/nextval"
	first := h2()
	resp, err := first.Post(url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		t.Fatalf("over HTTP/2: %s %s", resp.Proto, resp.Status)
	}
	waitAdmitted(t, reg, 2)
	time.Sleep(50 * time.Millisecond) // the first marked idle after its answer
	for i := range 2 {
		resp, err := h2().Post(url, "", nil)
		if err != nil {
			t.Fatalf("new client %d, the budget full: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("new client %d: %s", i, resp.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, err := fr.ReadFrame(); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the connection that made no request was not evicted")
			}
			break
		}
	}
	if reg.Admitted() != 2 {
		t.Fatalf("the budget counts %d connections, want 2", reg.Admitted())
	}
}

// TestHTTP2ReloadedTLS: HTTP/2 is offered in ALPN also when the TLS
// configuration comes from GetConfigForClient, as seqd's does (it reloads
// its certificate files), and HTTP/1.1 still to clients asking for it.
func TestHTTP2ReloadedTLS(t *testing.T) {
	cert := testCert(t)
	current := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	cfg := &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { return current, nil }}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: testenv.MemEngine(t)}, TLS: cfg})
	go s.Serve(l)
	defer s.Shutdown(context.Background())
	for _, want := range []string{"h2", "http/1.1"} {
		c, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{want}})
		if err != nil {
			t.Fatal(err)
		}
		if p := c.ConnectionState().NegotiatedProtocol; p != want {
			t.Errorf("a client offering only %s negotiated %q", want, p)
		}
		c.Close()
	}
	if current.NextProtos != nil {
		t.Error("the configuration GetConfigForClient returned was changed")
	}
}

// TestAnswerRoom: the room a connection's answers take is given back as
// they are written: many HTTP/2 requests for the most values a call
// takes, at once on one connection, all end (each waits for room the
// others give back), and so do those of a second round.
func TestAnswerRoom(t *testing.T) {
	cert := testCert(t)
	eng := testenv.MemEngine(t)
	if _, err := eng.Create(context.Background(), mustName(t, "public", "s"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Registry: frontend.NewRegistry(10, 0)}, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	go s.Serve(l)
	defer s.Shutdown(context.Background())
	c := &http.Client{Transport: &http2.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: time.Minute}
	body := fmt.Sprintf(`{"count": "%d"}`, apicore.MaxValues)
	for round := range 2 {
		errs := make(chan error, 8)
		for range cap(errs) {
			go func() {
				resp, err := c.Post("https://"+l.Addr().String()+"/v1/sequences/public/s/nextval", "application/json", strings.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				defer resp.Body.Close()
				var v struct{ Values []string }
				if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.ProtoMajor != 2 || len(v.Values) != apicore.MaxValues {
					err = fmt.Errorf("%s over HTTP/%d: %d values, %v", resp.Status, resp.ProtoMajor, len(v.Values), err)
				}
				errs <- err
			}()
		}
		for range cap(errs) {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: a request for %d values: %v", round, apicore.MaxValues, err)
			}
		}
	}
}
