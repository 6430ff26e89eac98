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

var timeFailovers = flag.Int("torture.time-failovers", 6, "leader failovers of TestTimeIDsClusterTorture, each after load with clock faults")

// TestTimeIDsClusterTorture is the bounded cluster clock torture CI
// runs: three nodes (the race-detector, fault-injection build) on etcd,
// each on a clock of its own, every clock stepped and slewed together
// during load, and the leader killed or shut down and started again on
// another clock; every checker of the one-node run.
func TestTimeIDsClusterTorture(t *testing.T) {
	if testing.Short() {
		t.Skip("three nodes and etcd")
	}
	cl, err := localetcd.StartWith(t.TempDir(), 1, localetcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rep, err := RunTimeIDsCluster(ClusterTimeConfig{
		TimeConfig: TimeConfig{
			Binary:   testenv.SeqdBinary(t),
			Dir:      testDir(t),
			Cycles:   *timeFailovers,
			Clients:  4,
			Load:     time.Second,
			Seed:     seed,
			Progress: func(s string) { t.Log(s) },
		},
		Etcd:         cl.Endpoints,
		EtcdSecurity: server.EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	if len(rep.Violations) > 0 {
		t.Fatalf("%d violations:\n%s", len(rep.Violations), strings.Join(rep.Violations, "\n"))
	}
	if rep.IDs < 1000 {
		t.Fatalf("too little happened: %s", rep)
	}
	if rep.Faults["leader kill -9"]+rep.Faults["leader clean shutdown"] != *timeFailovers {
		t.Errorf("failovers: %v, want %d", rep.Faults, *timeFailovers)
	}
}
