package torture

// The hostile soak's attackers. Each kind of attack on each listener
// runs in its own goroutine, round after round with a pause between,
// until the hostile run ends; every round is bounded in time by its
// connections' deadlines. The rounds that need no login are written
// once here, over an endpoint that says how its protocol begins; the
// rest are in hostile_pgwire.go, hostile_mysql.go, hostile_http.go and
// hostile_grpc.go.

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// Kinds of attack, as the report counts them.
const (
	atkFlood      = "flood"
	atkSlowloris  = "slowloris"
	atkOversized  = "oversized"
	atkMalformed  = "malformed"
	atkSlowReader = "slow reader"
	atkDisconnect = "disconnect"
	atkBadLogin   = "bad login"
	atkPrivilege  = "privilege"
)

// maxRounds bounds an attacker's rounds besides the run's end.
const maxRounds = 10_000_000

// oversize is the size of an oversized message: past seqd's 1 MiB
// -max-statement-bytes (and every listener's smaller bounds).
const oversize = 2 << 20

// hostileAttack is one attacker: a kind of attack on one listener. Its
// round runs in the attacker's goroutine alone.
type hostileAttack struct {
	kind, proto string
	every       time.Duration // pause between rounds, jittered by half
	round       func(rng *rand.Rand, stop <-chan struct{})
}

// hostileEndpoint is how a listener's protocol begins, for the attacks
// that do not log in. Its functions are safe for concurrent use (each
// attacker passes its own rng).
type hostileEndpoint struct {
	proto  string
	greets bool // the server speaks first (MySQL's greeting)
	// first is a well-formed first message, at least a few hundred
	// bytes (a slowloris dribbles it); big one of oversize bytes.
	first, big func(rng *rand.Rand) []byte
	// idle, if set, makes a flood connection one that has made a request
	// and now idles between requests.
	idle func(nc net.Conn)
	// garbage is the listener's malformed first messages, besides random
	// bytes.
	garbage func(rng *rand.Rand) []byte
}

func (r *hostileRun) startAttackers(seed uint64, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	rng := rand.New(rand.NewPCG(seed, 31))
	for _, a := range r.attackList() {
		arng := rand.New(rand.NewPCG(rng.Uint64(), 0))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range maxRounds {
				if stopped(stop) {
					return
				}
				a.round(arng, stop)
				if !pause(stop, jitter(arng, a.every/2, a.every*3/2)) {
					return
				}
			}
		}()
	}
	return &wg
}

// attackList is every attacker of the run.
func (r *hostileRun) attackList() []hostileAttack {
	var out []hostileAttack
	for _, ep := range r.endpoints() {
		out = append(out,
			hostileAttack{atkFlood, ep.proto, 2 * time.Second, func(rng *rand.Rand, stop <-chan struct{}) { r.flood(ep, rng, stop) }},
			hostileAttack{atkSlowloris, ep.proto, time.Second, func(rng *rand.Rand, stop <-chan struct{}) { r.slowloris(ep, rng, stop) }},
			hostileAttack{atkOversized, ep.proto, 200 * time.Millisecond, func(rng *rand.Rand, stop <-chan struct{}) {
				r.rawExchange(atkOversized, ep, ep.big(rng), rng)
			}},
			hostileAttack{atkMalformed, ep.proto, 20 * time.Millisecond, func(rng *rand.Rand, stop <-chan struct{}) {
				r.rawExchange(atkMalformed, ep, r.garbage(ep, rng), rng)
			}},
			hostileAttack{atkDisconnect, ep.proto, 20 * time.Millisecond, func(rng *rand.Rand, stop <-chan struct{}) { r.halfFirst(ep, rng) }},
		)
	}
	out = append(out, r.pgAttacks()...)
	out = append(out, r.mysqlAttacks()...)
	out = append(out, r.apiAttacks()...)
	return out
}

func (r *hostileRun) endpoints() []hostileEndpoint {
	return []hostileEndpoint{r.pgEndpoint(), r.mysqlEndpoint(), r.httpEndpoint(), r.grpcEndpoint(), r.metricsEndpoint()}
}

// dial connects to proto's listener.
func (r *hostileRun) dial(proto string) (net.Conn, error) {
	return net.DialTimeout("tcp", r.addrs[proto], 2*time.Second)
}

// flood opens cfg.Flood connections as fast as it can, holds them
// silent (or, with ep.idle, every other one idle after a request) for 2
// to 8 s, and closes them.
func (r *hostileRun) flood(ep hostileEndpoint, rng *rand.Rand, stop <-chan struct{}) {
	var conns []net.Conn
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	failed := 0
	for i := 0; i < r.cfg.Flood && failed < 20 && !stopped(stop); i++ {
		nc, err := r.dial(ep.proto)
		if err != nil {
			failed++
			r.attacked(atkFlood, ep.proto, "dial failed: "+errClass(err))
			continue
		}
		if ep.idle != nil && i%2 == 1 {
			ep.idle(nc)
		}
		conns = append(conns, nc)
	}
	pause(stop, jitter(rng, 2*time.Second, 8*time.Second))
	for _, nc := range conns {
		if serverClosed(nc) {
			r.attacked(atkFlood, ep.proto, "closed by seqd before release")
		} else {
			r.attacked(atkFlood, ep.proto, "open until released")
		}
	}
}

