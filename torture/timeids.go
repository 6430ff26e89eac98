package torture

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/loopback"
	"github.com/seqd/seqd/timeid"
)

// The clock torture: seqd's time-ordered ids (SNOWFLAKE sequences,
// seqd_tso, seqd_uuidv7) taken by concurrent clients from one server
// whose wall clock the harness moves (the faultinject build's "clock"
// commands: steps back within and past MaxBehind, steps forward by
// minutes to hours, slews, a step at every restart), each cycle ended by
// kill -9, a power loss or a clean stop. Checked over the whole history:
// no id twice, ids in real-time order (an id handed out after another
// was returned is above it, across restarts too), each id's time within
// the bounds of the clock it was handed out on, and a refusal (55000)
// only where the ids could have run more than MaxBehind ahead of it.

// TimeConfig is one clock torture run.
type TimeConfig struct {
	Binary   string
	Dir      string
	Cycles   int
	Clients  int
	Load     time.Duration // each cycle's load, at least a tenth of it
	Seed     uint64
	Progress func(string)
}

// TimeReport is what a clock torture run did and found.
type TimeReport struct {
	Cycles     int
	Faults     map[string]int // the cycles' ends and the clock's moves
	Ops        int
	IDs        int
	Refused    int // 55000: the ids ran more than MaxBehind ahead of the clock
	Violations []string
	Elapsed    time.Duration
}

func (r *TimeReport) String() string {
	return fmt.Sprintf("%d cycles in %v; %d operations, %d ids, %d refused (clock behind); faults: %s; violations: %d\n  %s",
		r.Cycles, r.Elapsed.Round(time.Second), r.Ops, r.IDs, r.Refused, mapString(r.Faults), len(r.Violations), strings.Join(r.Violations, "\n  "))
}

// timeGen is one generator the workload takes ids from.
type timeGen struct {
	name   string
	ddl    string        // "": built in
	layout timeid.Layout // to decode an id's time
	query  func(rng *rand.Rand) (string, int64)
}

var timeGens = []timeGen{
	{name: "ids", ddl: "create sequence ids snowflake", layout: timeid.Twitter,
		query: func(*rand.Rand) (string, int64) { return "select nextval('ids')", 1 }},
	{name: "sony", ddl: "create sequence sony snowflake epoch '2014-09-01 00:00:00+00' time_unit '10 ms' node_bits 16 counter_bits 8", layout: timeid.Sonyflake,
		query: func(*rand.Rand) (string, int64) { return "select nextval('sony')", 1 }},
	{name: "tso", layout: timeid.TSO, query: func(rng *rand.Rand) (string, int64) {
		n := 1 + rng.Int64N(100)
		return fmt.Sprintf("select seqd_tso(%d)", n), n
	}},
	{name: "uuidv7", layout: timeid.UUIDv7Layout, query: func(*rand.Rand) (string, int64) { return "select seqd_uuidv7()", 1 }},
}

// timeOp is one call: ids first..first+count-1 (an id: what orders them,
// the generator's integer; a UUID's time and counter), or an error.
type timeOp struct {
	gen          int
	call, ret    time.Duration // the harness's clock
	first, count int64
	err          string
	lead         time.Duration // how far ids could have run ahead of the server's clock at the call
	offLo, offHi time.Duration // the server clock's offset from real time during the call
}

// timeRun is a clock torture run's state.
type timeRun struct {
	cfg     TimeConfig
	start   time.Time
	dsn     string
	cluster bool // RunTimeIDsCluster's: a standby's refusal is expected

	mu     sync.Mutex
	ops    []timeOp
	faults map[string]int
	offset time.Duration // the server clock's offset from real time, as last set
	// skew is, in a cluster, each node's clock's offset from offset
	// (set when the node starts).
	skew    []time.Duration
	changes []clockChange // the last few changes of it
	// frontier bounds the ids' times (as harness time + offset): the
	// latest server time the clock may have read, and a Window more at
	// every restart, which starts above a mark saved up to a Window
	// ahead of the ids.
	frontier time.Duration
}

// clockChange is a change of the server clock's offset, from when the
// harness made it until it is surely in force (the command takes a while
// to arrive; a slew takes its period): meanwhile the offset is anywhere
// between from and to.
type clockChange struct {
	at, until time.Duration
	from, to  time.Duration
}

// settle is how long a step's command may take to reach the server
// (and a slew's to begin), on a loaded machine.
const settle = time.Second

func (r *timeRun) now() time.Duration { return time.Since(r.start) }

