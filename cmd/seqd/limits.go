package main

import (
	"flag"
	"strconv"
	"time"

	"github.com/seqd/seqd/server"
)

// zeroIsDefault are the limit flags whose 0 server.Config takes for its
// default. None defaults to 0, so a 0 is someone's choice, and it is
// refused rather than served as something else.
var zeroIsDefault = []string{"max-connections", "authentication-timeout", "max-statement-bytes", "max-bulk-rows",
	"max-transaction-locks", "max-statement-memory", "min-free-space", "exhaustion-horizon", "lease-ttl"}

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
