package server

import (
	"context"
	"io"
	"log"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPIListen: the HTTP API off loopback needs TLS unless waived, and
// its authentication follows -auth: under SCRAM a request without
// credentials is refused (401), as MySQL's front end refuses one.
func TestAPIListen(t *testing.T) {
	ctx := context.Background()
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "d"), Listen: "127.0.0.1:0", APIListen: "0.0.0.0:0", MaxConns: 10,
		Auth: "scram-sha-256", Password: "pw", Logger: log.New(io.Discard, "", 0)}
	if s, err := Start(ctx, cfg); err == nil || !strings.Contains(err.Error(), "-api-insecure") {
		if err == nil {
			s.Shutdown(ctx)
		}
		t.Fatalf("-api-listen off loopback without TLS: %v, want a refusal naming -api-insecure", err)
	}
	cfg.APIListen = "127.0.0.1:0"
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	url := "http://" + s.APIAddr().String() + "/v1/sequences/public/x"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no credentials under SCRAM: %d, want 401", resp.StatusCode)
	}
	req, _ := http.NewRequest("PUT", url, nil)
	req.SetBasicAuth("seqd", "pw")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("create as the superuser: %d, want 201", resp.StatusCode)
	}
}
