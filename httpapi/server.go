package httpapi

import (
	"bytes"
	"context"
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// Authentication methods (Config.Auth): apicore's.
const (
	AuthTrust    = apicore.AuthTrust
	AuthPassword = apicore.AuthPassword
)

// Config configures a Server: apicore.Config (the engine or node, the
// connection budget, in which every connection is counted from accept,
// the authentication timeout, authentication, the bootstrap superuser,
// limits and session defaults; a standby refuses what writes, 503 with
// Retry-After), and what is HTTP's.
type Config struct {
	apicore.Config
	// TLS, when set, serves HTTPS only.
	TLS *tls.Config
	// OnStatement, when set, is told of each request, as pgwire's: its
	// operation ("HTTP nextval"), SQLSTATE ("00000": success) and
	// duration (the server's metrics).
	OnStatement func(command, sqlstate string) func(d time.Duration)
	Logger      *log.Logger
	// Forward, when set, is asked where the leader's API answers (its
	// base URL) when a request is refused as a standby's (25006): the
	// request is sent on there, once (never a forwarded one again), and
	// its answer relayed. ForwardTLS is the client side of that, for a
	// leader serving HTTPS.
	Forward    func() (base string, ok bool)
	ForwardTLS *tls.Config
}

// contentJSON is the Content-Type of an answer, set without
// canonicalizing the header's name on every request.
var contentJSON = []string{"application/json"}

// forwardedHeader marks a request a follower forwarded: it is not
// forwarded again.
const forwardedHeader = "Seqd-Forwarded"

// maxBody bounds a request's body: the largest a request needs is a
// sequence's options.
const maxBody = 64 << 10

// decimals is {"values": [...]} of vs, each a decimal string, made
// without reflection.
type decimals []int64

func (d decimals) MarshalJSON() ([]byte, error) {
	return d.append(make([]byte, 0, 13+22*len(d))), nil
}

// append appends the JSON text to b.
func (d decimals) append(b []byte) []byte {
	b = append(b, `{"values":[`...)
	for i, v := range d {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, v, 10)
		b = append(b, '"')
	}
	return append(b, "]}"...)
}

// Server serves the API on a listener.
type Server struct {
	cfg  Config
	http *http.Server
	log  *log.Logger
	core *apicore.Core
	fwd  *http.Client // to the leader (Config.Forward)
	// grace bounds Shutdown's wait for the requests under way
	// (shutdownGrace).
	grace time.Duration
}

// shutdownGrace bounds Shutdown's wait for the requests under way: one
// whose client stopped reading its answer is stuck writing it, and would
// hold the shutdown until ctx ends (seqd's is 30 s, shared with the other
// front ends) and its connection until the write timeout.
const shutdownGrace = 5 * time.Second

// NewServer makes a server; Serve starts it.
func NewServer(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = log.New(io.Discard, "", 0)
	}
	cc := cfg.Config
	if cc.AppName == "" {
		cc.AppName = "seqd http api"
	}
	cc.Protocol = "http"
	s := &Server{cfg: cfg, log: cfg.Logger, core: apicore.New(cc)}
	s.fwd = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg.ForwardTLS, MaxIdleConnsPerHost: 16,
		IdleConnTimeout: time.Minute, ResponseHeaderTimeout: 10 * time.Second}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openAPI)
	})
	seq := "/v1/sequences/{schema}/{name}"
	mux.HandleFunc("POST "+seq+"/nextval", s.handle("nextval", true, s.nextval))
	mux.HandleFunc("POST "+seq+"/reserve", s.handle("reserve", true, s.reserve))
	mux.HandleFunc("POST "+seq+"/release", s.handle("release", true, s.release))
	mux.HandleFunc("GET "+seq, s.handle("describe", true, s.describe))
	mux.HandleFunc("PUT "+seq, s.handle("create", true, s.create))
	mux.HandleFunc("PATCH "+seq, s.handle("alter", true, s.alter))
	mux.HandleFunc("DELETE "+seq, s.handle("drop", true, s.drop))
	mux.HandleFunc("POST /v1/tokens", s.handle("create token", false, s.createToken))
	mux.HandleFunc("GET /v1/tokens", s.handle("list tokens", false, s.listTokens))
	mux.HandleFunc("DELETE /v1/tokens/{id}", s.handle("revoke token", false, s.revokeToken))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, http.StatusNotFound, "XX000", "no such endpoint: "+r.Method+" "+r.URL.Path+" (see /v1/openapi.json)")
	})
	s.grace = shutdownGrace
	s.http = &http.Server{Handler: mux, TLSConfig: alpn(cfg.TLS), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: writeTimeout, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10, ErrorLog: cfg.Logger,
		ConnState: connState, ConnContext: connContext, HTTP2: &http.HTTP2Config{MaxConcurrentStreams: 100,
			MaxReceiveBufferPerStream: maxBody, MaxReceiveBufferPerConnection: 1 << 20, WriteByteTimeout: 30 * time.Second}}
	return s
}

