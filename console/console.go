// Package console is seqd's operator console: a read-only page on the
// -http listener (/console/) that shows the sequences, their use and
// projections, and the cluster, to a role with the monitoring privilege.
//
// It changes nothing: it answers GET and HEAD only (405 otherwise), its
// JSON is never cached, its pages load no script but its own (a Content
// Security Policy without inline script), and every answer is bounded: a
// page of sequences holds at most MaxLimit, a query string at most
// MaxQuery bytes.
package console

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/engine"
)

//go:embed assets
var assets embed.FS

// Limits of a request.
const (
	// MaxQuery bounds a request's query string, in bytes.
	MaxQuery = 1024
	// MaxLimit bounds the sequences one page lists; DefaultLimit is a
	// page's size when the request names none.
	MaxLimit     = 500
	DefaultLimit = 50
	// MaxSearch bounds a search's text, in bytes.
	MaxSearch = 128
)

// Config is what the console reads of the server. Engine and
// Authenticate are required; the rest may be nil.
type Config struct {
	// Engine is the engine the node serves now (a standby's snapshot in
	// cluster mode).
	Engine func() *engine.Engine
	// Authenticate is the driverless APIs' (apicore.Core's): a role's
	// password (HTTP Basic), a bearer token, or trust.
	Authenticate func(cr apicore.Credentials, from string) (string, error)
	// Superuser is the bootstrap superuser, a superuser whether or not
	// the store holds its role (under trust it may not).
	Superuser string
	// Plaintext lets credentials come over a connection without TLS from
	// another host (the listener is plain HTTP: -api-insecure, for a
	// proxy that ends TLS in front of it). Loopback clients may always.
	Plaintext bool
	// Projection is the exhaustion watch's projection of a sequence.
	Projection func(id uint64, used, total float64) (Projection, bool)
	// Cluster describes the cluster and the connections; nil: none.
	Cluster func() Cluster
	// NoOrderBlock is this node's block of a NOORDER sequence (cluster
	// mode), nil in single-node mode.
	NoOrderBlock func(id uint64) (engine.NodeBlock, bool)
	// Node names this node (cluster mode).
	Node string
	// Failures are the recent failed statements the server logged,
	// newest first; nil: none kept.
	Failures func() []Failure
	// SampleEvery is how often a viewed sequence's position is sampled
	// for its chart (0: DefaultSampleEvery).
	SampleEvery time.Duration
}

// Projection is when a sequence reaches its limit at its recent rate.
type Projection struct {
	Seconds   float64 `json:"seconds"`    // from now
	PerSecond float64 `json:"per_second"` // the rate it assumes
	Window    float64 `json:"window"`     // seconds the rate was measured over
}

// Console serves the console. It is safe for concurrent use.
type Console struct {
	cfg     Config
	mux     *http.ServeMux
	rates   *rates
	cursors *cursors
}

// New makes a console; mount it at /console/.
func New(cfg Config) *Console {
	if cfg.SampleEvery <= 0 {
		cfg.SampleEvery = DefaultSampleEvery
	}
	c := &Console{cfg: cfg, mux: http.NewServeMux(), cursors: newCursors()}
	c.rates = newRates(cfg.SampleEvery, maxTracked, cfg.Engine)
	static, _ := fs.Sub(assets, "assets")
	files := http.StripPrefix("/console/", http.FileServerFS(static))
	c.mux.Handle("GET /console/", files)
	c.mux.HandleFunc("GET /console/api/me", c.api(c.me))
	c.mux.HandleFunc("GET /console/api/sequences", c.api(c.sequences))
	c.mux.HandleFunc("GET /console/api/sequence", c.api(c.sequence))
	c.mux.HandleFunc("GET /console/api/cluster", c.api(c.cluster))
	c.mux.HandleFunc("GET /console/api/failures", c.api(c.failures))
	c.mux.HandleFunc("GET /console/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	return c
}

// Close stops sampling the sequences viewed.
func (c *Console) Close() { c.rates.stop() }

// ServeHTTP serves a request: the security headers on every answer,
// then GET and HEAD only, a bounded query, and a role that may monitor.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "the console changes nothing: GET or HEAD")
		return
	}
	if len(r.URL.RawQuery) > MaxQuery {
		writeError(w, http.StatusRequestURITooLong, "query string longer than 1024 bytes")
		return
	}
	if r.URL.Path == "/console" {
		http.Redirect(w, r, "/console/", http.StatusMovedPermanently)
		return
	}
	v, ok := c.authorize(w, r)
	if !ok {
		return
	}
	c.mux.ServeHTTP(w, r.WithContext(withViewer(r.Context(), v)))
}

// api serves a JSON endpoint: its answer, or a problem with its status.
func (c *Console) api(f func(v *viewer, r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		out, err := f(viewerOf(r.Context()), r)
		if err != nil {
			status := http.StatusInternalServerError
			if e, ok := err.(*httpError); ok {
				status = e.status
			}
			writeError(w, status, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
}

// httpError is an answer other than 200, with its message.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(msg string) error { return &httpError{http.StatusBadRequest, msg} }

// writeError answers status with {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": strings.TrimSpace(msg)})
}
