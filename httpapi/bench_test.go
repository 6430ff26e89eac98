package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/internal/testenv"
)

// BenchmarkNextval is the API's nextval handler without the network: the
// share of a request's cost that is seqd's own (net/http's parsing and
// system calls are the rest).
func BenchmarkNextval(b *testing.B) {
	eng := testenv.MemEngine(b)
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Auth: apicore.AuthTrust}})
	defer s.Shutdown(context.Background())
	if rec := serve(s, "PUT", "/v1/sequences/public/b", `{"cache": "1000"}`); rec.Code != http.StatusCreated && rec.Code != http.StatusOK {
		b.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	req := httptest.NewRequest("POST", "/v1/sequences/public/b/nextval", http.NoBody)
	w := &discard{header: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		w.status = 0
		s.http.Handler.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("nextval: %d", w.status)
		}
	}
}

// discard is a ResponseWriter that keeps only the status.
type discard struct {
	header http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(status int)      { d.status = status }

func serve(s *Server, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	rec := httptest.NewRecorder()
	s.http.Handler.ServeHTTP(rec, req)
	return rec
}

// BenchmarkNextvalCount is nextval of 100 values in one request: the
// bulk path (one statement per request).
func BenchmarkNextvalCount(b *testing.B) {
	benchHandler(b, "POST", "/v1/sequences/public/b/nextval", `{"count": "100"}`)
}

// BenchmarkReserve is a reserve of 100 values in one request.
func BenchmarkReserve(b *testing.B) {
	benchHandler(b, "POST", "/v1/sequences/public/b/reserve", `{"count": "100"}`)
}

// BenchmarkRelease is a release that gives nothing back (the range named
// is not the tail): its bounds differ per call, as a client's do.
func BenchmarkRelease(b *testing.B) {
	eng := testenv.MemEngine(b)
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Auth: apicore.AuthTrust}})
	defer s.Shutdown(context.Background())
	if rec := serve(s, "PUT", "/v1/sequences/public/b", `{"cache": "1000"}`); rec.Code != http.StatusCreated {
		b.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	w := &discard{header: http.Header{}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		body := `{"first": "` + strconv.Itoa(i*10) + `", "last": "` + strconv.Itoa(i*10+5) + `"}`
		req := httptest.NewRequest("POST", "/v1/sequences/public/b/release", strings.NewReader(body))
		w.status = 0
		s.http.Handler.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("release: %d", w.status)
		}
	}
}

// BenchmarkDescribe is a GET of the sequence.
func BenchmarkDescribe(b *testing.B) {
	benchHandler(b, "GET", "/v1/sequences/public/b", "")
}

// benchHandler runs one request again and again on a sequence b.
func benchHandler(b *testing.B, method, path, body string) {
	eng := testenv.MemEngine(b)
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Auth: apicore.AuthTrust}})
	defer s.Shutdown(context.Background())
	if rec := serve(s, "PUT", "/v1/sequences/public/b", `{"cache": "1000"}`); rec.Code != http.StatusCreated {
		b.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	w := &discard{header: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		w.status = 0
		s.http.Handler.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("%s %s: %d", method, path, w.status)
		}
	}
}
