package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/seqmath"
)

// start serves the API over a fresh engine; the roles are made first.
func start(t *testing.T, method string, roles ...engine.Role) (string, *engine.Engine) {
	t.Helper()
	eng := testenv.MemEngine(t)
	for _, r := range roles {
		if err := eng.PutRole(context.Background(), r, true); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Auth: method, MaxBulkRows: 1000}})
	go s.Serve(l)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return "http://" + l.Addr().String(), eng
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

// call sends a request (body: JSON text, "" for none) as user (none: "").
func call(t *testing.T, method, url, body, user, password string) answer {
	t.Helper()
	return send(t, method, url, body, func(req *http.Request) {
		if user != "" {
			req.SetBasicAuth(user, password)
		}
	})
}

// bearer sends a request with a bearer token.
func bearer(t *testing.T, method, url, body, token string) answer {
	t.Helper()
	return send(t, method, url, body, func(req *http.Request) { req.Header.Set("Authorization", "Bearer "+token) })
}

// send sends a request, its credentials set by auth, and reads the
// answer's JSON.
func send(t *testing.T, method, url, body string, auth func(*http.Request)) answer {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	auth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	b, _ := io.ReadAll(resp.Body)
	if len(b) > 0 {
		if err := json.Unmarshal(b, &a.body); err != nil {
			t.Fatalf("%s %s: not JSON: %q", method, url, b)
		}
	}
	return a
}

// problem checks that a is a problem of status and SQLSTATE.
func (a answer) problem(t *testing.T, what string, status int, sqlstate string) {
	t.Helper()
	if a.status != status || a.body["sqlstate"] != sqlstate || a.header.Get("Content-Type") != "application/problem+json" ||
		a.body["status"] != float64(status) || a.body["detail"] == "" {
		t.Errorf("%s: %d %v (%s), want %d with SQLSTATE %s", what, a.status, a.body, a.header.Get("Content-Type"), status, sqlstate)
	}
}

