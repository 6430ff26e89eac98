package torture

// The hostile soak's attacks on the HTTP API and on the metrics and
// health listener.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

func basicHeader(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// httpRequest is an HTTP/1.1 request's bytes.
func httpRequest(method, path string, headers []string, body string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n", method, path)
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	if body != "" || method == "POST" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	return []byte(b.String())
}

// h1Garbage are malformed HTTP/1.1 first messages.
var h1Garbage = [][]byte{
	[]byte("GET / HTTP/9.9\r\n\r\n"),
	[]byte("GET\r\n\r\n"),
	[]byte("GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n"),
	[]byte("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\x00b\r\n\r\n"),
	[]byte("GET /v1/sequences/%zz/%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
	[]byte("POST /v1/sequences/public/h_bulk/nextval HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n"),
	[]byte("POST /v1/sequences/public/h_bulk/nextval HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n"),
	[]byte("POST /v1/sequences/public/h_bulk/nextval HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nx"),
	[]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00"),
	[]byte("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"), // a TLS ClientHello's start
	[]byte("GET /metrics/../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
	[]byte("GET /debug/pprof/heap HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
	[]byte("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
	[]byte("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: !!!\r\n\r\n"),
}

// h1Endpoint is an HTTP/1.1 listener's endpoint: path is what its first
// message asks for, idlePath what a flood connection asks before idling.
func (r *hostileRun) h1Endpoint(proto, method, path, idlePath string, auth []string) hostileEndpoint {
	return hostileEndpoint{
		proto: proto,
		first: func(*rand.Rand) []byte {
			return httpRequest(method, path, append([]string{"User-Agent: " + strings.Repeat("u", 300)}, auth...), "")
		},
		big: func(rng *rand.Rand) []byte {
			if proto == "http" && rng.IntN(2) == 0 { // a body past every bound
				return httpRequest("POST", path, auth, `{"count": "1", "pad": "`+strings.Repeat("a", oversize)+`"}`)
			}
			return httpRequest("GET", path, append([]string{"X-Pad: " + strings.Repeat("a", oversize)}, auth...), "")
		},
		garbage: func(rng *rand.Rand) []byte {
			if rng.IntN(3) == 0 {
				return mutate(rng, httpRequest(method, path, auth, ""))
			}
			return h1Garbage[rng.IntN(len(h1Garbage))]
		},
		idle: func(nc net.Conn) {
			nc.SetDeadline(time.Now().Add(2 * time.Second))
			nc.Write(httpRequest("GET", idlePath, auth, ""))
			nc.Read(make([]byte, 4096))
			nc.SetDeadline(time.Time{})
		},
	}
}

func (r *hostileRun) httpEndpoint() hostileEndpoint {
	auth := []string{"Authorization: " + basicHeader(hostileMallory, hostileMalloryPW)}
	return r.h1Endpoint("http", "POST", "/v1/sequences/public/"+hostileBulk+"/nextval", "/v1/sequences/public/"+hostileBulk, auth)
}

func (r *hostileRun) metricsEndpoint() hostileEndpoint {
	return r.h1Endpoint(hostileMetrics, "GET", "/metrics", "/healthz", nil)
}

// apiAttacks are the attacks on the HTTP API, the gRPC service and the
// metrics listener that go beyond a first message.
func (r *hostileRun) apiAttacks() []hostileAttack {
	return []hostileAttack{
		{atkMalformed, "http", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.httpMalformed(rng) }},
		{atkSlowReader, "http", time.Second, func(rng *rand.Rand, stop <-chan struct{}) {
			req := httpRequest("POST", "/v1/sequences/public/"+hostileBulk+"/nextval",
				[]string{"Authorization: " + basicHeader(hostileMallory, hostileMalloryPW)}, `{"count": "100000"}`)
			r.together(r.cfg.SlowReaders, func() { r.rawSlowReader("http", req, rng, stop) })
		}},
		{atkSlowReader, hostileMetrics, time.Second, func(rng *rand.Rand, stop <-chan struct{}) {
			req := bytes.Repeat(httpRequest("GET", "/metrics", nil, ""), 500)
			r.together(r.cfg.SlowReaders, func() { r.rawSlowReader(hostileMetrics, req, rng, stop) })
		}},
		{atkDisconnect, "http", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.httpDisconnect(rng) }},
		{atkBadLogin, "http", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.httpBadLogin(rng) }},
		{atkPrivilege, "http", 100 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.httpPrivilege() }},

		{atkMalformed, "grpc", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.grpcMalformed(rng) }},
		{atkOversized, "grpc", 200 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.grpcOversized() }},
		{atkSlowReader, "grpc", time.Second, func(rng *rand.Rand, stop <-chan struct{}) {
			r.together(r.cfg.SlowReaders, func() { r.grpcSlowReader(rng, stop) })
		}},
		{atkDisconnect, "grpc", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.grpcDisconnect(rng) }},
		{atkBadLogin, "grpc", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.grpcBadLogin(rng) }},
		{atkPrivilege, "grpc", 100 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.grpcPrivilege() }},
	}
}

// rawSlowReader sends req on a new connection to proto's listener and
// reads nothing for 5 to 15 s.
func (r *hostileRun) rawSlowReader(proto string, req []byte, rng *rand.Rand, stop <-chan struct{}) {
	nc, err := r.dial(proto)
	if err != nil {
		r.attacked(atkSlowReader, proto, "dial failed: "+errClass(err))
		return
	}
	defer nc.Close()
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 10)
	}
	nc.SetWriteDeadline(time.Now().Add(2 * time.Second))
	nc.Write(req)
	pause(stop, jitter(rng, 5*time.Second, 15*time.Second))
	r.attacked(atkSlowReader, proto, closedOutcome(nc))
}

