package console

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
)

// The console as an attacker with one ordinary login sees it, and as a
// careless operator runs it: what a role without pg_monitor reaches,
// what a member of pg_monitor learns of the sequences it holds no
// privilege on, and how much a viewer makes the console keep.

// as requests path with method as user, from the address from (host:port)
// and naming host as Host ("": httptest's defaults).
func (f *fixture) as(method, user, path, from, host string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/", nil)
	u, err := url.ParseRequestURI(path)
	if err != nil {
		f.t.Fatal(err)
	}
	r.URL, r.RequestURI = u, path
	if user != "" {
		r.SetBasicAuth(user, "")
	}
	if from != "" {
		r.RemoteAddr = from
	}
	if host != "" {
		r.Host = host
	}
	w := httptest.NewRecorder()
	f.c.ServeHTTP(w, r)
	return w
}

// TestAdversarialNoMonitor: a role without pg_monitor, and a request
// without credentials, get 403 and 401 on every path under /console/,
// by GET and HEAD alike, and nothing of the sequences: no name, no
// count, no page.
func TestAdversarialNoMonitor(t *testing.T) {
	f := newFixture(t)
	f.create("hidden_orders")
	f.grant(f.create("granted_to_plain"), "plain", engine.PrivAll)
	f.c.cfg.Failures = func() []Failure {
		return []Failure{{Line: `42501 permission denied for sequence hidden_orders (user "x", connection 1) STATEMENT: select 1`}}
	}
	paths := []string{"/console/", "/console/index.html", "/console/app.js", "/console/app.css", "/console/icon.svg", "/console/nothing",
		"/console/api/me", "/console/api/sequences", "/console/api/sequences?sort=used", "/console/api/sequences?q=hidden",
		"/console/api/sequence?schema=public&name=hidden_orders", "/console/api/sequence?schema=public&name=granted_to_plain",
		"/console/api/cluster", "/console/api/failures", "/console/api/nothing", "/console/api/sequences/", "/console/api/",
		"/console/api/%73equences", "/console/API/sequences", "/console/api/sequences;x", "/console/api/sequences%00",
		"/console/../console/api/sequences", "/console/api/../api/sequences", "/console//api/sequences"}
	for _, path := range paths {
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			for _, who := range []struct {
				user string
				code int
			}{{"plain", http.StatusForbidden}, {"", http.StatusUnauthorized}} {
				w := f.as(m, who.user, path, "", "")
				body := w.Body.String()
				if w.Code != who.code || strings.Contains(body, "hidden") || strings.Contains(body, "granted") || strings.Contains(body, "total") {
					t.Errorf("%s %s as %q: %d %.200s, want %d and nothing of the sequences", m, path, who.user, w.Code, body, who.code)
				}
				if m == http.MethodGet && w.Header().Get("Content-Type") != "application/json" {
					t.Errorf("%s %s as %q: Content-Type %q, want the JSON refusal", m, path, who.user, w.Header().Get("Content-Type"))
				}
			}
		}
	}
}

// TestAdversarialHiddenSequences: a member of pg_monitor finds no trace
// of a sequence it holds no privilege on, by its name, a search, either
// order, or a page's cursor; asking for one answers as for one that
// does not exist.
func TestAdversarialHiddenSequences(t *testing.T) {
	f := newFixture(t)
	f.grant(f.create("visible"), "mon", engine.PrivSelect)
	for _, n := range []string{"secret_a", "secret_b", "zz_secret"} {
		f.create(n)
	}
	for _, q := range []string{"", "q=secret", "q=_", "q=public.secret", "sort=used", "sort=used&q=secret", "limit=1", "sort=used&limit=1", "limit=1&q=e"} {
		a, w := f.list("mon", q)
		if w.Code != http.StatusOK || strings.Contains(w.Body.String(), "secret") {
			t.Errorf("%q: %d %s", q, w.Code, w.Body)
		}
		for _, s := range a.Sequences {
			if s.Name != "visible" {
				t.Errorf("%q lists %s", q, s.Name)
			}
		}
		if a.Next != "" {
			cursor := "&after="
			if strings.Contains(q, "sort=used") {
				cursor = "&offset="
			}
			a2, w2 := f.list("mon", q+cursor+url.QueryEscape(a.Next))
			if w2.Code != http.StatusOK || len(a2.Sequences) != 0 || strings.Contains(w2.Body.String(), "secret") {
				t.Errorf("%q, the next page: %d %s", q, w2.Code, w2.Body)
			}
		}
	}
	missing := f.get("mon", "/console/api/sequence?schema=public&name=no_such")
	for _, n := range []string{"secret_a", "zz_secret"} {
		w := f.get("mon", "/console/api/sequence?schema=public&name="+n)
		if w.Code != missing.Code || strings.ReplaceAll(w.Body.String(), n, "no_such") != missing.Body.String() {
			t.Errorf("%s: %d %s, want as for a sequence that does not exist: %d %s", n, w.Code, w.Body, missing.Code, missing.Body)
		}
	}
}

