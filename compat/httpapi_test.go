package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// TestHTTPAPI: callers without a database driver reach the same
// sequences as SQL clients: curl (values, a range and its release, 404,
// 403 and 409 by status and SQLSTATE, and callers at once below), and a
// Python service on httpx whose
// every answer is checked against the API's OpenAPI 3.1 document
// (validated by openapi-spec-validator), all under SCRAM with a role's
// password; values taken at once over PostgreSQL's protocol and the API
// on one sequence are all distinct.
func TestHTTPAPI(t *testing.T) {
	ctx := context.Background()
	srv, err := server.Start(ctx, server.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", APIListen: "127.0.0.1:0",
		Auth: "scram-sha-256", Password: "root pw", MaxConns: 100, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(ctx)
	base := "http://" + srv.APIAddr().String()
	sd, err := pgx.Connect(ctx, rootDSN(srv))
	if err != nil {
		t.Fatal(err)
	}
	defer sd.Close(ctx)
	for _, q := range []string{"create role app login password 'app pw'", "create sequence shared"} {
		if _, err := sd.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	checkCurl(t, base)
	checkPythonHTTPClient(t, base)
	checkSQLAndHTTPAtOnce(t, ctx, srv, base)
}

// checkCurl: curl, as a shell script would: values, a 404 by status, a
// range reserved and its tail released; then the problems a script acts
// on, by status and SQLSTATE: 403 for a role without USAGE, 409 for a
// name taken.
func checkCurl(t *testing.T, base string) {
	curl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("curl", append([]string{"-sS", "-u", "seqd:root pw"}, args...)...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v", args, err)
		}
		return string(out)
	}
	if out := curl("-X", "POST", base+"/v1/sequences/public/shared/nextval"); out != `{"values":["1"]}`+"\n" {
		t.Errorf("curl nextval: %q", out)
	}
	if out := curl("-o", "/dev/null", "-w", "%{http_code} %{content_type}", "-X", "POST", base+"/v1/sequences/public/nosuch/nextval"); out != "404 application/problem+json" {
		t.Errorf("curl on a missing sequence: %q", out)
	}
	if out := curl("-X", "POST", "-H", "Content-Type: application/json", "-d", `{"count": "3"}`, base+"/v1/sequences/public/shared/nextval"); out != `{"values":["2","3","4"]}`+"\n" {
		t.Errorf("curl nextval count 3: %q", out)
	}
	if out := curl("-X", "POST", "-d", `{"count": "10"}`, base+"/v1/sequences/public/shared/reserve"); out != `{"first":"5","increment":"1","last":"14","shape":null}`+"\n" {
		t.Errorf("curl reserve: %q", out)
	}
	if out := curl("-X", "POST", "-d", `{"first": "8", "last": "14"}`, base+"/v1/sequences/public/shared/release"); out != `{"released":true}`+"\n" {
		t.Errorf("curl release: %q", out)
	}
	if got := curlProblem(t, "-u", "app:app pw", "-X", "POST", base+"/v1/sequences/public/shared/nextval"); got != "403 42501" {
		t.Errorf("curl as a role without USAGE: %q", got)
	}
	if got := curlProblem(t, "-u", "seqd:root pw", "-X", "PUT", base+"/v1/sequences/public/shared"); got != "409 42P07" {
		t.Errorf("curl creating a name taken: %q", got)
	}
}

// curlProblem runs curl with args and is the answer's status and the
// SQLSTATE of its problem document, as "403 42501".
func curlProblem(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("curl", append([]string{"-sS", "-w", " %{http_code}"}, args...)...).Output()
	if err != nil {
		t.Fatalf("curl %v: %v", args, err)
	}
	var p struct{ SQLState string }
	text := strings.TrimSpace(string(out))
	i := strings.LastIndexByte(text, ' ')
	json.Unmarshal([]byte(text[:max(i, 0)]), &p)
	return text[i+1:] + " " + p.SQLState
}

// checkPythonHTTPClient runs the Python service on httpx, which checks
// every answer against the API's OpenAPI document.
func checkPythonHTTPClient(t *testing.T, base string) {
	out, err := exec.Command(testenv.Python(t), "python/http_api.py", base, "seqd", "root pw", "app", "app pw").CombinedOutput()
	if err != nil {
		t.Fatalf("python/http_api.py: %v\n%s", err, out)
	}
	var summary struct {
		Values     int
		Operations []string
	}
	if err := json.Unmarshal(out, &summary); err != nil || summary.Values != 296 || len(summary.Operations) != 11 {
		t.Errorf("python/http_api.py: %s (%v)", out, err)
	}
}

// checkSQLAndHTTPAtOnce: SQL and HTTP callers on one sequence at once:
// all distinct.
func checkSQLAndHTTPAtOnce(t *testing.T, ctx context.Context, srv *server.Server, base string) {
	var mu sync.Mutex
	seen := map[string]string{}
	record := func(v, by string) {
		mu.Lock()
		defer mu.Unlock()
		if prev, dup := seen[v]; dup {
			t.Errorf("value %s handed out to %s and to %s", v, prev, by)
		}
		seen[v] = by
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			c, err := pgx.Connect(ctx, rootDSN(srv))
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close(ctx)
			for range 100 {
				var v int64
				if err := c.QueryRow(ctx, "select nextval('shared')").Scan(&v); err != nil {
					t.Error(err)
					return
				}
				record(fmt.Sprint(v), fmt.Sprintf("sql %d", i))
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				out := curlBody(t, base, "seqd", "root pw", `{"count": "2"}`)
				var r struct{ Values []string }
				if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Values) != 2 {
					t.Errorf("http nextval: %q", out)
					return
				}
				for _, v := range r.Values {
					record(v, fmt.Sprintf("http %d", i))
				}
			}
		}()
	}
	wg.Wait()
	if len(seen) != 4*100+4*50*2 {
		t.Errorf("%d distinct values, want %d", len(seen), 4*100+4*50*2)
	}
}

// curlBody takes values of public.shared with curl.
func curlBody(t *testing.T, base, user, password, body string) string {
	out, err := exec.Command("curl", "-sS", "-u", user+":"+password, "-X", "POST", "-H", "Content-Type: application/json", "-d", body,
		base+"/v1/sequences/public/shared/nextval").Output()
	if err != nil {
		t.Errorf("curl: %v", err)
	}
	return strings.TrimSpace(string(out))
}
