package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Time-ordered ids as an ordinary role meets them (one login, USAGE on
// what it was granted, CREATE in a schema of its own): privileges,
// hostile layout options, extreme positions, reservations that outrun
// the clock, seqd_tso in a loop, over PostgreSQL's protocol, MySQL's and
// the HTTP API; the errors in each protocol's terms, the server and the
// other connections unharmed.

// timeIDsTarget is a server with both SQL protocols and the HTTP API, its
// superuser's connection, and app's: an ordinary role with a schema of
// its own (first in its search_path).
type timeIDsTarget struct {
	s   *Server
	su  *pgx.Conn
	app *pgx.Conn
	my  *sql.DB // as app
}

// sony is Sonyflake's layout: 256 ids a 10 ms unit, 25,600 a second.
const sonyLayout = "SNOWFLAKE EPOCH '2014-09-01 00:00:00+00' TIME_UNIT '10 ms' NODE_BITS 16 COUNTER_BITS 8"

func newTimeIDsTarget(t *testing.T) *timeIDsTarget {
	t.Helper()
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: filepath.Join(t.TempDir(), "d"), Listen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0",
		APIListen: "127.0.0.1:0", Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	x := &timeIDsTarget{s: s}
	if x.su, err = pgx.Connect(ctx, "postgres://seqd@"+s.Addr().String()+"/seqd"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.su.Close(ctx) })
	advExec(t, x.su, "CREATE ROLE app LOGIN", "CREATE SCHEMA app AUTHORIZATION app")
	if x.app, err = pgx.Connect(ctx, "postgres://app@"+s.Addr().String()+"/seqd?search_path=app,public"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.app.Close(ctx) })
	if x.my, err = sql.Open("mysql", "app@tcp("+s.MySQLAddr().String()+")/public"); err != nil {
		t.Fatal(err)
	}
	x.my.SetMaxOpenConns(1)
	t.Cleanup(func() { x.my.Close() })
	return x
}

// pg runs q on c with a deadline and gives its first row's first column
// and SQLSTATE ("" for none).
func (x *timeIDsTarget) pg(c *pgx.Conn, timeout time.Duration, q string, args ...any) (string, string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var v any
	err := c.QueryRow(ctx, q, args...).Scan(&v)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		return "", pe.Code
	case err != nil:
		return "", err.Error()
	}
	return fmt.Sprint(v), ""
}

// mysql runs q as app over MySQL's protocol: its first column, and the
// error's number and SQLSTATE ("" for none).
func (x *timeIDsTarget) mysql(q string) (string, string) {
	var v sql.NullString
	err := x.my.QueryRow(q).Scan(&v)
	var me *gomysql.MySQLError
	switch {
	case errors.As(err, &me):
		return "", fmt.Sprintf("%d %s", me.Number, me.SQLState)
	case err != nil:
		return "", err.Error()
	}
	return v.String, ""
}

// api calls the HTTP API as app: its status, the problem's code, and the
// answer.
func (x *timeIDsTarget) api(t *testing.T, timeout time.Duration, method, path, body string) (int, string, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+x.s.APIAddr().String()+path, strings.NewReader(body))
	req.SetBasicAuth("app", "")
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
	if err != nil {
		return 0, err.Error(), nil, nil
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	code, _ := out["sqlstate"].(string)
	return resp.StatusCode, code, resp.Header, out
}