// TestAdversarialCursorHidesNames: a listing by name whose scan runs out
// (maxScan names looked at, none the viewer's) continues after the last
// name it looked at, which the viewer may not see: its cursor must not
// tell that name, and a cursor the client makes up (a name, to learn
// where the hidden names lie) is refused.
func TestAdversarialCursorHidesNames(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 100,001 sequences")
	}
	f := newFixture(t)
	createMany(t, f, maxScan+1)
	f.grant(mustName(t, fmt.Sprintf("s%06d", maxScan)), "mon", engine.PrivSelect)
	a, w := f.list("mon", "")
	if w.Code != http.StatusOK || len(a.Sequences) != 0 || a.Next == "" {
		t.Fatalf("the first page: %d, %d sequences, next %q; want none and a cursor", w.Code, len(a.Sequences), a.Next)
	}
	hidden := fmt.Sprintf("s%06d", maxScan-1) // the last name the scan looked at
	if strings.Contains(w.Body.String(), hidden) {
		t.Errorf("the page names %s, which mon may not see: %s", hidden, w.Body)
	}
	if raw, err := base64.RawURLEncoding.DecodeString(a.Next); err == nil && bytes.Contains(raw, []byte(hidden)) {
		t.Errorf("the cursor %q holds %s in the clear", a.Next, hidden)
	}
	a2, w := f.list("mon", "after="+url.QueryEscape(a.Next))
	if w.Code != http.StatusOK || strings.Join(names(a2), ",") != fmt.Sprintf("s%06d", maxScan) || a2.Next != "" {
		t.Errorf("after the cursor: %d %v next %q, want s%06d and the end", w.Code, names(a2), a2.Next, maxScan)
	}
	// Made-up cursors: a name (where would the scan run out after it?),
	// a tampered cursor, and one of another console.
	tampered := []byte(a.Next)
	tampered[len(tampered)/2] ^= 1
	other := newCursors().seal("public.s000001")
	for _, after := range []string{"public.s050000", "s050000", string(tampered), other, "%%%"} {
		if a, w := f.list("mon", "after="+url.QueryEscape(after)); w.Code != http.StatusBadRequest || !strings.Contains(a.Error, "after must be") {
			t.Errorf("after=%.40q: %d %s, want 400", after, w.Code, w.Body)
		}
	}
}

// TestAdversarialCursorSealed: a cursor opens to the key sealed, only
// on the console that sealed it, and its length does not depend on the
// name's.
func TestAdversarialCursorSealed(t *testing.T) {
	c := newCursors()
	short, long := c.seal("public.a"), c.seal("public."+strings.Repeat("x", 63))
	if len(short) != len(long) {
		t.Errorf("cursors of %d and %d bytes", len(short), len(long))
	}
	for _, key := range []string{"public.a", `"odd schema"."odd ""name"""`, strings.Repeat("y", 300)} {
		if got, err := c.open(c.seal(key)); err != nil || got != key {
			t.Errorf("%.20q: opened to %.20q, %v", key, got, err)
		}
	}
	if got, err := c.open(""); got != "" || err != nil {
		t.Errorf("the first page's cursor: %q, %v", got, err)
	}
	if c.seal("") != "" {
		t.Error(`a last page's cursor is not ""`)
	}
	if _, err := newCursors().open(short); err == nil {
		t.Error("another console opened the cursor")
	}
}

// failureLine is what the server keeps of a failed statement: frontend's
// logged line after "ERROR ".
func failureLine(t *testing.T, code, msg, user string, conn uint32, text string) string {
	var b bytes.Buffer
	frontend.LogFailure(log.New(&b, "", 0), code, msg, user, conn, text)
	line, ok := strings.CutPrefix(strings.TrimSpace(b.String()), "ERROR ")
	if !ok {
		t.Fatalf("a failure logged as %q", b.String())
	}
	return line
}

