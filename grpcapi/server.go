// Package grpcapi is seqd's gRPC service (-grpc-listen): callers with
// only a gRPC stub take values, reserve and release ranges, and keep
// ranges flowing over one bidirectional stream (seqd.v1.Sequences,
// defined in proto/seqd/v1/sequences.proto; the Go code in seqdv1 is
// generated from it by scripts/gen-proto and checked in). The standard
// health service (grpc.health.v1: seqd.v1.Sequences is SERVING where the
// node leads or stands alone, NOT_SERVING on a standby) and server
// reflection (grpcurl needs no .proto) are served beside it.
//
// It is a front end in package frontend's sense, on grpc-go: every call
// authenticates and runs in a pooled executor session of its role as
// the HTTP API's do (package apicore), so privileges, limits,
// statement_timeout and the engine's guarantees are the SQL front ends'.
// A call's deadline and its cancellation end the statement under way.
// A failure's status code is what a caller acts on (NOT_FOUND,
// PERMISSION_DENIED, UNAUTHENTICATED, ALREADY_EXISTS, ABORTED for a
// lock conflict or deadlock, FAILED_PRECONDITION for a sequence at its
// limit, RESOURCE_EXHAUSTED, UNAVAILABLE with a RetryInfo on a standby,
// a deposed leader or a server shutting down, DEADLINE_EXCEEDED,
// CANCELLED, INVALID_ARGUMENT); its SQLSTATE goes with it as a
// google.rpc.ErrorInfo (reason: the SQLSTATE, domain "seqd") and as the
// trailer seqd-sqlstate.
package grpcapi

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/sqlerr"
)

// Authentication methods (Config.Auth): apicore's.
const (
	AuthTrust    = apicore.AuthTrust
	AuthPassword = apicore.AuthPassword
)

// ServiceName is the service's full name, as the health service knows
// it.
const ServiceName = "seqd.v1.Sequences"

// Config configures a Server.
type Config struct {
	// Config is the engine or node, the connection budget (every
	// connection counted in it from accept), the authentication timeout,
	// authentication, the bootstrap superuser, limits and session
	// defaults.
	apicore.Config
	// TLS, when set, serves only TLS.
	TLS *tls.Config
	// MaxConns is ignored: the connections are counted in the
	// Registry's budget, shared with the other front ends.
	//
	// Deprecated: set the Registry's size (-max-connections).
	MaxConns int
	// OnStatement, when set, is told of each call (and each range of a
	// stream), as pgwire's: its operation ("gRPC Next"), SQLSTATE
	// ("00000": success) and duration (the server's metrics).
	OnStatement func(command, sqlstate string) func(d time.Duration)
	Logger      *log.Logger
	// Forward, when set, is asked where the leader's gRPC service
	// answers when a call is refused as a standby's (25006): the call is
	// made there, once (never a forwarded one again), with the caller's
	// credentials, and its answer relayed; a stream relays its requests
	// from there on. ForwardTLS is the client side of that, for a leader
	// serving TLS.
	Forward    func() (addr string, ok bool)
	ForwardTLS *tls.Config
}

// forwardedKey marks, in a call's metadata, a call a follower forwarded:
// it is not forwarded again.
const forwardedKey = "seqd-forwarded"

// maxMessage bounds a request message: the largest is a sequence's two
// names. maxHeaders bounds a call's metadata (grpc-go's default is 16
// MiB), as the HTTP API's headers are bounded: credentials are short.
const (
	maxMessage = 64 << 10
	maxHeaders = 16 << 10
)

// Server serves the service on a listener.
type Server struct {
	cfg    Config
	core   *apicore.Core
	grpc   *grpc.Server
	health *health.Server
	stop   chan struct{}
	// streamGrace is how long Shutdown waits for the calls under way
	// before it closes the connections left (streamGrace).
	streamGrace time.Duration
	// conns are the connections to leaders calls were forwarded to, by
	// address.
	connMu sync.Mutex
	conns  map[string]*grpc.ClientConn
}

// NewServer makes a server; Serve starts it.
func NewServer(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = log.New(io.Discard, "", 0)
	}
	if cfg.AppName == "" {
		cfg.AppName = "seqd grpc"
	}
	cfg.Protocol = "grpc"
	s := &Server{cfg: cfg, stop: make(chan struct{}), health: health.NewServer(), streamGrace: streamGrace,
		core: apicore.New(cfg.Config)}
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxMessage),
		grpc.MaxHeaderListSize(maxHeaders),
		grpc.MaxConcurrentStreams(256),
		grpc.ConnectionTimeout(10 * time.Second),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: 2 * time.Minute, Time: time.Minute, Timeout: 20 * time.Second}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		grpc.ChainUnaryInterceptor(unaryCalled),
		grpc.ChainStreamInterceptor(streamCalled),
		grpc.ForceServerCodecV2(newAnswerCodec()),
	}
	if cfg.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.TLS)))
	}
	s.grpc = grpc.NewServer(opts...)
	seqdv1.RegisterSequencesServer(s.grpc, service{s: s})
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	s.watchHealth()
	return s
}

