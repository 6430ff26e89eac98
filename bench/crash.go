package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/seqd/seqd/internal/loopback"
)

// The crash workload: clients take values from one counter while its
// server is killed with SIGKILL (kill -9) and restarted on the same files,
// several times; every value each client received is kept, and the
// values received twice are counted. seqd promises none (a crash skips
// at most CACHE values and repeats nothing); Redis with appendfsync
// everysec may return again what it had returned but not yet written or
// fsynced to its AOF. A kill -9 leaves the kernel's page cache, so it
// loses only what Redis had not yet written (a write postponed behind a
// slow background fsync); a power loss would lose up to the last second
// fsynced, which no test on a running machine can reproduce.

// CrashConfig is one crash run. The zero value of a field means the
// default documented on it.
type CrashConfig struct {
	// Targets are seqd (cached or -nocache) and Redis targets; their
	// DSNs are ignored: the workload starts a server of its own for each,
	// in a directory under Dir.
	Targets     []Target
	SeqdBinary  string // the seqd binary (for seqd targets)
	RedisBinary string // redis-server (for Redis targets)
	Dir         string
	Threads     int           // clients; 0 means 16
	Duration    time.Duration // per target; 0 means 20s
	Kills       int           // kill -9s per target, evenly spread; 0 means 5
	Progress    io.Writer     // a line per kill; nil for none
}

// CrashResult is what one target did through its kills.
type CrashResult struct {
	Target   string      `json:"target"`
	Threads  int         `json:"threads"`
	Seconds  float64     `json:"seconds"`
	Returned int64       `json:"returned"` // values the clients received
	Distinct int64       `json:"distinct"`
	Reissued int64       `json:"reissued"` // values received again (each repeat counted once)
	Kills    []CrashKill `json:"kills"`
}

// CrashKill is one kill -9 and restart.
type CrashKill struct {
	// Reissued: values received after this kill that had been received
	// before it.
	Reissued int64 `json:"reissued"`
	// Gap is the first value received after the restart less the last
	// received before the kill, less one: values skipped if positive,
	// the overlap if negative.
	Gap int64 `json:"gap"`
	// Down is the time from the kill to the first value received after
	// it (the restart included).
	Down time.Duration `json:"down_ns"`
}

// crashServer is a server the workload kills and restarts.
type crashServer interface {
	kill()
	restart() error
	stop() // kill, for good
}

type redisCrashServer struct{ *RedisServer }

func (s redisCrashServer) kill()          { s.Kill() }
func (s redisCrashServer) restart() error { return s.Restart() }
func (s redisCrashServer) stop()          { s.Kill() }

type seqdCrashServer struct {
	n   *node
	bin string
	log *os.File
}

func (s seqdCrashServer) kill()          { s.n.kill() }
func (s seqdCrashServer) restart() error { return s.n.start(s.bin) }
func (s seqdCrashServer) stop()          { s.n.kill(); s.log.Close() }

// returned is one value a client received, with the number of kills
// that had happened when it asked.
type returned struct {
	epoch int32
	v     int64
}

