package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/cluster"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/storage/etcdstore"
)

// node is cluster mode: the engine this node serves, and whether as the
// leader or as a standby (a read-only snapshot of the store).
type node struct {
	cli    *clientv3.Client
	eps    *etcdstore.Endpoints // cli's members and its tries' deadlines
	cfg    Config
	log    *log.Logger
	fronts func() []frontEnd
	ctx    context.Context // canceled by Shutdown
	cancel context.CancelFunc
	loop   chan struct{} // closed when lead returns
	// ranges serves the NOORDER sequences from this node's blocks, in
	// every engine it opens, leader's or standby's.
	ranges *engine.Ranges

	mu      sync.Mutex
	eng     *engine.Engine
	standby bool
	// served is eng and standby as of their last change (publishLocked),
	// which current reads without mu: every standby session asks at
	// every query.
	served  atomic.Pointer[served]
	term    *cluster.Term // while leading
	metrics *clusterMetrics
	retired []*engine.Engine // snapshots replaced, closed once no session uses them
	freed   time.Time        // when closeRetired last handed memory back
	unfreed int              // sequences of the engines closed since
	// contact is when a follower last read the store and the leader key
	// (by the NOORDER ranges' clock, which counts suspended time);
	// leader is the leader it found then ("": none).
	contact time.Duration
	leader  string
	// snapRev is the store revision the newest snapshot read at, under
	// snapPrefix; watch follows the records from the revision after it
	// while the node follows (follow.go).
	snapRev    int64
	snapPrefix string
	watch      *storeWatch
	// apis caches the nodes' API addresses (forward.go).
	apis apiCache
}

// startNode connects to etcd and opens the first snapshot; lead then
// campaigns.
func startNode(ctx context.Context, cfg Config, fronts func() []frontEnd) (*node, error) {
	cli, eps, err := etcdClient(cfg.Etcd, cfg.EtcdSecurity, cfg.LeaseTTL)
	if err != nil {
		return nil, err
	}
	n := &node{cli: cli, eps: eps, cfg: cfg, log: cfg.Logger, fronts: fronts, loop: make(chan struct{})}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	rst, err := etcdstore.Open(etcdstore.Config{Client: cli, Prefix: cfg.EtcdPrefix, Timeout: cfg.LeaseTTL})
	if err != nil {
		cli.Close()
		return nil, err
	}
	n.ranges = engine.NewRanges(rst, noorderLease, cluster.SystemClock.Now)
	snap, err := n.firstSnapshot(ctx)
	if err != nil {
		cli.Close()
		return nil, err
	}
	n.mu.Lock()
	n.eng, n.standby = snap, true
	n.publishLocked()
	n.mu.Unlock()
	n.see(ctx)
	return n, nil
}

// startWait is how long a node starting waits for etcd to answer its
// first read: members still starting or electing (a cluster started at
// once, as a deployment or a test starts it) answer within seconds.
const startWait = 30 * time.Second

// firstSnapshot is the node's first read of the store, tried again while
// etcd is unavailable (no leader yet, a member not answering within the
// try's deadline) for up to startWait, and at once an error for what
// waiting does not mend: a TLS or password refusal, a store this
// version cannot read.
func (n *node) firstSnapshot(ctx context.Context) (*engine.Engine, error) {
	deadline := time.Now().Add(startWait)
	for {
		snap, err := n.snapshot(ctx)
		if err == nil {
			return snap, nil
		}
		if why := diagnoseEtcd(n.cfg.Etcd, n.cfg.EtcdSecurity); why != "" {
			return nil, fmt.Errorf("%w (%s)", err, why)
		}
		if !etcdstore.Unavailable(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, err
		}
		n.log.Printf("cluster: etcd did not answer the first read of the store (%v); trying again", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(n.cfg.LeaseTTL / 4):
		}
	}
}

// see notes which node leads, as a follower's readiness reports it.
func (n *node) see(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.LeaseTTL)
	defer cancel()
	name, _, err := cluster.Leader(ctx, n.cli, n.cfg.EtcdPrefix)
	if err != nil {
		return
	}
	n.mu.Lock()
	n.contact, n.leader = n.ranges.Now(), name
	n.mu.Unlock()
}