// Serve serves l until Shutdown: its connections counted in the
// Registry's budget from accept, evicted while they have no
// authenticated call under way when it is full, closed at AuthTimeout
// unless they make a call by then (conns.go); one the budget has no room
// for is closed at once.
func (s *Server) Serve(l net.Listener) error {
	fl := frontend.Listen(l, frontend.ListenerConfig{Registry: s.core.Registry(), AuthTimeout: s.cfg.AuthTimeout, Name: "grpc",
		Logger: s.cfg.Logger})
	err := s.grpc.Serve(listener{fl})
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// streamGrace bounds Shutdown's wait for the calls under way: a stream
// whose client never reads its answers would otherwise hold it until
// ctx ends (seqd's is 30 s, shared with the other front ends').
const streamGrace = 5 * time.Second

// Shutdown says NOT_SERVING, stops accepting calls, waits for those
// under way (streams end between requests) for up to streamGrace or
// until ctx ends, then closes the connections left, and closes the
// pooled sessions.
func (s *Server) Shutdown(ctx context.Context) error {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.health.Shutdown()
	stopped := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(stopped)
	}()
	// Streams end between requests once stop is closed; one whose client
	// stopped reading is stuck sending and ends only with its connection.
	grace := time.NewTimer(s.streamGrace)
	defer grace.Stop()
	var err error
	select {
	case <-stopped:
	case <-grace.C:
		s.grpc.Stop()
		<-stopped
	case <-ctx.Done():
		s.grpc.Stop()
		err = ctx.Err()
	}
	s.core.Close()
	s.connMu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.conns = nil
	s.connMu.Unlock()
	return err
}

// SetAuth changes the authentication of new calls.
func (s *Server) SetAuth(method string) { s.core.SetAuth(method) }

// watchHealth keeps the service's health what the node is: SERVING where
// it leads or stands alone, NOT_SERVING on a standby (which refuses
// ORDER sequences' values; those without ORDER it still serves).
func (s *Server) watchHealth() {
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	set := func() {
		st := healthpb.HealthCheckResponse_SERVING
		if _, standby := s.core.Engine(); standby {
			st = healthpb.HealthCheckResponse_NOT_SERVING
		}
		s.health.SetServingStatus(ServiceName, st)
	}
	set()
	if s.cfg.Node == nil {
		return
	}
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				set()
			}
		}
	}()
}

// begin authenticates a call (one unary call, or a whole stream) and
// gives it a pooled session of its role; end gives back the session. Its
// connection is counted in the budget already (Serve): a call takes no
// slot of its own, and MaxConcurrentStreams bounds the calls of one
// connection.
func (s *Server) begin(ctx context.Context) (call *apicore.Call, end func(), err error) {
	cr, err := credentialsOf(ctx)
	var user string
	if err == nil {
		from := ""
		if p, ok := peer.FromContext(ctx); ok {
			from = p.Addr.String()
		}
		user, err = s.core.Authenticate(cr, from)
	}
	if err != nil {
		return nil, nil, err
	}
	client := apicore.Client{}
	if p, ok := peer.FromContext(ctx); ok {
		client.Addr = p.Addr.String()
		if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok {
			client.TLS = &ti.State
		}
	}
	call, err = s.core.Begin(ctx, user, client)
	if err != nil {
		return nil, nil, err
	}
	return call, call.End, nil
}

// credentialsOf reads the call's "authorization" metadata: "Basic " and
// base64(role:password), as HTTP Basic, or "Bearer " and a token; none
// when absent.
func credentialsOf(ctx context.Context) (apicore.Credentials, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return apicore.Credentials{}, nil
	}
	bad := apicore.NewError(sqlerr.InvalidAuthorization, `authorization metadata must be "Basic " and base64(role:password), or "Bearer " and a token`)
	scheme, rest, ok := strings.Cut(vals[0], " ")
	switch {
	case len(vals) > 1 || !ok:
		return apicore.Credentials{}, bad
	case strings.EqualFold(scheme, "bearer"):
		return apicore.Credentials{Bearer: true, Token: strings.TrimSpace(rest)}, nil
	case !strings.EqualFold(scheme, "basic"):
		return apicore.Credentials{}, bad
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return apicore.Credentials{}, bad
	}
	user, password, ok := strings.Cut(string(raw), ":")
	if !ok {
		return apicore.Credentials{}, bad
	}
	return apicore.Credentials{User: user, Password: password, Basic: true}, nil
}

