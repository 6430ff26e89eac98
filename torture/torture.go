// Package torture tries to make seqd repeat, reorder or lose: it runs the
// real binary, drives it over the wire with concurrent clients (nextval,
// generate_series, seqd_reserve, setval, ALTER and a DDL workload), injects
// faults (kill -9, power loss, EIO and ENOSPC on write and fsync,
// SIGSTOP/SIGCONT, clients that vanish or stop reading), records every
// operation, and checks the history: unique values, linearizable order
// (porcupine and an O(n log n) scan), bounded gaps at every restart, and
// durable DDL.
package torture

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/seqd/seqd/internal/loopback"
)

// Fault is what ends (or disturbs) one cycle.
type Fault string

const (
	Kill        Fault = "kill -9"
	PowerLoss   Fault = "power loss"
	EIOWrite    Fault = "EIO on write"
	EIOSync     Fault = "EIO on fsync"
	ENOSPCWrite Fault = "ENOSPC on write"
	ENOSPCSync  Fault = "ENOSPC on fsync"
	Pause       Fault = "SIGSTOP/SIGCONT"
	Clean       Fault = "clean restart"
	// DiskFull: the store's file system says it is full for a while
	// (below seqd's reserve), then has room again. Writes are refused
	// with 53100, nothing written; then the same server must serve
	// again, without a restart, and stop cleanly.
	DiskFull Fault = "disk full"
)

// AllFaults is every fault kind, the default mix.
var AllFaults = []Fault{Kill, PowerLoss, EIOWrite, EIOSync, ENOSPCWrite, ENOSPCSync, Pause, Clean, DiskFull}

// Config is one torture run.
type Config struct {
	Binary  string        // the seqd binary
	Dir     string        // scratch directory: data and the server's log
	Cycles  int           // server runs, each ended by a fault
	Clients int           // concurrent workload connections
	Load    time.Duration // most load before a cycle's fault (at least a tenth of it)
	Faults  []Fault       // one per cycle, in rounds that shuffle all of them (each kind once a round); nil: AllFaults
	Seed    uint64
	// PorcupineOps, if positive, bounds the operations porcupine checks
	// to a prefix of the history by call time (the scan checks all).
	PorcupineOps int
	// Progress, if set, receives a line per cycle.
	Progress func(string)
	// Secure runs seqd with SCRAM-SHA-256 authentication and TLS, every
	// client (the misbehaving ones too) connecting through both.
	Secure bool
}

// Report is what a run did and found.
type Report struct {
	Cycles     int
	Faults     map[string]int // by kind, including client-side ones
	Ops        int            // value operations, probes included
	Outcomes   map[string]int
	Values     int              // values received
	DDL        int              // DDL statements answered
	Commits    int              // blocks of DDL whose COMMIT was acknowledged
	Porcupine  int              // operations porcupine checked (generate_series rows are the scan's)
	DiskFull   int              // requests refused with 53100 (disk full), nothing handed out
	MaxSkip    map[string]int64 // see CheckGaps
	Violations []string
	Elapsed    time.Duration
}

// String is the report in a few lines.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d cycles in %v; %d value operations (%s), %d values, %d DDL statements (%d blocks committed); porcupine checked %d operations\n",
		r.Cycles, r.Elapsed.Round(time.Second), r.Ops, mapString(r.Outcomes), r.Values, r.DDL, r.Commits, r.Porcupine)
	fmt.Fprintf(&b, "faults: %s; requests refused by a full disk: %d\n", mapString(r.Faults), r.DiskFull)
	fmt.Fprintf(&b, "largest skip after a crash beyond what unanswered requests asked for, by sequence: %s\n", mapString(r.MaxSkip))
	fmt.Fprintf(&b, "violations: %d\n", len(r.Violations))
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return b.String()
}