// ready is /readyz in cluster mode: nil while the node leads with a valid
// term and a sound store, or follows with a recent view of the store
// that shows a leader; the text says which.
func (n *node) ready() (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.standby {
		if n.term == nil || !n.term.Valid() {
			return "", errors.New("seqd: the leader's term has ended")
		}
		if err := n.eng.Healthy(); err != nil {
			return "", err
		}
		return "leader " + n.cfg.NodeName, nil
	}
	if since := n.ranges.Now() - n.contact; since > 2*snapshotInterval+n.cfg.LeaseTTL {
		return "", fmt.Errorf("seqd: no view of the cluster for %s (etcd unreachable)", since.Round(time.Millisecond))
	}
	if n.leader == "" {
		return "", errors.New("seqd: no leader elected")
	}
	return "standby; leader " + n.leader, nil
}

// leading reports whether the node leads now.
func (n *node) leading() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return !n.standby
}

// frontEnd is a protocol's server, as cluster mode moves its sessions
// between engines (pgwire's and mysqlwire's).
type frontEnd interface {
	StopEngine(*engine.Engine)
	Uses(*engine.Engine) bool
}

// stopEngine ends every front end's sessions on eng.
func (n *node) stopEngine(eng *engine.Engine) {
	for _, f := range n.fronts() {
		f.StopEngine(eng)
	}
}

// uses reports whether a session of any front end serves eng.
func (n *node) uses(eng *engine.Engine) bool {
	for _, f := range n.fronts() {
		if f.Uses(eng) {
			return true
		}
	}
	return false
}

// endReason names why a term ended, for the metrics.
func endReason(err error) string {
	switch {
	case errors.Is(err, cluster.ErrLeaseLost):
		return "lease"
	case errors.Is(err, cluster.ErrDeposed):
		return "deposed"
	case err == nil:
		return "resigned"
	}
	return "error"
}

// current is what a new connection serves.
func (n *node) current() (*engine.Engine, bool) {
	v := n.served.Load()
	return v.eng, v.standby
}

// served is what a node serves: its engine, and whether as a standby.
type served struct {
	eng     *engine.Engine
	standby bool
}

// publishLocked makes n.eng and n.standby what current returns.
// REQUIRES: n.mu.
func (n *node) publishLocked() { n.served.Store(&served{n.eng, n.standby}) }

// readStore is the store as a node that does not own it reads it: for
// its snapshots and what its watch cannot tell alone.
func (n *node) readStore() (*etcdstore.Store, error) {
	return etcdstore.Open(etcdstore.Config{Client: n.cli, Prefix: n.cfg.EtcdPrefix, Timeout: n.cfg.LeaseTTL})
}

// snapshot opens a read-only engine over the store as it is now, and
// makes it the node's view of its NOORDER sequences.
func (n *node) snapshot(ctx context.Context) (*engine.Engine, error) {
	st, err := n.readStore()
	if err != nil {
		return nil, err
	}
	at := n.ranges.Now()
	e, err := engine.Open(ctx, engine.Config{Store: st, ReadOnly: true, Ranges: n.ranges, Lineage: n})
	if err == nil {
		n.ranges.Observe(at, e)
		n.mu.Lock()
		n.snapRev, n.snapPrefix = st.Loaded(), st.DataPrefix()
		n.mu.Unlock()
		if n.metrics != nil {
			n.metrics.snapshots.Inc()
		}
	}
	return e, err
}

// snapshotInterval is how often a follower reads the store again for
// the sessions that connect to it.
const snapshotInterval = 2 * time.Second

// noorderLease is how long a node that does not lead serves NOORDER
// sequences after its last read of the store (two refreshes and a
// second), and how long a DROP of one waits before it returns.
const noorderLease = 2*snapshotInterval + time.Second