// TestValues: values one by one and by count, concurrently from many
// callers, all distinct and in order per caller; a range reserved and
// its tail released; the definition and position; create, alter, drop.
func TestValues(t *testing.T) {
	base, _ := start(t, AuthTrust)
	seq := base + "/v1/sequences/public/ids"
	if a := call(t, "PUT", seq, `{"start": "10", "increment": "2", "cache": "20"}`, "", ""); a.status != http.StatusCreated ||
		a.body["start"] != "10" || a.body["increment"] != "2" || a.body["type"] != "bigint" || a.body["last_value"] != nil {
		t.Fatalf("create: %d %v", a.status, a.body)
	}
	const callers, each = 8, 50
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := int64(0)
			for i := range each {
				body := ""
				if i%2 == 1 {
					body = `{"count": "3"}`
				}
				a := call(t, "POST", seq+"/nextval", body, "", "")
				vals, _ := a.body["values"].([]any)
				if a.status != http.StatusOK || len(vals) != 1+2*(i%2) {
					t.Errorf("nextval: %d %v", a.status, a.body)
					return
				}
				mu.Lock()
				for _, v := range vals {
					n, _ := strconv.ParseInt(v.(string), 10, 64)
					if seen[v.(string)] || n <= last || (n-10)%2 != 0 {
						t.Errorf("value %s: repeated, out of order or off the increment (last %d)", v, last)
					}
					seen[v.(string)], last = true, n
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if want := callers * each * 2; len(seen) != want {
		t.Errorf("%d distinct values, want %d", len(seen), want)
	}

	r := call(t, "POST", seq+"/reserve", `{"count": 100}`, "", "")
	first, _ := strconv.ParseInt(fmt.Sprint(r.body["first"]), 10, 64)
	last, _ := strconv.ParseInt(fmt.Sprint(r.body["last"]), 10, 64)
	if r.status != http.StatusOK || last-first != 198 || r.body["increment"] != "2" {
		t.Fatalf("reserve: %d %v", r.status, r.body)
	}
	// Give back all but the first ten: the next value follows them; a
	// second release of the same tail changes nothing.
	rel := call(t, "POST", seq+"/release", fmt.Sprintf(`{"first": "%d", "last": "%d"}`, first+20, last), "", "")
	if rel.status != http.StatusOK || rel.body["released"] != true {
		t.Fatalf("release: %d %v", rel.status, rel.body)
	}
	if again := call(t, "POST", seq+"/release", fmt.Sprintf(`{"first": "%d", "last": "%d"}`, first+20, last), "", ""); again.body["released"] != false {
		t.Fatalf("release again: %d %v", again.status, again.body)
	}
	if a := call(t, "POST", seq+"/nextval", "", "", ""); a.status != http.StatusOK || a.body["values"].([]any)[0] != strconv.FormatInt(first+20, 10) {
		t.Errorf("nextval after the release: %v, want %d", a.body, first+20)
	}
	if a := call(t, "GET", seq, "", "", ""); a.status != http.StatusOK || a.body["last_value"] != strconv.FormatInt(first+20, 10) ||
		a.body["maxvalue"] != "9223372036854775807" || a.body["cycle"] != false || a.body["owner"] != "seqd" {
		t.Errorf("describe: %d %v", a.status, a.body)
	}
	if a := call(t, "PATCH", seq, `{"increment": "-1", "minvalue": "-5", "cycle": true, "type": "integer"}`, "", ""); a.status != http.StatusOK ||
		a.body["increment"] != "-1" || a.body["cycle"] != true || a.body["type"] != "integer" || a.body["maxvalue"] != "2147483647" {
		t.Errorf("alter: %d %v", a.status, a.body)
	}
	// Names as stored: case and odd characters kept, no SQL from them.
	odd := base + "/v1/sequences/public/" + "Odd%20'name%22;%5C'%20drop"
	if a := call(t, "PUT", odd, "", "", ""); a.status != http.StatusCreated || a.body["name"] != `Odd 'name";\' drop` {
		t.Errorf("create an odd name: %d %v", a.status, a.body)
	}
	if a := call(t, "POST", odd+"/nextval", "", "", ""); a.status != http.StatusOK {
		t.Errorf("nextval of the odd name: %d %v", a.status, a.body)
	}
	if a := call(t, "DELETE", odd, "", "", ""); a.status != http.StatusNoContent {
		t.Errorf("drop: %d %v", a.status, a.body)
	}
	call(t, "GET", odd, "", "", "").problem(t, "describe a dropped sequence", http.StatusNotFound, "42P01")
	call(t, "GET", base+"/v1/sequences/pg_catalog/pg_class", "", "", "").problem(t, "describe a relation not a sequence", http.StatusNotFound, "42P01")

	// The problems a caller acts on.
	call(t, "PUT", seq, "", "", "").problem(t, "create again", http.StatusConflict, "42P07")
	call(t, "POST", base+"/v1/sequences/public/nosuch/nextval", "", "", "").problem(t, "no such sequence", http.StatusNotFound, "42P01")
	call(t, "PUT", base+"/v1/sequences/nosuch/s", "", "", "").problem(t, "no such schema", http.StatusNotFound, "3F000")
	call(t, "POST", seq+"/nextval", `{"count": "0"}`, "", "").problem(t, "count 0", http.StatusBadRequest, "22023")
	call(t, "POST", seq+"/nextval", `{"count": "1001"}`, "", "").problem(t, "count over the limit", http.StatusBadRequest, "22023")
	call(t, "POST", seq+"/nextval", `{"count": "x"}`, "", "").problem(t, "count not a number", http.StatusBadRequest, "22023")
	call(t, "POST", seq+"/nextval", `[1]`, "", "").problem(t, "not an object", http.StatusBadRequest, "22023")
	call(t, "PUT", base+"/v1/sequences/public/x", `{"start": "1", "bogus": 1}`, "", "").problem(t, "an unknown option", http.StatusBadRequest, "22023")
	call(t, "PUT", base+"/v1/sequences/public/x", `{"type": "text"}`, "", "").problem(t, "a bad type", http.StatusBadRequest, "22023")
	call(t, "PUT", base+"/v1/sequences/public/x", `{"minvalue": "5", "maxvalue": "1"}`, "", "").problem(t, "min over max", http.StatusBadRequest, "22023")
	call(t, "POST", seq+"/nextval", `{"count": "`+strings.Repeat("9", 70000)+`"}`, "", "").problem(t, "a body too large", http.StatusRequestEntityTooLarge, "54000")
	call(t, "GET", base+"/v2/nothing", "", "", "").problem(t, "no such endpoint", http.StatusNotFound, "XX000")
	call(t, "GET", base+"/v1/sequences/public/%FF", "", "", "").problem(t, "a name not UTF-8", http.StatusBadRequest, "22021")
	call(t, "GET", base+"/v1/sequences/public/a%00b", "", "", "").problem(t, "a name with NUL", http.StatusBadRequest, "22021")
	small := base + "/v1/sequences/public/small"
	if a := call(t, "PUT", small, `{"maxvalue": "2"}`, "", ""); a.status != http.StatusCreated {
		t.Fatalf("create small: %d %v", a.status, a.body)
	}
	call(t, "POST", small+"/nextval", `{"count": "2"}`, "", "")
	call(t, "POST", small+"/nextval", "", "", "").problem(t, "a sequence at its limit", http.StatusConflict, "2200H")
	if a := call(t, "GET", base+"/v1/openapi.json", "", "", ""); a.status != http.StatusOK || a.body["openapi"] != "3.1.0" {
		t.Errorf("openapi.json: %d %v", a.status, a.body["openapi"])
	}
}

// TestAuthentication: under AuthPassword a role's password (HTTP Basic,
// checked against its verifier), 401 without or with a wrong one or for
// a role that may not log in; a role without the privilege gets 403; a
// changed password takes effect at once (the cache follows the roles).
func TestAuthentication(t *testing.T) {
	ctx := context.Background()
	pw := func(p string) *engine.Verifier {
		v, err := auth.NewVerifier(p)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	base, eng := start(t, AuthPassword, engine.Role{Name: "seqd", Superuser: true, Login: true, Verifier: pw("root")},
		engine.Role{Name: "app", Login: true, Verifier: pw("app pw")}, engine.Role{Name: "nologin", Verifier: pw("x")})
	seq := base + "/v1/sequences/public/s"
	if a := call(t, "PUT", seq, "", "seqd", "root"); a.status != http.StatusCreated {
		t.Fatalf("create as seqd: %d %v", a.status, a.body)
	}
	a := call(t, "POST", seq+"/nextval", "", "", "")
	a.problem(t, "no credentials", http.StatusUnauthorized, "28000")
	if !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Basic ") {
		t.Errorf("no WWW-Authenticate: %v", a.header)
	}
	call(t, "POST", seq+"/nextval", "", "app", "wrong").problem(t, "a wrong password", http.StatusUnauthorized, "28P01")
	call(t, "POST", seq+"/nextval", "", "nologin", "x").problem(t, "a role that may not log in", http.StatusUnauthorized, "28P01")
	call(t, "POST", seq+"/nextval", "", "nobody", "x").problem(t, "no such role", http.StatusUnauthorized, "28P01")
	call(t, "POST", seq+"/nextval", "", "app", "app pw").problem(t, "app without USAGE", http.StatusForbidden, "42501")
	call(t, "DELETE", seq, "", "app", "app pw").problem(t, "app dropping seqd's", http.StatusForbidden, "42501")
	if err := eng.UpdateACL(ctx, mustName(t, "public", "s"), func(a *engine.ACL) error {
		a.Grants["app"] = engine.PrivUsage
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if a := call(t, "POST", seq+"/nextval", "", "app", "app pw"); a.status != http.StatusOK {
		t.Errorf("app with USAGE: %d %v", a.status, a.body)
	}
	// A new password: the old one fails at once, though it was cached.
	if err := eng.PutRole(ctx, engine.Role{Name: "app", Login: true, Verifier: pw("new pw")}, false); err != nil {
		t.Fatal(err)
	}
	call(t, "POST", seq+"/nextval", "", "app", "app pw").problem(t, "the old password", http.StatusUnauthorized, "28P01")
	if a := call(t, "POST", seq+"/nextval", "", "app", "new pw"); a.status != http.StatusOK {
		t.Errorf("the new password: %d %v", a.status, a.body)
	}
}

func mustName(t *testing.T, schema, rel string) engine.Name {
	n, err := engine.NewName(schema, rel)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStandby: on a standby, what writes is 503 with Retry-After (25006),
// reads are served; once the node leads, the same role's pooled sessions
// are not reused and writes succeed.
func TestStandby(t *testing.T) {
	eng := testenv.MemEngine(t)
	if _, err := eng.Create(context.Background(), mustName(t, "public", "s"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	standby := true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Node: func() (*engine.Engine, bool) {
		mu.Lock()
		defer mu.Unlock()
		return eng, standby
	}}})
	go s.Serve(l)
	defer s.Shutdown(context.Background())
	base := "http://" + l.Addr().String() + "/v1/sequences/public/"
	a := call(t, "PUT", base+"t", "", "", "")
	a.problem(t, "create on a standby", http.StatusServiceUnavailable, "25006")
	if a.header.Get("Retry-After") == "" {
		t.Error("no Retry-After from a standby")
	}
	if a := call(t, "GET", base+"s", "", "", ""); a.status != http.StatusOK {
		t.Errorf("describe on a standby: %d %v", a.status, a.body)
	}
	mu.Lock()
	standby = false
	mu.Unlock()
	if a := call(t, "PUT", base+"t", "", "", ""); a.status != http.StatusCreated {
		t.Errorf("create once the node leads: %d %v", a.status, a.body)
	}
}

// TestSlots: the last of the server's places are superusers': with the
// others held by sessions, a role's new session gets 429 with
// Retry-After (53300), a superuser still gets in. The API's pooled
// sessions hold no place of their own (their connections do).
func TestSlots(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	if _, err := eng.Create(ctx, mustName(t, "public", "s"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"app", "app2"} {
		if err := eng.PutRole(ctx, engine.Role{Name: r, Login: true}, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.UpdateACL(ctx, mustName(t, "public", "s"), func(a *engine.ACL) error {
		a.Grants[engine.Public] = engine.PrivUsage
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	reg := frontend.NewRegistry(3, 1)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Registry: reg}})
	go s.Serve(l)
	defer s.Shutdown(ctx)
	url := "http://" + l.Addr().String() + "/v1/sequences/public/s/nextval"
	if a := call(t, "POST", url, "", "app", ""); a.status != http.StatusOK {
		t.Fatalf("app, slots free: %d %v", a.status, a.body)
	}
	// app's idle session takes no place of its own; two SQL sessions
	// hold the two places not reserved: app2's session would take the
	// reserved one.
	for range 2 {
		if _, _, ok := reg.Register(func() {}); !ok {
			t.Fatal("the registry is full already")
		}
	}
	a := call(t, "POST", url, "", "app2", "")
	a.problem(t, "app2 in the reserved slot", http.StatusTooManyRequests, "53300")
	if a.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	if a := call(t, "POST", url, "", "seqd", ""); a.status != http.StatusOK {
		t.Errorf("the superuser in the reserved slot: %d %v", a.status, a.body)
	}
	if a := call(t, "POST", url, "", "app", ""); a.status != http.StatusOK {
		t.Errorf("app, its session pooled: %d %v", a.status, a.body)
	}
}

// TestTokens: a role makes a bearer token with its password, which then
// authenticates it; a token cannot make tokens; the role lists its
// tokens (never a secret) and revokes one, which fails at once after.
func TestTokens(t *testing.T) {
	ctx := context.Background()
	v, err := auth.NewVerifier("app pw")
	if err != nil {
		t.Fatal(err)
	}
	base, eng := start(t, AuthPassword, engine.Role{Name: "app", Login: true, Verifier: v})
	if _, err := eng.Create(ctx, mustName(t, "public", "s"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	a := call(t, "POST", base+"/v1/tokens", `{"label": "deploy", "valid_days": "7"}`, "app", "app pw")
	token, _ := a.body["token"].(string)
	if a.status != http.StatusCreated || !strings.HasPrefix(token, "seqd.") || a.body["label"] != "deploy" || a.body["role"] != "app" {
		t.Fatalf("create a token: %d %v", a.status, a.body)
	}
	created, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(a.body["created"]))
	expires, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(a.body["expires"]))
	if d := expires.Sub(created); d != 7*24*time.Hour {
		t.Errorf("valid for %v, want 7 days", d)
	}
	if a := bearer(t, "POST", base+"/v1/sequences/public/s/nextval", "", token); a.status != http.StatusOK {
		t.Errorf("nextval with the token: %d %v", a.status, a.body)
	}
	bearer(t, "POST", base+"/v1/tokens", "", token).problem(t, "a token making a token", http.StatusForbidden, "42501")
	l := bearer(t, "GET", base+"/v1/tokens", "", token)
	list, _ := l.body["tokens"].([]any)
	if l.status != http.StatusOK || len(list) != 1 || list[0].(map[string]any)["id"] != a.body["id"] || list[0].(map[string]any)["token"] != nil {
		t.Fatalf("list: %d %v", l.status, l.body)
	}
	call(t, "POST", base+"/v1/tokens", `{"valid_days": "0"}`, "app", "app pw").problem(t, "0 days", http.StatusBadRequest, "22023")
	call(t, "POST", base+"/v1/tokens", `{"expires": "never"}`, "app", "app pw").problem(t, "an unknown field", http.StatusBadRequest, "22023")
	call(t, "POST", base+"/v1/tokens", `{"label": 5}`, "app", "app pw").problem(t, "a label not a string", http.StatusBadRequest, "22023")
	if a := call(t, "DELETE", base+"/v1/tokens/"+fmt.Sprint(a.body["id"]), "", "app", "app pw"); a.status != http.StatusNoContent {
		t.Fatalf("revoke: %d %v", a.status, a.body)
	}
	bearer(t, "POST", base+"/v1/sequences/public/s/nextval", "", token).problem(t, "a revoked token", http.StatusUnauthorized, "28P01")
	bearer(t, "GET", base+"/v1/tokens", "", "seqd.x.y.z").problem(t, "a malformed token", http.StatusUnauthorized, "28P01")
	call(t, "DELETE", base+"/v1/tokens/"+fmt.Sprint(a.body["id"]), "", "app", "app pw").problem(t, "revoke again", http.StatusNotFound, "42704")
	call(t, "DELETE", base+"/v1/tokens/nothex", "", "app", "app pw").problem(t, "revoke a malformed ID", http.StatusBadRequest, "22023")
}

// TestForward: a standby sends what it refuses (an ORDER sequence's
// values, DDL) on to the leader's API with the caller's credentials and
// relays the answer; a request forwarded once is not forwarded again
// (two standbys pointing at each other answer 503, not a loop).
func TestForward(t *testing.T) {
	eng := testenv.MemEngine(t)
	v, err := auth.NewVerifier("app pw")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := eng.PutRole(ctx, engine.Role{Name: "app", Login: true, Superuser: true, Verifier: v}, true); err != nil {
		t.Fatal(err)
	}
	serve := func(standby bool, forward func() (string, bool)) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s := NewServer(Config{Config: apicore.Config{Node: func() (*engine.Engine, bool) { return eng, standby }, Auth: AuthPassword}, Forward: forward})
		go s.Serve(l)
		t.Cleanup(func() { s.Shutdown(ctx) })
		return "http://" + l.Addr().String()
	}
	leader := serve(false, nil)
	follower := serve(true, func() (string, bool) { return leader, true })
	if a := call(t, "PUT", follower+"/v1/sequences/public/s", `{"start": "10"}`, "app", "app pw"); a.status != http.StatusCreated {
		t.Fatalf("create through a standby: %d %v", a.status, a.body)
	}
	for i, want := range []string{"10", "11"} {
		a := call(t, "POST", follower+"/v1/sequences/public/s/nextval", "", "app", "app pw")
		if vals, _ := a.body["values"].([]any); a.status != http.StatusOK || len(vals) != 1 || vals[0] != want {
			t.Errorf("nextval %d through a standby: %d %v", i, a.status, a.body)
		}
	}
	call(t, "POST", follower+"/v1/sequences/public/s/nextval", "", "app", "wrong").problem(t, "a wrong password", http.StatusUnauthorized, "28P01")
	// Two standbys, each taking the other for the leader.
	var other string
	a := serve(true, func() (string, bool) { return other, true })
	other = serve(true, func() (string, bool) { return a, true })
	r := call(t, "POST", a+"/v1/sequences/public/s/nextval", "", "app", "app pw")
	r.problem(t, "two standbys", http.StatusServiceUnavailable, "25006")
	if r.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	// No leader to be found: the standby's refusal.
	none := serve(true, func() (string, bool) { return "", false })
	call(t, "POST", none+"/v1/sequences/public/s/nextval", "", "app", "app pw").problem(t, "no leader", http.StatusServiceUnavailable, "25006")
	// The leader out of reach: the refusal too.
	gone := serve(true, func() (string, bool) { return "http://127.0.0.1:1", true })
	call(t, "POST", gone+"/v1/sequences/public/s/nextval", "", "app", "app pw").problem(t, "the leader out of reach", http.StatusServiceUnavailable, "25006")
	if a := call(t, "POST", leader+"/v1/sequences/public/s/nextval", "", "app", "app pw"); a.body["values"].([]any)[0] != "12" {
		t.Errorf("the leader after: %v", a.body)
	}
}

// TestShutdownStuckClient: a client that sends requests for large
// answers and never reads them (the server stuck writing) does not hold
// a shutdown until its deadline: its connection is closed after the
// grace period.
func TestShutdownStuckClient(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	if _, err := eng.Create(ctx, mustName(t, "public", "s"), seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: eng}})
	s.grace = 200 * time.Millisecond
	go s.Serve(l)
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"count": "100000"}`
	req := fmt.Sprintf("POST /v1/sequences/public/s/nextval HTTP/1.1\r\nHost: seqd\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	go func() {
		for range 200 {
			if _, err := c.Write([]byte(req)); err != nil {
				return
			}
		}
	}()
	// Stuck: the sequence stops moving while the client still sends.
	testenv.WaitStuck(t, eng)
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := s.Shutdown(sctx); err != nil {
		t.Fatalf("shutdown with a client stuck: %v", err)
	}
	// Its connection was closed (reset: it had requests unread): reading
	// ends before the deadline.
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var ne net.Error
	if _, err := io.Copy(io.Discard, c); errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the stuck connection is still open after the shutdown: %v", err)
	}
}
