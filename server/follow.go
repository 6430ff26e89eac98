package server

import (
	"context"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/cluster"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/storage"
	"google.golang.org/grpc/metadata"
)

// A follower does not read the whole store every snapshotInterval: it
// watches the records from the revision of its last read, and each
// interval asks etcd, through a linearizable read of the leader key,
// where the store is now. If the watch has delivered every event up to
// that revision (etcd's progress notification says so) and each was a
// change the snapshot took in place as it came (engine.Follow: a
// leader's mark moving an ORDER sequence, a NOORDER range record), the
// node's snapshot is still the store: its NOORDER view is renewed as of
// that read, with no full read. From the first change it cannot take in
// place (a sequence made, dropped or altered, a role, a privilege), the
// watch keeps the changes instead, and the node derives a new snapshot
// from its current one and them (engine.Derive: a copy, no read of the
// store). Both look at the pending key too (one small read): a commit
// of more records than etcd takes in one transaction is made at one
// revision and its records written after it in many (staged), so that
// a commit made since the last look is put in whole, as a full read
// would, and no view shows part of it, or misses it while its records
// are still to be written (storeAt). A watch that ends, lags or keeps
// more than maxPending changes, or an unanswered progress request,
// means a full read, which starts the watch again after it.

// maxPending bounds the changes a watch keeps for a derived snapshot, by
// count and by bytes: more means a full read (a migration of a million
// sequences is cheaper to read than to keep as events).
const (
	maxPending      = 65536
	maxPendingBytes = 64 << 20
)

// storeWatch is a watch on the store's records' changes after a
// revision. It watches from that revision itself, whose events it
// ignores: etcd answers a progress request only for watches caught up
// with the store, which a watch from a revision still to come is not.
type storeWatch struct {
	after  int64 // the revision the snapshot read at
	cancel context.CancelFunc
	ctx    context.Context // the watch stream's, for RequestProgress

	mu sync.Mutex
	// lost: the watch ended or kept too many changes; only a full read
	// knows the store.
	lost bool
	// pending are the changes from the first one not applied in place,
	// in the order delivered; pendingBytes their keys' and values' size.
	pending      []storage.KV
	pendingBytes int
	progress     int64 // every event up to this revision has been delivered
	applied      int   // changes applied in place
	notify       chan struct{}
}

// watchStore starts a watch on the changes under prefix after revision
// after; apply is given each change (its key without prefix, a nil value
// for a delete) until one it does not take, which the watch keeps with
// every change after it.
func watchStore(cli *clientv3.Client, prefix string, after int64, apply func(storage.KV) bool) *storeWatch {
	return watchStoreLimited(cli, prefix, after, apply, maxPending, maxPendingBytes)
}

// watchStoreLimited is watchStore keeping at most limit changes, of at
// most limitBytes, for a derived snapshot.
func watchStoreLimited(cli *clientv3.Client, prefix string, after int64, apply func(storage.KV) bool, limit, limitBytes int) *storeWatch {
	ctx, cancel := context.WithCancel(context.Background())
	// A stream of the watch's own (the client groups watches into
	// streams by their context's metadata, and a progress request is
	// answered to every watch on its stream), ended if etcd loses its
	// leader.
	ctx = clientv3.WithRequireLeader(metadata.AppendToOutgoingContext(ctx, "seqd-watch", "records"))
	w := &storeWatch{after: after, cancel: cancel, ctx: ctx, notify: make(chan struct{}, 1)}
	go func() {
		// Watch, in the goroutine: it returns only once etcd has taken
		// the request on a stream, which with etcd out of reach is when
		// stop cancels ctx. The caller (keepUp, under the node's lock)
		// must not wait for it: /readyz and Shutdown take that lock.
		ch := cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(after))
		for r := range ch {
			w.mu.Lock()
			if r.Err() != nil || r.Canceled {
				w.loseLocked()
			}
			for _, ev := range r.Events {
				if ev.Kv.ModRevision <= after || w.lost {
					continue
				}
				kv := storage.KV{Key: strings.TrimPrefix(string(ev.Kv.Key), prefix), Rev: storage.Rev(ev.Kv.ModRevision)}
				if ev.Type == clientv3.EventTypePut {
					kv.Value = ev.Kv.Value
				}
				switch {
				case len(w.pending) == 0 && apply(kv):
					w.applied++
				case len(w.pending) == limit || w.pendingBytes+len(kv.Key)+len(kv.Value) > limitBytes:
					w.loseLocked()
				default:
					w.pending = append(w.pending, kv)
					w.pendingBytes += len(kv.Key) + len(kv.Value)
				}
			}
			if r.IsProgressNotify() && r.Header.Revision > w.progress {
				w.progress = r.Header.Revision
			}
			w.mu.Unlock()
			select {
			case w.notify <- struct{}{}:
			default:
			}
		}
		w.mu.Lock()
		w.loseLocked() // ended: nothing more is known
		w.mu.Unlock()
	}()
	return w
}

