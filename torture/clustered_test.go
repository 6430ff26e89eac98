package torture

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/localetcd"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

var kindsMatching = flag.String("torture.kinds", "", "TestClusterTorture draws only the fault kinds this regular expression matches (of every kind; default the fourteen CI draws)")

var failovers = flag.Int("torture.failovers", 14, "faults of TestClusterTorture (drawn in shuffled rounds of the fourteen kinds: one of each by default)")

// TestClusterTorture is the bounded clustered run CI does: three seqd
// nodes (the race-detector build) on three etcd members in this process,
// clients on a multi-host connection string, and the leader killed,
// stopped past its lease, shut down and cut off from etcd (by a proxy,
// its clients still reaching it) in turn, and the etcd leader member
// killed and restarted; and the etcd nemeses (clustered_nemesis.go):
// a follower member killed, paused, isolated, the leader member
// isolated and replaced while serving, a bridge (the link between two
// members cut, the third seeing both), the leader's links to etcd slow
// and lossy, etcd's quota exceeded and cleared. Every value is checked: unique, linearizable
// across every failover for the ORDER sequences, and in order per node
// for the NOORDER one, which a client on each node takes from it alone;
// two clients take values over MySQL's protocol, failing over as MySQL's
// drivers do (a standby refuses them), one over the HTTP API and one
// keeps ranges flowing over a gRPC stream, each moving to the next node
// when one refuses (503 / UNAVAILABLE) or fails; one makes and drops
// sequences throughout, which the leader and every follower must list
// as the answers said (followers derive their snapshots from such
// changes, and take over from them).
func TestClusterTorture(t *testing.T) {
	if testing.Short() {
		t.Skip("three nodes and etcd")
	}
	cl, cerr := localetcd.StartWith(t.TempDir(), 3, localetcd.Options{PeerProxies: true})
	if cerr != nil {
		t.Fatal(cerr)
	}
	t.Cleanup(cl.Close)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	// The fourteen kinds CI draws: the member nemeses of
	// clustered_members.go (a process built and started, a member
	// renewed) are the soak's.
	kinds := []string{LeaderKill, LeaderStop, LeaderTerm, LeaderCut, EtcdKill, LinkSlow, LinkLossy, EtcdFollowerKill,
		EtcdFollowerPause, EtcdIsolateLeader, EtcdIsolateFollower, EtcdBridge, EtcdNoSpace, EtcdReplace}
	if *kindsMatching != "" {
		kinds = matchingKinds(t, *kindsMatching)
	}
	rep, err := RunClustered(ClusteredConfig{
		Binary:       testenv.SeqdBinary(t),
		Etcd:         cl.Endpoints,
		EtcdSecurity: server.EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey},
		Members:      cl,
		Nemeses:      cl,
		Kinds:        kinds,
		Dir:          t.TempDir(),
		Failovers:    *failovers,
		Clients:      6,
		Load:         time.Second,
		LeaseTTL:     2 * time.Second,
		Seed:         seed,
		Progress:     func(s string) { t.Log(s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	if len(rep.Violations) > 0 {
		t.Fatalf("%d violations:\n%s", len(rep.Violations), strings.Join(rep.Violations, "\n"))
	}
	if rep.Outcomes["ok"] < 500 || rep.Porcupine < 500 || rep.NoOrderValues < 300 || rep.MySQLValues < 100 || len(rep.MySQLUnavailable) < *failovers/2 ||
		rep.HTTPValues < 100 || len(rep.HTTPUnavailable) < *failovers/2 || rep.GRPCValues < 100 || len(rep.GRPCUnavailable) < *failovers/2 || rep.DDL < 20 {
		t.Fatalf("too little happened: %s", rep)
	}
	for _, f := range kinds {
		if *failovers >= len(kinds) && rep.Failovers[f] == 0 {
			t.Errorf("no %s", f)
		}
	}
	// Of the failovers that leave the store unclosed, some are taken
	// over from a follower's snapshot (engine.Promote): the run tortures
	// that path too.
	if *failovers >= 5 && rep.Takeovers["snapshot"] == 0 {
		t.Errorf("no term began from a snapshot: %v", rep.Takeovers)
	}
}

// matchingKinds are the fault kinds of a three-member run that expr
// matches.
func matchingKinds(t *testing.T, expr string) []string {
	kinds, err := KindsMatching(expr, 3)
	if err != nil {
		t.Fatal(err)
	}
	return kinds
}
