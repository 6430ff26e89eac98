// The clustered run's checks beyond the single node's: the largest skip
// at a failover, and the NOORDER sequence's burned values and waits.

package torture

import (
	"fmt"
	"sort"
	"time"
)

// check runs the checkers over the whole history: the scan checks each
// sequence's order across every failover (a value handed out after
// another completed must lie beyond it, whichever node gave either), and
// porcupine each sequence between failovers.
func (r *clusterRun) check(rep *ClusteredReport) {
	ops := r.h.Ops()
	seqs := make([]Seq, len(clusterSeqs))
	for i, s := range clusterSeqs {
		seqs[i] = s.Seq
	}
	for _, op := range ops {
		rep.Ops++
		rep.Outcomes[op.Outcome.String()]++
		rep.Values += len(op.Values)
	}
	rep.Violations = append(rep.Violations, r.violations...)
	rep.Leaderless = append(rep.Leaderless, r.leaderless...)
	rep.LostWrites = addCounts(rep.LostWrites, r.lostWrites)
	rep.Violations = append(rep.Violations, CheckUnique(ops)...)
	rep.Violations = append(rep.Violations, CheckOrder(ops, seqs)...)
	rep.Violations = append(rep.Violations, CheckNodeOrder(ops, noorderSeq.Name)...)
	began := time.Now()
	v, n, err := CheckLinearizable(ops, seqs, porcupineBudget(ops))
	rep.Porcupine, rep.PorcupineTime = n, time.Since(began)
	rep.Violations = append(rep.Violations, v...)
	if err != nil {
		rep.Violations = append(rep.Violations, err.Error())
	}
	// The largest skip in each sequence's values: a failover burns the
	// old leader's window, at most CACHE values, plus what requests of
	// unknown outcome may have taken unseen.
	rep.MaxGap = map[string]int64{}
	for _, s := range clusterSeqs {
		gap, v := CheckFailoverGap(ops, s.Name, s.cache)
		rep.MaxGap[s.Name] = gap
		rep.Violations = append(rep.Violations, v...)
	}
	r.checkNoOrder(ops, rep)
	r.orderGaps(ops, rep)
	r.mu.Lock()
	mysql := r.mysqlClients
	r.mu.Unlock()
	rep.MySQLValues, rep.MySQLUnavailable = r.clientsUnavailable(ops, mysql)
	rep.HTTPValues, rep.HTTPUnavailable = r.clientsUnavailable(ops, r.httpClients)
	rep.GRPCValues, rep.GRPCUnavailable = r.clientsUnavailable(ops, r.grpcClients)
}

// porcupineBudget is how long porcupine may search the ORDER sequences'
// history for: 2 minutes, and a minute more for each 100,000 of their
// operations. Porcupine already works a partition (a sequence, one
// second of history) at a time, so its work grows with the history's
// length; a fixed budget, enough for CI's run, ran out on a 160-fault
// soak's 1,021,296 operations. More time weakens nothing: a search that
// still does not end is reported as a violation, never passed. A soak
// longer than a budget is wise to wait for is cut into runs of their own
// instead (seqtorture -cluster-run).
func porcupineBudget(ops []Op) time.Duration {
	n := 0
	for _, op := range ops {
		if op.Seq != noorderSeq.Name {
			n++
		}
	}
	return 2*time.Minute + time.Duration(n)*time.Minute/100_000
}

// CheckFailoverGap bounds the largest skip in seq's values over a
// clustered run: a failover burns the old leader's window, at most cache
// values, plus what requests of unknown outcome may have taken unseen.
// It returns the largest skip and a violation if it is beyond that.
func CheckFailoverGap(ops []Op, seq string, cache int64) (int64, []string) {
	gap, unknown := maxGap(ops, seq)
	if gap > cache+unknown {
		return gap, []string{fmt.Sprintf("gap: %s skipped %d values at once, more than CACHE %d and the %d requests of unknown outcome", seq, gap, cache, unknown)}
	}
	return gap, nil
}

