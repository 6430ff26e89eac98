package server

import "testing"

// TestConnectionsFitting: the connection budget a descriptor limit holds
// beside seqd's own descriptors and the metrics listener's: the whole
// budget when it fits, what the limit leaves when it does not, never
// below the reserved slots and two more.
func TestConnectionsFitting(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		limit uint64
		need  uint64
		conns int
	}{
		{"fits", Config{MaxConns: 200}, 1024, 200 + SelfDescriptors, 200},
		{"fits exactly", Config{MaxConns: 200}, 200 + SelfDescriptors, 200 + SelfDescriptors, 200},
		{"unlimited", Config{MaxConns: 10_000}, ^uint64(0), 10_000 + SelfDescriptors, 10_000},
		{"the default budget on a common limit", Config{}, 1024, DefaultMaxConns + SelfDescriptors, 1024 - SelfDescriptors},
		{"with -http", Config{MaxConns: 10_000, HTTP: "127.0.0.1:0"}, 1024, 10_000 + SelfDescriptors + metricsConns, 1024 - SelfDescriptors - metricsConns},
		{"one short", Config{MaxConns: 200}, 200 + SelfDescriptors - 1, 200 + SelfDescriptors, 199},
		{"below seqd's own", Config{MaxConns: 10_000}, 64, 10_000 + SelfDescriptors, DefaultReservedConns + 2},
		{"below seqd's own, none reserved", Config{MaxConns: 10_000, ReservedConns: -1}, 64, 10_000 + SelfDescriptors, 2},
		{"below seqd's own, 10 reserved", Config{MaxConns: 10_000, ReservedConns: 10}, SelfDescriptors + 5, 10_000 + SelfDescriptors, 12},
		{"a budget below the floor", Config{MaxConns: 4}, 64, 4 + SelfDescriptors, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if need := DescriptorsNeeded(tc.cfg); need != tc.need {
				t.Errorf("DescriptorsNeeded %d, want %d", need, tc.need)
			}
			if conns := ConnectionsFitting(tc.cfg, tc.limit); conns != tc.conns {
				t.Errorf("ConnectionsFitting(%d) %d, want %d", tc.limit, conns, tc.conns)
			}
		})
	}
}
