package grpcapi

import (
	"context"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/sqlerr"
)

// errShuttingDown ends a stream a server shutting down cuts (57P01), as
// PostgreSQL's front end ends its idle sessions.
func errShuttingDown() error {
	return apicore.NewError(sqlerr.AdminShutdown, "terminating the stream: the server is shutting down")
}

// Ranges answers each request of the stream with a range, in order, in
// one session held while the stream is open. A server shutting down ends
// the stream between requests with UNAVAILABLE (57P01), as PostgreSQL's
// front end ends its idle sessions.
//
// One goroutine reads, reserves and answers each request in turn (no
// hand-off per message); the handler's own waits for it to end or for a
// shutdown, which it answers once no request is being answered.
func (v service) Ranges(stream grpc.BidiStreamingServer[seqdv1.ReserveRequest, seqdv1.Range]) error {
	ctx := stream.Context()
	began := time.Now()
	call, end, err := v.s.begin(ctx)
	if err != nil {
		return v.s.finish(ctx, nil, "Ranges", began, err)
	}
	defer end()
	defer busy(ctx).ended() // authenticated: its connection is not evicted while it is open
	r := &ranges{v: v, stream: stream, call: call}
	done := make(chan error, 1)
	go func() { done <- r.serve() }()
	select {
	case err := <-done:
		return err
	case <-v.s.stop:
	}
	r.mu.Lock()
	if r.relaying { // the relay ends the stream itself
		r.mu.Unlock()
		return <-done
	}
	r.stopped = true // the next request read is not answered
	r.mu.Unlock()
	return v.s.finish(ctx, call, "Ranges", time.Now(), errShuttingDown())
}

// ranges is one Ranges stream's answering side. mu is held while a
// request is answered; stopped (a shutdown ended the stream) and
// relaying (the stream is carried to the leader's) are set under it.
type ranges struct {
	v        service
	stream   grpc.BidiStreamingServer[seqdv1.ReserveRequest, seqdv1.Range]
	call     *apicore.Call
	mu       sync.Mutex
	stopped  bool
	relaying bool
	leader   seqdv1.SequencesClient // where it is relayed, under fctx
	fctx     context.Context
}

// serve answers the stream's requests until it ends, or a shutdown or a
// failure ends it.
func (r *ranges) serve() error {
	for {
		in, err := r.stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err // the client went away or cancelled: nothing to answer
		}
		done, err := r.answer(in)
		if done {
			return err
		}
		if err != nil {
			return r.v.s.relay(r.stream, r.leader, r.fctx, in)
		}
	}
}

// answer answers one request: done when the stream ends with err; a
// non-nil err without done means the request goes to the leader, and so
// does the rest of the stream (relaying is set).
func (r *ranges) answer(in *seqdv1.ReserveRequest) (done bool, _ error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return true, nil // the handler answered already
	}
	ctx, call := r.stream.Context(), r.call
	began := time.Now()
	schema, name, err := names(in.GetSequence())
	var rg apicore.Range
	if err == nil {
		rg, err = call.Reserve(schema, name, count(in.GetCount()))
	}
	if err != nil {
		if call.Standby && call.Fail(err).Kind == sqlerr.ReadOnlyTransaction {
			if c, fctx, ok := r.v.s.leader(ctx); ok {
				r.relaying, r.leader, r.fctx = true, c, fctx
				return false, err
			}
		}
		return true, r.v.s.finish(ctx, call, "Ranges", began, err)
	}
	r.v.s.finish(ctx, call, "Ranges", began, nil)
	if err := r.stream.Send(&seqdv1.Range{First: rg.First, Last: rg.Last, Increment: rg.Increment, Shape: rg.Shape}); err != nil {
		return true, err
	}
	return false, nil
}

// relay carries the rest of a stream this node refused as a standby to
// the leader's: first, then each request as it comes, the leader's
// ranges back in order; it ends as either side does.
func (s *Server) relay(stream grpc.BidiStreamingServer[seqdv1.ReserveRequest, seqdv1.Range], c seqdv1.SequencesClient, ctx context.Context,
	first *seqdv1.ReserveRequest) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-ctx.Done():
		case <-s.stop:
			cancel()
		}
	}()
	up, err := c.Ranges(ctx)
	if err != nil {
		return err
	}
	if err := up.Send(first); err != nil {
		_, err = up.Recv() // the reason the stream failed
		return err
	}
	go func() {
		for {
			in, err := stream.Recv()
			if err != nil { // the client closed its side, or went away
				up.CloseSend()
				return
			}
			if up.Send(in) != nil {
				return
			}
		}
	}()
	for {
		r, err := up.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			select {
			case <-s.stop: // this node shutting down cut the relay
				return s.finish(stream.Context(), nil, "Ranges", time.Now(), errShuttingDown())
			default:
			}
			return err // the leader's status, as it gave it
		}
		if err := stream.Send(r); err != nil {
			return err
		}
	}
}