// takeOver opens the store as the owner in term: from the node's
// snapshot when its watch shows it to be the store as of a read after
// the term began (engine.Promote: no full read, so a takeover does not
// grow with the number of sequences), else by reading the store. The
// watch ends either way. promoted says which.
func (n *node) takeOver(term *cluster.Term, onCommit func(int, time.Duration)) (eng *engine.Engine, promoted bool, err error) {
	defer n.stopWatch()
	nodeID, err := n.acquireNodeID(term)
	if err != nil {
		return nil, false, err
	}
	open := func() (engine.Config, error) {
		// Ended: a leader cut off from etcd refuses the requests that
		// wait for a write when its term ends, rather than holding them
		// for the store's timeout.
		st, err := etcdstore.Open(etcdstore.Config{Client: n.cli, Prefix: n.cfg.EtcdPrefix, Term: term.Token, Owner: n.cfg.NodeName, Timeout: n.cfg.LeaseTTL,
			Ended: term.Done()})
		return engine.Config{Store: st, OnCommit: onCommit, Leadership: term.Valid, MaxBatch: etcdstore.MaxOps, Ranges: n.ranges, Lineage: n, MaxTxnLocks: n.cfg.MaxTxnLocks,
			NodeID: nodeID, WallClock: n.cfg.WallClock, OnClockBehind: logClockBehind(n.log)}, err
	}
	n.mu.Lock()
	snap, w := n.eng, n.watch
	if w != nil && (w.after != n.snapRev || !snap.ReadOnly()) {
		w = nil // the watch is of an older snapshot
	}
	n.mu.Unlock()
	if w != nil && w.hasPending() {
		// Changes the snapshot could not take (DDL since the last
		// turn): derive the snapshot they make, and watch from it.
		snap, w = n.deriveNow(snap, w)
	}
	if w != nil {
		cfg, err := open()
		if err != nil {
			return nil, false, err
		}
		// current: every change up to a linearizable read made after
		// the store was acquired (the last leader's writes all came
		// before: they are fenced by the leader key this term made) was
		// delivered by the watch and taken in place by the snapshot.
		current := func(ctx context.Context) bool {
			ctx, cancel := context.WithTimeout(ctx, n.cfg.LeaseTTL)
			defer cancel()
			r, err := n.cli.Get(ctx, cluster.LeaderKey(n.cfg.EtcdPrefix))
			if err != nil {
				return false
			}
			changes, ok := n.storeAt(w, r.Header.Revision, snapshotInterval/2)
			return ok && changes == nil
		}
		eng, err = engine.Promote(n.ctx, cfg, snap, current)
		if err == nil {
			return eng, true, nil
		}
		cfg.Store.Close()
		if !errors.Is(err, engine.ErrStale) {
			n.log.Printf("cluster: taking over from this node's snapshot: %v (reading the store instead)", err)
		}
	}
	cfg, err := open()
	if err == nil {
		eng, err = engine.Open(n.ctx, cfg)
	}
	return eng, false, err
}

// acquireNodeID takes the node part of the SNOWFLAKE ids the leader of
// term hands out: the lowest node id no live node holds in etcd, under
// the term's lease (cluster.AcquireNodeID), so that it is held exactly
// while the term is: a leader whose lease lapsed issues nothing (its
// term is over), and a node id is another leader's only once it has.
// Ids are unique and ordered whatever their node parts (one counter,
// each owner on a time unit of its own): the node part tells which
// node handed an id out, and two leaders that overlap (one cut off
// from etcd, its lease not yet expired) never show one node part.
func (n *node) acquireNodeID(term *cluster.Term) (int64, error) {
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.LeaseTTL)
	defer cancel()
	id, err := cluster.AcquireNodeID(ctx, n.cli, n.cfg.EtcdPrefix, n.cfg.NodeName, MaxNodeID, term.Lease())
	if err != nil {
		return 0, fmt.Errorf("taking a node id: %w", err)
	}
	return id.ID, nil
}

