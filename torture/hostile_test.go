package torture

import (
	"fmt"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
)

// TestHostile runs the hostile soak for about 20 s with small numbers,
// so that every attacker and every check runs in the suite, the login
// timing too (40 attempts of each kind: a few seconds); the bounds are
// the soak's own but for the p99 factor, which over a few seconds (and
// with the race detector slowing the harness on a shared machine)
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
		P99Factor:     100,
		LoginAttempts: 40,
		Seed:          uint64(time.Now().UnixNano()),
		Progress:      func(s string) { t.Log(s) },
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
	for _, lt := range rep.Logins {
		for _, k := range lt.Kinds {
			if k.P50 == 0 {
				t.Errorf("login timing: %s %s: no %s attempt refused with %s", lt.Protocol, lt.Method, k.Kind, lt.Refusal)
			}
		}
	}
	if len(rep.Logins) != 7 {
		t.Errorf("login timing: %d authentication methods timed, want 7", len(rep.Logins))
	}
	for _, f := range rep.Failures {
		t.Error(f)
	}
}

// TestHostileLoginTimingBound: a run fails when the slowest kind's
// median refusal is over LoginFactor times the fastest's and over
// LoginFloor more, not for one of the two alone.
func TestHostileLoginTimingBound(t *testing.T) {
	us := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
	for _, tc := range []struct {
		name   string
		p50    []time.Duration
		failed bool
	}{
		{"alike", []time.Duration{us(900), us(930), us(960)}, false},
		{"fast, far apart in ratio", []time.Duration{us(100), us(300), us(120)}, false},
		{"slow, far apart in time", []time.Duration{us(10_000), us(12_600)}, false},
		{"a key derivation skipped", []time.Duration{us(120), us(900), us(930)}, true},
		{"caching_sha2_password without its key derivation", []time.Duration{us(2000), us(1200), us(2010)}, true},
		{"no refusal of one kind", []time.Duration{us(900), 0, us(950)}, false},
	} {
		r := &hostileRun{cfg: HostileConfig{}.withDefaults(), failSeen: map[string]int{}}
		lt := HostileLoginTiming{Protocol: "http", Method: "Basic", Refusal: "HTTP 401"}
		for i, d := range tc.p50 {
			lt.Kinds = append(lt.Kinds, HostileLoginKind{Kind: fmt.Sprint("kind ", i), P50: d})
		}
		r.checkTiming(lt)
		if failed := len(r.failures) > 0; failed != tc.failed {
			t.Errorf("%s: failed %v, want %v (%v)", tc.name, failed, tc.failed, r.failures)
		}
	}
}
