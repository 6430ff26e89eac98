package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// api reports whether t is reached through seqd's driverless APIs (or
// their no-op ceilings): no SQL, the nextval and ceiling workloads only.
func (t Target) api() bool {
	return t.Kind == SeqdHTTP || t.Kind == SeqdGRPC || t.Kind == NoopHTTP || t.Kind == NoopGRPC
}

// connectAPI opens a session of an API target: an HTTP client with one
// kept-alive connection of its own, or a gRPC connection of its own
// (with a Ranges stream opened at its first pipeline).
func connectAPI(ctx context.Context, t Target) (session, error) {
	if t.Kind == SeqdHTTP || t.Kind == NoopHTTP {
		tr := &http.Transport{MaxIdleConnsPerHost: 1, IdleConnTimeout: time.Minute}
		return &httpSession{base: strings.TrimSuffix(t.DSN, "/"), c: &http.Client{Transport: tr}}, nil
	}
	conn, err := grpc.NewClient(t.DSN, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	return &grpcSession{conn: conn, c: seqdv1.NewSequencesClient(conn), count: max(t.StreamRange, 1), batch: t.StreamBatch}, nil
}

// httpSession takes values over the HTTP API: q is the sequence's name
// (dialect.nextval), in schema public.
type httpSession struct {
	base string
	c    *http.Client
}

func (s *httpSession) value(ctx context.Context, q string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", s.base+"/v1/sequences/public/"+q+"/nextval", nil)
	if err != nil {
		return 0, err
	}
	resp, err := s.c.Do(req)
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	var body struct{ Values []string }
	if err := json.Unmarshal(b, &body); err != nil || len(body.Values) != 1 {
		return 0, fmt.Errorf("not one value: %s", b)
	}
	return strconv.ParseInt(body.Values[0], 10, 64)
}

func (s *httpSession) values(context.Context, string, func(int64)) (int, error) {
	return 0, fmt.Errorf("the HTTP API target runs the nextval and ceiling workloads only")
}

func (s *httpSession) exec(context.Context, string, ...any) error {
	return fmt.Errorf("the HTTP API target runs no SQL")
}

func (s *httpSession) pipeline(context.Context, string, int, func(int64)) error {
	return fmt.Errorf("HTTP/1.1 as Go's client speaks it has no pipelining: use seqd-grpc (its stream) or seqd with -pipeline")
}

func (s *httpSession) close() { s.c.CloseIdleConnections() }

// grpcSession takes values over the gRPC service: value is a unary Next,
// pipeline n requests of count values each (one by default) on the
// session's Ranges stream before reading their n answers, or with batch
// one request of n x count values.
type grpcSession struct {
	count  int64 // values per Ranges request
	batch  bool
	conn   *grpc.ClientConn
	c      seqdv1.SequencesClient
	stream grpc.BidiStreamingClient[seqdv1.ReserveRequest, seqdv1.Range]
	cancel context.CancelFunc
}

func (s *grpcSession) value(ctx context.Context, q string) (int64, error) {
	r, err := s.c.Next(ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: q}})
	if err != nil {
		return 0, err
	}
	if len(r.Values) != 1 {
		return 0, fmt.Errorf("%d values for one", len(r.Values))
	}
	return r.Values[0], nil
}

func (s *grpcSession) pipeline(_ context.Context, q string, n int, each func(int64)) error {
	if s.stream == nil {
		// The stream outlives one call's context: the session's.
		ctx, cancel := context.WithCancel(context.Background())
		st, err := s.c.Ranges(ctx)
		if err != nil {
			cancel()
			return err
		}
		s.stream, s.cancel = st, cancel
	}
	req := &seqdv1.ReserveRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: q}, Count: s.count}
	count := s.count
	if s.batch {
		req.Count *= int64(n)
		count, n = req.Count, 1
	}
	for range n {
		if err := s.stream.Send(req); err != nil {
			return err
		}
	}
	for range n {
		r, err := s.stream.Recv()
		if err != nil {
			return err
		}
		if r.Increment != 1 || r.Last-r.First+1 != count {
			return fmt.Errorf("a range of %d..%d by %d for %d values", r.First, r.Last, r.Increment, count)
		}
		for v := r.First; v <= r.Last; v++ {
			each(v)
		}
	}
	return nil
}

func (s *grpcSession) values(context.Context, string, func(int64)) (int, error) {
	return 0, fmt.Errorf("the gRPC target runs the nextval and ceiling workloads only")
}

func (s *grpcSession) exec(context.Context, string, ...any) error {
	return fmt.Errorf("the gRPC target runs no SQL")
}

func (s *grpcSession) close() {
	if s.stream != nil {
		s.stream.CloseSend()
		s.cancel()
	}
	s.conn.Close()
}