// lead campaigns, leads while its term is valid, and campaigns again,
// until Shutdown. While it follows, it refreshes its snapshot.
func (n *node) lead(onCommit func(int, time.Duration)) {
	defer close(n.loop)
	for n.ctx.Err() == nil {
		campaign, stop := context.WithCancel(n.ctx)
		won := make(chan *cluster.Term, 1)
		go func() {
			t, err := cluster.Campaign(campaign, cluster.Config{Client: n.cli, Prefix: n.cfg.EtcdPrefix, Name: n.cfg.NodeName,
				TTL: n.cfg.LeaseTTL, Healthy: n.healthy, Tries: n.eps})
			if err == nil {
				won <- t
			}
			close(won)
		}()
		var term *cluster.Term
	follow:
		for {
			select {
			case term = <-won:
				break follow
			case <-time.After(snapshotInterval):
				n.keepUp()
			}
		}
		stop()
		if term == nil {
			n.stopWatch()
			return // shut down
		}
		began := time.Now()
		eng, promoted, err := n.takeOver(term, onCommit)
		if err == nil {
			cfg := n.cfg
			err = bootstrap(n.ctx, eng, &cfg)
		}
		if err != nil {
			n.log.Printf("cluster: could not take over in term %d: %v", term.Token, err)
			if eng != nil {
				eng.Close()
			}
			n.resign(term)
			continue
		}
		from := "reading the store"
		if promoted {
			from = "from its snapshot"
			n.metrics.promoted.Inc()
		}
		n.log.Printf("cluster: %s leads (term %d, node id %d), serving %d sequences (took over %s in %v, %v after its election)", n.cfg.NodeName, term.Token, eng.NodeID(), eng.Count(),
			from, time.Since(began).Round(time.Millisecond), time.Since(term.Won).Round(time.Millisecond))
		n.metrics.terms.Inc()
		n.mu.Lock()
		snap := n.eng
		n.eng, n.standby, n.term = eng, false, term
		n.publishLocked()
		n.retired = append(n.retired, snap)
		n.mu.Unlock()
		n.stopEngine(snap) // its sessions reconnect to the leader: here

		ok, validAt := n.serve(term, eng)
		if !ok {
			return // Shutdown closes the engine while the term is valid
		}
		// The leader's catalog was the cluster's while its term was
		// valid: the node's view of its NOORDER sequences, as of then,
		// until it reads the store again (it may be cut off from etcd).
		n.ranges.Observe(validAt, eng)
		n.log.Printf("cluster: term %d ended: %v", term.Token, term.Err())
		n.metrics.ends.WithLabelValues(endReason(term.Err())).Inc()
		if term.Err() != nil {
			// A term that lapsed by this node's clock (renewals failed
			// while etcd elected, or the machine was suspended) may
			// still hold the leader key at etcd, until etcd expires the
			// lease: give it back as soon as etcd answers, so that the
			// next leader need not wait for that. Only this term's key
			// is deleted.
			go n.resign(term)
		}
		// Stand by at once, before the store can be read again (etcd
		// may be out of reach): new sessions are a standby's, on what
		// the leader's engine holds (every write refused), and the
		// leader's sessions end, so that clients looking for the leader
		// move on. The engine writes nothing more: the term is over.
		n.mu.Lock()
		n.standby, n.term = true, nil
		n.publishLocked()
		n.mu.Unlock()
		n.stopEngine(eng)
		snap = nil
		for n.ctx.Err() == nil {
			snap, err = n.snapshot(n.ctx)
			if err == nil {
				break
			}
			n.log.Printf("cluster: reading the store: %v", err)
			time.Sleep(200 * time.Millisecond)
		}
		if snap != nil {
			n.mu.Lock()
			n.retired = append(n.retired, n.eng) // closed by closeRetired once unused
			n.eng = snap
			n.publishLocked()
			n.mu.Unlock()
			n.see(n.ctx)
		}
	}
}

// serve waits while the node leads: false at Shutdown, true once the
// term has ended. A leader whose store write failed (its outcome unknown,
// the sequence refusing to serve) resigns at once, so that another node
// takes over from what the store holds, instead of keeping a term it
// cannot serve in.
//
// validAt is the last time serve saw the term valid (by the NOORDER
// ranges' clock): no other node can have led before it.
//
// The node's view of its NOORDER sequences (engine.Ranges) is what its
// engine serves them by once it no longer leads; made when the node
// took over, it would not hold a NOORDER sequence created in the term,
// and the engine, its term just ended, would refuse it as changed
// (40001) until the view is made again as the term ends. So serve makes
// it again from the leader's catalog about every second while that
// changes, and before it resigns.
func (n *node) serve(term *cluster.Term, eng *engine.Engine) (ok bool, validAt time.Duration) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	validAt = n.ranges.Now()
	ticks := 0
	observed := eng.CatalogVersion()
	for {
		select {
		case <-term.Done():
			return true, validAt
		case <-n.ctx.Done():
			return false, validAt
		case <-tick.C:
			valid := false
			if now := n.ranges.Now(); term.Valid() {
				validAt, valid = now, true
			}
			// The snapshot the term began from, once its sessions
			// have gone.
			if ticks++; ticks%10 == 0 {
				n.closeRetired()
				if v := eng.CatalogVersion(); valid && v != observed {
					observed = v
					n.ranges.Observe(validAt, eng)
				}
			}
			if err := eng.Healthy(); err != nil {
				if valid {
					n.ranges.Observe(validAt, eng)
				}
				n.log.Printf("cluster: resigning term %d: %v", term.Token, err)
				n.resign(term)
				return true, validAt
			}
		}
	}
}