func (w *storeWatch) loseLocked() { w.lost, w.pending, w.pendingBytes = true, nil, 0 }

// upTo waits at most wait for etcd to confirm that every event up to
// revision rev was delivered; ok is false if it does not, or if the
// watch was lost. Then changes are those up to rev that the snapshot
// did not take in place, in order: nil if there were none.
func (w *storeWatch) upTo(cli *clientv3.Client, rev int64, wait time.Duration) (changes []storage.KV, ok bool) {
	ctx, cancel := context.WithTimeout(w.ctx, wait)
	defer cancel()
	// etcd answers a progress request only once the watch has caught up
	// (a new one has not yet): ask again until it does.
	ask := time.NewTicker(100 * time.Millisecond)
	defer ask.Stop()
	// ctx, not w.ctx: a request waits for the stream to take it, which
	// with etcd out of reach is never. Its metadata names the same stream.
	if err := cli.RequestProgress(ctx); err != nil {
		return nil, false
	}
	for {
		w.mu.Lock()
		lost, progress := w.lost, w.progress
		if !lost && progress >= rev {
			for _, kv := range w.pending {
				if int64(kv.Rev) > rev {
					break
				}
				changes = append(changes, kv)
			}
		}
		w.mu.Unlock()
		if lost {
			return nil, false
		}
		if progress >= rev {
			return changes, true
		}
		select {
		case <-w.notify:
		case <-ask.C:
			if err := cli.RequestProgress(ctx); err != nil {
				return nil, false
			}
		case <-ctx.Done():
			return nil, false
		}
	}
}

// storeAt is what changed in the store after the revision w follows
// from up to revision rev, for a snapshot that took the rest in place:
// the changes w kept, and a large commit made in that span (whose
// records its writer may be still applying) whole, as a read of the
// store at rev sees it (etcdstore.Store.ChangesAt). ok is false if etcd
// did not confirm within wait that w delivered every change up to rev,
// if w was lost, or if the store could not be read.
func (n *node) storeAt(w *storeWatch, rev int64, wait time.Duration) (changes []storage.KV, ok bool) {
	kept, ok := w.upTo(n.cli, rev, wait)
	if !ok {
		return nil, false
	}
	st, err := n.readStore()
	if err != nil {
		return nil, false
	}
	defer st.Close()
	changes, err = st.ChangesAt(n.ctx, kept, w.after, rev)
	if err != nil {
		n.log.Printf("cluster: %v (reading the store instead)", err)
		return nil, false
	}
	return changes, true
}

// hasPending reports whether the watch holds changes the snapshot did
// not take.
func (w *storeWatch) hasPending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending) > 0
}

// takeApplied returns the changes applied since it was last called.
func (w *storeWatch) takeApplied() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.applied
	w.applied = 0
	return n
}

func (w *storeWatch) stop() { w.cancel() }

// stopWatch ends the follower's watch: the node leads, or shuts down.
func (n *node) stopWatch() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.watch != nil {
		n.watch.stop()
		n.watch = nil
	}
}

