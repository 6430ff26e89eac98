// Clustered reports added together: a long soak run as several runs.

package torture

import (
	"slices"
	"time"
)

// Add adds o, the report of another run (its own cluster, its own
// history, checked on its own), to r: the counts summed, the
// measurements pooled, the largest kept.
func (r *ClusteredReport) Add(o *ClusteredReport) {
	r.Sequences = max(r.Sequences, o.Sequences)
	r.Ops += o.Ops
	r.Values += o.Values
	r.Porcupine += o.Porcupine
	r.PorcupineTime += o.PorcupineTime
	r.NoOrderValues += o.NoOrderValues
	r.NoOrderBurned += o.NoOrderBurned
	r.MySQLValues += o.MySQLValues
	r.HTTPValues += o.HTTPValues
	r.GRPCValues += o.GRPCValues
	r.DDL += o.DDL
	r.Failovers = addCounts(r.Failovers, o.Failovers)
	r.Outcomes = addCounts(r.Outcomes, o.Outcomes)
	r.Takeovers = addCounts(r.Takeovers, o.Takeovers)
	r.LostWrites = addCounts(r.LostWrites, o.LostWrites)
	r.Unavailable = append(r.Unavailable, o.Unavailable...)
	r.NoOrderWait = append(r.NoOrderWait, o.NoOrderWait...)
	r.Leaderless = append(r.Leaderless, o.Leaderless...)
	r.OverBound = append(r.OverBound, o.OverBound...)
	r.Violations = append(r.Violations, o.Violations...)
	// String reads these as sorted.
	r.MySQLUnavailable = sortedMerge(r.MySQLUnavailable, o.MySQLUnavailable)
	r.HTTPUnavailable = sortedMerge(r.HTTPUnavailable, o.HTTPUnavailable)
	r.GRPCUnavailable = sortedMerge(r.GRPCUnavailable, o.GRPCUnavailable)
	for _, m := range []struct{ to, from *map[string][]time.Duration }{{&r.ByKind, &o.ByKind}, {&r.OrderGap, &o.OrderGap}} {
		if *m.to == nil {
			*m.to = map[string][]time.Duration{}
		}
		for k, ds := range *m.from {
			(*m.to)[k] = append((*m.to)[k], ds...)
		}
	}
	if r.MaxGap == nil {
		r.MaxGap = map[string]int64{}
	}
	for k, g := range o.MaxGap {
		r.MaxGap[k] = max(r.MaxGap[k], g)
	}
	if r.NoOrderWaitMax == nil {
		r.NoOrderWaitMax = map[string]time.Duration{}
	}
	for k, w := range o.NoOrderWaitMax {
		r.NoOrderWaitMax[k] = max(r.NoOrderWaitMax[k], w)
	}
}

func addCounts(to, from map[string]int) map[string]int {
	if to == nil {
		to = map[string]int{}
	}
	for k, n := range from {
		to[k] += n
	}
	return to
}

func sortedMerge(a, b []time.Duration) []time.Duration {
	out := append(a, b...)
	slices.Sort(out)
	return out
}
