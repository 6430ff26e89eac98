package server

// Every connection holds a file descriptor, so the process's descriptor
// limit (RLIMIT_NOFILE) must hold the connection budget beside what seqd
// needs for itself; where it does not, running out of descriptors, not
// the budget, would be what limits connections (accepts failing with
// EMFILE, for every listener at once). cmd/seqd raises the limit as far
// as the budget needs, and where the hard limit holds less, serves the
// budget that fits (ConnectionsFitting) and says so.

// SelfDescriptors are the descriptors seqd keeps for itself beside its
// clients' connections: the store's files (Pebble's log, manifest and
// tables), the listeners, etcd's connections, the poller and the log. A
// fresh store behind five listeners holds about 25; the rest is room for
// the store's tables as it grows.
const SelfDescriptors = 128

// DescriptorsNeeded is the descriptor limit that holds every connection
// cfg's budgets allow: the clients' (MaxConns), the metrics listener's
// (with HTTP) and SelfDescriptors.
func DescriptorsNeeded(cfg Config) uint64 {
	n := uint64(cfg.maxConns()) + SelfDescriptors
	if cfg.HTTP != "" {
		n += metricsConns
	}
	return n
}

// ConnectionsFitting is the connection budget a descriptor limit holds:
// cfg's own (MaxConns) when the limit is DescriptorsNeeded or more, else
// what it leaves beside the rest. It is never below the reserved slots
// and two more (an ordinary role's session, and a CancelRequest or a
// superuser beside it): under a limit that low the descriptors may still
// run out first, and each failed accept is logged and retried
// (frontend.Listener).
func ConnectionsFitting(cfg Config, limit uint64) int {
	need, budget := DescriptorsNeeded(cfg), cfg.maxConns()
	if limit >= need {
		return budget
	}
	rest := need - uint64(budget) // seqd's own and the metrics listener's
	fit := 0
	if limit > rest {
		fit = int(limit - rest) // less than budget: limit < need
	}
	return min(max(fit, cfg.reservedConns()+2), budget)
}