// RunTimeIDs runs the clock torture and checks its history.
func RunTimeIDs(cfg TimeConfig) (*TimeReport, error) {
	r := &timeRun{cfg: cfg, start: time.Now(), faults: map[string]int{}}
	addr, err := loopback.FreeAddr()
	if err != nil {
		return nil, err
	}
	r.dsn = dsnFor(addr, nil)
	dataDir := filepath.Join(cfg.Dir, "data")
	if err := os.RemoveAll(dataDir); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(cfg.Dir, "seqd.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x71))
	for cycle := 0; cycle <= cfg.Cycles; cycle++ {
		end := []string{"kill -9", "power loss", "clean restart"}[rng.IntN(3)]
		if cycle == cfg.Cycles {
			end = "clean stop"
		}
		fmt.Fprintf(logf, "--- cycle %d at %v, to end by %s\n", cycle, r.now(), end)
		// The store in memory (-fault-injection) only where a power loss
		// ends the cycle: it is lost at a kill -9. The clock always.
		off := r.restartClock(rng, cycle)
		p, err := startProc(cfg.Binary, dataDir, addr, end == "power loss", rng.Uint64(), nil, logf, "-fault-clock", "-fault-clock-offset", off.String())
		if err != nil {
			return nil, fmt.Errorf("cycle %d: %w (log in %s)", cycle, err, logf.Name())
		}
		if cycle == 0 {
			if err := r.setup(); err != nil {
				p.kill()
				return nil, err
			}
		}
		if err := r.cycle(p, rng, end); err != nil {
			p.kill()
			return nil, fmt.Errorf("cycle %d: %w (log in %s)", cycle, err, logf.Name())
		}
		r.faults[end]++
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf("cycle %d: %s, clock %v off, %d operations so far", cycle, end, r.offset, len(r.ops)))
		}
	}
	return r.check(), nil
}

// restartClock is the clock offset a new server starts on: the run's
// (its clock would start on the system's), and at a restart a step of
// its own: a restart into a clock that went back or jumped ahead.
func (r *timeRun) restartClock(rng *rand.Rand, cycle int) time.Duration {
	step := time.Duration(0)
	if cycle > 0 {
		switch rng.IntN(4) {
		case 0:
			step = -time.Duration(rng.Int64N(int64(8 * time.Second)))
		case 1:
			step = time.Duration(rng.Int64N(int64(10 * time.Minute)))
		}
	}
	r.mu.Lock()
	r.frontier = max(r.frontier, r.now()+r.offset) + timeid.DefaultWindow + 100*time.Millisecond
	r.setOffsetLocked(r.offset+step, 0)
	off := r.offset
	r.mu.Unlock()
	if step != 0 {
		r.faults["clock step at a restart"]++
	}
	return off
}

// setOffsetLocked records the server clock's new offset, reached over
// slew (0: at once). REQUIRES: r.mu held.
func (r *timeRun) setOffsetLocked(off, slew time.Duration) {
	r.moveLocked(func() { r.offset = off }, slew)
}

// moveLocked makes change to the clocks' offsets and records the range
// they spanned before and after it, reached over slew.
// REQUIRES: r.mu held.
func (r *timeRun) moveLocked(change func(), slew time.Duration) {
	lo0, hi0 := r.rangeLocked()
	change()
	lo1, hi1 := r.rangeLocked()
	now := r.now()
	r.changes = append(r.changes, clockChange{at: now, until: now + slew + settle, from: lo0, to: lo1},
		clockChange{at: now, until: now + slew + settle, from: hi0, to: hi1})
	if len(r.changes) > 32 {
		r.changes = r.changes[2:]
	}
}

// rangeLocked is the least and the greatest of the servers' clock
// offsets: the run's, each node's skew from it added (a cluster's).
// REQUIRES: r.mu held.
func (r *timeRun) rangeLocked() (lo, hi time.Duration) {
	lo, hi = r.offset, r.offset
	for _, s := range r.skew {
		lo, hi = min(lo, r.offset+s), max(hi, r.offset+s)
	}
	return lo, hi
}

// bounds are the offsets the server clock may have had at t (in a
// cluster, any node's), and how far ids may have run ahead of it then:
// the frontier, less the least it may read now.
func (r *timeRun) bounds(t time.Duration) (lo, hi, lead time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lo, hi = r.rangeLocked()
	for _, c := range r.changes {
		if c.until > t {
			lo, hi = min(lo, c.from, c.to), max(hi, c.from, c.to)
		}
	}
	r.frontier = max(r.frontier, t+hi)
	return lo, hi, r.frontier - (t + lo)
}

