package server

import (
	"fmt"
	"strconv"
	"time"
)

// Config's numeric limits have ranges, named by the flags that set them
// (cmd/seqd). A value outside is refused at start (Validate), never
// served: one a front end would break on (a negative IdleTimeout ends
// every MySQL read at once), take differently from another (a negative
// AuthTimeout was PostgreSQL's default of 10 s but no bound on MySQL's
// protocol or the APIs), or that leaves a server nobody can use.

// DefaultMaxConns is MaxConns's default (pgwire's).
const DefaultMaxConns = 10_000

// DefaultReservedConns is ReservedConns's default (pgwire's).
const DefaultReservedConns = 3

// MinMessage is the smallest MaxMessage: a client's handshake must fit
// (MySQL's handshake response carries its connection attributes), and it
// is MySQL's smallest max_allowed_packet.
const MinMessage = 1024

// limitRanges are the limit flags' valid values, as the flags take them
// (0 is the default only where a range says so).
var limitRanges = map[string]string{
	"max-connections":                "at least 2 (with 1, a session leaves no connection for its CancelRequest, nor for a superuser)",
	"node-id":                        "0 to 4194303 (22 bits: uid-generator's node part, the widest layout's; a SNOWFLAKE sequence of fewer node bits takes the low ones)",
	"superuser-reserved-connections": "0 (none) or more, and less than -max-connections (the rest are the ordinary roles')",
	"authentication-timeout":         "positive",
	"idle-timeout":                   "positive, or 0 for none",
	"max-statement-bytes":            "at least " + strconv.Itoa(MinMessage) + " (MySQL's smallest max_allowed_packet: a client's handshake must fit)",
	"max-bulk-rows":                  "at least 1",
	"max-transaction-locks":          "at least 1, or negative for no limit",
	"max-statement-memory":           "at least 1, or negative for no limit",
	"max-parse-memory":               "at least 1, or negative for no limit",
	"min-free-space":                 "at least 1, or negative for no reserve",
	"exhaustion-horizon":             "positive",
	"lease-ttl":                      "positive",
}

// LimitRange is what flag accepts, for a LimitError; "" for a flag that
// is not a limit.
func LimitRange(flag string) string { return limitRanges[flag] }

// A LimitError is a limit outside its range, named by its flag. seqd
// refuses to start with it, as with a flag it cannot parse.
type LimitError struct {
	Flag  string // without its dash
	Value string // as given
	Want  string // the range
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("invalid value %q for flag -%s: must be %s", e.Value, e.Flag, e.Want)
}

// Validate refuses a limit outside its range (a *LimitError). A zero
// takes the field's default, as Start does; seqd's flags, whose defaults
// are not zero, refuse a 0 the server would take for its default before
// they get here. Start calls it.
// MaxNodeID is the largest -node-id.
const MaxNodeID = 1<<22 - 1

func (cfg Config) Validate() error {
	bad := func(flag, value string) error {
		return &LimitError{Flag: flag, Value: value, Want: limitRanges[flag]}
	}
	badDuration := func(flag string, d time.Duration) error { return bad(flag, d.String()) }
	switch {
	case cfg.MaxConns < 0 || cfg.MaxConns == 1:
		return bad("max-connections", strconv.Itoa(cfg.MaxConns))
	case cfg.ReservedConns > 0 && cfg.ReservedConns >= cfg.maxConns():
		return &LimitError{Flag: "superuser-reserved-connections", Value: strconv.Itoa(cfg.ReservedConns),
			Want: fmt.Sprintf("less than -max-connections (%d): the rest are the ordinary roles'", cfg.maxConns())}
	case cfg.AuthTimeout < 0:
		return badDuration("authentication-timeout", cfg.AuthTimeout)
	case cfg.IdleTimeout < 0:
		return badDuration("idle-timeout", cfg.IdleTimeout)
	case cfg.MaxMessage < 0 || cfg.MaxMessage > 0 && cfg.MaxMessage < MinMessage:
		return bad("max-statement-bytes", strconv.Itoa(cfg.MaxMessage))
	case cfg.MaxBulkRows < 0:
		return bad("max-bulk-rows", strconv.FormatInt(cfg.MaxBulkRows, 10))
	case cfg.ExhaustionHorizon < 0:
		return badDuration("exhaustion-horizon", cfg.ExhaustionHorizon)
	case cfg.LeaseTTL < 0:
		return badDuration("lease-ttl", cfg.LeaseTTL)
	case cfg.NodeID < 0 || cfg.NodeID > MaxNodeID:
		return bad("node-id", strconv.FormatInt(cfg.NodeID, 10))
	case len(cfg.Etcd) > 0 && cfg.NodeID != 0:
		return &LimitError{Flag: "node-id", Value: strconv.FormatInt(cfg.NodeID, 10), Want: "left out with -etcd: each leader takes a node id from etcd"}
	}
	return nil
}

// maxConns is the connection budget: MaxConns, or its default.
func (cfg Config) maxConns() int {
	if cfg.MaxConns == 0 {
		return DefaultMaxConns
	}
	return cfg.MaxConns
}

// reservedConns is how many of maxConns are superusers' only, as pgwire
// takes ReservedConns: 0 its default, negative none, and never all.
func (cfg Config) reservedConns() int {
	r := cfg.ReservedConns
	switch {
	case r == 0:
		r = DefaultReservedConns
	case r < 0:
		r = 0
	}
	return min(r, cfg.maxConns()-1)
}