// TestAdversarialFailuresWithheld: a statement that fails while setting
// a password may show it in its error's message, not only in its text
// (the parser quotes the token it stopped at): a member of pg_monitor
// sees the code, the message without what it quotes, and who sent it; a
// superuser sees the line whole.
func TestAdversarialFailuresWithheld(t *testing.T) {
	f := newFixture(t)
	type failure struct{ code, msg, user, text, shown string }
	list := []failure{
		{"42601", `syntax error at or near "hunter2"`, "ops", "CREATE ROLE app PASSWORD hunter2",
			`42601 syntax error at or near "…" (user "ops", connection 7)`},
		{"42601", `unterminated quoted string at or near "'hunter2"`, "ops", "ALTER ROLE app PASSWORD 'hunter2",
			`42601 unterminated quoted string at or near "…" (user "ops", connection 7)`},
		{"1064", "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'hunter2' at line 1", "ops", "CREATE USER app IDENTIFIED BY hunter2",
			`1064 You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near "…" at line 1 (user "ops", connection 7)`},
		// The statement's text in the message, the separator in it.
		{"42601", `syntax error at or near "hunter2 STATEMENT: x"`, "ops", "CREATE ROLE app PASSWORD hunter2 STATEMENT: x",
			`42601 syntax error at or near "…"`},
		{"42P01", `relation "x" does not exist`, `o"p's`, "select nextval('x')",
			`42P01 relation "…" does not exist (user "o\"p's", connection 7)`},
		{"57014", "canceling statement due to statement timeout", "ops", "select pg_sleep(10)",
			`57014 canceling statement due to statement timeout (user "ops", connection 7)`},
	}
	var lines []Failure
	for _, fl := range list {
		lines = append(lines, Failure{Line: failureLine(t, fl.code, fl.msg, fl.user, 7, fl.text)})
	}
	f.c.cfg.Failures = func() []Failure { return lines }
	var mon, admin struct {
		Failures []Failure `json:"failures"`
	}
	for _, v := range []struct {
		user string
		into any
	}{{"mon", &mon}, {"admin", &admin}} {
		w := f.get(v.user, "/console/api/failures")
		if err := json.Unmarshal(w.Body.Bytes(), v.into); err != nil || w.Code != http.StatusOK {
			t.Fatalf("%s: %d %v %s", v.user, w.Code, err, w.Body)
		}
	}
	if len(mon.Failures) != len(list) || len(admin.Failures) != len(list) {
		t.Fatalf("mon sees %d failures, admin %d, want %d", len(mon.Failures), len(admin.Failures), len(list))
	}
	for i, fl := range list {
		if got := mon.Failures[i].Line; got != fl.shown || strings.Contains(got, "hunter2") {
			t.Errorf("mon sees %q,\n want %q", got, fl.shown)
		}
		if got := admin.Failures[i].Line; got != lines[i].Line {
			t.Errorf("admin sees %q, want the line whole", got)
		}
	}
}

// TestAdversarialDNSRebinding: under -auth trust a loopback -http lets
// any client on the host in without credentials, a browser's too: a page
// of another site whose name its DNS turns to 127.0.0.1 would read the
// console as the bootstrap superuser (statements' text included). A
// loopback client must name a loopback address or localhost as Host,
// unless -api-insecure says a proxy is in front.
func TestAdversarialDNSRebinding(t *testing.T) {
	f := newFixture(t)
	f.create("orders")
	f.c.cfg.Plaintext = false
	for _, tc := range []struct {
		from, host string
		code       int
	}{
		{"127.0.0.1:40000", "evil.example", http.StatusMisdirectedRequest},
		{"127.0.0.1:40000", "evil.example:9187", http.StatusMisdirectedRequest},
		{"127.0.0.1:40000", "127.0.0.1.evil.example:9187", http.StatusMisdirectedRequest},
		{"127.0.0.1:40000", "localhost.evil.example", http.StatusMisdirectedRequest},
		{"[::1]:40000", "evil.example", http.StatusMisdirectedRequest},
		{"127.0.0.1:40000", "10.1.2.3:9187", http.StatusMisdirectedRequest},
		{"127.0.0.1:40000", "127.0.0.1:9187", http.StatusOK},
		{"127.0.0.1:40000", "127.7.7.7", http.StatusOK},
		{"127.0.0.1:40000", "[::1]:9187", http.StatusOK},
		{"127.0.0.1:40000", "LOCALHOST:9187", http.StatusOK},
		{"127.0.0.1:40000", "localhost.", http.StatusOK},
		{"127.0.0.1:40000", "console.localhost:9187", http.StatusOK},
	} {
		for _, user := range []string{"", "admin"} {
			w := f.as(http.MethodGet, user, "/console/api/sequences", tc.from, tc.host)
			if tc.code == http.StatusOK && user == "" {
				continue // no credentials: the fixture's authentication wants some
			}
			if w.Code != tc.code || tc.code != http.StatusOK && strings.Contains(w.Body.String(), "orders") {
				t.Errorf("from %s as Host %s, user %q: %d %.100s, want %d", tc.from, tc.host, user, w.Code, w.Body, tc.code)
			}
		}
	}
	// Behind a proxy (-api-insecure) the Host is the proxy's to set.
	f.c.cfg.Plaintext = true
	if w := f.as(http.MethodGet, "admin", "/console/api/sequences", "127.0.0.1:40000", "seqd.example.com"); w.Code != http.StatusOK {
		t.Errorf("behind a proxy: %d %s", w.Code, w.Body)
	}
}

