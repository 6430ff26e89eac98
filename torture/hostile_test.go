package torture

import (
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
)

// TestHostile runs the hostile soak for about 20 s with small numbers,
// so that every attacker and every check runs in the suite; the bounds
// are the soak's own but for the p99 factor, which over a few seconds
// (and with the race detector slowing the harness on a shared machine)
// measures the machine more than seqd. scripts/soak-hostile runs it for
// ten minutes.
func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 s run of the real binary under attack")
	}
	rep, err := RunHostile(HostileConfig{
		Binary:   testenv.SeqdPlainBinary(t),
		Dir:      t.TempDir(),
		Quiet:    4 * time.Second,
		Duration: 12 * time.Second,
		Clients:  1, Flood: 60, Slowloris: 2, SlowReaders: 1,
		P99Factor: 100,
		Seed:      uint64(time.Now().UnixNano()),
		Progress:  func(s string) { t.Log(s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	for _, ep := range []string{"pgwire", "mysql", "http", "grpc", hostileMetrics} {
		for _, kind := range []string{atkFlood, atkSlowloris, atkOversized, atkMalformed, atkSlowReader, atkDisconnect} {
			if rep.Attacks[kind+" "+ep] == 0 {
				t.Errorf("no %s attack on %s", kind, ep)
			}
		}
	}
	for _, proto := range hostileProtocols {
		for _, kind := range []string{atkBadLogin, atkPrivilege} {
			if rep.Attacks[kind+" "+proto] == 0 {
				t.Errorf("no %s attack on %s", kind, proto)
			}
		}
	}
	for _, f := range rep.Failures {
		t.Error(f)
	}
}