// RunCrash runs the crash workload on each target in turn.
func RunCrash(ctx context.Context, cc CrashConfig) ([]CrashResult, error) {
	if cc.Threads <= 0 {
		cc.Threads = 16
	}
	if cc.Duration <= 0 {
		cc.Duration = 20 * time.Second
	}
	if cc.Kills <= 0 {
		cc.Kills = 5
	}
	for _, t := range cc.Targets {
		switch {
		case t.redis() && cc.RedisBinary == "":
			return nil, fmt.Errorf("target %s needs redis-server (scripts/test-deps.sh installs it)", t.Name)
		case t.Kind == Seqd && cc.SeqdBinary == "":
			return nil, fmt.Errorf("target %s needs -seqd-binary (a binary of ./cmd/seqd)", t.Name)
		case !t.redis() && t.Kind != Seqd:
			return nil, fmt.Errorf("target %s: the crash workload runs on seqd and Redis targets only", t.Name)
		}
	}
	var out []CrashResult
	for i, t := range cc.Targets {
		dir := filepath.Join(cc.Dir, fmt.Sprintf("%s-%d", t.Name, i))
		srv, t, err := startCrashServer(cc, t, dir)
		if err != nil {
			return nil, err
		}
		r, err := crashTarget(ctx, cc, t, srv)
		srv.stop()
		if err != nil {
			return nil, fmt.Errorf("crash %s: %w", t.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// startCrashServer starts t's server in dir and returns t pointing at it.
func startCrashServer(cc CrashConfig, t Target, dir string) (crashServer, Target, error) {
	switch {
	case t.redis():
		s, err := StartRedis(cc.RedisBinary, dir, t.appendfsync())
		if err != nil {
			return nil, t, err
		}
		t.DSN = s.DSN()
		return redisCrashServer{s}, t, nil
	case t.Kind == Seqd:
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, t, err
		}
		log, err := os.Create(filepath.Join(dir, "seqd.log"))
		if err != nil {
			return nil, t, err
		}
		pg, err := loopback.FreeAddr()
		if err == nil {
			var h string
			if h, err = loopback.FreeAddr(); err == nil {
				n := &node{args: []string{"-data", filepath.Join(dir, "store"), "-idle-timeout", "0"}, pg: pg, http: h, log: log}
				if err = n.start(cc.SeqdBinary); err == nil {
					t.DSN = fmt.Sprintf("postgres://seqbench@%s/seqbench?sslmode=disable", pg)
					return seqdCrashServer{n, cc.SeqdBinary, log}, t, nil
				}
			}
		}
		log.Close()
		return nil, t, err
	}
	return nil, t, fmt.Errorf("target %s: not a seqd or Redis target", t.Name)
}

// crashTarget runs the clients against t and kills its server cc.Kills
// times, evenly spread over cc.Duration.
func crashTarget(ctx context.Context, cc CrashConfig, t Target, srv crashServer) (CrashResult, error) {
	const seq = "seqbench_crash"
	d := dialect{t}
	if err := prepare(ctx, t, func(s session) error { return d.createSequence(ctx, s, seq, 1, 1) }); err != nil {
		return CrashResult{}, err
	}
	q := d.nextval(seq)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var epoch atomic.Int32
	firstAt := make([]atomic.Int64, cc.Kills+1) // unix ns of each epoch's first value
	hists := make([][]returned, cc.Threads)
	start := time.Now()
	deadline := start.Add(cc.Duration)
	var killsDone atomic.Bool // clients go on past the deadline until the last restart served
	more := func() bool { return time.Now().Before(deadline) || !killsDone.Load() }
	var wg sync.WaitGroup
	for w := range cc.Threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hists[w] = crashClient(ctx, t, q, &epoch, firstAt, more)
		}()
	}
	killedAt, err := killRepeatedly(ctx, cc, srv, &epoch, firstAt, start)
	killsDone.Store(true)
	if err != nil {
		cancel()
	}
	wg.Wait()
	if err != nil {
		return CrashResult{}, err
	}
	var all []returned
	for _, h := range hists {
		all = append(all, h...)
	}
	r := CrashResult{Target: t.Name, Threads: cc.Threads, Seconds: time.Since(start).Seconds(), Returned: int64(len(all))}
	var perKill []int64
	r.Distinct, r.Reissued, perKill = countReissued(all, cc.Kills)
	gaps := epochGaps(all, cc.Kills)
	for k := 1; k <= cc.Kills; k++ {
		r.Kills = append(r.Kills, CrashKill{Reissued: perKill[k], Gap: gaps[k],
			Down: time.Duration(firstAt[k].Load() - killedAt[k].UnixNano())})
	}
	return r, nil
}

// killRepeatedly kills and restarts srv cc.Kills times, the k-th at
// k/(Kills+1) of the run, and waits after each restart for a client to
// receive a value. It returns when each kill was made (index k).
func killRepeatedly(ctx context.Context, cc CrashConfig, srv crashServer, epoch *atomic.Int32, firstAt []atomic.Int64, start time.Time) ([]time.Time, error) {
	killedAt := make([]time.Time, cc.Kills+1)
	for k := 1; k <= cc.Kills; k++ {
		at := start.Add(cc.Duration * time.Duration(k) / time.Duration(cc.Kills+1))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Until(at)):
		}
		// The kill comes before the epoch moves on, and the restart after:
		// a client that read the old epoch asked the old process, or got
		// an error.
		srv.kill()
		killedAt[k] = time.Now()
		epoch.Store(int32(k))
		if err := srv.restart(); err != nil {
			return nil, fmt.Errorf("restart after kill %d: %w", k, err)
		}
		for firstAt[k].Load() == 0 {
			if time.Since(killedAt[k]) > 30*time.Second {
				return nil, fmt.Errorf("no value within 30s of kill %d", k)
			}
			time.Sleep(time.Millisecond)
		}
		if cc.Progress != nil {
			fmt.Fprintf(cc.Progress, "kill %d of %d: serving again after %v\n", k, cc.Kills,
				time.Duration(firstAt[k].Load()-killedAt[k].UnixNano()).Round(time.Millisecond))
		}
	}
	return killedAt, nil
}

