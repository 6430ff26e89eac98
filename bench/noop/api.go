package noop

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// HTTPServer is the ceiling of seqd's HTTP API: net/http, as the API
// serves it, with the API's route for nextval, answering each request
// with the counter's next value ({"values":["N"]}) and nothing else. What
// the API loses against it is authentication, the session and the
// statement.
type HTTPServer struct {
	counter atomic.Int64
}

// Serve serves ln until it fails.
func (s *HTTPServer) Serve(ln net.Listener) error {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/sequences/{schema}/{name}/nextval", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		b := append(strconv.AppendInt([]byte(`{"values":["`), s.counter.Add(1), 10), "\"]}\n"...)
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	return srv.Serve(ln)
}

// GRPCServer is the ceiling of seqd's gRPC service: grpc-go serving
// seqd.v1.Sequences, every call and every request of a stream answered
// from a counter without a session or a statement.
type GRPCServer struct {
	seqdv1.UnimplementedSequencesServer
	counter atomic.Int64
}

// Serve serves ln until it fails.
func (s *GRPCServer) Serve(ln net.Listener) error {
	g := grpc.NewServer()
	seqdv1.RegisterSequencesServer(g, s)
	return g.Serve(ln)
}

func (s *GRPCServer) Next(_ context.Context, r *seqdv1.NextRequest) (*seqdv1.NextResponse, error) {
	n := max(r.GetCount(), 1)
	last := s.counter.Add(n)
	values := make([]int64, 0, n)
	for v := last - n + 1; v <= last; v++ {
		values = append(values, v)
	}
	return &seqdv1.NextResponse{Values: values}, nil
}

func (s *GRPCServer) Reserve(_ context.Context, r *seqdv1.ReserveRequest) (*seqdv1.Range, error) {
	n := max(r.GetCount(), 1)
	last := s.counter.Add(n)
	return &seqdv1.Range{First: last - n + 1, Last: last, Increment: 1}, nil
}

func (s *GRPCServer) Ranges(st grpc.BidiStreamingServer[seqdv1.ReserveRequest, seqdv1.Range]) error {
	for {
		r, err := st.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		n := max(r.GetCount(), 1)
		last := s.counter.Add(n)
		if err := st.Send(&seqdv1.Range{First: last - n + 1, Last: last, Increment: 1}); err != nil {
			return err
		}
	}
}
