package cluster

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/storage/etcdstore"
)

// ErrDeposed: the leader key was deleted or replaced under the term.
var ErrDeposed = errors.New("cluster: the leader key is no longer this term's")

// Config configures a candidate.
type Config struct {
	Client *clientv3.Client
	// Prefix is the cluster's etcd prefix, as etcdstore's. Default
	// "/seqd/".
	Prefix string
	// Name identifies this node to the others (its client address): the
	// leader key's value while it leads.
	Name string
	// TTL is the lease's time to live, whole seconds. Default 5 s: a dead
	// leader is replaced within about that long, and a live one renews
	// every third of it, so two renewals may fail in a row (an etcd
	// member restarting) without losing the lease.
	TTL time.Duration
	// Healthy, when set, is asked before every renewal; while it says
	// false the lease is not renewed and the term lapses.
	Healthy func() bool
	// Clock is what the lease is counted on. Default SystemClock, which
	// counts the time the machine was suspended; tests give one they
	// move.
	Clock Clock
	// Tries, when set, gives the deadlines of a renewal's tries: the
	// client's own (etcdstore.Endpoints), lengthened while etcd answers
	// slowly on every member. Without it each try has
	// etcdstore.AttemptTimeout(TTL).
	Tries Tries
}

// Tries sets the deadlines of the tries of a request, as a hardened
// etcd client sets its own (etcdstore.Endpoints).
type Tries interface {
	// TryDeadline is the deadline of a request's first try.
	TryDeadline() time.Duration
	// NextTry is the deadline of the try after one of d that timed
	// out, the request's second or later to.
	NextTry(d time.Duration) time.Duration
	// Answered notes a request etcd answered in took.
	Answered(took time.Duration)
}

// fixedTries gives every try the same deadline.
type fixedTries time.Duration

func (f fixedTries) TryDeadline() time.Duration          { return time.Duration(f) }
func (f fixedTries) NextTry(time.Duration) time.Duration { return time.Duration(f) }
func (fixedTries) Answered(time.Duration)                {}

func (c *Config) defaults() {
	if c.Prefix == "" {
		c.Prefix = "/seqd/"
	}
	if c.TTL <= 0 {
		c.TTL = 5 * time.Second
	}
	if c.Clock == nil {
		c.Clock = SystemClock
	}
	if c.Tries == nil {
		c.Tries = fixedTries(etcdstore.AttemptTimeout(c.TTL))
	}
}

// LeaderKey is the key whose holder leads the cluster under prefix.
func LeaderKey(prefix string) string {
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return prefix + "leader"
}

// Leader returns the current leader's name and term token ("" and 0 if
// there is none).
func Leader(ctx context.Context, cli *clientv3.Client, prefix string) (string, int64, error) {
	r, err := cli.Get(ctx, LeaderKey(prefix))
	if err != nil || len(r.Kvs) == 0 {
		return "", 0, err
	}
	return string(r.Kvs[0].Value), r.Kvs[0].CreateRevision, nil
}

// Campaign waits until this node leads and returns its term, or fails
// when ctx ends. While another node leads it waits for the leader key to
// go (its lease lapsing, or a resignation); it holds no lease meanwhile.
func Campaign(ctx context.Context, cfg Config) (*Term, error) {
	cfg.defaults()
	cli, key := cfg.Client, LeaderKey(cfg.Prefix)
	for {
		l, err := grant(ctx, cli, cfg.TTL, cfg.Clock, cfg.Tries)
		if err != nil {
			if err := pause(ctx); err != nil {
				return nil, err
			}
			continue
		}
		r, err := cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, cfg.Name, clientv3.WithLease(l.ID))).
			Else(clientv3.OpGet(key)).
			Commit()
		if err == nil && r.Succeeded {
			return startTerm(cfg, l, r.Header.Revision), nil
		}
		if err == nil {
			// A try that timed out may have made the key, and this one
			// found it (etcdstore.HardenClient): the key under this lease is
			// this node's.
			if kvs := r.Responses[0].GetResponseRange().GetKvs(); len(kvs) > 0 && kvs[0].Lease == int64(l.ID) {
				return startTerm(cfg, l, kvs[0].CreateRevision), nil
			}
		}
		rctx, cancel := context.WithTimeout(context.Background(), cfg.TTL)
		l.Revoke(rctx) // best effort: it lapses anyway
		cancel()
		if err != nil {
			if err := pause(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if kvs := r.Responses[0].GetResponseRange().GetKvs(); len(kvs) > 0 {
			if err := waitGone(ctx, cli, key, r.Header.Revision+1, cfg.TTL/2); err != nil {
				return nil, err
			}
		}
	}
}

