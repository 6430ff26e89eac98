package etcdstore

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
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
// From the third try on, a try that timed out gives the next twice the
// time, up to the lease, so that a large read on a slow etcd still
// completes.
// The caller's context bounds the whole.
//
// KeepEndpoints keeps the client's endpoints those of the cluster's
// members, as members are replaced.

// AttemptTimeout is how long one attempt of an etcd request may take
// before it is tried on another member, for a node whose lease is
// lease: a quarter of it, at least 200 ms.
func AttemptTimeout(lease time.Duration) time.Duration {
	return max(lease/4, 200*time.Millisecond)
}

// HardenClient sets cfg up so that no single member can stall a request
// (above): every unary request requires a leader, and is tried again on
// another member after attempt or when refused as unavailable.
func HardenClient(cfg *clientv3.Config, attempt time.Duration) {
	cfg.DialOptions = append(cfg.DialOptions, grpc.WithChainUnaryInterceptor(retryElsewhere(attempt, 4*attempt)))
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
func retryElsewhere(attempt, longest time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if method == authenticate {
			// A password check costs the member a bcrypt hash, and is
			// made once per client (and per token expired): the
			// caller's deadline bounds it alone.
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		ctx = RequireLeader(ctx)
		counted, _ := ctx.Value(triesKey{}).(*atomic.Int32)
		d := attempt
		for tries := 0; ; tries++ {
			if counted != nil {
				counted.Add(1)
			}
			actx, cancel := context.WithTimeout(ctx, d)
			err := invoker(actx, method, req, reply, cc, opts...)
			timedOut := actx.Err() != nil
			cancel()

			if err == nil || ctx.Err() != nil {
				return err
			}
			switch {
			case timedOut && tries >= 2:
				// Tried on as many members as round robin gave, and
				// timed out again: the request may need more time.
				d = min(2*d, longest)
			case timedOut:
				// Maybe a member cut off: the next try goes to another.
			case status.Code(err) == codes.Unavailable:
				// Refused before or without an outcome of its own:
				// no leader, no connection, or a leader change.
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

// KeepEndpoints keeps cli's endpoints those of the cluster's members
// until ctx ends, reading the membership every interval: when it
// changes (a member removed, added or moved), the endpoints become the
// members' client URLs. The endpoints the client was given are kept
// while the membership stays as first read: they may be names a
// member does not advertise (a load balancer, a proxy, DNS).
func KeepEndpoints(ctx context.Context, cli *clientv3.Client, interval time.Duration) {
	var known []string
	for {
		rctx, cancel := context.WithTimeout(ctx, interval)
		urls, err := memberURLs(rctx, cli)
		cancel()
		switch {
		case err != nil || len(urls) == 0:
		case known == nil:
			known = urls
		case !slices.Equal(urls, known):
			known = urls
			cli.SetEndpoints(urls...)
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
