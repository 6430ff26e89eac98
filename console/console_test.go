package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/memstore"
)

// fixture is a console on an engine with the roles the tests use: a
// superuser, pg_monitor and its member mon, a plain role, and owner, who
// owns the sequences.
type fixture struct {
	t   testing.TB
	eng *engine.Engine
	c   *Console
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Config{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	for _, r := range []engine.Role{{Name: "admin", Superuser: true, Login: true}, {Name: MonitorRole},
		{Name: "mon", Login: true, MemberOf: []engine.Membership{{Role: MonitorRole}}}, {Name: "plain", Login: true}, {Name: "owner", Login: true}} {
		if err := eng.PutRole(ctx, r, true); err != nil {
			t.Fatal(err)
		}
	}
	// Trust, as loopback under -auth trust: the name given is the user.
	auth := func(cr apicore.Credentials, _ string) (string, error) {
		if !cr.Basic {
			return "", errors.New("no credentials")
		}
		return cr.User, nil
	}
	c := New(Config{Engine: func() *engine.Engine { return eng }, Authenticate: auth, Superuser: "seqd", Plaintext: true})
	t.Cleanup(c.Close)
	return &fixture{t: t, eng: eng, c: c}
}

// create makes public.name, owned by owner.
func (f *fixture) create(name string) engine.Name {
	f.t.Helper()
	n, err := engine.NewName("public", name)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.eng.CreateWith(context.Background(), n, seqmath.Spec{}, engine.CreateOptions{Owner: "owner"}); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// grant gives role p on n.
func (f *fixture) grant(n engine.Name, role string, p engine.Privs) {
	f.t.Helper()
	if err := f.eng.UpdateACL(context.Background(), n, func(a *engine.ACL) error { a.Grant(role, p); return nil }); err != nil {
		f.t.Fatal(err)
	}
}

// get requests path as user ("": no credentials).
func (f *fixture) get(user, path string) *httptest.ResponseRecorder {
	return f.do(http.MethodGet, user, path)
}

func (f *fixture) do(method, user, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	if user != "" {
		r.SetBasicAuth(user, "")
	}
	w := httptest.NewRecorder()
	f.c.ServeHTTP(w, r)
	return w
}

type listAnswer struct {
	Sequences []row  `json:"sequences"`
	Next      string `json:"next"`
	Error     string `json:"error"`
}

func (f *fixture) list(user, query string) (listAnswer, *httptest.ResponseRecorder) {
	f.t.Helper()
	w := f.get(user, "/console/api/sequences?"+query)
	var a listAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		f.t.Fatalf("%s: %v: %s", query, err, w.Body)
	}
	return a, w
}

func names(a listAnswer) []string {
	var out []string
	for _, s := range a.Sequences {
		out = append(out, s.Name)
	}
	return out
}

func TestPrivileges(t *testing.T) {
	f := newFixture(t)
	granted, viaRole := f.create("granted"), f.create("via_role")
	f.create("hidden")
	f.grant(granted, "mon", engine.PrivSelect)
	f.grant(viaRole, MonitorRole, engine.PrivUsage)
	for _, path := range []string{"/console/", "/console/app.js", "/console/api/sequences", "/console/api/cluster", "/console/api/sequence?schema=public&name=granted"} {
		w := f.get("plain", path)
		if w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), "granted") {
			t.Errorf("plain %s: %d %s, want 403 and nothing shown", path, w.Code, w.Body)
		}
		if w := f.get("", path); w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("no credentials %s: %d, want 401 with a challenge", path, w.Code)
		}
	}
	a, _ := f.list("mon", "")
	if got := strings.Join(names(a), ","); got != "granted,via_role" {
		t.Errorf("mon sees %q, want granted,via_role", got)
	}
	a, _ = f.list("admin", "")
	if got := strings.Join(names(a), ","); got != "granted,hidden,via_role" {
		t.Errorf("admin sees %q", got)
	}
	if w := f.get("mon", "/console/api/sequence?schema=public&name=hidden"); w.Code != http.StatusNotFound {
		t.Errorf("mon on hidden: %d %s, want 404", w.Code, w.Body)
	}
	if w := f.get("mon", "/console/api/sequence?schema=public&name=granted"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"role":"mon","privileges":"r"`) {
		t.Errorf("mon on granted: %d %s", w.Code, w.Body)
	}
	a, _ = f.list("mon", "sort=used")
	if got := len(a.Sequences); got != 2 {
		t.Errorf("mon sorted by use sees %d sequences, want 2", got)
	}
}

func TestBadRequests(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ query, want string }{
		{"limit=0", "limit must be an integer from 1 to 500"},
		{"limit=501", "limit must be an integer from 1 to 500"},
		{"limit=ten", "limit must be an integer from 1 to 500"},
		{"sort=position", "sort must be name or used"},
		{"offset=10", "offset is for sort=used"},
		{"sort=used&offset=10001", "offset must be an integer from 0 to 10000"},
		{"bogus=1", `unknown parameter "bogus"`},
		{"q=" + strings.Repeat("a", 129), "q is longer than 128 bytes"},
	} {
		a, w := f.list("admin", tc.query)
		if w.Code != http.StatusBadRequest || !strings.Contains(a.Error, tc.want) {
			t.Errorf("%.40s: %d %q, want 400 %q", tc.query, w.Code, a.Error, tc.want)
		}
	}
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/console/api/sequence?schema=public", http.StatusBadRequest},
		{"/console/api/sequence?schema=a.b&name=c", http.StatusBadRequest},
		{"/console/api/sequence?schema=public&name=x&y=1", http.StatusBadRequest},
		{"/console/api/sequences?q=" + strings.Repeat("a", MaxQuery), http.StatusRequestURITooLong},
		{"/console/api/nothing", http.StatusNotFound},
	} {
		if w := f.get("admin", tc.path); w.Code != tc.code || !strings.Contains(w.Body.String(), `"error"`) {
			t.Errorf("%.60s: %d %s, want %d", tc.path, w.Code, w.Body, tc.code)
		}
	}
}

func TestReadOnlyAndHeaders(t *testing.T) {
	f := newFixture(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		if w := f.do(m, "admin", "/console/api/sequences"); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %d, want 405", m, w.Code)
		}
	}
	w := f.get("admin", "/console/api/sequences")
	h := w.Header()
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", h)
	}
	// Credentials in the clear from another host are refused.
	f.c.cfg.Plaintext = false
	if w := f.get("admin", "/console/api/me"); w.Code != http.StatusForbidden {
		t.Errorf("plain HTTP from another host: %d, want 403", w.Code)
	}
}

// TestPaging pages over 100,000 sequences: each answer holds at most its
// limit and stays small, the pages follow one another without a gap or a
// repeat, and a monitor that may see two of them finds them through
// bounded scans.
func TestPaging(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 100,000 sequences")
	}
	f := newFixture(t)
	const count = 100_000
	start := time.Now()
	createMany(t, f, count)
	t.Logf("created in %v", time.Since(start))
	f.grant(mustName(t, "s099999"), "mon", engine.PrivSelect)
	f.grant(mustName(t, "s000007"), "mon", engine.PrivSelect)
	after, seen := "", 0
	for page := 0; page < 5; page++ {
		a, w := f.list("admin", "limit=500&after="+after)
		if len(a.Sequences) != 500 || w.Body.Len() > 200<<10 {
			t.Fatalf("page %d: %d sequences, %d bytes", page, len(a.Sequences), w.Body.Len())
		}
		if want := fmt.Sprintf("s%06d", seen); a.Sequences[0].Name != want {
			t.Fatalf("page %d starts at %s, want %s", page, a.Sequences[0].Name, want)
		}
		seen += len(a.Sequences)
		after = a.Next
	}
	var found []string
	after = ""
	for scans := 0; ; scans++ {
		if scans > count/maxScan+1 {
			t.Fatalf("%d scans did not end", scans)
		}
		a, w := f.list("mon", "after="+after)
		if w.Code != http.StatusOK {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		found = append(found, names(a)...)
		if after = a.Next; after == "" {
			break
		}
	}
	if got := strings.Join(found, ","); got != "s000007,s099999" {
		t.Errorf("mon found %q", got)
	}
	if a, _ := f.list("admin", "sort=used&limit=500&offset=9500"); len(a.Sequences) != 500 {
		t.Errorf("by use, offset 9500: %d sequences", len(a.Sequences))
	}
}

func mustName(t testing.TB, rel string) engine.Name {
	n, err := engine.NewName("public", rel)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// createMany makes public.s000000 ... in transactions of a thousand.
func createMany(t *testing.T, f *fixture, count int) {
	ctx := context.Background()
	for first := 0; first < count; first += 1000 {
		txn := f.eng.Begin()
		for i := first; i < min(first+1000, count); i++ {
			if _, err := txn.CreateWith(ctx, mustName(t, fmt.Sprintf("s%06d", i)), seqmath.Spec{}, engine.CreateOptions{Owner: "owner"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRatesBounded(t *testing.T) {
	f := newFixture(t)
	r := newRates(DefaultSampleEvery, 3, func() *engine.Engine { return f.eng })
	defer r.stop()
	var ns []engine.Name
	for i := range 5 {
		ns = append(ns, f.create(fmt.Sprintf("r%d", i)))
	}
	for _, n := range ns {
		info, _ := f.eng.Info(n)
		r.view(n, info.ID)
	}
	r.mu.Lock()
	tracked := len(r.tracks)
	r.mu.Unlock()
	if tracked != 3 {
		t.Errorf("%d sequences tracked, want at most 3", tracked)
	}
	var tr track
	for i := range ringSize + 10 {
		tr.add(Sample{At: int64(i)})
	}
	s := tr.samples()
	if len(s) != ringSize || s[0].At != 10 || s[len(s)-1].At != ringSize+9 {
		t.Errorf("ring holds %d samples, %d to %d", len(s), s[0].At, s[len(s)-1].At)
	}
}