// pause waits a little before trying etcd again.
func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(200 * time.Millisecond):
		return nil
	}
}

// waitGone waits until key is deleted at or after revision from (or the
// watch ends for another reason: the caller campaigns again and finds
// out). It also reads the key every recheck: a watch's stream may be on
// a member that stopped answering (paused, cut off before it knew), from
// which no event, and no error, ever comes.
func waitGone(ctx context.Context, cli *clientv3.Client, key string, from int64, recheck time.Duration) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	events := cli.Watch(wctx, key, clientv3.WithRev(from))
	tick := time.NewTicker(recheck)
	defer tick.Stop()
	for {
		select {
		case resp, ok := <-events:
			if !ok || resp.Err() != nil {
				return ctx.Err()
			}
			for _, ev := range resp.Events {
				if ev.Type == clientv3.EventTypeDelete {
					return nil
				}
			}
		case <-tick.C:
			rctx, rcancel := context.WithTimeout(ctx, recheck)
			r, err := cli.Get(rctx, key)
			rcancel()
			if err == nil && (len(r.Kvs) == 0 || r.Kvs[0].ModRevision >= from) {
				return nil // gone, or made again since: campaign again
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Term is one leadership of this node.
type Term struct {
	// Token is the leader key's create revision: it grows with every
	// term, and the store fences writes by it.
	Token int64
	Name  string
	Won   time.Time // when the election was won

	lease  *Lease
	cli    *clientv3.Client
	key    string
	cancel context.CancelFunc
	done   chan struct{}
	ended  atomic.Bool
	once   sync.Once
	err    error
}

func startTerm(cfg Config, l *Lease, token int64) *Term {
	ctx, cancel := context.WithCancel(context.Background())
	t := &Term{Token: token, Name: cfg.Name, Won: time.Now(), lease: l, cli: cfg.Client, key: LeaderKey(cfg.Prefix), cancel: cancel, done: make(chan struct{})}
	go func() {
		err := l.KeepAlive(ctx, cfg.Healthy)
		if err == nil {
			err = ctx.Err()
		}
		t.end(err)
	}()
	go t.watch(ctx)
	go func() {
		// Ends the term when the lease's expiry passes by this node's
		// clock, whether or not a renewal is still under way.
		if err := l.lapse(ctx); err != nil {
			t.end(err)
		}
	}()
	return t
}

// watch ends the term when the leader key changes: deleted (by an
// operator, or its lease revoked) or written by anyone.
func (t *Term) watch(ctx context.Context) {
	for resp := range t.cli.Watch(ctx, t.key, clientv3.WithRev(t.Token+1)) {
		if err := resp.Err(); err != nil {
			t.end(err)
			return
		}
		if len(resp.Events) > 0 {
			t.end(ErrDeposed)
			return
		}
	}
}

func (t *Term) end(err error) {
	t.once.Do(func() {
		t.err = err
		t.ended.Store(true)
		close(t.done)
		t.cancel()
	})
}

// Done is closed when the term has ended, or may have: its lease lapsed
// by this node's clock, etcd lost the lease, the leader key changed, or
// Resign was called. After it is closed nothing may act as the leader.
func (t *Term) Done() <-chan struct{} { return t.done }

// Err says why the term ended (nil while it runs, and after Resign).
func (t *Term) Err() error {
	select {
	case <-t.done:
		return t.err
	default:
		return nil
	}
}

// Valid reports whether this node may still act as the leader: the term
// has not ended and its lease cannot have expired. A value handed out
// after a Valid that said true was handed out while no other node could
// lead.
func (t *Term) Valid() bool { return !t.ended.Load() && t.lease.Valid() }

// Expiry is the time before which no other node can be elected, unless
// this one resigns.
func (t *Term) Expiry() time.Time { return t.lease.Expiry() }

// Lease is the term's lease: what else the leader holds only while it
// leads (its node id: AcquireNodeID) is held under it.
func (t *Term) Lease() *Lease { return t.lease }

// Resign ends the term and hands leadership on at once: the leader key
// is deleted if it is still this term's, and the lease revoked.
func (t *Term) Resign(ctx context.Context) error {
	t.end(nil)
	_, err := t.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(t.key), "=", t.Token)).
		Then(clientv3.OpDelete(t.key)).
		Commit()
	if rerr := t.lease.Revoke(ctx); err == nil {
		err = rerr
	}
	return err
}