// TestAdversarialRevoked: the console reads the viewer's roles at every
// request: a role whose pg_monitor is revoked, or that is dropped, is
// refused at its next request, with the page still open.
func TestAdversarialRevoked(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.grant(f.create("orders"), "mon", engine.PrivSelect)
	if w := f.get("mon", "/console/api/sequences"); w.Code != http.StatusOK {
		t.Fatalf("mon: %d", w.Code)
	}
	role, _ := f.eng.Role("mon")
	role.MemberOf = nil
	if err := f.eng.PutRole(ctx, role, false); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/console/api/sequences", "/console/api/sequence?schema=public&name=orders", "/console/api/failures"} {
		if w := f.get("mon", path); w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), "orders\"") {
			t.Errorf("mon, pg_monitor revoked, %s: %d %s", path, w.Code, w.Body)
		}
	}
	// Membership through another role, that role then dropped.
	for _, r := range []engine.Role{{Name: "ops"}, {Name: "ops", MemberOf: []engine.Membership{{Role: MonitorRole}}}} {
		if err := f.eng.PutRole(ctx, r, r.MemberOf == nil); err != nil {
			t.Fatal(err)
		}
	}
	role.MemberOf = []engine.Membership{{Role: "ops"}}
	if err := f.eng.PutRole(ctx, role, false); err != nil {
		t.Fatal(err)
	}
	if w := f.get("mon", "/console/api/me"); w.Code != http.StatusOK {
		t.Fatalf("mon through ops: %d %s", w.Code, w.Body)
	}
	if err := f.eng.DropRole(ctx, "ops"); err != nil {
		t.Fatal(err)
	}
	if w := f.get("mon", "/console/api/me"); w.Code != http.StatusForbidden {
		t.Errorf("mon, ops dropped: %d %s, want 403", w.Code, w.Body)
	}
}

// TestAdversarialChartsBounded: viewers opening many sequences' pages at
// once make the console sample at most maxTracked of them, each in a
// ring of ringSize samples.
func TestAdversarialChartsBounded(t *testing.T) {
	f := newFixture(t)
	const count = maxTracked + 100
	var ns []engine.Name
	for i := range count {
		n := f.create(fmt.Sprintf("c%03d", i))
		f.grant(n, "mon", engine.PrivSelect)
		ns = append(ns, n)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < 3*count; i += 8 {
				w := f.get("mon", "/console/api/sequence?schema=public&name="+ns[i%count].Rel())
				if w.Code != http.StatusOK {
					t.Errorf("%s: %d", ns[i%count], w.Code)
					return
				}
			}
		}()
	}
	wg.Wait()
	f.c.rates.mu.Lock()
	defer f.c.rates.mu.Unlock()
	if n := len(f.c.rates.tracks); n > maxTracked {
		t.Errorf("%d sequences sampled, want at most %d", n, maxTracked)
	}
	for _, tr := range f.c.rates.tracks {
		if tr.n > ringSize {
			t.Errorf("%s: %d samples", tr.name, tr.n)
		}
	}
}

// TestAdversarialQueryStrings: hostile query strings are answered 400
// (or 414 past MaxQuery) with a JSON message, and never list more than
// they may.
func TestAdversarialQueryStrings(t *testing.T) {
	f := newFixture(t)
	f.grant(f.create("visible"), "mon", engine.PrivSelect)
	f.create("hidden")
	for _, tc := range []struct {
		query string
		code  int
	}{
		{"limit=%2B5", http.StatusOK}, // +5, as strconv.Atoi reads it
		{"limit=0x10", http.StatusBadRequest},
		{"limit=1e2", http.StatusBadRequest},
		{"limit=%D9%A5", http.StatusBadRequest}, // an Arabic-Indic five
		{"limit=9223372036854775808", http.StatusBadRequest},
		{"sort=used&offset=-1", http.StatusBadRequest},
		{"q=%00", http.StatusOK},
		{"q=%zz", http.StatusOK}, // undecodable: the pair is dropped
		{"q=.*", http.StatusOK},
		{"q=" + strings.Repeat("%FF", MaxSearch+1), http.StatusBadRequest},
		{"limit=1&limit=500&limit=501", http.StatusOK},
		{strings.Repeat("&", MaxQuery), http.StatusOK},
		{strings.Repeat("&", MaxQuery+1), http.StatusRequestURITooLong},
		{"Q=hidden", http.StatusBadRequest},
		{"after=" + strings.Repeat("A", 900), http.StatusBadRequest},
	} {
		w := f.get("mon", "/console/api/sequences?"+tc.query)
		var a listAnswer
		if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || w.Code != tc.code || strings.Contains(w.Body.String(), "hidden\"") {
			t.Errorf("%.50s: %d %v %.200s, want %d", tc.query, w.Code, err, w.Body, tc.code)
		}
	}
}