// Add sums another run's report into r.
func (r *Report) Add(o *Report) {
	r.Cycles += o.Cycles
	r.Ops += o.Ops
	r.Values += o.Values
	r.DDL += o.DDL
	r.Commits += o.Commits
	r.Porcupine += o.Porcupine
	r.DiskFull += o.DiskFull
	r.Elapsed += o.Elapsed
	r.Violations = append(r.Violations, o.Violations...)
	for _, m := range [][2]map[string]int{{r.Faults, o.Faults}, {r.Outcomes, o.Outcomes}} {
		for k, v := range m[1] {
			m[0][k] += v
		}
	}
	for k, v := range o.MaxSkip {
		r.MaxSkip[k] = max(r.MaxSkip[k], v)
	}
}

// NewReport is an empty report to Add runs into.
func NewReport() *Report {
	return &Report{Faults: map[string]int{}, Outcomes: map[string]int{}, MaxSkip: map[string]int64{}}
}

func mapString[V int | int64](m map[string]V) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// DefaultSeqs are the sequences the value workload uses: every CACHE the
// engine treats differently, and a descending one.
var DefaultSeqs = []struct {
	Seq
	Cache int64
	DDL   string
}{
	{Seq{"t_nocache", 1}, 1, "create sequence t_nocache"},
	{Seq{"t_c10", 1}, 10, "create sequence t_c10 cache 10"},
	{Seq{"t_c1000_by3", 3}, 1000, "create sequence t_c1000_by3 increment by 3 cache 1000"},
	{Seq{"t_c100k", 1}, 100_000, "create sequence t_c100k cache 100000"},
	{Seq{"t_desc", -2}, 50, "create sequence t_desc increment by -2 minvalue -9000000000000000000 start with -1 cache 50"},
	// Shaped: the history holds their values' ranks (see shapedSeqs).
	{Seq{"t_bitrev", 1}, 100, "create sequence t_bitrev bit_reversed_positive skip range 1 1152921504606846975 cache 100"},
	{Seq{"t_sharded", 1}, 1000, "create sequence t_sharded shard_bits 4 cache 1000"},
}

// run is a torture run's shared state.
type run struct {
	cfg      Config
	h        *History
	seqs     []Seq
	addr     string
	dsn      string  // the clients' connection string
	sec      *secure // nil unless cfg.Secure
	catalog  *Catalog
	setvalMu map[string]*sync.Mutex
	ddlLog   io.Writer

	mu         sync.Mutex
	top        map[string]int64 // highest normalized value seen
	cache      map[string]int64 // CACHE in force (the larger while an ALTER is unanswered)
	epochCache map[string]int64 // largest CACHE during the current epoch
	faults     map[string]int
	ddlOps     int
	ddlCommits int
	violations []string
}

// Run runs the torture test and checks its history.
func Run(cfg Config) (*Report, error) {
	if cfg.Faults == nil {
		cfg.Faults = AllFaults
	}
	start := time.Now()
	r := &run{cfg: cfg, h: NewHistory(), catalog: NewCatalog(), setvalMu: map[string]*sync.Mutex{},
		top: map[string]int64{}, cache: map[string]int64{}, faults: map[string]int{}}
	for _, s := range DefaultSeqs {
		r.seqs = append(r.seqs, s.Seq)
		r.cache[s.Name] = s.Cache
		r.setvalMu[s.Name] = &sync.Mutex{}
	}
	addr, err := loopback.FreeAddr()
	if err != nil {
		return nil, err
	}
	r.addr = addr
	if cfg.Secure {
		sec, err := newSecure(cfg.Dir)
		if err != nil {
			return nil, err
		}
		r.sec = sec
	}
	r.dsn = dsnFor(addr, r.sec)
	dataDir := filepath.Join(cfg.Dir, "data")
	if err := os.RemoveAll(dataDir); err != nil { // a scratch directory: start empty
		return nil, err
	}
	logf, err := os.Create(filepath.Join(cfg.Dir, "seqd.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x70))
	r.ddlLog = logf

	var restarts []Restart
	var deck []Fault // this round's faults still to come
	for epoch := 0; epoch <= cfg.Cycles; epoch++ {
		if len(deck) == 0 {
			// Every kind once a round, in random order: a bounded run
			// cannot miss one by chance.
			deck = slices.Clone(cfg.Faults)
			rng.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
		}
		fault := deck[0]
		deck = deck[1:]
		last := epoch == cfg.Cycles // only starts, probes and stops cleanly
		faultFS := !last && fault != Kill && fault != Pause && fault != Clean
		fmt.Fprintf(logf, "--- cycle %d: %s\n", epoch, fault)
		p, err := startProc(cfg.Binary, dataDir, addr, faultFS, rng.Uint64(), r.sec, logf)
		if err != nil {
			return nil, fmt.Errorf("cycle %d: %w (log in %s)", epoch, err, logf.Name())
		}
		if epoch == 0 {
			err = r.setup()
		} else {
			restarts[len(restarts)-1].Probe, err = r.probe(epoch)
		}
		if err != nil {
			p.kill()
			return nil, fmt.Errorf("cycle %d: %w", epoch, err)
		}
		if last {
			p.signal(syscall.SIGTERM)
			if code, err := p.wait(30 * time.Second); err != nil || code != 0 {
				r.violation(fmt.Sprintf("final clean stop: exit %d, %v", code, err))
			}
			break
		}
		clean, err := r.cycle(epoch, fault, p, rng)
		if err != nil {
			p.kill()
			return nil, fmt.Errorf("cycle %d (%s): %w (log in %s)", epoch, fault, err, logf.Name())
		}
		r.faults[string(fault)]++
		restarts = append(restarts, Restart{Epoch: epoch, Clean: clean, Cache: r.epochCache})
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf("cycle %d: %s, %d operations so far", epoch, fault, len(r.h.Ops())))
		}
	}
	return r.check(restarts, start)
}

