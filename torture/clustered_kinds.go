// The clustered run's unavailability, fault kind by fault kind.

package torture

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// orderGaps measures, for each fault's window, the longest any ORDER
// sequence went without a value returned (the stretch between two
// returns that overlaps the window), and holds the faults of one etcd
// member or a minority of them to the lease and 2 s: a quorum stayed,
// and docs/cluster.md promises that much. A passed bound is reported
// apart from the violations, which are of what must never happen.
func (r *clusterRun) orderGaps(ops []Op, rep *ClusteredReport) {
	returns := map[string][]int64{}
	for _, op := range ops {
		if op.Outcome == OK && op.Seq != noorderSeq.Name && op.Client >= 0 {
			returns[op.Seq] = append(returns[op.Seq], op.Return)
		}
	}
	for _, rs := range returns {
		sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	}
	r.mu.Lock()
	windows := append([]faultWindow(nil), r.windows...)
	r.mu.Unlock()
	rep.OrderGap = map[string][]time.Duration{}
	bound := r.cfg.LeaseTTL + 2*time.Second
	for _, w := range windows {
		longest := time.Duration(0)
		for _, s := range clusterSeqs {
			longest = max(longest, longestGap(returns[s.Name], w.from, w.to))
		}
		rep.OrderGap[w.fault] = append(rep.OrderGap[w.fault], longest)
		if singleMember[w.fault] && longest > bound {
			rep.OverBound = append(rep.OverBound, fmt.Sprintf("%s at %v: ORDER values stopped for %v, over the lease + 2 s (%v)",
				w.fault, time.Duration(w.from).Round(time.Millisecond), longest.Round(time.Millisecond), bound))
		}
	}
}

// longestGap is the longest stretch between two of the sorted returns rs
// that overlaps [from, to]; with no return after to, the stretch runs to
// it.
func longestGap(rs []int64, from, to int64) time.Duration {
	longest := int64(0)
	last := int64(-1)
	for _, ret := range rs {
		if last >= 0 && ret >= from && last <= to {
			longest = max(longest, ret-last)
		}
		if ret > to {
			return time.Duration(longest)
		}
		last = ret
	}
	if last >= 0 && last <= to {
		longest = max(longest, to-max(last, from))
	}
	return time.Duration(longest)
}

// byKindString writes the unavailability of each kind of fault: the
// multi-host client's wait for a value from the fault's start, and the
// longest the ORDER sequences went without one while it held.
func (r *ClusteredReport) byKindString(b *strings.Builder) {
	if len(r.ByKind) == 0 {
		return
	}
	fmt.Fprintf(b, "by kind: faults, first value after (p50 / max), ORDER values stopped (p50 / max):\n")
	for _, k := range sortedKeys(r.ByKind) {
		fmt.Fprintf(b, "  %-50s %3d  %s  %s\n", k, len(r.ByKind[k]), p50Max(r.ByKind[k]), p50Max(r.OrderGap[k]))
	}
	fmt.Fprintf(b, "single etcd member or minority faults over the lease + 2 s: %d\n", len(r.OverBound))
	for _, o := range r.OverBound {
		fmt.Fprintf(b, "  %s\n", o)
	}
}

func p50Max(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return fmt.Sprintf("%v / %v", s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
}
