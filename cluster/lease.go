// Package cluster is seqd's leadership on etcd: one node at a time leads,
// by a key it holds under an etcd lease, and knows until when it may act
// as the leader without asking etcd again.
//
// Leadership is PD's design (its election and lease packages), with the
// lessons of its bugs and TiDB's built in:
//
//   - The leader key is created only if absent (one etcd transaction), under
//     the node's lease; its create revision is the term's fencing token,
//     which grows with every term. The store compares it in every write
//     (etcdstore.Config.Leader), so a deposed leader's writes fail however
//     late they arrive: a lease alone does not give mutual exclusion.
//   - A term is valid until the lease's expiry as this node counts it: from
//     the moment the last successful keep-alive was sent, plus the TTL etcd
//     granted. etcd restarts the TTL when it receives the request, which is
//     no earlier, so etcd cannot expire the lease, and no other node can be
//     elected, before this node's term has ended by its own clock (clock
//     rates being about equal, as every lease assumes). That clock counts
//     the time the machine was suspended (Clock): a leader resumed after
//     its lease lapsed knows it at once.
//   - No single etcd member can stall a renewal: each try is bounded well
//     inside the lease and requires a leader, and a failed one is tried
//     again at once, on another member (etcdstore.HardenClient).
//   - Keep-alives are sent by the term itself, and only while the caller says
//     it is healthy: a leader whose store stalls stops renewing and lets its
//     lease lapse, instead of keeping it alive through a healthy etcd peer
//     (PD #10671).
//
// Cluster mode is this package and three others' parts, each where it
// must live (docs/cluster.md, "Where the code is"): server/node.go, the
// node's role (a standby's snapshot, the leader's engine, the switch
// between them); engine/noorder.go, NOORDER sequences' blocks, and
// storage/etcdstore, the fenced store. Their tests: cluster_test.go here,
// server/cluster_*_test.go, engine/noorder_test.go, storage/etcdstore's
// conformance run, and torture's clustered run (torture/clustered.go).
package cluster

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/storage/etcdstore"
)

// gone reports whether err says the lease is no longer at etcd.
func gone(err error) bool { return errors.Is(err, rpctypes.ErrLeaseNotFound) }

// ErrLeaseLost: etcd no longer has the lease (it expired, or was revoked).
var ErrLeaseLost = errors.New("cluster: the lease is lost")

// Lease is an etcd lease with the time before which etcd cannot have
// expired it. Safe for concurrent use.
type Lease struct {
	cli   *clientv3.Client
	ID    clientv3.LeaseID
	TTL   time.Duration
	clock Clock
	tries Tries // the deadlines of a renewal's tries

	// expiry is on clock, in nanoseconds: read on every value a leader
	// hands out, so an atomic, not a lock.
	expiry atomic.Int64
}