// setup creates the workload's sequences on a new data directory.
func (r *run) setup() error {
	ctx := context.Background()
	c, err := connect(ctx, r.dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for _, s := range DefaultSeqs {
		if _, err := c.Exec(ctx, s.DDL); err != nil {
			return err
		}
	}
	for _, q := range []string{"create sequence vanish cache 100", "create sequence stall cache 1000"} {
		if _, err := c.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// cycle runs the load on a started server, brings the fault, and returns
// once the server has exited and every client has stopped; clean reports a
// clean stop (exit status 0 after SIGTERM), after which nothing may be
// skipped.
func (r *run) cycle(epoch int, fault Fault, p *proc, rng *rand.Rand) (clean bool, err error) {
	r.mu.Lock()
	r.epochCache = map[string]int64{}
	for k, v := range r.cache {
		r.epochCache[k] = v
	}
	r.mu.Unlock()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range r.cfg.Clients {
		wg.Add(1)
		seed := rng.Uint64()
		go func() { defer wg.Done(); r.worker(i, epoch, seed, stop) }()
	}
	if r.catalog.Pending == nil {
		wg.Add(1)
		seed := rng.Uint64()
		go func() { defer wg.Done(); r.ddlWorker(seed, stop) }()
	}
	wg.Add(1)
	seed := rng.Uint64()
	go func() { defer wg.Done(); r.chaos(seed, stop) }()
	var once sync.Once
	halt := func() {
		once.Do(func() { close(stop) })
		wg.Wait()
	}
	defer halt()

	load := func() time.Duration {
		return r.cfg.Load/10 + time.Duration(rng.Int64N(int64(r.cfg.Load)))
	}
	sleep := func(d time.Duration) error {
		select {
		case <-time.After(d):
			return nil
		case <-p.exited:
			return fmt.Errorf("seqd exited on its own: %v", p.state)
		}
	}
	if err := sleep(load()); err != nil {
		return false, err
	}
	term := func() (bool, error) {
		p.signal(syscall.SIGTERM)
		code, err := p.wait(30 * time.Second)
		return code == 0, err
	}
	switch fault {
	case Kill:
		p.kill()
		return false, nil
	case PowerLoss:
		return false, r.powerLoss(p)
	case EIOWrite, EIOSync, ENOSPCWrite, ENOSPCSync:
		cmd := map[Fault]string{EIOWrite: "fail write eio", EIOSync: "fail sync eio", ENOSPCWrite: "fail write enospc", ENOSPCSync: "fail sync enospc"}[fault]
		if err := p.fault(fmt.Sprintf("%s %d", cmd, 1+rng.IntN(3))); err != nil {
			return false, err
		}
		if err := sleep(load()); err != nil {
			return false, err
		}
		if rng.IntN(2) == 0 {
			return false, r.powerLoss(p)
		}
		// After a failed write the store refuses to go on, so the stop
		// cannot record the last value: exit status 1, not clean.
		return term()
	case Pause:
		p.signal(syscall.SIGSTOP)
		time.Sleep(time.Duration(100+rng.IntN(900)) * time.Millisecond)
		p.signal(syscall.SIGCONT)
		if err := sleep(load()); err != nil {
			return false, err
		}
		if rng.IntN(2) == 0 {
			p.kill()
			return false, nil
		}
		return term()
	case DiskFull:
		if err := p.fault("full on"); err != nil {
			return false, err
		}
		if err := sleep(load()); err != nil {
			return false, err
		}
		back := r.h.Now()
		if err := p.fault("full off"); err != nil {
			return false, err
		}
		// Writes resume by themselves: a request made after the room
		// came back gets a value from this same server, which then stops
		// cleanly (a store that had failed could not).
		if !r.servedSince(epoch, back, 10*time.Second) {
			r.violation(fmt.Sprintf("cycle %d: no value handed out within 10 s of the disk having room again", epoch))
		}
		if err := sleep(load()); err != nil {
			return false, err
		}
		halt()
		clean, err := term()
		if err == nil && !clean {
			r.violation(fmt.Sprintf("cycle %d: clean stop after a full disk exited with %v", epoch, p.state))
		}
		return clean, err
	case Clean:
		halt()
		clean, err := term()
		if err == nil && !clean {
			r.violation(fmt.Sprintf("cycle %d: clean stop exited with %v", epoch, p.state))
		}
		return clean, err
	}
	return false, fmt.Errorf("unknown fault %q", fault)
}

// servedSince waits up to d for a request of this epoch, sent after t,
// to have been answered with values.
func (r *run) servedSince(epoch int, t int64, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r.h.okSince(epoch, t) {
			return true
		}
	}
	return false
}

func (r *run) powerLoss(p *proc) error {
	if err := p.fault("powerloss"); err != nil {
		return err
	}
	code, err := p.wait(30 * time.Second)
	if err == nil && code != 3 {
		err = fmt.Errorf("power loss: exit status %d, want 3", code)
	}
	return err
}

// check runs every checker over the history.
func (r *run) check(restarts []Restart, start time.Time) (*Report, error) {
	ops := r.h.Ops()
	rep := &Report{Cycles: r.cfg.Cycles, Faults: r.faults, Outcomes: map[string]int{}, DDL: r.ddlOps, Commits: r.ddlCommits}
	for _, op := range ops {
		rep.Ops++
		rep.Outcomes[op.Outcome.String()]++
		if strings.HasPrefix(op.Err, "53100 ") {
			rep.DiskFull++
		}
		if op.Kind != Setval {
			rep.Values += len(op.Values)
		}
	}
	rep.Violations = append(rep.Violations, r.violations...)
	rep.Violations = append(rep.Violations, CheckUnique(ops)...)
	rep.Violations = append(rep.Violations, CheckOrder(ops, r.seqs)...)
	gaps, maxSkip := CheckGaps(ops, r.seqs, restarts)
	rep.Violations = append(rep.Violations, gaps...)
	rep.MaxSkip = maxSkip
	prefix := ops
	if r.cfg.PorcupineOps > 0 && len(prefix) > r.cfg.PorcupineOps {
		prefix = append([]Op(nil), ops...)
		sort.Slice(prefix, func(i, j int) bool { return prefix[i].Call < prefix[j].Call })
		prefix = prefix[:r.cfg.PorcupineOps]
	}
	v, n, err := CheckLinearizable(prefix, r.seqs, 5*time.Minute)
	if err != nil {
		return nil, err
	}
	rep.Porcupine = n
	rep.Violations = append(rep.Violations, v...)
	rep.Elapsed = time.Since(start)
	if len(rep.Violations) > 0 {
		// The history, for whoever looks into the violations.
		if b, err := json.Marshal(ops); err == nil {
			os.WriteFile(filepath.Join(r.cfg.Dir, "history.json"), b, 0o644)
		}
	}
	return rep, nil
}