// CheckBurned bounds the values a NOORDER sequence never handed out below
// its largest one. Blocks are reserved in order from the start, so every
// value up to the largest was reserved; those never handed out are
// burned: for each node that died (kill -9, shutdown) and each node at
// the end, its unfinished block and the one it reserved ahead (a node
// holds at most two), and a block for each request of unknown outcome
// (its reservation may be unknown too). It returns how many were
// burned and a violation if beyond that.
func CheckBurned(ops []Op, seq string, block int64, deaths, nodes int) (int64, []string) {
	_, unknown := maxGap(ops, seq)
	seen := map[int64]bool{}
	top := int64(0)
	for _, op := range ops {
		if op.Seq == seq {
			for _, v := range op.Values {
				seen[v], top = true, max(top, v)
			}
		}
	}
	burned := top - int64(len(seen))
	if bound := block * (2*int64(deaths+nodes) + unknown); burned > bound {
		return burned, []string{fmt.Sprintf("burned: %s skipped %d values, more than two blocks (%d) for each of %d nodes that died and %d nodes, and one for each of %d requests of unknown outcome",
			seq, burned, block, deaths, nodes, unknown)}
	}
	return burned, nil
}

// checkNoOrder counts the NOORDER sequence's values, measures how long
// the nodes a fault was not applied to went without handing one out, and
// bounds its largest skip: every node's unfinished block, one block
// burned per failover, and what requests of unknown outcome took unseen.
func (r *clusterRun) checkNoOrder(ops []Op, rep *ClusteredReport) {
	byNode := map[int][]int64{} // the returns of OK values, per node
	for _, op := range ops {
		if op.Seq == noorderSeq.Name && op.Outcome == OK {
			byNode[op.Node] = append(byNode[op.Node], op.Return)
			rep.NoOrderValues += len(op.Values)
		}
	}
	for _, rs := range byNode {
		sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	}
	r.mu.Lock()
	windows := append([]faultWindow(nil), r.windows...)
	r.mu.Unlock()
	for _, w := range windows {
		longest := int64(0)
		for node, rs := range byNode {
			if node == w.node {
				continue
			}
			for i := 1; i < len(rs); i++ {
				if rs[i] >= w.from && rs[i-1] <= w.to {
					longest = max(longest, rs[i]-rs[i-1])
				}
			}
		}
		rep.NoOrderWait = append(rep.NoOrderWait, time.Duration(longest))
		if rep.NoOrderWaitMax == nil {
			rep.NoOrderWaitMax = map[string]time.Duration{}
		}
		rep.NoOrderWaitMax[w.fault] = max(rep.NoOrderWaitMax[w.fault], time.Duration(longest))
	}
	rep.MaxGap[noorderSeq.Name], _ = maxGap(ops, noorderSeq.Name)
	deaths := 0
	for _, w := range windows {
		if w.fault == LeaderKill || w.fault == LeaderTerm {
			deaths++
		}
	}
	var v []string
	rep.NoOrderBurned, v = CheckBurned(ops, noorderSeq.Name, noorderCache, deaths, r.cfg.Nodes)
	rep.Violations = append(rep.Violations, v...)
}

// maxGap is the most values seq skipped at one point of its history (its
// values sorted), and how many of its requests had an unknown outcome
// and no value.
func maxGap(ops []Op, seq string) (gap, unknown int64) {
	var vs []int64
	for _, op := range ops {
		if op.Seq != seq {
			continue
		}
		vs = append(vs, op.Values...)
		if op.Outcome == Unknown && len(op.Values) == 0 {
			unknown += max(op.Want, 1) // a range of unknown outcome may have taken all of it
		}
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	for i := 1; i < len(vs); i++ {
		gap = max(gap, vs[i]-vs[i-1]-1)
	}
	return gap, unknown
}
