package torture

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// HostileReport is what RunHostile measured and found; RunHostile
// returns it complete, to be read.
type HostileReport struct {
	Quiet, Hostile time.Duration
	// MaxConnections and NoFile are seqd's -max-connections and
	// descriptor limit in the run.
	MaxConnections, NoFile int
	Corpus                 string // what the attackers replayed
	// Protocols are the ordinary clients' figures, by protocol.
	Protocols map[string]*HostileProtocol
	// Attacks counts the attacks by "kind protocol", Outcomes what came
	// of them.
	Attacks  map[string]int
	Outcomes map[string]map[string]int
	// SlowlorisHeld is, by protocol, the longest a connection dribbling
	// its first message stayed open.
	SlowlorisHeld map[string]time.Duration
	// RSS is seqd's largest resident memory in each phase (quiet,
	// hostile, after), RSSEnd its last sample under attack, RSSBound the
	// bound; Connections its largest seqd_connections (every client
	// connection of the shared budget, whatever its protocol).
	RSS, Connections [phases]int64
	RSSEnd, RSSBound int64
	// LogBytes is the size of seqd's log at the end.
	LogBytes int64
	// HealthPolls and HealthFailed count /healthz's polls.
	HealthPolls, HealthFailed int
	// Logins are the login timing's figures, by authentication method;
	// LoginFactor and LoginFloor the bound they were held to.
	Logins      []HostileLoginTiming
	LoginFactor float64
	LoginFloor  time.Duration
	Failures    []string
}

// HostileProtocol is one protocol's ordinary clients in each phase.
type HostileProtocol struct {
	Values, Draws, DrawErrors, Connects, ConnectErrors [phases]int
	P50, P99, Max                                      [phases]time.Duration
	Errors                                             [phases]map[string]int // by kind
}

// ErrorRate is the share of failed draws and connects in phase.
func (p *HostileProtocol) ErrorRate(phase int) float64 {
	all := p.Draws[phase] + p.Connects[phase]
	if all == 0 {
		return 0
	}
	return float64(p.DrawErrors[phase]+p.ConnectErrors[phase]) / float64(all)
}

