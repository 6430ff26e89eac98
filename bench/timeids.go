package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake"

	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/embedded"
	"github.com/seqd/seqd/timeid"
)

// The timeids workload: time-ordered id generators run in this process
// (no network: the ceiling of each), seqd's timeid.Generator on a real
// durable mark (the embedded store, synced) beside Sonyflake and
// bwmarrin/snowflake, the Go libraries teams use; then seqd's SNOWFLAKE
// sequences over the wire, and PostgreSQL's sequence when given
// (timeids_server.go). Two experiments:
//
//   - speed: ids per second and CPU per id, on 1 and more goroutines;
//   - a restart into a clock that went back: each generator issues ids
//     for a while, is stopped and made again (a process restart) with the
//     same node id on a clock that reads Step behind, and issues ids
//     again; the ids the second life issued that the first had issued
//     already are counted, as are its errors and how long it issued none.
//
// Sonyflake and bwmarrin/snowflake count time on Go's monotonic clock
// from when they were made, so a clock step while they run does not
// reach them, but a restart does: a clock Step behind is, for them, an
// epoch Step later, which is how the experiment plays it (their time is
// "now minus epoch"). seqd's generator is given a clock that reads Step
// behind, and the durable mark its first life saved.

// TimeIDsConfig is one timeids run; zero fields mean the defaults noted.
type TimeIDsConfig struct {
	Dir      string        // for seqd's store
	Threads  []int         // goroutines of the speed experiment; nil means 1 and 8
	Duration time.Duration // per speed point, and per life in the restart experiment; 0 means 2 s
	// Steps are the clock's steps back at the restart; nil means 10 ms,
	// 1 s and 1 min. A step shorter than Duration lands the second life
	// in time the first issued ids in, as a service that ran for long
	// would; a longer one (1 min) shows what seqd does past MaxBehind, and
	// finds no repeat of the libraries' only because their first life was
	// shorter than the step.
	Steps []time.Duration
	// Postgres, when set, is a PostgreSQL whose sequence runs beside
	// them (pgx connection string).
	Postgres string
}

// TimeIDsSpeed is one generator at one goroutine count.
type TimeIDsSpeed struct {
	Generator string  `json:"generator"`
	Threads   int     `json:"threads"`
	IDs       int64   `json:"ids"`
	PerSecond float64 `json:"per_second"`
	CPUNanos  float64 `json:"cpu_ns_per_id"` // this process's CPU time per id
	// Ahead is how far the ids ran ahead of the clock at the end: a
	// rate above the layout's (Twitter's: 4,096 a millisecond) is
	// borrowed from the units to come, up to MaxBehind, and then waits
	// for the clock, as the libraries wait at every unit used up.
	Ahead time.Duration `json:"ahead"`
}

// TimeIDsRestart is one generator restarted into a clock Step behind.
type TimeIDsRestart struct {
	Generator  string        `json:"generator"`
	Step       time.Duration `json:"step"`
	Before     int64         `json:"before"`     // ids of the first life
	After      int64         `json:"after"`      // of the second
	Duplicates int64         `json:"duplicates"` // ids of the second life the first had issued
	Errors     int64         `json:"errors"`
	Stalled    time.Duration `json:"stalled"` // from the restart to its first id
	FirstError string        `json:"first_error,omitempty"`
}

// TimeIDsResult is a run's.
type TimeIDsResult struct {
	Speed    []TimeIDsSpeed   `json:"speed"`
	Restarts []TimeIDsRestart `json:"restarts"`
}

// idGen is one generator under test: take returns an id or an error.
type idGen struct {
	take  func() (int64, error)
	close func()
	ahead func() time.Duration // how far its ids run ahead of the clock (nil: never)
}

// idMaker makes a generator on a clock behind the real one by skew, as
// node 1; a life of the same maker is a restart.
type idMaker struct {
	name string
	make func(skew time.Duration) (*idGen, error)
}

func timeIDMakers(dir, postgres string) []idMaker {
	ms := []idMaker{
		{"seqd timeid", func(skew time.Duration) (*idGen, error) { return seqdTimeID(dir, skew) }},
		{"sonyflake", func(skew time.Duration) (*idGen, error) {
			sf := sonyflake.NewSonyflake(sonyflake.Settings{StartTime: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC).Add(skew), MachineID: func() (uint16, error) { return 1, nil }})
			if sf == nil {
				return nil, errors.New("sonyflake: not made")
			}
			return &idGen{take: func() (int64, error) { id, err := sf.NextID(); return int64(id), err }, close: func() {}}, nil
		}},
		{"bwmarrin/snowflake", func(skew time.Duration) (*idGen, error) {
			snowflakeMu.Lock()
			snowflake.Epoch = 1288834974657 + skew.Milliseconds() // read by NewNode
			n, err := snowflake.NewNode(1)
			snowflakeMu.Unlock()
			if err != nil {
				return nil, err
			}
			return &idGen{take: func() (int64, error) { return n.Generate().Int64(), nil }, close: func() {}}, nil
		}},
	}
	ms = append(ms, seqdServerMakers(dir)...)
	if postgres != "" {
		ms = append(ms, postgresMaker(postgres))
	}
	return ms
}

// snowflakeMu guards bwmarrin/snowflake's package-level Epoch.
var snowflakeMu sync.Mutex

// storeMark is timeid.Mark on the embedded store: one record, written
// as a sequence's mark is, with a sync.
type storeMark struct {
	st  *embedded.Store
	tok storage.Token
	mu  sync.Mutex
	rev storage.Rev
}

const markKey = "timeid-mark"

