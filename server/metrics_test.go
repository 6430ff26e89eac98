package server

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/seqmath"
)

// startHTTP runs seqd with its HTTP listener on a fresh store.
func startHTTP(t *testing.T) (*Server, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", HTTP: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	c, err := pgx.Connect(ctx, "postgres://seqd@"+s.Addr().String()+"/seqd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return s, c
}

func get(t *testing.T, s *Server, path string) (int, string) {
	t.Helper()
	// Bounded as a probe's is: a handler that blocks fails the test, not
	// the package's timeout.
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get("http://" + s.HTTPAddr().String() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMetrics: the exposition parses with Prometheus's own parser and
// holds the statement, group-commit, connection and per-sequence
// families; after values are used between two scrapes the sequence's
// exhaustion estimate appears.
func TestMetrics(t *testing.T) {
	s, c := startHTTP(t)
	ctx := context.Background()
	for _, q := range []string{"create sequence m as smallint", "select nextval('m') from generate_series(1, 100)"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c.Exec(ctx, "select nextval('nope')")
	scrape := func(last, left string) map[string]bool {
		code, body := get(t, s, "/metrics")
		if code != 200 {
			t.Fatalf("/metrics: %d", code)
		}
		var p expfmt.TextParser
		fams, err := p.TextToMetricFamilies(strings.NewReader(body))
		if err != nil {
			t.Fatalf("exposition does not parse: %v", err)
		}
		have := map[string]bool{}
		for name := range fams {
			have[name] = true
		}
		if !strings.Contains(body, `seqd_statements_total{class="42",command="failed",protocol="postgresql"} 1`) ||
			!strings.Contains(body, `seqd_sequence_last_value{schema="public",sequence="m"} `+last) ||
			!strings.Contains(body, `seqd_sequence_remaining_values{schema="public",sequence="m"} `+left) {
			t.Fatalf("missing series:\n%s", body)
		}
		return have
	}
	have := scrape("100", "32667")
	for _, name := range []string{"seqd_statements_total", "seqd_statement_duration_seconds", "seqd_group_commit_records",
		"seqd_group_commit_seconds", "seqd_group_commit_lingers_total", "seqd_group_commit_linger_seconds_total", "seqd_connections", "seqd_mark_extensions_total", "seqd_sequences", "seqd_sequence_reserved_values"} {
		if !have[name] {
			t.Errorf("no %s", name)
		}
	}
	if have["seqd_sequence_exhaustion_seconds"] {
		t.Error("an exhaustion estimate before any rate is known")
	}
	time.Sleep(10 * time.Millisecond)
	if _, err := c.Exec(ctx, "select nextval('m') from generate_series(1, 100)"); err != nil {
		t.Fatal(err)
	}
	if !scrape("200", "32567")["seqd_sequence_exhaustion_seconds"] {
		t.Error("no exhaustion estimate after values were used between scrapes")
	}

	// A range given back after another value was handed out cannot be
	// taken back: its values are burned, counted in the metrics and in
	// seqd_stat_sequences.
	var first, last int64
	if err := c.QueryRow(ctx, "select first, last from seqd_reserve('m', 10)").Scan(&first, &last); err != nil {
		t.Fatal(err)
	}
	var released bool
	if _, err := c.Exec(ctx, "select nextval('m')"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "select seqd_release('m', $1, $2)", first, last).Scan(&released); err != nil || released {
		t.Fatalf("release after nextval: %v, %v", released, err)
	}
	var crash, failover, release int64
	if err := c.QueryRow(ctx, "select burned_crash, burned_failover, burned_release from seqd_stat_sequences where sequencename = 'm'").Scan(&crash, &failover, &release); err != nil ||
		crash != 0 || failover != 0 || release != 10 {
		t.Fatalf("seqd_stat_sequences burned: %d %d %d, %v", crash, failover, release, err)
	}
	_, body := get(t, s, "/metrics")
	for _, want := range []string{`seqd_sequence_burned_values_total{reason="release",schema="public",sequence="m"} 10`,
		`seqd_burned_values_total{reason="release"} 10`, `seqd_burned_values_total{reason="crash"} 0`} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s", want)
		}
	}
	if strings.Contains(body, `seqd_sequence_burned_values_total{reason="crash"`) {
		t.Error("a per-sequence series for a reason with nothing burned")
	}
	if code, _ := get(t, s, "/healthz"); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	if code, _ := get(t, s, "/readyz"); code != 200 {
		t.Errorf("/readyz: %d", code)
	}
}

// TestMetricsNearest: of more sequences than a scrape exports, it exports
// the MaxSequenceSeries that have used the largest share of their range,
// and counts them all.
func TestMetricsNearest(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	const n = MaxSequenceSeries + 50
	for i := range n {
		name, _ := engine.NewName("public", fmt.Sprintf("s%d", i))
		typ := seqmath.Smallint
		if _, err := eng.Create(ctx, name, seqmath.Spec{Type: &typ}, false); err != nil {
			t.Fatal(err)
		}
		// s0 .. s999 have used something, s(i) more than s(i+1); the
		// last 50 nothing.
		if i < MaxSequenceSeries {
			if _, err := eng.Setval(ctx, name, int64(30000-i*20), true); err != nil {
				t.Fatal(err)
			}
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(newEngineCollector(func() *engine.Engine { return eng }))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		switch f.GetName() {
		case "seqd_sequences":
			if v := f.GetMetric()[0].GetGauge().GetValue(); v != n {
				t.Errorf("seqd_sequences %v, want %d", v, n)
			}
		case "seqd_sequence_last_value":
			if len(f.GetMetric()) != MaxSequenceSeries {
				t.Errorf("%d series of last_value, want %d", len(f.GetMetric()), MaxSequenceSeries)
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "sequence" && strings.TrimPrefix(l.GetValue(), "s") >= "1000" && len(l.GetValue()) == 5 {
						t.Errorf("exported %s, which used nothing", l.GetValue())
					}
				}
			}
		}
	}
}

// gauge is a gauge's value in s's /metrics.
func gauge(t *testing.T, s *Server, name string) float64 {
	t.Helper()
	_, body := get(t, s, "/metrics")
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("exposition does not parse: %v", err)
	}
	f, ok := fams[name]
	if !ok || len(f.GetMetric()) != 1 {
		t.Fatalf("no single series of %s:\n%s", name, body)
	}
	return f.GetMetric()[0].GetGauge().GetValue()
}

