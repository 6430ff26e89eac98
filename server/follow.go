package server

import (
	"context"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/cluster"
	"github.com/seqd/seqd/storage"
	"google.golang.org/grpc/metadata"
)

// A follower does not read the whole store every snapshotInterval: it
// watches the records from the revision of its last full read, and each
// interval asks etcd, through a linearizable read of the leader key,
// where the store is now. If the watch has delivered every event up to
// that revision (etcd's progress notification says so) and each was a
// change the snapshot took in place as it came (engine.Follow: a
// leader's mark moving an ORDER sequence, a NOORDER range record), the
// node's snapshot is still the store: its NOORDER view is renewed as of
// that read, with no full read. Any other change to a record (a
// sequence made, dropped or altered, a role, a privilege), a watch that
// ends or lags, or an unanswered progress request means a full read,
// which starts the watch again after it.

// storeWatch is a watch on the store's records' changes after a
// revision. It watches from that revision itself, whose events it
// ignores: etcd answers a progress request only for watches caught up
// with the store, which a watch from a revision still to come is not.
type storeWatch struct {
	after  int64 // the revision the snapshot read at
	cancel context.CancelFunc
	ctx    context.Context // the watch stream's, for RequestProgress

	mu       sync.Mutex
	changed  bool  // a record changed in a way not applied, or the watch ended
	progress int64 // every event up to this revision has been delivered
	applied  int   // changes applied in place
	notify   chan struct{}
}

// watchStore starts a watch on the changes under prefix after revision
// after; apply is given each change (its key without prefix, a nil value
// for a delete) until one it does not take.
func watchStore(cli *clientv3.Client, prefix string, after int64, apply func(storage.KV) bool) *storeWatch {
	ctx, cancel := context.WithCancel(context.Background())
	// A stream of the watch's own (the client groups watches into
	// streams by their context's metadata, and a progress request is
	// answered to every watch on its stream), ended if etcd loses its
	// leader.
	ctx = clientv3.WithRequireLeader(metadata.AppendToOutgoingContext(ctx, "seqd-watch", "records"))
	w := &storeWatch{after: after, cancel: cancel, ctx: ctx, notify: make(chan struct{}, 1)}
	ch := cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(after))
	go func() {
		for r := range ch {
			w.mu.Lock()
			if r.Err() != nil || r.Canceled {
				w.changed = true
			}
			for _, ev := range r.Events {
				if ev.Kv.ModRevision <= after || w.changed {
					continue
				}
				kv := storage.KV{Key: strings.TrimPrefix(string(ev.Kv.Key), prefix), Rev: storage.Rev(ev.Kv.ModRevision)}
				if ev.Type == clientv3.EventTypePut {
					kv.Value = ev.Kv.Value
				}
				if apply(kv) {
					w.applied++
				} else {
					w.changed = true
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
		w.changed = true // ended: nothing more is known
		w.mu.Unlock()
	}()
	return w
}

// unchangedUpTo reports whether no record changed after w.after up to
// revision rev, waiting at most wait for etcd to confirm that every
// event up to rev was delivered.
func (w *storeWatch) unchangedUpTo(cli *clientv3.Client, rev int64, wait time.Duration) bool {
	ctx, cancel := context.WithTimeout(w.ctx, wait)
	defer cancel()
	// etcd answers a progress request only once the watch has caught up
	// (a new one has not yet): ask again until it does.
	ask := time.NewTicker(100 * time.Millisecond)
	defer ask.Stop()
	if err := cli.RequestProgress(w.ctx); err != nil {
		return false
	}
	for {
		w.mu.Lock()
		changed, progress := w.changed, w.progress
		w.mu.Unlock()
		if changed {
			return false
		}
		if progress >= rev {
			return true
		}
		select {
		case <-w.notify:
		case <-ask.C:
			if err := cli.RequestProgress(w.ctx); err != nil {
				return false
			}
		case <-ctx.Done():
			return false
		}
	}
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

// keepUp is a follower's turn, each snapshotInterval: a full read of the
// store when it changed (refresh), or else a renewal of the snapshot's
// NOORDER view as of a linearizable read of the leader key.
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
		at := time.Now()
		ctx, cancel := context.WithTimeout(n.ctx, n.cfg.LeaseTTL)
		r, err := n.cli.Get(ctx, cluster.LeaderKey(n.cfg.EtcdPrefix))
		cancel()
		if err == nil && w.unchangedUpTo(n.cli, r.Header.Revision, snapshotInterval/2) {
			name := ""
			if len(r.Kvs) > 0 {
				name = string(r.Kvs[0].Value)
			}
			n.ranges.Renew(at, eng)
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
	n.refresh()
}