// Grant asks etcd for a lease of ttl (whole seconds, at least one),
// counted on SystemClock.
func Grant(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (*Lease, error) {
	return grant(ctx, cli, ttl, SystemClock, nil)
}

// grant is Grant on clock, its renewals' tries bounded by tries
// (AttemptTimeout of the TTL each when nil).
func grant(ctx context.Context, cli *clientv3.Client, ttl time.Duration, clock Clock, tries Tries) (*Lease, error) {
	secs := max(int64(ttl/time.Second), 1)
	sent := clock.Now()
	r, err := cli.Grant(ctx, secs)
	if err != nil {
		return nil, err
	}
	l := &Lease{cli: cli, ID: r.ID, TTL: time.Duration(secs) * time.Second, clock: clock, tries: tries}
	if tries == nil {
		l.tries = fixedTries(etcdstore.AttemptTimeout(l.TTL))
	}
	l.extend(sent, r.TTL)
	return l, nil
}

// extend moves the expiry to sent+ttl seconds, never back.
func (l *Lease) extend(sent time.Duration, ttl int64) {
	e := int64(sent + time.Duration(ttl)*time.Second)
	for {
		old := l.expiry.Load()
		if e <= old || l.expiry.CompareAndSwap(old, e) {
			return
		}
	}
}

// Remaining is how long the lease cannot yet have expired (0 or less:
// it may have).
func (l *Lease) Remaining() time.Duration {
	return time.Duration(l.expiry.Load()) - l.clock.Now()
}

// Expiry is the time before which etcd cannot have expired the lease, as
// of now on the wall clock: where a wait on Go's timers should end
// (they too stop while the machine is suspended: Valid is the test).
func (l *Lease) Expiry() time.Time { return time.Now().Add(l.Remaining()) }

// Valid reports whether the lease cannot have expired yet.
func (l *Lease) Valid() bool { return l.Remaining() > 0 }

// KeepAlive renews the lease every third of its TTL until ctx ends (nil),
// the lease is gone at etcd or has lapsed by this node's clock
// (ErrLeaseLost), or healthy, when given, reports false: renewals stop
// then and the lease lapses on its own, which KeepAlive waits for before
// it returns ErrLeaseLost. A renewal that fails for another reason (an
// etcd member down, cut off or slow) is tried again at once, on another
// member, until one succeeds or the lease lapses; each try is bounded
// as the client bounds its own requests' (Config.Tries).
func (l *Lease) KeepAlive(ctx context.Context, healthy func() bool) error {
	tick := time.NewTicker(l.TTL / 3)
	defer tick.Stop()
	for {
		if !l.Valid() {
			return ErrLeaseLost
		}
		if healthy != nil && !healthy() {
			return l.lapse(ctx)
		}
		if err := l.renew(ctx, healthy); err != nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// renew renews the lease once, trying member after member: nil once one
// did, or when ctx ends; ErrLeaseLost when etcd no longer has the lease
// or it lapsed first. While healthy says false it stops trying.
//
// A keep-alive is a stream, which the hardened client's interceptor does
// not see, so its tries are paced here, and hedged rather than given up:
// a try not answered within its deadline (Config.Tries: the client's own
// of the moment) stays out, bounded by the lease, and another is sent
// beside it, which round robin gives to another member; the first
// answer counts. So a member that holds requests (paused, cut off) costs
// a renewal one deadline, and a renewal that every member answers slowly
// alike still completes: one sent to a follower is forwarded to the etcd
// leader member, a round trip on the follower's link to it, 0.6 s when
// that link is slow (300 ms each way), more than a 2 s lease's 500 ms
// deadline. From the second try on, the next is sent after twice the
// time, and at most maxTries are out at once.
func (l *Lease) renew(ctx context.Context, healthy func() bool) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the tries still out
	type answer struct {
		sent time.Duration // on l.clock
		took time.Duration
		ttl  int64
		err  error
	}
	answers := make(chan answer)
	out := 0
	send := func() {
		out++
		sent, began := l.clock.Now(), time.Now()
		// An answer after the lease lapsed is of no use.
		tctx, tcancel := context.WithTimeout(etcdstore.RequireLeader(rctx), max(l.Remaining(), time.Millisecond))
		go func() {
			defer tcancel()
			r, err := l.cli.KeepAliveOnce(tctx, l.ID)
			a := answer{sent: sent, took: time.Since(began), err: err}
			if err == nil {
				a.ttl = r.TTL
			}
			select {
			case answers <- a:
			case <-rctx.Done():
			}
		}()
	}
	d, tries := l.tries.TryDeadline(), 0
	var next <-chan time.Time // when to send another try beside those out
	for ctx.Err() == nil && l.Valid() {
		if healthy != nil && !healthy() {
			return nil // KeepAlive lets the lease lapse
		}
		if next == nil && out < maxTries {
			if tries++; tries > 2 {
				d = l.tries.NextTry(d)
			}
			send()
			next = time.After(d)
		}
		select {
		case a := <-answers:
			out--
			switch {
			case gone(a.err), a.err == nil && a.ttl <= 0:
				return ErrLeaseLost
			case a.err == nil:
				l.tries.Answered(a.took)
				l.extend(a.sent, a.ttl)
				return nil
			}
			if out == 0 {
				// Refused (no leader, no connection), and no other try
				// out: ask again a little later.
				next = time.After(50 * time.Millisecond)
			}
		case <-next:
			next = nil // a try is due, beside those out
		case <-ctx.Done():
		case <-time.After(min(max(l.Remaining(), 0), pollInterval)):
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return ErrLeaseLost
}

// maxTries is how many tries of one renewal may be out at once.
const maxTries = 4

// lapse waits for the lease to lapse by this node's clock (ErrLeaseLost),
// or ctx to end (nil). It looks at the clock every pollInterval, not
// only when a timer set for the expiry fires: timers do not count the
// time the machine was suspended.
func (l *Lease) lapse(ctx context.Context) error {
	for {
		wait := min(l.Remaining(), pollInterval)
		if wait <= 0 {
			return ErrLeaseLost
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// pollInterval is how often a lease's expiry is looked at on its clock:
// how late after a resume from suspension a term's Done is closed
// (Valid, asked on every request, says so at once).
const pollInterval = 100 * time.Millisecond

// Revoke gives the lease back to etcd: the keys under it go at once. A
// lease etcd no longer has is revoked already (an earlier try of this
// request may have been applied: etcdstore.HardenClient).
func (l *Lease) Revoke(ctx context.Context) error {
	_, err := l.cli.Revoke(ctx, l.ID)
	if gone(err) {
		return nil
	}
	return err
}