// names checks a request's sequence names: an empty schema is public
// (documented), every other field as apicore.CheckName says.
func names(seq *seqdv1.Sequence) (schema, name string, err error) {
	schema, name = seq.GetSchema(), seq.GetName()
	if schema == "" {
		schema = "public"
	}
	if err := apicore.CheckName("sequence.schema", schema); err != nil {
		return "", "", err
	}
	if err := apicore.CheckName("sequence.name", name); err != nil {
		return "", "", err
	}
	return schema, name, nil
}

// count is a request's count: 0 (proto3's unset) is 1, as documented;
// any other value goes to apicore, which refuses one out of range.
func count(c int64) int64 {
	if c == 0 {
		return 1
	}
	return c
}

// unary runs f as a call named op: admitted, authenticated, in a pooled
// session, counted in the metrics, its error made a status.
//
// A call this node refuses as a standby is made on the leader instead
// (fwd, with the caller's credentials) when Config.Forward finds one.
func (s *Server) unary(ctx context.Context, op string, seq *seqdv1.Sequence, f func(call *apicore.Call, schema, name string) error,
	fwd func(ctx context.Context, c seqdv1.SequencesClient) error) error {
	began := time.Now()
	schema, name, err := names(seq)
	var call *apicore.Call
	if err == nil {
		var end func()
		if call, end, err = s.begin(ctx); err == nil {
			defer busy(ctx).ended() // authenticated: its connection is not evicted until it answers
			err = f(call, schema, name)
			end()
		}
	}
	if err != nil && call != nil && call.Standby && call.Fail(err).Kind == sqlerr.ReadOnlyTransaction {
		if c, fctx, ok := s.leader(ctx); ok {
			ferr := fwd(fctx, c)
			if s.cfg.OnStatement != nil && ferr == nil {
				s.cfg.OnStatement("gRPC "+op+" forwarded", "00000")(time.Since(began))
			}
			if status.Code(ferr) != codes.Unavailable || ferr == nil {
				return ferr // the leader's answer, whatever it is
			}
			// The leader out of reach, or no longer leading: the
			// refusal stands (the client retries).
			s.cfg.Logger.Printf("grpc: forwarding %s to the leader: %v", op, ferr)
		}
	}
	return s.finish(ctx, call, op, began, err)
}

// leader is a client of the leader's service to forward a call to, with
// the caller's credentials and the forwarded mark in fctx's metadata;
// false when there is none, or the call was forwarded to this node.
func (s *Server) leader(ctx context.Context) (seqdv1.SequencesClient, context.Context, bool) {
	if s.cfg.Forward == nil {
		return nil, nil, false
	}
	md, _ := metadata.FromIncomingContext(ctx)
	if len(md.Get(forwardedKey)) > 0 {
		return nil, nil, false
	}
	addr, ok := s.cfg.Forward()
	if !ok {
		return nil, nil, false
	}
	s.connMu.Lock()
	conn := s.conns[addr]
	if conn == nil {
		creds := insecure.NewCredentials()
		if s.cfg.ForwardTLS != nil {
			creds = credentials.NewTLS(s.cfg.ForwardTLS)
		}
		var err error
		if conn, err = grpc.NewClient(addr, grpc.WithTransportCredentials(creds)); err != nil {
			s.connMu.Unlock()
			return nil, nil, false
		}
		if s.conns == nil {
			s.conns = map[string]*grpc.ClientConn{}
		}
		s.conns[addr] = conn
	}
	s.connMu.Unlock()
	out := metadata.Pairs(forwardedKey, "1")
	if a := md.Get("authorization"); len(a) > 0 {
		out.Set("authorization", a...)
	}
	return seqdv1.NewSequencesClient(conn), metadata.NewOutgoingContext(ctx, out), true
}

// finish counts a call in the metrics and makes its error a status.
func (s *Server) finish(ctx context.Context, call *apicore.Call, op string, began time.Time, err error) error {
	var e *apicore.Error
	code := "00000"
	if err != nil {
		if call != nil {
			e = call.Fail(err)
		} else {
			e = apicore.ErrorOf(err)
		}
		code = e.Code
	}
	if s.cfg.OnStatement != nil {
		s.cfg.OnStatement("gRPC "+op, code)(time.Since(began))
	}
	if err == nil {
		return nil
	}
	grpc.SetTrailer(ctx, metadata.Pairs("seqd-sqlstate", e.Code))
	return statusOf(e, err).Err()
}