// healthy is the campaign's Healthy: a leader renews its lease only while
// its store writes succeed.
func (n *node) healthy() bool {
	n.mu.Lock()
	eng, standby := n.eng, n.standby
	n.mu.Unlock()
	return standby || eng.Healthy() == nil
}

// refresh replaces the follower's snapshot by a newer one, for the
// sessions that connect from now on, and closes the replaced snapshots no
// session uses any more.
func (n *node) refresh() {
	snap, err := n.snapshot(n.ctx)
	if err != nil {
		return
	}
	n.see(n.ctx)
	n.mu.Lock()
	if !n.standby {
		n.mu.Unlock()
		snap.Close()
		return
	}
	n.retired = append(n.retired, n.eng)
	n.eng = snap
	n.publishLocked()
	n.mu.Unlock()
	n.closeRetired()
}

// closeRetired closes the engines the node replaced that no session uses
// any more, and hands the memory of large ones back to the system (at
// most once a minute: it costs a collection; memory closed within the
// minute is handed back at the first call after it), so that a node at
// a million sequences does not go on holding two snapshots' worth.
func (n *node) closeRetired() {
	n.mu.Lock()
	retired := n.retired
	n.retired = nil
	n.mu.Unlock()
	// A connection takes its engine from current under the protocol
	// server's lock (pgwire.Config.Node), so one that took a replaced
	// engine already shows in Uses.
	var keep []*engine.Engine
	closed := 0
	for _, e := range retired {
		if n.uses(e) {
			keep = append(keep, e)
			continue
		}
		closed += e.Count()
		e.Close()
	}
	n.mu.Lock()
	n.retired = append(n.retired, keep...)
	n.mu.Unlock()
	if n.unfreed += closed; n.unfreed >= freeAfterSequences && time.Since(n.freed) >= time.Minute {
		n.freed, n.unfreed = time.Now(), 0
		go debug.FreeOSMemory()
	}
}

// freeAfterSequences is how many sequences the engines closed at once
// must hold for their memory to be handed back to the system at once.
const freeAfterSequences = 100_000

// discard closes a node whose lead never started.
func (n *node) discard() {
	close(n.loop)
	n.close()
}

// resign hands leadership on; it reports whether etcd took it (if not,
// the lease lapses within its TTL).
func (n *node) resign(t *cluster.Term) bool {
	// No longer than the lease: past it, the lease has lapsed anyway.
	ctx, cancel := context.WithTimeout(context.Background(), n.cfg.LeaseTTL)
	defer cancel()
	if err := t.Resign(ctx); err != nil {
		n.log.Printf("cluster: resigning term %d: %v (its lease lapses within %v)", t.Token, err, n.cfg.LeaseTTL)
		return false
	}
	return true
}

// close ends the node after the protocol server has stopped: the
// leader's engine writes its clean-shutdown records while the term is
// still valid, then the term is resigned so that another node takes
// over at once.
func (n *node) close() error {
	n.cancel()
	<-n.loop
	n.mu.Lock()
	eng, term := n.eng, n.term
	engines := append(n.retired, eng)
	n.mu.Unlock()
	var errs []error
	for _, e := range engines {
		if err := e.Close(); err != nil && e == eng {
			errs = append(errs, err)
		}
	}
	if term != nil {
		n.metrics.ends.WithLabelValues("resigned").Inc()
	}
	if term != nil && n.resign(term) {
		n.log.Printf("cluster: %s resigned (term %d)", n.cfg.NodeName, term.Token)
	}
	errs = append(errs, n.cli.Close())
	return errors.Join(errs...)
}