// TestMetricsConnections: seqd_connections counts every client
// connection of the budget the protocols share, each from its accept
// (one that has not said a word yet too), seqd_protocol_connections the
// same per protocol, and seqd_connections_max is that budget.
func TestMetricsConnections(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0", APIListen: "127.0.0.1:0",
		GRPCListen: "127.0.0.1:0", HTTP: "127.0.0.1:0", MaxConns: 50, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	c, err := pgx.Connect(ctx, "postgres://seqd@"+s.Addr().String()+"/seqd")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	want := func(n float64) {
		t.Helper()
		for i := 0; ; i++ {
			got := gauge(t, s, "seqd_connections")
			if got == n {
				return
			}
			if i == 100 {
				t.Fatalf("seqd_connections %v, want %v", got, n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	want(1)
	var silent []net.Conn
	for _, addr := range []net.Addr{s.MySQLAddr(), s.APIAddr(), s.GRPCAddr()} {
		nc, err := net.Dial("tcp", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		silent = append(silent, nc)
	}
	want(4)
	wantProtocols(t, s, map[string]float64{"postgresql": 1, "mysql": 1, "http": 1, "grpc": 1})
	for _, nc := range silent {
		nc.Close()
	}
	want(1)
	wantProtocols(t, s, map[string]float64{"postgresql": 1, "mysql": 0, "http": 0, "grpc": 0})
	if got := gauge(t, s, "seqd_connections_max"); got != 50 {
		t.Errorf("seqd_connections_max %v, want 50", got)
	}
}

// wantProtocols waits until seqd_protocol_connections shows want, by
// protocol (four series, always).
func wantProtocols(t *testing.T, s *Server, want map[string]float64) {
	t.Helper()
	var got map[string]float64
	for range 100 {
		got = protocolSeries(t, s, "seqd_protocol_connections", nil)
		if maps.Equal(got, want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("seqd_protocol_connections %v, want %v", got, want)
}

// protocolSeries is family name's series by their protocol label: a
// gauge's value, or a counter's summed over the series whose other
// labels match (nil: every series).
func protocolSeries(t *testing.T, s *Server, name string, match map[string]string) map[string]float64 {
	t.Helper()
	_, body := get(t, s, "/metrics")
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("exposition does not parse: %v", err)
	}
	out := map[string]float64{}
next:
	for _, m := range fams[name].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range match {
			if labels[k] != v {
				continue next
			}
		}
		out[labels["protocol"]] += m.GetGauge().GetValue() + m.GetCounter().GetValue()
	}
	return out
}

// TestMetricsProtocols: statements are counted by protocol, MySQL's
// too: a nextval over PostgreSQL's protocol and NEXT VALUE FOR over
// MySQL's, each its own protocol's, and a MySQL statement that fails
// under its class.
func TestMetricsProtocols(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0", HTTP: "127.0.0.1:0", Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	c, err := pgx.Connect(ctx, "postgres://seqd@"+s.Addr().String()+"/seqd")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{"create sequence p", "select nextval('p')"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	my, err := sql.Open("mysql", "seqd@tcp("+s.MySQLAddr().String()+")/public")
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	var v int64
	for range 2 {
		if err := my.QueryRow("SELECT NEXT VALUE FOR p").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	my.Exec("SELECT NEXT VALUE FOR nope")
	ok := protocolSeries(t, s, "seqd_statements_total", map[string]string{"command": "SELECT", "class": "00"})
	if ok["postgresql"] != 1 || ok["mysql"] != 2 {
		t.Errorf("SELECTs run by protocol: %v, want postgresql 1, mysql 2", ok)
	}
	if failed := protocolSeries(t, s, "seqd_statements_total", map[string]string{"command": "SELECT", "class": "42"}); failed["mysql"] != 1 {
		t.Errorf("SELECTs failed (42) by protocol: %v, want mysql 1", failed)
	}
	if n := protocolSeries(t, s, "seqd_statement_duration_seconds", nil); len(n) != 2 {
		t.Errorf("durations by protocol: %v, want postgresql's and mysql's", n)
	}
}

// TestMetricsMethods: the metrics and health listener answers a method
// other than GET and HEAD 405 and closes the connection; it reads no
// request body, so that clients sending one slowly, as many as the
// listener has places, neither hold a place past their answer nor lock
// out the probes.
func TestMetricsMethods(t *testing.T) {
	s, _ := startHTTP(t)
	resp, err := http.Post("http://"+s.HTTPAddr().String()+"/healthz", "text/plain", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" || !resp.Close {
		t.Fatalf("POST /healthz: %s, Allow %q, close %v", resp.Status, resp.Header.Get("Allow"), resp.Close)
	}
	if resp, err := http.Head("http://" + s.HTTPAddr().String() + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD /healthz: %v, %v", resp, err)
	}

	// Every place taken by a request whose body comes slowly: a POST, a
	// GET that sends a body, and an OPTIONS * (which net/http would
	// answer itself, reading the body). Each is answered at once, its
	// body unread.
	type slow struct {
		nc net.Conn
		br *bufio.Reader
	}
	var slows []slow
	for i := range metricsConns {
		nc, err := net.Dial("tcp", s.HTTPAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		method := []string{"POST /metrics", "GET /healthz", "OPTIONS *"}[i%3]
		if _, err := io.WriteString(nc, method+" HTTP/1.1\r\nHost: seqd\r\nContent-Length: 100000\r\n\r\nsome of it"); err != nil {
			t.Fatal(err)
		}
		slows = append(slows, slow{nc, bufio.NewReader(nc)})
	}
	for i, sl := range slows {
		sl.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(sl.br, nil)
		if err != nil {
			t.Fatalf("slow request %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if want := []int{http.StatusMethodNotAllowed, http.StatusOK, http.StatusMethodNotAllowed}[i%3]; resp.StatusCode != want {
			t.Fatalf("slow request %d: %s, want %d", i, resp.Status, want)
		}
	}
	// The probes get in while the bodies are still due.
	if code, body := get(t, s, "/healthz"); code != 200 {
		t.Fatalf("/healthz beside %d slow bodies: %d %s", metricsConns, code, body)
	}
	for i, sl := range slows {
		sl.nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := sl.br.ReadByte(); err != io.EOF {
			t.Fatalf("slow request %d: its connection is still open after the answer: %v", i, err)
		}
	}
}
