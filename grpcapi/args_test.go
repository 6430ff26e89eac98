package grpcapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/httpapi"
	"github.com/seqd/seqd/seqmath"
)

// TestArguments: every field of every request message out of its range
// is refused with INVALID_ARGUMENT (or NOT_FOUND for a name that may
// be a sequence's and is none), a message naming the field, and the
// SQLSTATE the HTTP API gives for the same input (400 or 404); none is
// taken as a default in silence. The rows where the two differ say why.
func TestArguments(t *testing.T) {
	core := apicore.Config{MaxBulkRows: 1000}
	c, _, eng := serve(t, Config{Config: core})
	create(t, eng, "up", seqmath.Spec{})
	create(t, eng, "down", seqmath.Spec{Increment: ptr(-1)})
	core.Engine = eng
	base := serveHTTPAPI(t, core) + "/v1/sequences/"
	calls := argCalls{c: c, ctx: context.Background()}
	for _, tc := range argumentCases(calls) {
		t.Run(tc.what, func(t *testing.T) {
			if tc.grpc != nil {
				checkGRPCRefuses(t, tc)
			}
			if tc.path != "" {
				checkHTTPRefuses(t, base, tc)
			}
		})
	}
	checkUnsetIsDefault(t, calls)
}

// serveHTTPAPI serves the HTTP API on core until the test ends, and
// returns its base URL.
func serveHTTPAPI(t *testing.T, core apicore.Config) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httpapi.NewServer(httpapi.Config{Config: core})
	go hs.Serve(l)
	t.Cleanup(func() { hs.Shutdown(context.Background()) })
	return "http://" + l.Addr().String()
}

// argumentCase is one input out of range, over gRPC and over HTTP.
type argumentCase struct {
	what string
	grpc func() error // nil: no such gRPC input
	// path (under /v1/sequences/) and body of the same input over
	// HTTP, "" when it has none
	path, body string
	sqlstate   string
	field      string // the message names it
}

// argumentCases are TestArguments' rows; the gRPC inputs are calls made
// with calls.
func argumentCases(calls argCalls) []argumentCase {
	long := strings.Repeat("x", 64) // one byte past an identifier
	next, reserve, stream, release := calls.next, calls.reserve, calls.stream, calls.release
	return []argumentCase{
		{"Next: no sequence", next(nil, 1), "", "", "22023", "sequence.name"},
		{"Next: empty name", next(named("public", ""), 1), "", "", "22023", "sequence.name"},
		{"Next: schema with NUL", next(named("a\x00", "up"), 1), "a%00/up/nextval", "", "22021", "schema"},
		{"Next: name with NUL", next(named("public", "u\x00p"), 1), "public/u%00p/nextval", "", "22021", "name"},
		{"Next: name not UTF-8 (protobuf refuses it in the client)", nil, "public/%FF/nextval", "", "22021", "name"},
		{"Next: schema too long", next(named(long, "up"), 1), long + "/up/nextval", "", "42622", "schema"},
		{"Next: name too long", next(named("public", long), 1), "public/" + long + "/nextval", "", "42622", "name"},
		{"Next: name as long as may be, no such", next(named("public", long[1:]), 1), "public/" + long[1:] + "/nextval", "", "42P01", ""},
		{"Next: count negative", next(named("public", "up"), -5), "public/up/nextval", `{"count": "-5"}`, "22023", "count"},
		{"Next: count the least int64", next(named("public", "up"), math.MinInt64), "public/up/nextval", fmt.Sprintf(`{"count": "%d"}`, int64(math.MinInt64)), "22023", "count"},
		{"Next: count over the bulk limit", next(named("public", "up"), 1001), "public/up/nextval", `{"count": "1001"}`, "22023", "count"},
		{"Next: count 0 over HTTP (over gRPC it is unset: 1)", nil, "public/up/nextval", `{"count": "0"}`, "22023", "count"},
		{"Next: count not an integer", nil, "public/up/nextval", `{"count": "1.5"}`, "22023", "count"},
		{"Next: an unknown field", nil, "public/up/nextval", `{"cuont": "5"}`, "22023", "cuont"},
		{"Reserve: no sequence", reserve(nil, 5), "", "", "22023", "sequence.name"},
		{"Reserve: name too long", reserve(named("public", long), 5), "public/" + long + "/reserve", "", "42622", "name"},
		{"Reserve: count negative", reserve(named("public", "up"), -5), "public/up/reserve", `{"count": "-5"}`, "22023", "count"},
		{"Reserve: count -1", reserve(named("public", "up"), -1), "public/up/reserve", `{"count": "-1"}`, "22023", "count"},
		{"Reserve: count the least int64", reserve(named("public", "up"), math.MinInt64), "public/up/reserve", fmt.Sprintf(`{"count": "%d"}`, int64(math.MinInt64)), "22023", "count"},
		{"Reserve: count over the bulk limit", reserve(named("public", "up"), 1001), "public/up/reserve", `{"count": "1001"}`, "22023", "count"},
		{"Reserve: count the most int64", reserve(named("public", "up"), math.MaxInt64), "public/up/reserve", fmt.Sprintf(`{"count": "%d"}`, int64(math.MaxInt64)), "22023", "count"},
		{"Reserve: count 0 over HTTP (over gRPC it is unset: 1)", nil, "public/up/reserve", `{"count": "0"}`, "22023", "count"},
		{"Reserve: an unknown field", nil, "public/up/reserve", `{"count": "5", "size": "9"}`, "22023", "size"},
		{"Ranges: count negative", stream(named("public", "up"), -5), "", "", "22023", "count"},
		{"Ranges: count over the bulk limit", stream(named("public", "up"), 1001), "", "", "22023", "count"},
		{"Ranges: name too long", stream(named("public", long), 1), "", "", "42622", "sequence.name"},
		{"Ranges: no sequence", stream(nil, 1), "", "", "22023", "sequence.name"},
		{"Release: no sequence", release(nil, 1, 1), "", "", "22023", "sequence.name"},
		{"Release: name too long", release(named("public", long), 1, 1), "public/" + long + "/release", `{"first": "1", "last": "1"}`, "42622", "name"},
		{"Release: first > last, ascending", release(named("public", "up"), 5, 1), "public/up/release", `{"first": "5", "last": "1"}`, "22023", "first"},
		{"Release: first < last, descending", release(named("public", "down"), 1, 5), "public/down/release", `{"first": "1", "last": "5"}`, "22023", "first"},
		{"Release: last missing over HTTP (over gRPC it is 0)", nil, "public/up/release", `{"first": "1"}`, "22023", "last"},
		{"Release: an unknown field", nil, "public/up/release", `{"first": "1", "last": "2", "all": true}`, "22023", "all"},
	}
}

