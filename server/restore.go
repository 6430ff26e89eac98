package server

import (
	"context"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/seqd/seqd/cluster"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/storage/embedded"
	"github.com/seqd/seqd/storage/etcdstore"
)

// RestoreReport says what Restore did.
type RestoreReport struct {
	Sequences int
	StoreID   string // the new store's identity
	Bound     int64  // how many increments every sequence moved past its mark
	How       string // where Bound came from
}

// Bound is how far a restore moves every sequence past its durable mark
// in the backup. Values, when positive, is the operator's number of
// increments. Otherwise it is derived from the advance rate the backup
// recorded: RateFactor times the most the store's marks advanced in any
// engine.RateWindow while the server was watching, for every window in
// Time, how long the original may have served after the backup (0: from
// the backup until now, which holds if the original has stopped).
type Bound struct {
	Values int64
	Time   time.Duration
}

// RateFactor is the room a derived bound leaves over the recorded rate:
// the original may have gone faster after the backup than before.
const RateFactor = 2

// boundOf resolves a restore's bound against what the backup recorded,
// refusing where the rate is unknown.
func boundOf(b Bound, bk embedded.Backup, now time.Time) (int64, string, error) {
	if b.Values > 0 {
		return b.Values, "given with -bound", nil
	}
	need := "give -bound N (how many values any sequence may have handed out since the backup)"
	var peak int64
	var window, observed time.Duration
	found := false
	for _, n := range bk.Notes {
		var w, o string
		if _, err := fmt.Sscanf(n, "rate %d per %s observed %s", &peak, &w, &o); err == nil {
			var err1, err2 error
			window, err1 = time.ParseDuration(w)
			observed, err2 = time.ParseDuration(o)
			found = err1 == nil && err2 == nil && window > 0
		}
	}
	switch {
	case !found:
		return 0, "", fmt.Errorf("seqd restore: the backup records no advance rate (an older seqd took it): %s", need)
	case observed < window:
		return 0, "", fmt.Errorf("seqd restore: the advance rate is unknown: the server had run for %s when the backup was taken, less than the %s it measures over: %s", observed, window, need)
	case peak == 0:
		return 0, "", fmt.Errorf("seqd restore: the advance rate is unknown: no sequence advanced in the %s the server watched before the backup: %s", observed, need)
	}
	elapsed, since := b.Time, "given with -bound-time"
	if elapsed <= 0 {
		elapsed, since = now.Sub(bk.Taken), "since the backup was taken, "+bk.Taken.Format(time.RFC3339)
	}
	windows := int64(max(elapsed, 0)/window) + 1 // a part window counts whole, and at least one
	bound := int64(math.MaxInt64)
	if peak <= math.MaxInt64/RateFactor/windows {
		bound = RateFactor * peak * windows
	}
	how := fmt.Sprintf("%d x %d values per %s (the fastest the marks advanced in the %s the server watched) x %d windows of %s in %s (%s)",
		RateFactor, peak, window, observed, windows, window, elapsed.Round(time.Second), since)
	return bound, how, nil
}

// Restore makes a new store in dir from a backup (seqd_backup) that can
// never hand out a value the original may have handed out after the
// backup, as far as the bound holds: every sequence is moved the bound's
// increments past its durable mark in the backup (within its limits).
// Restore refuses when no bound can be had (none given and the rate
// unknown), when dir holds anything, and when from is no finished
// backup; the new store has an identity of its own.
func Restore(ctx context.Context, from, dir string, b Bound, logger *log.Logger) (RestoreReport, error) {
	var rep RestoreReport
	bk, err := embedded.ReadBackup(from)
	if err != nil {
		return rep, fmt.Errorf("seqd restore: %w", err)
	}
	bound, how, err := boundOf(b, bk, time.Now())
	if err != nil {
		return rep, err
	}
	rep.Bound, rep.How = bound, how
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return rep, fmt.Errorf("seqd restore: %s is not empty: a restore never writes over a store (live or not)", dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return rep, err
	}
	os.Remove(dir) // empty, if it exists
	if err := embedded.CopyBackup(from, dir); err != nil {
		return rep, err
	}
	st, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		return rep, err
	}
	eng, err := engine.Open(ctx, engine.Config{Store: st})
	if err != nil {
		st.Close()
		return rep, err
	}
	n, err := eng.MovePast(ctx, bound)
	rep.Sequences = n
	if err != nil {
		eng.Close()
		return rep, fmt.Errorf("seqd restore: %w (the partial store in %s must be removed)", err, dir)
	}
	if err := eng.Close(); err != nil {
		return rep, err
	}
	st2, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		return rep, err
	}
	rep.StoreID = st2.ID()
	if err := st2.Close(); err != nil {
		return rep, err
	}
	logger.Printf("restored %d sequences from %s into %s (store %s), each %d increments past its mark in the backup: %s", rep.Sequences, from, dir, rep.StoreID, bound, how)
	return rep, nil
}