// keepUp is a follower's turn, each snapshotInterval: a renewal of the
// snapshot's NOORDER view as of a linearizable read of the leader key
// when its watch shows the store unchanged, a snapshot derived from the
// current one and the watch's changes when it shows them all, or else a
// full read of the store (refresh).
func (n *node) keepUp() {
	n.mu.Lock()
	eng, rev, prefix := n.eng, n.snapRev, n.snapPrefix
	if n.watch != nil && n.watch.after != rev {
		n.watch.stop()
		n.watch = nil
	}
	if n.watch == nil && rev > 0 {
		n.watch = watchStore(n.cli, prefix, rev, eng.Follow)
	}
	w := n.watch
	n.mu.Unlock()
	if w != nil {
		at := n.ranges.Now()
		ctx, cancel := context.WithTimeout(n.ctx, n.cfg.LeaseTTL)
		r, err := n.cli.Get(ctx, cluster.LeaderKey(n.cfg.EtcdPrefix))
		cancel()
		if err == nil {
			if changes, ok := n.storeAt(w, r.Header.Revision, snapshotInterval/2); ok {
				name := ""
				if len(r.Kvs) > 0 {
					name = string(r.Kvs[0].Value)
				}
				if changes == nil {
					n.ranges.Renew(at, eng)
				} else if !n.derive(eng, w, changes, r.Header.Revision, at) {
					n.refresh()
					return
				}
				n.mu.Lock()
				n.contact, n.leader = at, name
				n.mu.Unlock()
				n.metrics.followerChecks.Inc()
				n.metrics.followerApplied.Add(float64(w.takeApplied()))
				// Snapshots replaced while a session used them are closed
				// once it has moved on, also while the store is at rest.
				n.closeRetired()
				return
			}
		}
	}
	n.refresh()
}

// derive replaces the follower's snapshot eng by one derived from it and
// changes, the store as of revision rev, which etcd confirmed after at;
// the watch w, whose changes they are, gives way to one from rev. It
// reports false if that failed, or if the node leads now.
func (n *node) derive(eng *engine.Engine, w *storeWatch, changes []storage.KV, rev int64, at time.Duration) bool {
	st, err := n.readStore()
	if err != nil {
		return false
	}
	d, err := eng.Derive(n.ctx, engine.Config{Store: st, ReadOnly: true, Ranges: n.ranges, Lineage: n}, changes)
	if err != nil {
		n.log.Printf("cluster: deriving a snapshot from %d changes: %v (reading the store instead)", len(changes), err)
		return false
	}
	n.ranges.Observe(at, d)
	n.mu.Lock()
	if !n.standby || n.eng != eng || n.watch != w {
		n.mu.Unlock()
		d.Close()
		return false
	}
	n.watch.stop()
	n.snapRev = rev
	n.watch = watchStore(n.cli, n.snapPrefix, rev, d.Follow)
	n.retired = append(n.retired, n.eng)
	n.eng = d
	n.publishLocked()
	n.mu.Unlock()
	if n.metrics != nil {
		n.metrics.derived.Inc()
	}
	return true
}

// deriveNow is a taking over's derive: the snapshot derived from snap
// and the changes its watch w holds up to a linearizable read, and a
// watch from there; nil, nil if that could not be done (the caller
// reads the store).
func (n *node) deriveNow(snap *engine.Engine, w *storeWatch) (*engine.Engine, *storeWatch) {
	at := n.ranges.Now()
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.LeaseTTL)
	r, err := n.cli.Get(ctx, cluster.LeaderKey(n.cfg.EtcdPrefix))
	cancel()
	if err != nil {
		return nil, nil
	}
	changes, ok := n.storeAt(w, r.Header.Revision, snapshotInterval/2)
	if !ok {
		return nil, nil
	}
	if changes != nil && !n.derive(snap, w, changes, r.Header.Revision, at) {
		return nil, nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.eng, n.watch
}