// check fills rep in and records every bound broken.
func (r *hostileRun) check(rep *HostileReport, cs *hostileClients, mon *hostileMonitor) {
	cfg := r.cfg
	mon.mu.Lock()
	rep.RSS, rep.Connections, rep.RSSEnd, rep.RSSBound = mon.rssMax, mon.connsMax, mon.rssLast[phaseHostile], cfg.MaxRSS
	for i := range phases {
		rep.HealthPolls += mon.polls[i]
		rep.HealthFailed += mon.pollFails[i]
	}
	exitedAt, pollErrs, rssErrs := mon.exitedAt, mon.pollErrs, mon.rssErrs
	mon.mu.Unlock()

	if exitedAt != 0 {
		r.fail(fmt.Sprintf("seqd exited %v into the run (%v); its log is seqd.log", exitedAt.Round(time.Second), r.proc.state))
	}
	if rep.HealthFailed > 0 {
		r.fail(fmt.Sprintf("/healthz failed %d of %d polls: %s", rep.HealthFailed, rep.HealthPolls, strings.Join(pollErrs, "; ")))
	}
	if rssErrs > 0 {
		r.fail(fmt.Sprintf("seqd's resident memory could not be read %d times", rssErrs))
	}
	if m := slices.Max(rep.RSS[:]); m > cfg.MaxRSS {
		r.fail(fmt.Sprintf("seqd's resident memory reached %d MiB, over the bound of %d MiB", m>>20, cfg.MaxRSS>>20))
	}

	rep.Protocols = map[string]*HostileProtocol{}
	for _, proto := range hostileProtocols {
		rep.Protocols[proto] = &HostileProtocol{}
	}
	var hists [phases]map[string]*hdrhistogram.Histogram
	for i := range hists {
		hists[i] = map[string]*hdrhistogram.Histogram{}
	}
	for _, c := range cs.all {
		p := rep.Protocols[c.proto]
		for ph := range phases {
			cp := &c.ph[ph]
			p.Draws[ph] += cp.draws
			p.DrawErrors[ph] += cp.drawErrs
			p.Values[ph] += cp.draws - cp.drawErrs
			p.Connects[ph] += cp.connects
			p.ConnectErrors[ph] += cp.connectErrs
			if p.Errors[ph] == nil {
				p.Errors[ph] = map[string]int{}
			}
			for k, v := range cp.errs {
				p.Errors[ph][k] += v
			}
			if c.id >= 0 { // the probes' latencies are not the clients'
				if hists[ph][c.proto] == nil {
					hists[ph][c.proto] = hdrhistogram.New(1, 60_000_000, 3)
				}
				hists[ph][c.proto].Merge(cp.lat)
			}
		}
	}
	for proto, p := range rep.Protocols {
		for ph := range phases {
			if h := hists[ph][proto]; h != nil && h.TotalCount() > 0 {
				p.P50[ph] = time.Duration(h.ValueAtQuantile(50)) * time.Microsecond
				p.P99[ph] = time.Duration(h.ValueAtQuantile(99)) * time.Microsecond
				p.Max[ph] = time.Duration(h.Max()) * time.Microsecond
			}
		}
		for _, ph := range []int{phaseQuiet, phaseHostile} {
			if p.Values[ph] == 0 {
				r.fail(fmt.Sprintf("%s: no value drawn in the %s run", proto, phaseNames[ph]))
			}
			if rate := p.ErrorRate(ph); rate > cfg.MaxErrorRate {
				r.fail(fmt.Sprintf("%s: error rate %.2f%% in the %s run, over %.2f%% (%s)", proto, 100*rate, phaseNames[ph],
					100*cfg.MaxErrorRate, mapString(p.Errors[ph])))
			}
		}
		if q, h := p.P99[phaseQuiet], p.P99[phaseHostile]; q > 0 && float64(h) > cfg.P99Factor*float64(q) {
			r.fail(fmt.Sprintf("%s: p99 %v under attack, %.1fx the quiet run's %v (bound %gx)", proto, h, float64(h)/float64(q), q, cfg.P99Factor))
		}
	}
	r.checkDistinct(cs)

	r.mu.Lock()
	defer r.mu.Unlock()
	rep.Attacks, rep.Outcomes, rep.SlowlorisHeld = r.attacks, r.outcomes, r.held
	for _, f := range r.failures {
		if n := r.failSeen[f]; n > 1 {
			f = fmt.Sprintf("%s (%d times)", f, n)
		}
		rep.Failures = append(rep.Failures, f)
	}
}

// checkDistinct: every value of a sequence drawn once, across all the
// clients, and each client's values of a sequence rising.
func (r *hostileRun) checkDistinct(cs *hostileClients) {
	for _, s := range hostileSeqs {
		var all []int64
		for _, c := range cs.all {
			vs := c.values[s.name]
			for i := 1; i < len(vs); i++ {
				if vs[i] <= vs[i-1] {
					r.fail(fmt.Sprintf("%s: %s client %d drew %d after %d", s.name, c.proto, c.id, vs[i], vs[i-1]))
					break
				}
			}
			all = append(all, vs...)
		}
		slices.Sort(all)
		var dups []int64
		for i := 1; i < len(all); i++ {
			if all[i] == all[i-1] && (len(dups) == 0 || dups[len(dups)-1] != all[i]) {
				dups = append(dups, all[i])
			}
		}
		for _, v := range dups[:min(len(dups), 5)] {
			var by []string
			for _, c := range cs.all {
				if slices.Contains(c.values[s.name], v) {
					by = append(by, fmt.Sprintf("%s client %d", c.proto, c.id))
				}
			}
			r.fail(fmt.Sprintf("%s: value %d drawn more than once, by %s", s.name, v, strings.Join(by, ", ")))
		}
		if len(dups) > 5 {
			r.fail(fmt.Sprintf("%s: %d values drawn more than once in all", s.name, len(dups)))
		}
	}
}

func ms(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return d.Round(time.Millisecond).String()
}