// EtcdTarget is the etcd of a cluster, where RestoreCluster works.
type EtcdTarget struct {
	Endpoints []string
	Prefix    string // default "/seqd/"
	Security  EtcdSecurity
	// Wait is how long a leader key found there may take to lapse (one
	// restored from the snapshot, whose node is gone) before the restore
	// takes it for a live node's and refuses. Default 10 s; a cluster run
	// with a longer -lease-ttl needs that long.
	Wait time.Duration
}

// restoreTerm bounds how long RestoreCluster waits to lead: a node that
// leads meanwhile makes it give up.
const restoreTerm = 10 * time.Second

// RestoreCluster makes a cluster's data, brought back from an etcd
// snapshot (etcdctl snapshot restore), safe to serve: every sequence is
// moved bound increments past everything the data says it handed out
// (durable marks and NOORDER blocks), so that no node hands out again
// what the cluster handed out after the snapshot. It runs between etcd's
// restore and the nodes' start, as the cluster's leader for the while
// (a node starting meanwhile waits); a cluster that a node leads is
// refused. etcd's snapshot records no rate, so the bound is the
// operator's, and required.
func RestoreCluster(ctx context.Context, tgt EtcdTarget, bound int64, logger *log.Logger) (RestoreReport, error) {
	rep := RestoreReport{Bound: bound, How: "given with -bound"}
	if bound <= 0 {
		return rep, fmt.Errorf("seqd restore: a cluster restore needs -bound N (how many values any sequence may have handed out after the snapshot): etcd's snapshot records no rate")
	}
	if tgt.Prefix == "" {
		tgt.Prefix = "/seqd/"
	}
	cli, err := EtcdClient(tgt.Endpoints, tgt.Security)
	if err != nil {
		return rep, err
	}
	defer cli.Close()
	if tgt.Wait <= 0 {
		tgt.Wait = restoreTerm
	}
	// A leader key restored with the snapshot lapses with its lease,
	// which nobody renews; a live node's stays.
	for deadline := time.Now().Add(tgt.Wait); ; time.Sleep(200 * time.Millisecond) {
		lctx, cancel := context.WithTimeout(ctx, restoreTerm)
		name, _, err := cluster.Leader(lctx, cli, tgt.Prefix)
		cancel()
		if err != nil {
			return rep, fmt.Errorf("seqd restore: etcd: %w", err)
		}
		if name == "" {
			break
		}
		if time.Now().After(deadline) {
			return rep, fmt.Errorf("seqd restore: node %q leads the cluster under %s, and has for %s: a restore never writes over a live cluster; stop every node first", name, tgt.Prefix, tgt.Wait)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, restoreTerm)
	defer cancel()
	term, err := cluster.Campaign(cctx, cluster.Config{Client: cli, Prefix: tgt.Prefix, Name: "seqd restore", TTL: restoreTerm})
	if err != nil {
		return rep, fmt.Errorf("seqd restore: could not lead the cluster under %s within %s (a node leads it?): %w", tgt.Prefix, restoreTerm, err)
	}
	defer term.Resign(context.Background())
	st, err := etcdstore.Open(etcdstore.Config{Client: cli, Prefix: tgt.Prefix, Term: term.Token, Owner: "seqd restore", Timeout: restoreTerm})
	if err != nil {
		return rep, err
	}
	eng, err := engine.Open(ctx, engine.Config{Store: st, Leadership: term.Valid, MaxBatch: etcdstore.MaxOps})
	if err != nil {
		return rep, fmt.Errorf("seqd restore: %w", err)
	}
	n, err := eng.MovePast(ctx, bound)
	rep.Sequences = n
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return rep, fmt.Errorf("seqd restore: %w (%d sequences moved; run it again, with the same bound: moving again only leaves a gap)", err, n)
	}
	logger.Printf("restored the cluster under %s: %d sequences, each %d increments past where the snapshot left it", tgt.Prefix, n, bound)
	return rep, nil
}