// serverClosed reads what nc has waiting and reports whether the server
// has closed it.
func serverClosed(nc net.Conn) bool {
	buf := make([]byte, 16<<10)
	for range 256 {
		nc.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := nc.Read(buf); err != nil {
			return !isTimeout(err)
		}
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// slowloris dribbles ep's first message over cfg.Slowloris connections,
// a byte every 250 ms. seqd must close each within the authentication
// timeout and a margin.
func (r *hostileRun) slowloris(ep hostileEndpoint, rng *rand.Rand, stop <-chan struct{}) {
	limit := hostileAuthTimeout + hostileSlowMargin
	var wg sync.WaitGroup
	for range r.cfg.Slowloris {
		msg := ep.first(rng)
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := r.dial(ep.proto)
			if err != nil {
				r.attacked(atkSlowloris, ep.proto, "dial failed: "+errClass(err))
				return
			}
			defer nc.Close()
			start := time.Now()
			closed := make(chan struct{})
			go func() { // what seqd sends (a greeting, an error) until it closes
				defer close(closed)
				nc.SetReadDeadline(start.Add(limit + time.Second))
				io.Copy(io.Discard, nc)
			}()
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
		dribble:
			for i := range 10_000 { // a byte a tick until the limit: far fewer
				select {
				case <-closed:
					break dribble
				case <-stop:
					r.attacked(atkSlowloris, ep.proto, "open at the end of the run")
					return
				case <-tick.C:
					if time.Since(start) >= limit {
						break dribble
					}
					if i < len(msg) {
						nc.Write(msg[i : i+1])
					}
				}
			}
			held := time.Since(start)
			r.mu.Lock()
			r.held[ep.proto] = max(r.held[ep.proto], held)
			r.mu.Unlock()
			if held >= limit {
				r.attacked(atkSlowloris, ep.proto, "still open at the limit")
				r.fail(fmt.Sprintf("slowloris on %s: a connection dribbling its first message was still open after %v (authentication timeout %v)", ep.proto, limit, hostileAuthTimeout))
				return
			}
			r.attacked(atkSlowloris, ep.proto, "closed by seqd")
		}()
	}
	wg.Wait()
}

// garbage is a malformed first message: random bytes, the listener's own
// malformed messages, or a fuzz seed meant for any protocol.
func (r *hostileRun) garbage(ep hostileEndpoint, rng *rand.Rand) []byte {
	switch any := r.corpus.raw["any"]; {
	case rng.IntN(3) == 0:
		return randomBytes(rng, 1+rng.IntN(4096))
	case len(any) > 0 && rng.IntN(4) == 0:
		return any[rng.IntN(len(any))]
	default:
		return ep.garbage(rng)
	}
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// mutate flips a few bytes of b (a copy).
func mutate(rng *rand.Rand, b []byte) []byte {
	out := append([]byte(nil), b...)
	for range 1 + rng.IntN(4) {
		if len(out) > 0 {
			out[rng.IntN(len(out))] = byte(rng.Uint32())
		}
	}
	return out
}

// rawExchange sends msg as the first message of a new connection and
// reads what comes back for up to 1 s (3 s for an oversized one). An HTTP listener answering 500,
// or 200 to an oversized message, fails the run.
func (r *hostileRun) rawExchange(kind string, ep hostileEndpoint, msg []byte, rng *rand.Rand) {
	nc, err := r.dial(ep.proto)
	if err != nil {
		r.attacked(kind, ep.proto, "dial failed: "+errClass(err))
		return
	}
	defer nc.Close()
	// An oversized message takes a while to send; a malformed one is
	// answered at once, or never.
	wait := time.Second
	if kind == atkOversized {
		wait = 3 * time.Second
	}
	nc.SetDeadline(time.Now().Add(wait))
	go nc.Write(msg) // seqd may stop reading; the deadline ends the write
	answer, outcome := readAnswer(nc, wait)
	if ep.proto == "http" || ep.proto == hostileMetrics {
		status := httpStatus(answer)
		if status != "" {
			outcome = "answered " + status + ", then " + outcome
		}
		switch {
		case status == "500":
			r.fail(fmt.Sprintf("%s on %s: answered 500 to %q", kind, ep.proto, clip(msg)))
		case kind == atkOversized && status == "200":
			r.fail(fmt.Sprintf("oversized on %s: a message of %d bytes was served (200)", ep.proto, len(msg)))
		}
	}
	r.attacked(kind, ep.proto, outcome)
}

// readAnswer reads nc until it closes or d passes, keeping the first
// 4 KiB: what was read, and "closed by seqd" or "still open".
func readAnswer(nc net.Conn, d time.Duration) ([]byte, string) {
	nc.SetReadDeadline(time.Now().Add(d))
	var head []byte
	buf := make([]byte, 16<<10)
	for range 100_000 {
		n, err := nc.Read(buf)
		if len(head) < 4096 {
			head = append(head, buf[:min(n, 4096-len(head))]...)
		}
		if err != nil {
			if isTimeout(err) {
				return head, "still open"
			}
			return head, "closed by seqd"
		}
	}
	return head, "still open"
}

// httpStatus is the status code of an HTTP/1.1 answer, or "".
func httpStatus(b []byte) string {
	var code int
	if _, err := fmt.Sscanf(string(b), "HTTP/1.1 %d", &code); err == nil {
		return fmt.Sprint(code)
	}
	return ""
}

// clip is a short form of a message, for a failure's text.
func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

// halfFirst sends part of ep's first message and goes away.
func (r *hostileRun) halfFirst(ep hostileEndpoint, rng *rand.Rand) {
	nc, err := r.dial(ep.proto)
	if err != nil {
		r.attacked(atkDisconnect, ep.proto, "dial failed: "+errClass(err))
		return
	}
	msg := ep.first(rng)
	nc.SetDeadline(time.Now().Add(time.Second))
	if ep.greets {
		nc.Read(make([]byte, 4096))
	}
	nc.Write(msg[:1+rng.IntN(len(msg)-1)])
	nc.Close()
	r.attacked(atkDisconnect, ep.proto, "part of the first message, then gone")
}