func (rep *HostileReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hostile soak: quiet run %v, hostile run %v; seqd with -max-connections %d and %d descriptors; the attackers replayed %s\n",
		rep.Quiet, rep.Hostile, rep.MaxConnections, rep.NoFile, rep.Corpus)
	fmt.Fprintf(&b, "seqd: /healthz %d polls, %d failed; resident memory at most %d MiB quiet, %d MiB hostile (%d MiB at its end; bound %d MiB); client connections (seqd_connections) at most %d quiet, %d hostile; log %d MiB\n",
		rep.HealthPolls, rep.HealthFailed, rep.RSS[phaseQuiet]>>20, rep.RSS[phaseHostile]>>20, rep.RSSEnd>>20, rep.RSSBound>>20,
		rep.Connections[phaseQuiet], rep.Connections[phaseHostile], rep.LogBytes>>20)
	fmt.Fprintf(&b, "%-8s %22s %22s %22s %22s %16s\n", "clients", "values quiet/hostile", "p50 quiet/hostile", "p99 quiet/hostile", "max quiet/hostile", "errors q/h")
	var values [phases]int
	for _, proto := range hostileProtocols {
		p := rep.Protocols[proto]
		for ph := range phases {
			values[ph] += p.Values[ph]
		}
		fmt.Fprintf(&b, "%-8s %22s %22s %22s %22s %16s\n", proto,
			fmt.Sprintf("%d / %d", p.Values[phaseQuiet], p.Values[phaseHostile]),
			ms(p.P50[phaseQuiet])+" / "+ms(p.P50[phaseHostile]), ms(p.P99[phaseQuiet])+" / "+ms(p.P99[phaseHostile]),
			ms(p.Max[phaseQuiet])+" / "+ms(p.Max[phaseHostile]),
			fmt.Sprintf("%d / %d", p.DrawErrors[phaseQuiet]+p.ConnectErrors[phaseQuiet], p.DrawErrors[phaseHostile]+p.ConnectErrors[phaseHostile]))
	}
	fmt.Fprintf(&b, "values: %d quiet, %d hostile, %d after; every one distinct unless a failure below says otherwise\n", values[phaseQuiet], values[phaseHostile], values[phaseAfter])
	for _, proto := range hostileProtocols {
		if e := rep.Protocols[proto].Errors[phaseHostile]; len(e) > 0 {
			fmt.Fprintf(&b, "  %s errors under attack (%.3f%%): %s\n", proto, 100*rep.Protocols[proto].ErrorRate(phaseHostile), mapString(e))
		}
	}
	total := 0
	for _, n := range rep.Attacks {
		total += n
	}
	fmt.Fprintf(&b, "attacks: %d\n", total)
	keys := make([]string, 0, len(rep.Attacks))
	for k := range rep.Attacks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-22s %8d  %s\n", k, rep.Attacks[k], topOutcomes(rep.Outcomes[k], 4))
	}
	fmt.Fprintf(&b, "slowloris, longest open: %s (limit %v)\n", joinOr(sortedDurations(rep.SlowlorisHeld), "none"), hostileAuthTimeout+hostileSlowMargin)
	if len(rep.Logins) > 0 {
		loginTimingString(&b, rep)
	}
	fmt.Fprintf(&b, "failures: %d\n", len(rep.Failures))
	for _, f := range rep.Failures {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}

// topOutcomes is the n most frequent outcomes, and how many others.
func topOutcomes(m map[string]int, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	var parts []string
	for _, k := range keys[:min(n, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(keys) > n {
		rest := 0
		for _, k := range keys[n:] {
			rest += m[k]
		}
		parts = append(parts, fmt.Sprintf("%d others %d", len(keys)-n, rest))
	}
	return strings.Join(parts, ", ")
}

// panicMarks are how seqd's log records a panic: one recovered by the
// MySQL listener (the vitess fork's), a statement's (frontend.Contain),
// the runtime's own.
var panicMarks = []string{"caught panic", "a statement panicked", "panic: "}

// checkLog fails the run for every panic seqd's log records.
func (r *hostileRun) checkLog(path string) {
	f, err := os.Open(path)
	if err != nil {
		r.fail(fmt.Sprintf("harness: seqd's log: %v", err))
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	n, first, prev := 0, "", ""
	for sc.Scan() {
		line := sc.Text()
		for _, m := range panicMarks {
			if i := strings.Index(line, m); i >= 0 {
				if n++; n == 1 {
					first, _, _ = strings.Cut(line[i:min(len(line), i+400)], `\n\n`) // before the stack
					if _, msg, ok := strings.Cut(prev, "msg="); ok {
						first += " (the line before: " + msg[:min(len(msg), 200)] + ")"
					}
				}
				break
			}
		}
		prev = line
	}
	if n > 0 {
		r.fail(fmt.Sprintf("seqd's log records %d panics; the first: %s", n, first))
	}
}