// apiDo sends one request to the HTTP API on a new connection and
// returns its status; a 500 fails the run.
func (r *hostileRun) apiDo(kind, method, path, auth, body string) (int, error) {
	req, err := http.NewRequest(method, "http://"+r.addrs["http"]+path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	hc := &http.Client{Timeout: hostileCallTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusInternalServerError {
		r.fail(fmt.Sprintf("%s on http: %s %s answered 500 (body %q)", kind, method, path, clip([]byte(body))))
	}
	return resp.StatusCode, nil
}

// httpMalformed sends the fuzz corpus's request bodies and names, as
// mallory, to the API's operations.
func (r *hostileRun) httpMalformed(rng *rand.Rand) {
	auth := basicHeader(hostileMallory, hostileMalloryPW)
	ops := []struct{ method, suffix string }{{"POST", "/nextval"}, {"POST", "/reserve"}, {"POST", "/release"}, {"PATCH", ""}, {"PUT", ""}, {"GET", ""}}
	op := ops[rng.IntN(len(ops))]
	schema, name := "public", hostileBulk
	body := r.corpus.bodies[rng.IntN(len(r.corpus.bodies))]
	if rng.IntN(3) == 0 {
		names := r.corpus.names
		schema, name = names[rng.IntN(len(names))], names[rng.IntN(len(names))]
	}
	if rng.IntN(2) == 0 {
		body = string(mutate(rng, []byte(body)))
	}
	status, err := r.apiDo(atkMalformed, op.method, "/v1/sequences/"+url.PathEscape(schema)+"/"+url.PathEscape(name)+op.suffix, auth, body)
	if err != nil {
		r.attacked(atkMalformed, "http", "request: "+errClass(err))
		return
	}
	r.attacked(atkMalformed, "http", fmt.Sprintf("request: HTTP %d", status))
}

// httpDisconnect goes away mid-request, or after a large one.
func (r *hostileRun) httpDisconnect(rng *rand.Rand) {
	nc, err := r.dial("http")
	if err != nil {
		r.attacked(atkDisconnect, "http", "dial failed: "+errClass(err))
		return
	}
	nc.SetWriteDeadline(time.Now().Add(time.Second))
	auth := []string{"Authorization: " + basicHeader(hostileMallory, hostileMalloryPW)}
	req := httpRequest("POST", "/v1/sequences/public/"+hostileBulk+"/nextval", auth, `{"count": "100000"}`)
	if rng.IntN(2) == 0 {
		nc.Write(req[:len(req)-5])
		r.attacked(atkDisconnect, "http", "part of a body, then gone")
	} else {
		nc.Write(req)
		r.attacked(atkDisconnect, "http", "gone after sending a request")
	}
	nc.Close()
}

// httpBadLogin asks for app's values with wrong credentials, a made-up
// bearer token or none: 401, never a value.
func (r *hostileRun) httpBadLogin(rng *rand.Rand) {
	var auth string
	switch rng.IntN(4) {
	case 0:
		auth = fmt.Sprintf("Bearer seqd.%s.%016x.%s", base64.RawURLEncoding.EncodeToString([]byte(hostileApp)), rng.Uint64(),
			base64.RawURLEncoding.EncodeToString(randomBytes(rng, 32)))
	case 1:
	default:
		auth = basicHeader(wrongLogin(rng))
	}
	status, err := r.apiDo(atkBadLogin, "POST", "/v1/sequences/public/h_nocache/nextval", auth, "")
	switch {
	case err != nil:
		r.attacked(atkBadLogin, "http", errClass(err))
	case status/100 == 2:
		r.fail(fmt.Sprintf("bad login on http: %q was answered %d", clip([]byte(auth)), status))
		r.attacked(atkBadLogin, "http", "LOGGED IN")
	default:
		r.attacked(atkBadLogin, "http", fmt.Sprintf("HTTP %d", status))
	}
}

// httpPrivileged are requests mallory has no privilege for.
var httpPrivileged = []struct{ method, path, body string }{
	{"POST", "/v1/sequences/public/h_nocache/nextval", ""},
	{"POST", "/v1/sequences/public/h_cache100/reserve", `{"count": "10"}`},
	{"POST", "/v1/sequences/public/h_cache1000/release", `{"first": "1", "last": "2"}`},
	{"PATCH", "/v1/sequences/public/h_nocache", `{"restart": "1"}`},
	{"PATCH", "/v1/sequences/public/" + hostileBulk, `{"restart": "1"}`},
	{"DELETE", "/v1/sequences/public/h_cache1000", ""},
	{"PUT", "/v1/sequences/public/mallory_own", ""},
}

func (r *hostileRun) httpPrivilege() {
	auth := basicHeader(hostileMallory, hostileMalloryPW)
	for _, q := range httpPrivileged {
		status, err := r.apiDo(atkPrivilege, q.method, q.path, auth, q.body)
		switch {
		case err != nil:
			r.attacked(atkPrivilege, "http", errClass(err))
		case status/100 == 2:
			r.fail(fmt.Sprintf("privilege on http: mallory's %s %s was answered %d", q.method, q.path, status))
			r.attacked(atkPrivilege, "http", "SUCCEEDED")
		default:
			r.attacked(atkPrivilege, "http", fmt.Sprintf("HTTP %d", status))
		}
	}
}
