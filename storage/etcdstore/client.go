package etcdstore

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// No single etcd member may stall a node. A member cut off from its
// peers still accepts requests, and holds each until its deadline;
// etcd's client spreads requests over every endpoint (gRPC's round
// robin), and a takeover makes several in a row, so one such member
// used to stall a takeover for as long as the caller's deadline. So
// every request of a client set up by HardenClient:
//
//  1. requires a leader (clientv3.WithRequireLeader): a member that knows
//     it has none refuses at once (rpctypes.ErrNoLeader) instead of
//     holding the request;
//  2. is tried with a deadline of its own, well inside the lease
//     (AttemptTimeout), which catches a member that does not know yet;
//  3. is tried again, at once, when an attempt timed out or the member
//     was unavailable: round robin sends it to the next member. A write
//     tried again may have been applied by the attempt that timed out;
//     seqd's writes are comparisons and sets in one transaction, whose
//     callers tell their own earlier write from another's (Commit, and
//     cluster.Campaign).
//
// A first try's deadline is shared by the client's requests (pace):
// while every member answers slowly alike (an etcd leader member on slow
// links to its peers), answers that came late lengthen it, up to half
// the lease, so that requests complete instead of timing out on every
// member in turn; it comes back down once etcd answers well inside it
// again.
// Within a request, from its second try that timed out on, the next
// try gets twice the time of the one before, up to the lease (the first
// timeout only moves it to another member). The caller's context bounds
// the whole.
//
// Endpoints.Keep keeps the client's endpoints those of the cluster's
// members, as members are replaced.

// AttemptTimeout is how long one attempt of an etcd request may take
// before it is tried on another member, for a node whose lease is
// lease: a quarter of it, at least 200 ms. It is where a hardened
// client's deadline starts, and comes back to (pace); etcd slow on every
// member lengthens a first try's up to twice that, a request's later
// tries' up to four times.
func AttemptTimeout(lease time.Duration) time.Duration {
	return max(lease/4, 200*time.Millisecond)
}

// HardenClient sets cfg up so that no single member can stall a request
// (above): every unary request requires a leader, and is tried again on
// another member when a try times out, finds none, or finds its member
// stopping (removed from the cluster). The Endpoints it
// returns must be bound to the client made from cfg (Bind): a member on
// which a try timed out is then set aside until it answers again, so
// that the tries after it, of every request, go to the others.
func HardenClient(cfg *clientv3.Config, attempt time.Duration) *Endpoints {
	e := &Endpoints{all: slices.Clone(cfg.Endpoints), aside: map[string]bool{}, attempt: attempt, cfg: cfg, own: len(cfg.DialOptions),
		pace: newPace(attempt, 4*attempt)}
	cfg.DialOptions = append(cfg.DialOptions, grpc.WithChainUnaryInterceptor(retryElsewhere(e)))
	return e
}

// Endpoints is a hardened client's view of the members it sends to:
// those it was given, or learned from the membership (Keep), less those
// set aside. A member held by a fault that keeps its connections open
// (a paused process, a cut network path) keeps its place in gRPC's round
// robin, and every request's first try has its share of the chance to
// wait there a full try's deadline. So a member on which a try timed out
// is taken out of the client's endpoints, and asked for its status on a
// connection of its own every try's length: it is given back once it
// answers (with anything but silence: a member that only lost its
// leader refuses at once, which costs a try nothing). Timeouts on
// healthy members while etcd elects set them aside for one such round.
// The last member not set aside never is.
type Endpoints struct {
	timeouts atomic.Int64 // tries that timed out, ever
	pace     *pace        // the deadline of every request's tries

	mu      sync.Mutex
	cli     *clientv3.Client
	all     []string
	aside   map[string]bool
	attempt time.Duration
	cfg     *clientv3.Config // HardenClient's, as Bind finds it
	own     int              // the index of HardenClient's option in cfg.DialOptions
	probes  clientv3.Config  // cfg for the probes, without that option
}

// TryDeadline is the deadline of a first try now (pace), for the
// requests the client's interceptor does not see: a lease's keep-alive
// is a stream (cluster.Lease).
func (e *Endpoints) TryDeadline() time.Duration { return e.pace.Deadline() }

// NextTry is the deadline of the try after one of d that timed out, the
// request's second or later to.
func (e *Endpoints) NextTry(d time.Duration) time.Duration { return e.pace.Next(d) }

// Answered notes a request, made outside the interceptor, that etcd
// answered in took.
func (e *Endpoints) Answered(took time.Duration) { e.pace.Answered(took, time.Now()) }

// Bind makes cli, made from the configuration HardenClient set up, the
// client whose endpoints e sets.
func (e *Endpoints) Bind(cli *clientv3.Client) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cli = cli
	e.probes = *e.cfg
	e.probes.DialOptions = slices.Delete(slices.Clone(e.cfg.DialOptions), e.own, e.own+1)
	// Any answer will do, a refusal too; a password check would
	// block New on the member set aside.
	e.probes.Username, e.probes.Password = "", ""
}

