package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
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