// alive checks that the server still serves: a new connection, nextval of
// an ordinary sequence and seqd_tso.
func (x *timeIDsTarget) alive(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, "postgres://seqd@"+x.s.Addr().String()+"/seqd")
	if err != nil {
		t.Fatalf("a new connection: %v", err)
	}
	defer c.Close(ctx)
	var v int64
	if _, err := c.Exec(ctx, "CREATE SEQUENCE IF NOT EXISTS alive_check"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT nextval('alive_check')", "SELECT seqd_tso()"} {
		if err := c.QueryRow(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestTimeIDsAdversarialPrivileges: a SNOWFLAKE sequence keeps its
// privileges in every protocol: without USAGE or SELECT app takes no id
// and decodes none (42501, MySQL 1142, HTTP 403), with USAGE only it
// takes ids but may not move the sequence; seqd_tso and seqd_uuidv7
// are anyone's, in read-only transactions too.
func TestTimeIDsAdversarialPrivileges(t *testing.T) {
	x := newTimeIDsTarget(t)
	advExec(t, x.su, "CREATE SEQUENCE public.hidden SNOWFLAKE", "CREATE SEQUENCE public.usable SNOWFLAKE", "GRANT USAGE ON SEQUENCE public.usable TO app")
	for _, q := range []string{"SELECT nextval('public.hidden')", "SELECT currval('public.hidden')", "SELECT setval('public.hidden', 5)",
		"SELECT first FROM seqd_reserve('public.hidden', 5)", "SELECT time FROM seqd_decode('public.hidden', 1)",
		"SELECT node FROM seqd_decode('public.hidden'::regclass, 4194304)", "SELECT get_internal_sequence_state('public.hidden')",
		"SELECT seqd_release('public.hidden', 1, 1)", "SELECT setval('public.usable', 5)", "ALTER SEQUENCE public.usable RENAME TO u2",
		"DROP SEQUENCE public.usable"} {
		if _, code := x.pg(x.app, 5*time.Second, q); code != "42501" {
			t.Errorf("%s: %q, want 42501", q, code)
		}
	}
	for _, q := range []string{"SELECT NEXT VALUE FOR hidden", "SELECT nextval(hidden)", "SELECT lastval(hidden)", "SELECT setval(hidden, 5)", "SELECT setval(usable, 5)"} {
		if _, code := x.mysql(q); code != "1142 42000" {
			t.Errorf("MySQL %s: %q, want 1142 42000", q, code)
		}
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/sequences/public/hidden/nextval", ""}, {"POST", "/v1/sequences/public/hidden/reserve", `{"count": "5"}`},
		{"GET", "/v1/sequences/public/hidden", ""}} {
		if status, code, _, out := x.api(t, 5*time.Second, c.method, c.path, c.body); status != http.StatusForbidden || code != "42501" {
			t.Errorf("%s %s: %d %v, want 403 42501", c.method, c.path, status, out)
		}
	}
	if v, code := x.pg(x.app, 5*time.Second, "SELECT nextval('public.usable')"); code != "" || v == "" {
		t.Errorf("nextval with USAGE: %q %q", v, code)
	}
	for _, q := range []string{"SELECT seqd_tso()", "SELECT seqd_tso(262144)", "SELECT seqd_uuidv7()"} {
		if v, code := x.pg(x.app, 5*time.Second, q); code != "" || v == "" {
			t.Errorf("%s as app: %q %q", q, v, code)
		}
		if v, code := x.mysql(q); code != "" || v == "" {
			t.Errorf("MySQL %s as app: %q %q", q, v, code)
		}
	}
	advExec(t, x.app, "BEGIN READ ONLY")
	if v, code := x.pg(x.app, 5*time.Second, "SELECT seqd_tso(10)"); code != "" || v == "" {
		t.Errorf("seqd_tso in a read-only transaction: %q %q", v, code)
	}
	advExec(t, x.app, "COMMIT")
	x.alive(t)
}

// TestTimeIDsAdversarialOptions: hostile layout options are refused with
// a SQLSTATE naming their fault, nothing made; the clause's string is
// never cut or misread (one over 60 bytes is refused, quotes inside are
// data).
func TestTimeIDsAdversarialOptions(t *testing.T) {
	x := newTimeIDsTarget(t)
	long := strings.Repeat(" ", 60) + "1 ms"
	for i, tc := range []struct{ options, code string }{
		{"TIME_UNIT '0.0000001 s'", "22023"},
		{"TIME_UNIT '1.5 us'", "22023"},
		{"TIME_UNIT '2 days'", "22023"},
		{"TIME_UNIT '99999999999999999999 s'", "22023"},
		{"TIME_UNIT '0 ms'", "22023"},
		{"TIME_UNIT '-1 ms'", "22007"},
		{"TIME_UNIT '1 mon'", "22007"},
		{"TIME_UNIT 'NaN ms'", "22007"},
		{"TIME_UNIT 'Infinity ms'", "22007"},
		{"TIME_UNIT '1 ms''; DROP SCHEMA app CASCADE; --'", "22007"},
		{"TIME_UNIT '" + long + "'", "42601"},
		{"TIME_UNIT E'1 ms\\x00'", "42601"},
		{"TIME_UNIT $$1 ms$$", "42601"},
		{"TIME_UNIT \"1 ms\"", "42601"},
		{"TIME_UNIT 1", "42601"},
		{"EPOCH 'infinity'", "22007"},
		{"EPOCH '-infinity'", "22007"},
		{"EPOCH '2020-01-01\" INCREMENT 5 \"'", "22007"},
		{"EPOCH '" + strings.Repeat("9", 61) + "'", "42601"},
		{"NODE_BITS 99999999999999999999", "22003"},
		{"NODE_BITS -1", "22023"},
		{"NODE_BITS 1.5", "42601"},
		{"COUNTER_BITS 0", "22023"},
		{"COUNTER_BITS 44", "22023"},
		{"NODE_BITS 33 COUNTER_BITS 12", "22023"},
		{"SNOWFLAKE", "42601"},
		{"EPOCH '2020-01-01' EPOCH '2021-01-01'", "42601"},
		{"CACHE 10", "22023"},
		{"INCREMENT 2", "22023"},
		{"MAXVALUE 10", "22023"},
		{"NOORDER", "22023"},
		{"CYCLE", "22023"},
	} {
		q := fmt.Sprintf("CREATE SEQUENCE app.o%d SNOWFLAKE %s", i, tc.options)
		if _, err := x.app.Exec(context.Background(), q); advCode(err) != tc.code {
			t.Errorf("%.90s: %v, want %s", q, err, tc.code)
		}
	}
	if n, _ := x.pg(x.su, 5*time.Second, "SELECT count(*) FROM pg_sequences WHERE schemaname = 'app'"); n != "0" {
		t.Errorf("%s sequences made by the refused statements", n)
	}
	// Accepted extremes mean exactly what they say.
	for _, tc := range []struct{ options, unit string }{
		{"TIME_UNIT '" + strings.Repeat(" ", 56) + "1 ms'", "1000"}, // 60 bytes: taken whole, not cut to '1 m' (a minute)
		{"TIME_UNIT '1 day'", "86400000000"},
		{"TIME_UNIT '0.000001 s'", "1"},
		{"TIME_UNIT '1 microsecond' NODE_BITS 0 COUNTER_BITS 43", "1"},
	} {
		advExec(t, x.app, "DROP SEQUENCE IF EXISTS app.ok", "CREATE SEQUENCE app.ok SNOWFLAKE "+tc.options)
		var shape string
		if err := x.app.QueryRow(context.Background(), "SELECT shape FROM seqd_reserve('app.ok', 1)").Scan(&shape); err != nil && advCode(err) != "2200H" {
			t.Fatalf("%s: %v", tc.options, err)
		}
		if f := strings.Fields(shape); shape != "" && (len(f) < 3 || f[2] != tc.unit) {
			t.Errorf("%.40s: shape %q, want a unit of %s µs", tc.options, shape, tc.unit)
		}
	}
	x.alive(t)
}

// TestTimeIDsAdversarialFutureEpoch: an EPOCH in the far future puts the
// first id thousands of years ahead of the clock: refused with 55000 in
// every protocol, the connection and the server unharmed.
func TestTimeIDsAdversarialFutureEpoch(t *testing.T) {
	x := newTimeIDsTarget(t)
	advExec(t, x.su, "CREATE SEQUENCE public.future SNOWFLAKE EPOCH '9999-12-31 00:00:00+00'", "GRANT USAGE ON SEQUENCE public.future TO app")
	for _, q := range []string{"SELECT nextval('public.future')", "SELECT first FROM seqd_reserve('public.future', 1000)"} {
		if _, code := x.pg(x.app, 5*time.Second, q); code != "55000" {
			t.Errorf("%s: %q, want 55000", q, code)
		}
	}
	if _, code := x.mysql("SELECT NEXT VALUE FOR future"); code != "1105 HY000" {
		t.Errorf("MySQL NEXT VALUE FOR: %q, want 1105 HY000 (55000's)", code)
	}
	if v, code := x.mysql("SELECT seqd_tso()"); code != "" || v == "" {
		t.Errorf("the MySQL connection after the refusal: %q %q", v, code)
	}
	x.alive(t)
}

// TestTimeIDsAdversarialFutureEpochMessage: the refusal names how far
// ahead of the clock the ids are; an EPOCH 7,000 years ahead is not
// "2562047h47m16.854775807s" (time.Duration's largest, 292 years).
func TestTimeIDsAdversarialFutureEpochMessage(t *testing.T) {
	x := newTimeIDsTarget(t)
	advExec(t, x.su, "CREATE SEQUENCE public.future SNOWFLAKE EPOCH '9999-12-31 00:00:00+00'")
	_, err := x.su.Exec(context.Background(), "SELECT nextval('public.future')")
	if advCode(err) != "55000" || strings.Contains(err.Error(), "2562047h") {
		t.Errorf("%v", err)
	}
}

// TestTimeIDsAdversarialSetval: setval takes ids of any node to the
// extremes and nextval answers in SQL's terms: past the layout's last
// counter 2200H, an id far ahead of the clock 55000 until moved back;
// nothing else is disturbed. setval needs UPDATE.
func TestTimeIDsAdversarialSetval(t *testing.T) {
	x := newTimeIDsTarget(t)
	advExec(t, x.app, "CREATE SEQUENCE app.s SNOWFLAKE")
	start, code := x.pg(x.app, 5*time.Second, "SELECT nextval('app.s')")
	if code != "" {
		t.Fatal(code)
	}
	for _, tc := range []struct{ setval, code, next string }{
		{"SELECT setval('app.s', 9223372036854775807)", "", "2200H"},
		{"SELECT setval('app.s', 9223372036854775806, false)", "", "55000"},
		{"SELECT setval('app.s', 0)", "22003", ""},
		{"SELECT setval('app.s', -9223372036854775808)", "22003", ""},
		{"SELECT setval('app.s', " + start + ")", "", ""},
	} {
		if _, code := x.pg(x.app, 5*time.Second, tc.setval); code != tc.code {
			t.Errorf("%s: %q, want %q", tc.setval, code, tc.code)
		}
		if tc.code != "" {
			continue
		}
		if v, code := x.pg(x.app, 5*time.Second, "SELECT nextval('app.s')"); code != tc.next || tc.next == "" && v <= start {
			t.Errorf("nextval after %s: %q %q, want %q", tc.setval, v, code, tc.next)
		}
		if v, code := x.pg(x.su, 5*time.Second, "SELECT seqd_tso()"); code != "" || v == "" {
			t.Errorf("seqd_tso beside it: %q", code)
		}
	}
	x.alive(t)
}

// TestTimeIDsAdversarialTSO: seqd_tso's count is checked (22023; MySQL
// 4085 HY000), NULL in NULL out; a loop of seqd_tso(262144), a
// millisecond's whole logical counter a call, gets strictly increasing
// batches that never overlap, is held to the layout's rate once it has
// borrowed the 10 s it may, keeps no memory, and leaves another
// connection's calls prompt.
func TestTimeIDsAdversarialTSO(t *testing.T) {
	x := newTimeIDsTarget(t)
	for _, arg := range []string{"0", "-1", "262145", "9223372036854775807", "-9223372036854775808"} {
		if _, code := x.pg(x.app, 5*time.Second, "SELECT seqd_tso("+arg+")"); code != "22023" {
			t.Errorf("seqd_tso(%s): %q, want 22023", arg, code)
		}
		if _, code := x.mysql("SELECT seqd_tso(" + arg + ")"); code != "4085 HY000" {
			t.Errorf("MySQL seqd_tso(%s): %q, want 4085 HY000", arg, code)
		}
	}
	for _, q := range []string{"SELECT seqd_tso('abc')", "SELECT seqd_tso(1.5e300)", "SELECT seqd_tso(1, 2)", "SELECT seqd_uuidv7(1)"} {
		if _, code := x.pg(x.app, 5*time.Second, q); code == "" || code[:2] == "XX" || strings.Contains(code, " ") {
			t.Errorf("%s: %q, want a SQLSTATE", q, code)
		}
	}
	if v, code := x.pg(x.app, 5*time.Second, "SELECT seqd_tso(NULL)"); code != "" || v != "<nil>" {
		t.Errorf("seqd_tso(NULL): %q %q", v, code)
	}

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var slowest time.Duration
	go func() { // another connection's calls meanwhile
		defer wg.Done()
		c, err := pgx.Connect(context.Background(), "postgres://seqd@"+x.s.Addr().String()+"/seqd")
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(context.Background())
		for {
			select {
			case <-done:
				return
			default:
			}
			start := time.Now()
			if _, code := x.pg(c, 5*time.Second, "SELECT seqd_tso()"); code != "" {
				t.Errorf("seqd_tso beside the loop: %s", code)
				return
			}
			slowest = max(slowest, time.Since(start))
		}
	}()
	// 10 s of milliseconds may be borrowed ahead of the clock, a call
	// each; past them the loop is held to a call a millisecond.
	const calls, borrowed = 12_000, 10_000
	start := time.Now()
	var last int64
	for i := range calls {
		var v int64
		if err := x.app.QueryRow(context.Background(), "SELECT seqd_tso(262144)").Scan(&v); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if v <= last+262143 && i > 0 {
			t.Fatalf("call %d: %d, within the batch of %d", i, v, last)
		}
		if ahead := time.UnixMilli(v >> 18).Sub(time.Now()); ahead > 10*time.Second+time.Second {
			t.Fatalf("call %d: its timestamp is %v ahead of the clock", i, ahead)
		}
		last = v
	}
	took := time.Since(start)
	if held := time.Duration(calls-borrowed) * time.Millisecond * 8 / 10; took < held {
		t.Errorf("%d calls of a millisecond's counter in %v: not held to the layout's rate past the 10 s borrowed", calls, took)
	}
	close(done)
	wg.Wait()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d calls of seqd_tso(262144) in %v; another connection's slowest call %v; heap %d → %d bytes", calls, took, slowest, before.HeapAlloc, after.HeapAlloc)
	if slowest > time.Second {
		t.Errorf("another connection's seqd_tso took %v beside the loop", slowest)
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 64<<20 {
		t.Errorf("the heap grew by %d bytes over the loop", grown)
	}
	x.alive(t)
}

// TestTimeIDsAdversarialReserveFresh: a reservation on a SNOWFLAKE
// sequence never hangs: on one never used (or unused for long), whose
// counter lies far behind the clock, a reservation spanning more than
// the 3 s the mark is kept ahead (Sonyflake's layout: 76,800 ids) waited
// for good, in SQL and in the HTTP API: it must be served or refused
// with 55000 within a second or so.
func TestTimeIDsAdversarialReserveFresh(t *testing.T) {
	x := newTimeIDsTarget(t)
	for i, count := range []int{100_000, 256_000} {
		name := fmt.Sprintf("public.fresh%d", i)
		advExec(t, x.su, "CREATE SEQUENCE "+name+" "+sonyLayout, "GRANT USAGE ON SEQUENCE "+name+" TO app")
		start := time.Now()
		if _, code := x.pg(x.app, 5*time.Second, "SELECT first FROM seqd_reserve('"+name+"', $1)", count); code != "" && code != "55000" {
			t.Errorf("seqd_reserve(%s, %d): %q after %v, want ids or 55000", name, count, code, time.Since(start))
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("seqd_reserve(%s, %d) took %v", name, count, took)
		}
	}
	advExec(t, x.su, "CREATE SEQUENCE public.fresh_api "+sonyLayout, "GRANT USAGE ON SEQUENCE public.fresh_api TO app")
	start := time.Now()
	if status, code, _, out := x.api(t, 5*time.Second, "POST", "/v1/sequences/public/fresh_api/reserve", `{"count": "100000"}`); status != http.StatusOK && code != "55000" {
		t.Errorf("the HTTP API's reserve of 100,000: %d %q %v after %v", status, code, out, time.Since(start))
	}
	x.alive(t)
}

// TestTimeIDsAdversarialReserveSpan: a reservation whose ids would run
// more than MaxBehind (10 s) and the span a wait may cover (1 s) ahead
// of the clock is refused with 55000, after waiting at most about a
// second: granted, it put the ids as far ahead as its span (Sonyflake's
// layout: 300,000 ids are 11.7 s; TIME_UNIT '1 day' with one counter bit:
// 1,000 ids are 500 days), and every nextval was then refused for that
// long, by the act of a role with USAGE only.
func TestTimeIDsAdversarialReserveSpan(t *testing.T) {
	x := newTimeIDsTarget(t)
	for _, tc := range []struct {
		layout string
		count  int
	}{{sonyLayout, 300_000}, {"SNOWFLAKE TIME_UNIT '1 day' NODE_BITS 0 COUNTER_BITS 1", 1_000}} {
		advExec(t, x.su, "DROP SEQUENCE IF EXISTS public.span", "CREATE SEQUENCE public.span "+tc.layout, "GRANT USAGE ON SEQUENCE public.span TO app")
		if _, code := x.pg(x.app, 5*time.Second, "SELECT nextval('public.span')"); code != "" {
			t.Fatal(code)
		}
		start := time.Now()
		if _, code := x.pg(x.app, 5*time.Second, "SELECT first FROM seqd_reserve('public.span', $1)", tc.count); code != "55000" {
			t.Errorf("%s: seqd_reserve of %d: %q, want 55000", tc.layout, tc.count, code)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: the refusal took %v", tc.layout, took)
		}
		if _, code := x.pg(x.su, 5*time.Second, "SELECT nextval('public.span')"); code != "" {
			t.Errorf("%s: nextval after the reservation: %q", tc.layout, code)
		}
	}
}

// TestTimeIDsAdversarialRefusalOverHTTP: the HTTP API answers a refusal
// for ids ahead of the clock as what it is, a condition that passes
// (55000 with a status that is not 500 and a Retry-After), not as a
// fault of the server's, which it also logs for every request.
func TestTimeIDsAdversarialRefusalOverHTTP(t *testing.T) {
	x := newTimeIDsTarget(t)
	advExec(t, x.su, "CREATE SEQUENCE public.future SNOWFLAKE EPOCH '9999-12-31 00:00:00+00'", "GRANT USAGE ON SEQUENCE public.future TO app")
	status, code, h, out := x.api(t, 5*time.Second, "POST", "/v1/sequences/public/future/nextval", "")
	if code != "55000" || status == http.StatusInternalServerError || h.Get("Retry-After") == "" {
		t.Errorf("next of ids far ahead: %d %q Retry-After %q %v", status, code, h.Get("Retry-After"), out)
	}
}

// TestTimeIDsAdversarialExhaustedLayout: a layout whose last unit the
// clock has passed (EPOCH '0001-01-01' with 41 bits of milliseconds
// ends in the year 70; TIME_UNIT '1 µs' ends 25 days after Twitter's
// epoch; uid-generator's own epoch and widths ended on 2024-11-20) has
// no id to give: nextval is refused with 2200H from the
// first call, not given the layout's last id, whose time is long before
// the clock's.
func TestTimeIDsAdversarialExhaustedLayout(t *testing.T) {
	x := newTimeIDsTarget(t)
	for _, layout := range []string{"EPOCH '0001-01-01 00:00:00+00'", "TIME_UNIT '1 us'",
		"EPOCH '2016-05-20 00:00:00+00' TIME_UNIT '1 second' NODE_BITS 22 COUNTER_BITS 13"} { // uid-generator's: ended 2024-11-20
		advExec(t, x.app, "DROP SEQUENCE IF EXISTS app.old", "CREATE SEQUENCE app.old SNOWFLAKE "+layout)
		if v, code := x.pg(x.app, 5*time.Second, "SELECT nextval('app.old')"); code != "2200H" {
			t.Errorf("%s: nextval %q %q, want 2200H", layout, v, code)
		}
	}
}

// TestTimeIDsAdversarialDecodeRange: seqd_decode of an id whose time is
// past what a timestamptz holds (TIME_UNIT '1 day' and 62 bits of time:
// 2^62 days) is refused with 22008, as PostgreSQL refuses such a
// timestamp, not answered with a wrapped time before the epoch.
func TestTimeIDsAdversarialDecodeRange(t *testing.T) {
	x := newTimeIDsTarget(t)
	advExec(t, x.app, "CREATE SEQUENCE app.day SNOWFLAKE TIME_UNIT '1 day' NODE_BITS 0 COUNTER_BITS 1")
	if v, code := x.pg(x.app, 5*time.Second, "SELECT time FROM seqd_decode('app.day', 9223372036854775807)"); code != "22008" {
		t.Errorf("seqd_decode of the largest id: %q %q, want 22008", v, code)
	}
}