func (r *timeRun) setup() error {
	ctx := context.Background()
	c, err := connect(ctx, r.dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for _, g := range timeGens {
		if g.ddl != "" {
			if _, err := c.Exec(ctx, g.ddl); err != nil {
				return err
			}
		}
	}
	return nil
}

// cycle runs the load with clock faults and ends the server as end says.
func (r *timeRun) cycle(p *proc, rng *rand.Rand, end string) error {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range r.cfg.Clients {
		wg.Add(1)
		seed := rng.Uint64()
		go func() { defer wg.Done(); r.worker(i, seed, stop) }()
	}
	load := r.cfg.Load/10 + time.Duration(rng.Int64N(int64(r.cfg.Load)))
	err := r.clockFaults(p.fault, rng, load)
	if end == "clean restart" || end == "clean stop" {
		close(stop)
		wg.Wait()
	}
	switch end {
	case "kill -9":
		p.kill()
	case "power loss":
		if err == nil {
			err = p.fault("powerloss")
		}
		if _, werr := p.wait(30 * time.Second); err == nil {
			err = werr
		}
	default:
		p.signal(syscall.SIGTERM)
		if code, werr := p.wait(30 * time.Second); err == nil && (werr != nil || code != 0) {
			err = fmt.Errorf("clean stop: exit %d, %v", code, werr)
		}
	}
	if end != "clean restart" && end != "clean stop" {
		close(stop)
		wg.Wait()
	}
	return err
}

// clockFaults moves the server's clock during load (send gives the
// faultinject build its command): each move a step back within
// MaxBehind, a step back past it (put right after a while, as an
// operator would), a step forward by minutes to hours, or a slew.
func (r *timeRun) clockFaults(send func(string) error, rng *rand.Rand, load time.Duration) error {
	moves := 2 + rng.IntN(3)
	next := rng.IntN(4) // the kinds in turn: a short run has each
	for i := range moves {
		time.Sleep(load / time.Duration(moves))
		var kind, cmd string
		var undo time.Duration
		r.mu.Lock()
		off := r.offset
		slew := time.Duration(0)
		switch (next + i) % 4 {
		case 0:
			kind, off = "clock step back within MaxBehind", off-time.Duration(1+rng.Int64N(int64(4*time.Second)))
		case 1:
			d := timeid.DefaultMaxBehind + time.Duration(rng.Int64N(int64(10*time.Second)))
			kind, off, undo = "clock step back past MaxBehind", off-d, d
		case 2:
			kind, off = "clock step forward", off+time.Minute+time.Duration(rng.Int64N(int64(2*time.Hour)))
		default:
			d := time.Duration(rng.Int64N(int64(4*time.Second))) - 2*time.Second
			kind, off, slew = "clock slew", off+d, time.Second
		}
		cmd = fmt.Sprintf("clock step %v", off-r.offset)
		if slew > 0 {
			cmd = fmt.Sprintf("clock slew %v %v", off-r.offset, slew)
		}
		r.setOffsetLocked(off, slew)
		r.mu.Unlock()
		r.faults[kind]++
		if err := send(cmd); err != nil {
			return err
		}
		if undo > 0 {
			time.Sleep(time.Duration(rng.Int64N(int64(300 * time.Millisecond))))
			r.mu.Lock()
			r.setOffsetLocked(r.offset+undo, 0)
			r.mu.Unlock()
			if err := send(fmt.Sprintf("clock step %v", undo)); err != nil {
				return err
			}
		}
	}
	return nil
}

// worker takes ids until stop, reconnecting after a connection dies.
func (r *timeRun) worker(id int, seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	for !stopped(stop) {
		c, err := connect(context.Background(), r.dsn)
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		for !stopped(stop) && r.take(c, rng) {
		}
		c.Close(context.Background())
	}
}

// take makes one call and records it; false when the connection is gone.
func (r *timeRun) take(c *pgx.Conn, rng *rand.Rand) bool {
	gi := rng.IntN(len(timeGens))
	q, n := timeGens[gi].query(rng)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	op := timeOp{gen: gi, call: r.now()}
	lo1, hi1, lead := r.bounds(op.call)
	var text string
	var v int64
	var err error
	if timeGens[gi].name == "uuidv7" {
		err = c.QueryRow(ctx, q).Scan(&text)
		if err == nil {
			v, err = uuidOrder(text)
		}
	} else {
		err = c.QueryRow(ctx, q).Scan(&v)
	}
	op.ret = r.now()
	lo2, hi2, lead2 := r.bounds(op.ret)
	op.offLo, op.offHi, op.lead = min(lo1, lo2), max(hi1, hi2), max(lead, lead2)
	var pe *pgconn.PgError
	switch {
	case err == nil:
		op.first, op.count = v, n
	case errors.As(err, &pe):
		op.err = pe.Code + " " + pe.Message
	default:
		return false // the server went away: the outcome is unknown, nothing to check
	}
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
	return true
}

// uuidOrder is what orders a UUIDv7 of seqd's: its 48 bits of time and
// 12 of counter, as one integer.
func uuidOrder(s string) (int64, error) {
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(b) != 16 || b[6]>>4 != 7 || b[8]>>6 != 2 {
		return 0, fmt.Errorf("not a UUIDv7: %q", s)
	}
	var ms int64
	for _, x := range b[:6] {
		ms = ms<<8 | int64(x)
	}
	return ms<<12 | int64(b[6]&0xf)<<8 | int64(b[7]), nil
}
