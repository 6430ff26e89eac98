package main

import (
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"syscall"
	"time"

	"github.com/seqd/seqd/server"
)

// zeroIsDefault are the limit flags whose 0 server.Config takes for its
// default. None defaults to 0, so a 0 is someone's choice, and it is
// refused rather than served as something else.
var zeroIsDefault = []string{"max-connections", "authentication-timeout", "max-statement-bytes", "max-bulk-rows",
	"max-transaction-locks", "max-statement-memory", "max-parse-memory", "min-free-space", "exhaustion-horizon", "lease-ttl"}

// checkLimits refuses a limit flag outside its range with a
// *server.LimitError (seqd exits 2, as for a flag it cannot parse), and
// makes cfg say what the flags say where server.Config speaks otherwise:
// -superuser-reserved-connections 0 is none.
func checkLimits(cfg *server.Config) error {
	for _, name := range zeroIsDefault {
		if f := flag.Lookup(name); f != nil && isZero(f.Value) {
			return &server.LimitError{Flag: name, Value: f.Value.String(), Want: server.LimitRange(name)}
		}
	}
	switch {
	case cfg.ReservedConns < 0:
		const name = "superuser-reserved-connections"
		return &server.LimitError{Flag: name, Value: strconv.Itoa(cfg.ReservedConns), Want: server.LimitRange(name)}
	case cfg.ReservedConns == 0:
		cfg.ReservedConns = -1 // server.Config's none
	}
	return cfg.Validate()
}

// isZero reports whether a numeric flag's value is 0.
func isZero(v flag.Value) bool {
	g, ok := v.(flag.Getter)
	if !ok {
		return false
	}
	switch x := g.Get().(type) {
	case int:
		return x == 0
	case int64:
		return x == 0
	case time.Duration:
		return x == 0
	}
	return false
}

// fitDescriptors fits the connection budget to the process's descriptor
// limit (server.ConnectionsFitting). It raises the soft limit as far as
// cfg needs, up to the hard limit: Go raises it to the hard limit at
// start, but not when the hard limit is unlimited (the kernel's nr_open
// refuses that), and stays where it was then. Where the hard limit holds
// less, it lowers cfg.MaxConns to what fits and says so at WARN, with what
// to do.
func fitDescriptors(cfg *server.Config) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		slog.Warn("the descriptor limit could not be read; -max-connections is not checked against it", "err", err)
		return
	}
	need := server.DescriptorsNeeded(*cfg)
	if lim.Cur < need && lim.Cur < lim.Max {
		raised := lim
		raised.Cur = min(need, lim.Max)
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
			slog.Warn("the descriptor limit could not be raised", "from", lim.Cur, "to", raised.Cur, "err", err)
		} else {
			slog.Info(fmt.Sprintf("raised the descriptor limit from %d to %d", lim.Cur, raised.Cur))
			lim = raised
		}
	}
	conns := server.ConnectionsFitting(*cfg, lim.Cur)
	if conns >= cfg.MaxConns {
		return
	}
	beside := fmt.Sprintf("%d for seqd itself", server.SelfDescriptors)
	if cfg.HTTP != "" {
		beside += fmt.Sprintf(" and %d for -http", need-uint64(cfg.MaxConns)-server.SelfDescriptors)
	}
	slog.Warn(fmt.Sprintf("the descriptor limit is %d (hard limit %d), below the %d that -max-connections %d needs (with %s): "+
		"serving at most %d client connections at once; raise the limit (ulimit -n, or LimitNOFILE= in a systemd unit) to %d to serve %d",
		lim.Cur, lim.Max, need, cfg.MaxConns, beside, conns, need, cfg.MaxConns))
	cfg.MaxConns = conns
}