// alpn is cfg with HTTP/2 and HTTP/1.1 offered in ALPN, also by the
// configurations its GetConfigForClient returns (seqd's, which reload
// the certificate files): http.Server adds them to cfg's NextProtos
// only, which a configuration returned for a client replaces.
func alpn(cfg *tls.Config) *tls.Config {
	if cfg == nil || cfg.GetConfigForClient == nil {
		return cfg
	}
	cfg = cfg.Clone()
	get := cfg.GetConfigForClient
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		c, err := get(hello)
		if err != nil || c == nil || len(c.NextProtos) > 0 {
			return c, err
		}
		c = c.Clone()
		c.NextProtos = []string{"h2", "http/1.1"}
		return c, nil
	}
	return cfg
}

// writeTimeout bounds a request from its headers read to its answer
// written: the statement and the answer (at most MaxValues values, 2.2
// MB). The connection is busy, never evicted, for that long, so it is a
// minute, not more: a client that stops reading its answer holds its
// place no longer than that.
const writeTimeout = time.Minute

// Serve serves l until Shutdown: its connections counted in the
// Registry's budget from accept, evicted while unauthenticated or idle
// when it is full, closed at AuthTimeout unless a request on them
// authenticates by then (conns.go); one the budget has no room for is
// answered 429 (53300) over plain HTTP, and closed.
func (s *Server) Serve(l net.Listener) error {
	lc := frontend.ListenerConfig{Registry: s.core.Registry(), AuthTimeout: s.cfg.AuthTimeout, Name: "http", Logger: s.log}
	if s.cfg.TLS == nil {
		lc.Refuse = refuse
	}
	ln := listener{frontend.Listen(l, lc)}
	var err error
	if s.cfg.TLS != nil {
		err = s.http.ServeTLS(ln, "", "")
	} else {
		err = s.http.Serve(ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting requests, waits for those under way for up to
// shutdownGrace or until ctx ends, closes the connections left, and
// closes the pooled sessions. It fails only when ctx ended first.
func (s *Server) Shutdown(ctx context.Context) error {
	gctx, cancel := context.WithTimeout(ctx, s.grace)
	defer cancel()
	err := s.http.Shutdown(gctx)
	if err != nil {
		s.http.Close() // the stuck ones: their writes fail, their handlers end
		if ctx.Err() == nil {
			err = nil
		}
	}
	s.core.Close()
	return err
}

// SetAuth changes the authentication of new requests.
func (s *Server) SetAuth(method string) { s.core.SetAuth(method) }

// request is one authenticated request's session and what it names.
type request struct {
	apicore.Call
	schema, name string
	body         map[string]json.RawMessage
	bearer       bool // authenticated by a bearer token
	http         *http.Request
	raw          []byte // the body as sent
	release      func() // gives back the room its answer took (roomFor), nil if none
	// one, taken and text hold a nextval's answer: one value allocates
	// neither the value nor its text.
	one   [1]int64
	taken decimals
	text  [64]byte
}

// credentialsOf reads a request's Authorization: HTTP Basic, or a bearer
// token.
func credentialsOf(r *http.Request) apicore.Credentials {
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "bearer") {
		return apicore.Credentials{Bearer: true, Token: strings.TrimSpace(token)}
	}
	user, password, ok := r.BasicAuth()
	return apicore.Credentials{User: user, Password: password, Basic: ok}
}

// requests are the handlers' requests, reused: each is as large as a
// small answer's text.
var requests = sync.Pool{New: func() any { return new(request) }}

// handle runs f for an authenticated request with a pooled session of
// its role, and writes its answer: a JSON value, or the problem its
// error is. The request's connection is counted in the budget already
// (Serve): a request takes no slot of its own.
//
// An endpoint of a sequence (sequence) has its schema and name checked
// first (apicore.CheckName).
func (s *Server) handle(op string, sequence bool, f func(*request) (int, any, error)) http.HandlerFunc {
	command, forwarded := "HTTP "+op, "HTTP "+op+" forwarded" // the metrics' names, made once
	return func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		cr := credentialsOf(r)
		user, err := s.core.Authenticate(cr, r.RemoteAddr)
		if err != nil {
			w.Header().Add("WWW-Authenticate", `Basic realm="seqd", charset="UTF-8"`)
			w.Header().Add("WWW-Authenticate", `Bearer realm="seqd"`)
			s.fail(w, err)
			return
		}
		q := requests.Get().(*request)
		defer func() {
			if q.release != nil {
				q.release()
			}
			*q = request{}
			requests.Put(q)
		}()
		q.schema, q.name, q.bearer, q.http = r.PathValue("schema"), r.PathValue("name"), cr.Bearer, r
		if sequence {
			for _, n := range [...]struct{ field, name string }{{"schema", q.schema}, {"name", q.name}} {
				if err := apicore.CheckName(n.field, n.name); err != nil {
					s.fail(w, err)
					return
				}
			}
		}
		if q.raw, err = readBody(w, r, &q.body); err != nil {
			s.fail(w, err)
			return
		}
		// Busy from here until it answers (conns.go): while its body was
		// still coming, its connection could be evicted.
		authenticated(r.Context())
		if err := s.core.Start(r.Context(), &q.Call, user, apicore.Client{Addr: r.RemoteAddr, TLS: r.TLS}); err != nil {
			s.fail(w, err)
			return
		}
		call := &q.Call
		status, v, err := f(q)
		call.End()
		var p *problem
		code := "00000"
		if err != nil {
			var own *problem // declared here: allocated only on failure
			if errors.As(err, &own) {
				p = own // the API's own problems stand as they are
			} else {
				p = problemOf(call.Fail(err))
			}
			code = p.code
			if call.Standby && p.kind == sqlerr.ReadOnlyTransaction && s.forward(w, r, q.raw) {
				if s.cfg.OnStatement != nil {
					s.cfg.OnStatement(forwarded, "00000")(time.Since(began))
				}
				return
			}
		}
		if s.cfg.OnStatement != nil {
			s.cfg.OnStatement(command, code)(time.Since(began))
		}
		if p != nil {
			s.fail(w, p)
			return
		}
		if v == nil {
			w.WriteHeader(status)
			return
		}
		w.Header()["Content-Type"] = contentJSON
		w.WriteHeader(status)
		if d, ok := v.(*decimals); ok { // the hot path: no reflection
			w.Write(append(d.append(q.text[:0]), '\n'))
			return
		}
		json.NewEncoder(w).Encode(v)
	}
}

// readBody decodes a request's JSON object, if it has a body, and
// returns the body as sent.
func readBody(w http.ResponseWriter, r *http.Request, into *map[string]json.RawMessage) ([]byte, error) {
	if r.ContentLength == 0 { // none (a chunked body's length is -1); a nil map reads as empty
		return nil, nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	b, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, newProblem(http.StatusRequestEntityTooLarge, sqlerr.ProgramLimitExceeded, fmt.Sprintf("request body exceeds %d bytes", maxBody))
	case err != nil:
		return nil, newProblem(http.StatusBadRequest, sqlerr.ProtocolViolation, "could not read the request body: "+err.Error())
	case len(strings.TrimSpace(string(b))) == 0:
		return b, nil
	}
	if err := json.Unmarshal(b, into); err != nil || *into == nil {
		return nil, badRequest("the request body is not a JSON object")
	}
	return b, nil
}

// forward sends a request this node refused as a standby on to the
// leader's API and relays its answer; false (the refusal stands) when
// there is no leader to send it to, the request was forwarded to this
// node already, or the leader did not answer.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if s.cfg.Forward == nil || r.Header.Get(forwardedHeader) != "" {
		return false
	}
	base, ok := s.cfg.Forward()
	if !ok {
		return false
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, strings.TrimSuffix(base, "/")+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return false
	}
	for _, h := range []string{"Authorization", "Content-Type"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set(forwardedHeader, "1")
	resp, err := s.fwd.Do(req)
	if err != nil {
		s.log.Printf("http api: forwarding %s %s to the leader at %s: %v", r.Method, r.URL.Path, base, err)
		return false
	}
	defer resp.Body.Close()
	for _, h := range []string{"Content-Type", "Retry-After", "WWW-Authenticate"} {
		for _, v := range resp.Header.Values(h) {
			w.Header().Add(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, io.LimitReader(resp.Body, 16<<20)) // the largest answer: MaxValues values
	return true
}

// integer reads field name of the body as a decimal string (or a JSON
// integer), def when absent.
func (q *request) integer(name string, def int64) (int64, error) {
	raw, ok := q.body[name]
	if !ok {
		return def, nil
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		text = string(raw) // a JSON number
	}
	v, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return 0, badRequest(fmt.Sprintf("%s: %s is not a 64-bit integer (give it as a decimal string)", name, raw))
	}
	return v, nil
}

// only refuses a body with a field other than fields: a misspelt one
// would otherwise be a default taken silently.
func (q *request) only(fields ...string) error {
	for k := range q.body {
		if !slices.Contains(fields, k) {
			return badRequest(fmt.Sprintf("unknown field %q (want %s)", k, strings.Join(fields, ", ")))
		}
	}
	return nil
}

//go:embed openapi.json
var openAPI []byte