func named(schema, name string) *seqdv1.Sequence { return &seqdv1.Sequence{Schema: schema, Name: name} }

// argCalls makes the gRPC calls of argumentCases, each as a func to be
// called in its subtest.
type argCalls struct {
	c   seqdv1.SequencesClient
	ctx context.Context
}

func (a argCalls) next(sq *seqdv1.Sequence, count int64) func() error {
	return func() error {
		_, err := a.c.Next(a.ctx, &seqdv1.NextRequest{Sequence: sq, Count: count})
		return err
	}
}

func (a argCalls) reserve(sq *seqdv1.Sequence, count int64) func() error {
	return func() error {
		_, err := a.c.Reserve(a.ctx, &seqdv1.ReserveRequest{Sequence: sq, Count: count})
		return err
	}
}

func (a argCalls) stream(sq *seqdv1.Sequence, count int64) func() error {
	return func() error {
		st, err := a.c.Ranges(a.ctx)
		if err != nil {
			return err
		}
		st.Send(&seqdv1.ReserveRequest{Sequence: sq, Count: count})
		_, err = st.Recv()
		return err
	}
}

func (a argCalls) release(sq *seqdv1.Sequence, first, last int64) func() error {
	return func() error {
		_, err := a.c.Release(a.ctx, &seqdv1.ReleaseRequest{Sequence: sq, First: first, Last: last})
		return err
	}
}

// checkGRPCRefuses: tc's gRPC call fails with INVALID_ARGUMENT (NOT_FOUND
// for 42P01), tc's SQLSTATE, and a message naming tc's field.
func checkGRPCRefuses(t *testing.T, tc argumentCase) {
	t.Helper()
	err := tc.grpc()
	want := codes.InvalidArgument
	if tc.sqlstate == "42P01" {
		want = codes.NotFound
	}
	fails(t, "gRPC", err, want, tc.sqlstate, nil)
	if msg := status.Convert(err).Message(); !strings.Contains(msg, tc.field) {
		t.Errorf("gRPC: %q names no %s", msg, tc.field)
	}
}

// checkHTTPRefuses: tc's HTTP request is answered 400 (404 for 42P01)
// with tc's SQLSTATE and a detail naming tc's field.
func checkHTTPRefuses(t *testing.T, base string, tc argumentCase) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+tc.path, strings.NewReader(tc.body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var p struct {
		SQLState string `json:"sqlstate"`
		Detail   string `json:"detail"`
	}
	json.Unmarshal(b, &p)
	want := http.StatusBadRequest
	if tc.sqlstate == "42P01" {
		want = http.StatusNotFound
	}
	if resp.StatusCode != want || p.SQLState != tc.sqlstate || !strings.Contains(p.Detail, tc.field) {
		t.Errorf("HTTP: %d %s, want %d with SQLSTATE %s naming %s", resp.StatusCode, b, want, tc.sqlstate, tc.field)
	}
}

// checkUnsetIsDefault: what proto3 cannot tell from unset: count 0 is 1,
// first and last 0 are a range of one value (0).
func checkUnsetIsDefault(t *testing.T, calls argCalls) {
	t.Helper()
	c, ctx := calls.c, calls.ctx
	if r, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: named("public", "up")}); err != nil || len(r.Values) != 1 {
		t.Errorf("Next, count unset: %v %v", r, err)
	}
	if r, err := c.Reserve(ctx, &seqdv1.ReserveRequest{Sequence: named("", "up")}); err != nil || r.First != r.Last {
		t.Errorf("Reserve, count unset, schema unset (public): %v %v", r, err)
	}
	if r, err := c.Release(ctx, &seqdv1.ReleaseRequest{Sequence: named("public", "up")}); err != nil || r.Released {
		t.Errorf("Release of 0..0: %v %v", r, err)
	}
}
