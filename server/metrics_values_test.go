package server

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// TestValuesPerProtocol: seqd_values_total counts the values handed out
// over each protocol exactly, a call of n values as n (nextval, a
// generate_series, a reserve, MySQL's NEXT VALUE FOR, the HTTP API's
// and gRPC's batches, reserves and Ranges stream), a failed call none,
// and keeps what a session took after it ends; each protocol's series
// is there from the start. A sequence run out is class 22 in
// seqd_statements_total over every protocol (MySQL's client is sent
// HY000).
func TestValuesPerProtocol(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0", APIListen: "127.0.0.1:0",
		GRPCListen: "127.0.0.1:0", HTTP: "127.0.0.1:0", Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	if got := valuesTotal(t, s); fmt.Sprint(got) != "map[grpc:0 http:0 mysql:0 postgresql:0]" {
		t.Fatalf("before any value: %v", got)
	}
	pg, err := pgx.Connect(ctx, "postgres://seqd@"+s.Addr().String()+"/seqd")
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	exec := func(c *pgx.Conn, q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{"create sequence v", "create sequence done maxvalue 2 start 2", "select nextval('done')", // 1
		"select nextval('v')", "select nextval('v') from generate_series(1, 10)", "select * from seqd_reserve('v', 100)", // 111
		"begin", "select nextval('v')", "rollback"} { // 1: a value taken is not given back
		exec(pg, q)
	}
	if _, err := pg.Exec(ctx, "select nextval('done')"); err == nil {
		t.Fatal("nextval of a sequence run out succeeded")
	}
	// A session that ends keeps its count.
	other, err := pgx.Connect(ctx, "postgres://seqd@"+s.Addr().String()+"/seqd")
	if err != nil {
		t.Fatal(err)
	}
	exec(other, "select nextval('v') from generate_series(1, 5)")
	other.Close(ctx)

	my, err := sql.Open("mysql", "seqd@tcp("+s.MySQLAddr().String()+")/public")
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	for _, q := range []string{"SELECT NEXT VALUE FOR v", "SELECT NEXTVAL(v)", "SELECT NEXT VALUE FOR v, NEXTVAL(v)"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatalf("MySQL %s: %v", q, err)
		}
	}
	if _, err := my.Exec("SELECT NEXT VALUE FOR done"); err == nil || !strings.Contains(err.Error(), "HY000") {
		t.Fatalf("MySQL NEXT VALUE FOR a sequence run out: %v, want MariaDB's 4084 (HY000)", err)
	}

	api := "http://" + s.APIAddr().String() + "/v1/sequences/public/"
	for _, call := range []struct{ path, body string }{{"v/nextval", ""}, {"v/nextval", `{"count": 20}`}, {"v/reserve", `{"count": 300}`}} {
		if code := post(t, api+call.path, call.body); code != http.StatusOK {
			t.Fatalf("POST %s %s: %d", call.path, call.body, code)
		}
	}
	if code := post(t, api+"done/nextval", ""); code == http.StatusOK {
		t.Fatal("HTTP nextval of a sequence run out succeeded")
	}

	grpcValues(ctx, t, s)

	want := map[string]float64{"postgresql": 1 + 111 + 1 + 5, "mysql": 4, "http": 321, "grpc": 1020}
	if got := valuesTotal(t, s); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("seqd_values_total: %v, want %v", got, want)
	}
	_, body := get(t, s, "/metrics")
	for _, p := range []string{"postgresql", "mysql", "http", "grpc"} {
		if !hasRunOut(body, p) {
			t.Errorf("no failure of class 22 over %s:\n%s", p, statementLines(body))
		}
	}
}

// grpcValues hands out 1 + 5 + 1000 + 7 + 7 values over gRPC, and fails
// one call on the sequence run out.
func grpcValues(ctx context.Context, t *testing.T, s *Server) {
	t.Helper()
	conn, err := grpc.NewClient(s.GRPCAddr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := seqdv1.NewSequencesClient(conn)
	v := &seqdv1.Sequence{Schema: "public", Name: "v"}
	for _, n := range []int64{0, 5} { // 0: one value
		if _, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: v, Count: n}); err != nil {
			t.Fatalf("gRPC Next %d: %v", n, err)
		}
	}
	if _, err := c.Reserve(ctx, &seqdv1.ReserveRequest{Sequence: v, Count: 1000}); err != nil {
		t.Fatalf("gRPC Reserve: %v", err)
	}
	stream, err := c.Ranges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := stream.Send(&seqdv1.ReserveRequest{Sequence: v, Count: 7}); err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); err != nil {
			t.Fatalf("gRPC Ranges: %v", err)
		}
	}
	stream.CloseSend()
	if _, err := stream.Recv(); err != io.EOF {
		t.Fatalf("gRPC Ranges' end: %v", err)
	}
	if _, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: "done"}}); err == nil {
		t.Fatal("gRPC Next of a sequence run out succeeded")
	}
}

// post POSTs body (JSON, "" for none) to url, answering its status.
func post(t *testing.T, url, body string) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// valuesTotal is seqd_values_total by protocol.
func valuesTotal(t *testing.T, s *Server) map[string]float64 {
	t.Helper()
	_, body := get(t, s, "/metrics")
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("exposition does not parse: %v", err)
	}
	out := map[string]float64{}
	for _, m := range fams["seqd_values_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "protocol" {
				out[l.GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// hasRunOut reports whether body counts a statement of protocol that
// failed with class 22 (a sequence run out: 2200H).
func hasRunOut(body, protocol string) bool {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "seqd_statements_total{") && strings.Contains(line, `class="22"`) &&
			strings.Contains(line, `protocol="`+protocol+`"`) {
			return true
		}
	}
	return false
}

// statementLines are body's seqd_statements_total lines.
func statementLines(body string) string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "seqd_statements_total{") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