// Aside is the endpoints set aside now.
func (e *Endpoints) Aside() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ep := range e.all {
		if e.aside[ep] {
			out = append(out, ep)
		}
	}
	return out
}

// timedOut sets aside the endpoint at addr (a try's peer address) until
// it answers.
func (e *Endpoints) timedOut(addr net.Addr) {
	e.timeouts.Add(1)
	e.setAside(addr)
}

// setAside sets aside the endpoint at addr until it answers.
func (e *Endpoints) setAside(addr net.Addr) {
	if addr == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ep := endpointAt(e.all, addr.String())
	if e.cli == nil || ep == "" || e.aside[ep] || len(e.aside)+1 >= len(e.all) {
		return
	}
	e.aside[ep] = true
	e.applyLocked()
	go e.probe(e.cli, ep)
}

// MemberClient is a client of the member at ep alone, for the calls
// made to one named member (Status, Defragment), which etcd's client
// dials reading its endpoints unguarded: through the client whose
// endpoints this follows, they would race with SetEndpoints (probe asks
// through one too). The caller closes it.
func (e *Endpoints) MemberClient(ctx context.Context, ep string) (*clientv3.Client, error) {
	cfg := e.probes
	cfg.Endpoints, cfg.Context = []string{ep}, ctx
	return clientv3.New(cfg)
}

// probe asks ep for its status every try's length until it answers
// within one, then gives it back (unless it left the membership
// meanwhile, or the client closed). It asks through a client of its
// own: etcd's client reads its endpoints unguarded when it dials one
// member (Status), which SetEndpoints would race with.
func (e *Endpoints) probe(cli *clientv3.Client, ep string) {
	cfg := e.probes
	cfg.Endpoints, cfg.Context = []string{ep}, cli.Ctx()
	pc, err := clientv3.New(cfg)
	if err != nil {
		e.mu.Lock()
		delete(e.aside, ep)
		e.applyLocked()
		e.mu.Unlock()
		return
	}
	defer pc.Close()
	for {
		select {
		case <-cli.Ctx().Done():
			return
		case <-time.After(e.attempt):
		}
		ctx, cancel := context.WithTimeout(cli.Ctx(), e.attempt)
		pc.Status(ctx, ep)
		answered := ctx.Err() == nil
		cancel()
		e.mu.Lock()
		if !e.aside[ep] {
			e.mu.Unlock()
			return
		}
		if answered {
			delete(e.aside, ep)
			e.applyLocked()
			e.mu.Unlock()
			return
		}
		e.mu.Unlock()
	}
}

// setAll makes eps the members' endpoints (a membership change).
func (e *Endpoints) setAll(eps []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = eps
	for ep := range e.aside {
		if !slices.Contains(eps, ep) {
			delete(e.aside, ep)
		}
	}
	e.applyLocked()
}

func (e *Endpoints) applyLocked() {
	if e.cli == nil {
		return
	}
	var eps []string
	for _, ep := range e.all {
		if !e.aside[ep] {
			eps = append(eps, ep)
		}
	}
	e.cli.SetEndpoints(eps...)
}

// endpointAt is the endpoint of eps whose host and port are addr's, or
// whose host name resolves to addr's address; "" if none.
func endpointAt(eps []string, addr string) string {
	ahost, aport, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	var named []string
	for _, ep := range eps {
		host, port := endpointHostPort(ep)
		switch {
		case port != aport:
		case host == ahost:
			return ep
		case net.ParseIP(host) == nil:
			named = append(named, ep)
		}
	}
	for _, ep := range named { // resolved only when a try timed out
		host, _ := endpointHostPort(ep)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		ips, _ := net.DefaultResolver.LookupHost(ctx, host)
		cancel()
		if slices.Contains(ips, ahost) {
			return ep
		}
	}
	return ""
}

// endpointHostPort is the host and port of an endpoint, with or without
// its scheme.
func endpointHostPort(ep string) (string, string) {
	if _, rest, ok := strings.Cut(ep, "://"); ok {
		ep = rest
	}
	host, port, err := net.SplitHostPort(ep)
	if err != nil {
		return "", ""
	}
	return host, port
}

// RequireLeader is WithRequireLeader: a request, or a stream, that a
// member without a leader refuses at once.
func RequireLeader(ctx context.Context) context.Context {
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get(rpctypes.MetadataRequireLeaderKey)) > 0 {
		return ctx
	}
	return clientv3.WithRequireLeader(ctx)
}

// authenticate is the method of etcd's password check.
const authenticate = "/etcdserverpb.Auth/Authenticate"

