package server

import (
	"context"
	"io"
	"log"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestConsoleAuth runs the console behind the roles' passwords: a role
// is let in by its password once granted pg_monitor, which seqd made,
// and refused before.
func TestConsoleAuth(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", HTTP: "127.0.0.1:0", Auth: "scram-sha-256", Password: "boot",
		Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	c, err := pgx.Connect(ctx, "postgres://seqd:boot@"+s.Addr().String()+"/seqd?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	status := func(user, password string) int {
		req, _ := http.NewRequest(http.MethodGet, "http://"+s.HTTPAddr().String()+"/console/api/me", nil)
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if _, err := c.Exec(ctx, "CREATE ROLE mon LOGIN PASSWORD 'pw'"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user, password string
		want           int
	}{{"", "", 401}, {"seqd", "wrong", 401}, {"seqd", "boot", 200}, {"mon", "pw", 403}} {
		if got := status(tc.user, tc.password); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.user, got, tc.want)
		}
	}
	if _, err := c.Exec(ctx, "GRANT pg_monitor TO mon"); err != nil {
		t.Fatal(err)
	}
	if got := status("mon", "pw"); got != 200 {
		t.Errorf("mon, granted pg_monitor: %d, want 200", got)
	}
	c.Exec(ctx, "SELECT nextval('no_such_sequence')")
	for _, tc := range []struct {
		user, password string
		statement      bool
	}{{"seqd", "boot", true}, {"mon", "pw", false}} {
		body := consoleGet(t, s, tc.user, tc.password, "/console/api/failures")
		if !strings.Contains(body, "42P01") || strings.Contains(body, "no_such_sequence')") != tc.statement {
			t.Errorf("%s's failures (statement shown: %v): %s", tc.user, tc.statement, body)
		}
	}
}

// consoleGet is the body of the console's answer to path, as user.
func consoleGet(t *testing.T, s *Server, user, password, path string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+s.HTTPAddr().String()+path, nil)
	req.SetBasicAuth(user, password)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