// crashClient takes values while more says so, reconnecting after any
// error (the server was killed), and returns what it received.
func crashClient(ctx context.Context, t Target, q string, epoch *atomic.Int32, firstAt []atomic.Int64, more func() bool) []returned {
	var got []returned
	var s session
	defer func() {
		if s != nil {
			s.close()
		}
	}()
	for ctx.Err() == nil && more() {
		if s == nil {
			var err error
			if s, err = connect(ctx, t); err != nil {
				s = nil
				time.Sleep(5 * time.Millisecond)
				continue
			}
		}
		e := epoch.Load()
		v, err := s.value(ctx, q)
		if err != nil {
			s.close()
			s = nil
			time.Sleep(5 * time.Millisecond)
			continue
		}
		got = append(got, returned{e, v})
		firstAt[e].CompareAndSwap(0, time.Now().UnixNano())
	}
	return got
}

// countReissued counts, in a history of values received, the distinct
// values and the repeats: a value received n times is n-1 repeats, each
// charged to the epoch (kills before it) in which it was received again.
func countReissued(hist []returned, kills int) (distinct, reissued int64, perEpoch []int64) {
	perEpoch = make([]int64, kills+1)
	h := slices.Clone(hist)
	slices.SortFunc(h, func(a, b returned) int {
		return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.epoch, b.epoch))
	})
	for i, r := range h {
		if i > 0 && h[i-1].v == r.v {
			reissued++
			perEpoch[r.epoch]++
			continue
		}
		distinct++
	}
	return distinct, reissued, perEpoch
}

// epochGaps is, for each kill k, the smallest value received in epoch k
// less the largest received in epoch k-1, less one (0 when either epoch
// received nothing).
func epochGaps(hist []returned, kills int) []int64 {
	lo := make([]int64, kills+1)
	hi := make([]int64, kills+1)
	seen := make([]bool, kills+1)
	for _, r := range hist {
		e := r.epoch
		if !seen[e] {
			lo[e], hi[e], seen[e] = r.v, r.v, true
			continue
		}
		lo[e], hi[e] = min(lo[e], r.v), max(hi[e], r.v)
	}
	gaps := make([]int64, kills+1)
	for k := 1; k <= kills; k++ {
		if seen[k] && seen[k-1] {
			gaps[k] = lo[k] - hi[k-1] - 1
		}
	}
	return gaps
}

// WriteCrash prints crash results as a table: per target the totals,
// then each kill's repeats, gap and time to the next value.
func WriteCrash(w io.Writer, rs []CrashResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tclients\tseconds\tkills\treturned\tdistinct\treturned twice\tper kill: returned twice\tgap (skipped; <0 overlap)\tms to next value\t")
	for _, r := range rs {
		var re, gap, down []string
		for _, k := range r.Kills {
			re = append(re, fmt.Sprint(k.Reissued))
			gap = append(gap, fmt.Sprint(k.Gap))
			down = append(down, fmt.Sprint(k.Down.Milliseconds()))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", r.Target, r.Threads, r.Seconds, len(r.Kills),
			r.Returned, r.Distinct, r.Reissued, strings.Join(re, " "), strings.Join(gap, " "), strings.Join(down, " "))
	}
	return tw.Flush()
}

// WriteCrashJSON writes crash results as a JSON document.
func WriteCrashJSON(w io.Writer, rs []CrashResult) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		Crash []CrashResult `json:"crash"`
	}{rs})
}