// statusOf is a failure as gRPC answers it: the code a caller acts on,
// the message, and the SQLSTATE (and, where sending again may succeed,
// shortly or once time has passed, when to) in its details.
func statusOf(e *apicore.Error, err error) *status.Status {
	c := codeOf(e, err)
	st := status.New(c, e.Msg)
	details := []protoadapt.MessageV1{&errdetails.ErrorInfo{Reason: e.Code, Domain: "seqd", Metadata: map[string]string{"sqlstate": e.Code}}}
	if (e.Retryable() || e.Later) && c != codes.Canceled && c != codes.DeadlineExceeded {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(time.Second)})
	}
	if withDetails, derr := st.WithDetails(details...); derr == nil {
		return withDetails
	}
	return st
}

// codeOf is the gRPC code of a failure, by its kind's class.
func codeOf(e *apicore.Error, err error) codes.Code {
	switch e.Class() {
	case sqlerr.ClassNotFound:
		return codes.NotFound
	case sqlerr.ClassForbidden:
		return codes.PermissionDenied
	case sqlerr.ClassUnauthenticated:
		return codes.Unauthenticated
	case sqlerr.ClassExists:
		return codes.AlreadyExists
	case sqlerr.ClassContended:
		return codes.Aborted
	case sqlerr.ClassPrecondition:
		return codes.FailedPrecondition
	case sqlerr.ClassTooMany, sqlerr.ClassTooLarge, sqlerr.ClassOutOfMemory:
		return codes.ResourceExhausted
	case sqlerr.ClassCanceled:
		if errors.Is(err, context.DeadlineExceeded) {
			return codes.DeadlineExceeded
		}
		return codes.Canceled
	case sqlerr.ClassUnavailable: // a standby, a shutdown, a store unavailable
		return codes.Unavailable
	case sqlerr.ClassInvalid:
		return codes.InvalidArgument
	}
	return codes.Internal
}

// service implements seqdv1.SequencesServer.
type service struct {
	seqdv1.UnimplementedSequencesServer
	s *Server
}

var _ seqdv1.SequencesServer = service{}

func (v service) Next(ctx context.Context, r *seqdv1.NextRequest) (*seqdv1.NextResponse, error) {
	var release func() // the answer's room, if it took any
	if c := count(r.GetCount()); c > 1 {
		// Room for the answer, given back once it is written (answers.go).
		// (A count past MaxValues is refused by Next.)
		var err error
		if release, err = roomFor(ctx, min(c, apicore.MaxValues)*bytesPerValue); err != nil {
			return nil, status.FromContextError(err).Err()
		}
	}
	var values []int64
	err := v.s.unary(ctx, "Next", r.GetSequence(), func(call *apicore.Call, schema, name string) (err error) {
		values, err = call.Next(schema, name, count(r.GetCount()))
		return err
	}, func(ctx context.Context, c seqdv1.SequencesClient) error {
		resp, err := c.Next(ctx, r)
		values = resp.GetValues()
		return err
	})
	if err != nil {
		if release != nil {
			release()
		}
		return nil, err
	}
	resp := &seqdv1.NextResponse{Values: values}
	if release != nil {
		pending.Store(resp, release)
	}
	return resp, nil
}

func (v service) Reserve(ctx context.Context, r *seqdv1.ReserveRequest) (*seqdv1.Range, error) {
	var rg apicore.Range
	err := v.s.unary(ctx, "Reserve", r.GetSequence(), func(call *apicore.Call, schema, name string) (err error) {
		rg, err = call.Reserve(schema, name, count(r.GetCount()))
		return err
	}, func(ctx context.Context, c seqdv1.SequencesClient) error {
		resp, err := c.Reserve(ctx, r)
		rg = apicore.Range{First: resp.GetFirst(), Last: resp.GetLast(), Increment: resp.GetIncrement(), Shape: resp.GetShape()}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &seqdv1.Range{First: rg.First, Last: rg.Last, Increment: rg.Increment, Shape: rg.Shape}, nil
}

func (v service) Release(ctx context.Context, r *seqdv1.ReleaseRequest) (*seqdv1.ReleaseResponse, error) {
	var released bool
	err := v.s.unary(ctx, "Release", r.GetSequence(), func(call *apicore.Call, schema, name string) (err error) {
		released, err = call.Release(schema, name, r.GetFirst(), r.GetLast())
		return err
	}, func(ctx context.Context, c seqdv1.SequencesClient) error {
		resp, err := c.Release(ctx, r)
		released = resp.GetReleased()
		return err
	})
	if err != nil {
		return nil, err
	}
	return &seqdv1.ReleaseResponse{Released: released}, nil
}