func (m *storeMark) Save(ctx context.Context, unit int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	rev, err := m.st.Commit(ctx, m.tok, []storage.Op{{Key: markKey, Value: binary.BigEndian.AppendUint64(nil, uint64(unit)), Expect: m.rev}})
	if err == nil {
		m.rev = rev
	}
	return err
}

// seqdTimeID opens the store in dir (made on the first life), reads the
// mark the last life saved, and makes a Generator of Twitter's layout on
// a clock skew behind.
func seqdTimeID(dir string, skew time.Duration) (*idGen, error) {
	st, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	tok, err := st.Acquire(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	m := &storeMark{st: st, tok: tok}
	durable := int64(-1)
	err = st.Load(ctx, func(kv storage.KV) error {
		if kv.Key == markKey {
			durable, m.rev = int64(binary.BigEndian.Uint64(kv.Value)), kv.Rev
		}
		return nil
	})
	if err != nil {
		st.Close()
		return nil, err
	}
	x, err := timeid.NewGenerator(timeid.Config{Node: 1}, func() time.Time { return time.Now().Add(-skew) }, m, durable)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &idGen{take: func() (int64, error) {
		id, _, err := x.Take(ctx, 1)
		return id, err
	}, close: func() { x.Close(); st.Close() }, ahead: x.Behind}, nil
}

// RunTimeIDs runs both experiments.
func RunTimeIDs(cfg TimeIDsConfig) (*TimeIDsResult, error) {
	if cfg.Threads == nil {
		cfg.Threads = []int{1, 8}
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 2 * time.Second
	}
	if cfg.Steps == nil {
		cfg.Steps = []time.Duration{10 * time.Millisecond, time.Second, time.Minute}
	}
	res := &TimeIDsResult{}
	for _, mk := range timeIDMakers(cfg.Dir+"/speed", cfg.Postgres) {
		for _, th := range cfg.Threads {
			g, err := mk.make(0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", mk.name, err)
			}
			res.Speed = append(res.Speed, timeIDSpeed(mk.name, g, th, cfg.Duration))
			g.close()
		}
	}
	for si, step := range cfg.Steps {
		for _, mk := range timeIDMakers(fmt.Sprintf("%s/restart%d", cfg.Dir, si), cfg.Postgres) {
			r, err := timeIDRestart(mk, step, cfg.Duration)
			if err != nil {
				return nil, fmt.Errorf("%s, a step of %v: %w", mk.name, step, err)
			}
			res.Restarts = append(res.Restarts, r)
		}
	}
	return res, nil
}

func timeIDSpeed(name string, g *idGen, threads int, d time.Duration) TimeIDsSpeed {
	var ids atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	cpu0, began := selfCPU(), time.Now()
	for range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int64
			for {
				for range 1024 {
					if _, err := g.take(); err == nil {
						n++
					}
				}
				select {
				case <-stop:
					ids.Add(n)
					return
				default:
				}
			}
		}()
	}
	time.Sleep(d)
	close(stop)
	wg.Wait()
	took, cpu := time.Since(began), selfCPU()-cpu0
	n := ids.Load()
	s := TimeIDsSpeed{Generator: name, Threads: threads, IDs: n, PerSecond: float64(n) / took.Seconds(), CPUNanos: float64(cpu.Nanoseconds()) / float64(max(n, 1))}
	if g.ahead != nil {
		s.Ahead = g.ahead()
	}
	return s
}

// timeIDRestart runs two lives of mk on one goroutine, the second on a
// clock step behind, for d each.
func timeIDRestart(mk idMaker, step, d time.Duration) (TimeIDsRestart, error) {
	r := TimeIDsRestart{Generator: mk.name, Step: step}
	g, err := mk.make(0)
	if err != nil {
		return r, err
	}
	var first []int64
	for end := time.Now().Add(d); time.Now().Before(end); {
		if id, err := g.take(); err == nil {
			first = append(first, id)
		}
	}
	g.close()
	r.Before = int64(len(first))
	slices.Sort(first) // issued increasing; sorted for the search all the same
	if g, err = mk.make(step); err != nil {
		return r, err
	}
	defer g.close()
	restarted := time.Now()
	for end := restarted.Add(d); time.Now().Before(end); {
		id, err := g.take()
		if err != nil {
			if r.Errors++; r.FirstError == "" {
				r.FirstError = err.Error()
			}
			continue
		}
		if r.After++; r.After == 1 {
			r.Stalled = time.Since(restarted)
		}
		if _, found := slices.BinarySearch(first, id); found {
			r.Duplicates++
		}
	}
	return r, nil
}

// WriteTimeIDs writes res as two tables.
func WriteTimeIDs(w io.Writer, res *TimeIDsResult) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "generator\tgoroutines\tids\tids/s\tCPU ns/id\tahead of the clock at the end\t")
	for _, s := range res.Speed {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.1f\t%v\t\n", s.Generator, s.Threads, s.IDs, s.PerSecond, s.CPUNanos, s.Ahead.Round(time.Millisecond))
	}
	fmt.Fprintln(tw, "\t\t\t\t\t")
	fmt.Fprintln(tw, "generator\tclock back at restart\tids before\tids after\tduplicates\terrors\tfirst id after\t")
	for _, r := range res.Restarts {
		stalled := "none issued"
		if r.After > 0 {
			stalled = r.Stalled.Round(time.Microsecond).String()
		}
		fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%d\t%s\t\n", r.Generator, r.Step, r.Before, r.After, r.Duplicates, r.Errors, stalled)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range res.Restarts {
		if r.FirstError != "" {
			fmt.Fprintf(w, "%s, %v back: %s\n", r.Generator, r.Step, strings.TrimSpace(r.FirstError))
		}
	}
	return nil
}
