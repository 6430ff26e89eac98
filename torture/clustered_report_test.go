package torture

import (
	"slices"
	"testing"
	"time"
)

// TestClusteredReportAdd: two runs' reports added: counts summed,
// measurements pooled (the clients' kept sorted), largest skips kept.
func TestClusteredReportAdd(t *testing.T) {
	s := time.Second
	total := &ClusteredReport{}
	total.Add(&ClusteredReport{Ops: 10, Failovers: map[string]int{EtcdBridge: 1}, ByKind: map[string][]time.Duration{EtcdBridge: {s}},
		MaxGap: map[string]int64{"a": 5}, MySQLUnavailable: []time.Duration{3 * s}})
	total.Add(&ClusteredReport{Ops: 5, Failovers: map[string]int{EtcdBridge: 2, LeaderKill: 1}, ByKind: map[string][]time.Duration{EtcdBridge: {2 * s}},
		MaxGap: map[string]int64{"a": 3}, MySQLUnavailable: []time.Duration{s}, Violations: []string{"v"}})
	if total.Ops != 15 || total.Failovers[EtcdBridge] != 3 || total.Failovers[LeaderKill] != 1 || total.MaxGap["a"] != 5 ||
		!slices.Equal(total.ByKind[EtcdBridge], []time.Duration{s, 2 * s}) ||
		!slices.Equal(total.MySQLUnavailable, []time.Duration{s, 3 * s}) || len(total.Violations) != 1 {
		t.Fatalf("added: %+v", total)
	}
}
