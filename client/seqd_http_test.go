package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seqd/seqd/client"
)

// TestSeqdHTTPRetries: a 503 (a standby, a shutdown) or a 429 is sent
// again within Retry's bounds, as the SQL source's 25006 is; a problem
// that is the caller's (404) is not, and is classified by its SQLSTATE.
func TestSeqdHTTPRetries(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case r.URL.Path == "/v1/sequences/public/gone/nextval":
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"status": 404, "sqlstate": "42P01", "detail": "relation \"public.gone\" does not exist"}`))
		case n == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"status": 503, "sqlstate": "25006", "detail": "this node is a standby"}`))
		case n == 2:
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"status": 429, "sqlstate": "53300", "detail": "sorry, too many clients already"}`))
		default:
			w.Write([]byte(`{"values": ["42"]}`))
		}
	}))
	defer srv.Close()
	src := client.NewSeqdHTTP(srv.URL, client.SeqdHTTPOptions{Retry: client.Retry{Attempts: 5, Backoff: time.Millisecond}})
	r, err := src.Reserve(context.Background(), "s", 1)
	if err != nil || r.First != 42 || calls.Load() != 3 {
		t.Fatalf("reserve after a 503 and a 429: %+v %v after %d calls", r, err, calls.Load())
	}
	calls.Store(10)
	if _, err := src.Reserve(context.Background(), "gone", 1); !errors.Is(err, client.ErrNotFound) || calls.Load() != 11 {
		t.Fatalf("a 404: %v after %d calls, want ErrNotFound at once", err, calls.Load()-10)
	}
}
