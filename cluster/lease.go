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
//     rates being about equal, as every lease assumes).
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
)

// ErrLeaseLost: etcd no longer has the lease (it expired, or was revoked).
var ErrLeaseLost = errors.New("cluster: the lease is lost")

// Lease is an etcd lease with the time before which etcd cannot have
// expired it.
type Lease struct {
	cli *clientv3.Client
	ID  clientv3.LeaseID
	TTL time.Duration

	// expiry is in nanoseconds since base, on the monotonic clock: read
	// on every value a leader hands out, so an atomic, not a lock.
	expiry atomic.Int64
}

// base is the origin of the monotonic times leases keep.
var base = time.Now()

// Grant asks etcd for a lease of ttl (whole seconds, at least one).
func Grant(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (*Lease, error) {
	secs := max(int64(ttl/time.Second), 1)
	sent := time.Now()
	r, err := cli.Grant(ctx, secs)
	if err != nil {
		return nil, err
	}
	l := &Lease{cli: cli, ID: r.ID, TTL: time.Duration(secs) * time.Second}
	l.extend(sent, r.TTL)
	return l, nil
}

// extend moves the expiry to sent+ttl seconds, never back.
func (l *Lease) extend(sent time.Time, ttl int64) {
	e := int64(sent.Sub(base) + time.Duration(ttl)*time.Second)
	for {
		old := l.expiry.Load()
		if e <= old || l.expiry.CompareAndSwap(old, e) {
			return
		}
	}
}

// Expiry is the time before which etcd cannot have expired the lease.
func (l *Lease) Expiry() time.Time { return base.Add(time.Duration(l.expiry.Load())) }

// Valid reports whether the lease cannot have expired yet.
func (l *Lease) Valid() bool { return int64(time.Since(base)) < l.expiry.Load() }

// KeepAlive renews the lease every third of its TTL until ctx ends (nil),
// the lease is gone at etcd or has lapsed by this node's clock
// (ErrLeaseLost), or healthy, when given, reports false: renewals stop
// then and the lease lapses on its own, which KeepAlive waits for before
// it returns ErrLeaseLost. A renewal that fails for another reason (an
// etcd member down, a partition) is tried again at the next tick.
func (l *Lease) KeepAlive(ctx context.Context, healthy func() bool) error {
	tick := time.NewTicker(l.TTL / 3)
	defer tick.Stop()
	for {
		if !l.Valid() {
			return ErrLeaseLost
		}
		if healthy != nil && !healthy() {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Until(l.Expiry())):
				return ErrLeaseLost
			}
		}
		sent := time.Now()
		cctx, cancel := context.WithTimeout(ctx, l.TTL/3)
		r, err := l.cli.KeepAliveOnce(cctx, l.ID)
		cancel()
		switch {
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			return ErrLeaseLost
		case err == nil && r.TTL <= 0:
			return ErrLeaseLost
		case err == nil:
			l.extend(sent, r.TTL)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// Revoke gives the lease back to etcd: the keys under it go at once.
func (l *Lease) Revoke(ctx context.Context) error {
	_, err := l.cli.Revoke(ctx, l.ID)
	return err
}