// retryElsewhere is the interceptor of HardenClient. etcd's own
// retrying interceptor runs around it (it is the first of the chain),
// and sees only what this one gives up on.
func retryElsewhere(e *Endpoints) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if method == authenticate {
			// A password check costs the member a bcrypt hash, and is
			// made once per client (and per token expired): the
			// caller's deadline bounds it alone.
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		ctx = RequireLeader(ctx)
		counted, _ := ctx.Value(triesKey{}).(*atomic.Int32)
		d := e.pace.Deadline()
		held := 0 // tries that timed out
		for tries := 0; ; tries++ {
			if counted != nil {
				counted.Add(1)
			}
			var at peer.Peer
			began := time.Now()
			actx, cancel := context.WithTimeout(ctx, d)
			err := invoker(actx, method, req, reply, cc, append(opts, grpc.Peer(&at))...)
			// A member may answer "request timed out" itself, as the
			// deadline it was sent passes: held all the same.
			took := time.Since(began)
			timedOut := actx.Err() != nil || took >= d && Unavailable(err)
			cancel()

			if err == nil {
				e.pace.Answered(took, began.Add(took))
			}
			if err == nil || ctx.Err() != nil {
				return err
			}
			switch {
			case timedOut:
				if held++; held <= 2 {
					// Maybe a member cut off: the next try goes to
					// another, and so do the next requests' (Endpoints).
					e.timedOut(at.Addr)
				}
				if held >= 2 {
					// Held by a second member, or again by the only
					// one left: maybe etcd is slow on every member, and
					// its answers need more time (pace).
					d = e.pace.Next(d)
				}
				continue // the try has waited already
			case status.Code(err) == codes.Unavailable:
				// Refused before or without an outcome of its own:
				// no leader, no connection, or a leader change.
			case memberStopped(err):
				// The member is being removed or shut down: its
				// proposal may or may not have reached the others (an
				// outcome unknown, as a try that timed out), and the
				// others are the ones to ask.
				e.setAside(at.Addr)
			default:
				return err
			}
			if tries >= 2 {
				// Every member was tried: the cluster itself is
				// unavailable, or electing. Ask again a little later.
				select {
				case <-ctx.Done():
					return err
				case <-time.After(50 * time.Millisecond):
				}
			}
		}
	}
}

// Keep keeps the client's endpoints those of the cluster's members
// until ctx ends, reading the membership every interval: when it
// changes (a member removed, added or moved), the endpoints become the
// members' client URLs. The endpoints the client was given are kept
// while the membership stays as first read: they may be names a
// member does not advertise (a load balancer, a proxy, DNS).
func (e *Endpoints) Keep(ctx context.Context, interval time.Duration) {
	var known []string
	for {
		e.mu.Lock()
		cli := e.cli
		e.mu.Unlock()
		rctx, cancel := context.WithTimeout(ctx, interval)
		urls, err := memberURLs(rctx, cli)
		cancel()
		switch {
		case err != nil || len(urls) == 0:
		case known == nil:
			known = urls
		case !slices.Equal(urls, known):
			known = urls
			e.setAll(urls)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// memberURLs are the client URLs of the cluster's started voting
// members, sorted.
func memberURLs(ctx context.Context, cli *clientv3.Client) ([]string, error) {
	r, err := cli.MemberList(ctx)
	if err != nil {
		return nil, err
	}
	var urls []string
	for _, m := range r.Members {
		if m.Name != "" && !m.IsLearner { // a member added, not yet started, has no name
			urls = append(urls, m.ClientURLs...)
		}
	}
	slices.Sort(urls)
	return urls, nil
}

// triesKey is the context key of a request's count of tries (countTries).
type triesKey struct{}

// countTries returns a context under which retryElsewhere counts the
// tries of each request in the returned counter: more than one, and a
// write may have been applied by a try before the one that answered.
func countTries(ctx context.Context) (context.Context, *atomic.Int32) {
	n := new(atomic.Int32)
	return context.WithValue(ctx, triesKey{}, n), n
}

// memberStopped reports whether err is a member's answer that its raft
// node stopped under the request (raft.ErrStopped, which etcd's server
// does not translate, so it arrives with code Unknown): the member is
// being removed from the cluster or shut down.
func memberStopped(err error) bool {
	s, ok := status.FromError(err)
	return ok && s.Code() == codes.Unknown && s.Message() == "raft: stopped"
}

// Unavailable reports whether err is etcd being out of reach for now:
// a deadline passed, no leader, no member answering. Waiting may mend
// it; a refused password or a fenced token it does not.
func Unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, rpctypes.ErrNoLeader) || errors.Is(err, rpctypes.ErrGRPCNoLeader) {
		return true
	}
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		return ee.Code() == codes.Unavailable
	}
	c := status.Code(err)
	return c == codes.Unavailable || c == codes.DeadlineExceeded
}
