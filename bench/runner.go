package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in microseconds, from 1 µs to 10 minutes, with
// 3 significant digits.
func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, 600_000_000, 3) }

// values collects what a worker received as runs of consecutive values,
// so that millions of values from bulk calls take little memory, and
// checks at the end that no value arrived twice.
type values struct {
	runs  [][2]int64 // inclusive, ascending within a run
	count int64
}

func (vs *values) add(v int64) {
	vs.count++
	if n := len(vs.runs); n > 0 && vs.runs[n-1][1]+1 == v {
		vs.runs[n-1][1] = v
		return
	}
	vs.runs = append(vs.runs, [2]int64{v, v})
}

func (vs *values) addRange(first, last int64) {
	vs.count += last - first + 1
	vs.runs = append(vs.runs, [2]int64{first, last})
}

// checkUnique fails if a value is in two runs of the sets, or if the
// runs hold a different number of values than were added (a repeat
// inside one run).
func checkUnique(sets []*values) error {
	var all [][2]int64
	var count int64
	for _, s := range sets {
		all = append(all, s.runs...)
		count += s.count
	}
	slices.SortFunc(all, func(a, b [2]int64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	var held int64
	for i, r := range all {
		if r[1] < r[0] {
			return fmt.Errorf("bad run %d..%d", r[0], r[1])
		}
		held += r[1] - r[0] + 1
		if i > 0 && r[0] <= all[i-1][1] {
			return fmt.Errorf("value %d returned twice", r[0])
		}
	}
	if held != count {
		return fmt.Errorf("%d values received but %d distinct", count, held)
	}
	return nil
}

// measured is what one run of workers did.
type measured struct {
	ops, vals int64
	elapsed   time.Duration
	hist      *hdrhistogram.Histogram
	sets      []*values
	// serverCPU is the server's CPU time during the point; cpuKnown is
	// false when the server could not be measured.
	serverCPU time.Duration
	serverSys time.Duration // of serverCPU, in the kernel
	cpuKnown  bool
}

// loop is how workers run: for a duration or a number of operations, in
// a closed loop or at a fixed total rate.
type loop struct {
	threads  int
	duration time.Duration // stop after this long, if > 0
	total    int64         // stop after this many operations in all, if > 0
	rate     float64       // open loop: operations per second in all; 0 = closed loop
	progress io.Writer     // where the progress line goes; nil for none
	label    string
	server   *cpuProbe // the server whose CPU time is measured; nil for none
}

// op is one operation of worker w; it adds what it received to vs.
type op func(ctx context.Context, w int, vs *values) error

// run starts l.threads workers doing op and measures them. In open loop
// each operation has an intended start time on a fixed schedule and its
// latency counts from then, so that a stall delays (and is charged to)
// the operations queued behind it: latencies corrected for coordinated
// omission.
func (l loop) run(ctx context.Context, do op) (measured, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ops atomic.Int64
	hists := make([]*hdrhistogram.Histogram, l.threads)
	sets := make([]*values, l.threads)
	errs := make([]error, l.threads)
	var interval time.Duration
	if l.rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(l.threads) / l.rate)
	}
	var cpuBefore, sysBefore time.Duration
	cpuKnown := l.server != nil
	if cpuKnown {
		var err error
		if cpuBefore, sysBefore, err = l.server.readSplit(); err != nil {
			cpuKnown = false
		}
	}
	start := time.Now()
	var deadline time.Time
	if l.duration > 0 {
		deadline = start.Add(l.duration)
	}
	stop := l.showProgress(&ops, start)
	var wg sync.WaitGroup
	for w := range l.threads {
		hists[w], sets[w] = newHistogram(), &values{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Workers' schedules are staggered across one interval.
			intended := start.Add(interval * time.Duration(w) / time.Duration(l.threads))
			for i := 0; ; i++ {
				if ctx.Err() != nil {
					return
				}
				if l.total > 0 && ops.Add(1) > l.total {
					ops.Add(-1)
					return
				}
				begin := time.Now()
				if interval > 0 {
					if wait := intended.Sub(begin); wait > 0 {
						time.Sleep(wait)
					}
					begin = intended
					intended = intended.Add(interval)
				}
				if !deadline.IsZero() && begin.After(deadline) {
					return
				}
				if err := do(ctx, w, sets[w]); err != nil {
					if ctx.Err() == nil {
						errs[w] = err
						cancel()
					}
					return
				}
				hists[w].RecordValue(max(time.Since(begin).Microseconds(), 1))
				if l.total == 0 {
					ops.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var serverCPU, serverSys time.Duration
	if cpuKnown {
		after, sysAfter, err := l.server.readSplit()
		serverCPU, serverSys, cpuKnown = after-cpuBefore, sysAfter-sysBefore, err == nil
	}
	stop()
	for _, err := range errs {
		if err != nil {
			return measured{}, fmt.Errorf("%s: %w", l.label, err)
		}
	}
	m := measured{ops: ops.Load(), elapsed: elapsed, hist: newHistogram(), sets: sets, serverCPU: serverCPU, serverSys: serverSys, cpuKnown: cpuKnown}
	for w := range l.threads {
		m.hist.Merge(hists[w])
		m.vals += sets[w].count
	}
	if err := checkUnique(sets); err != nil {
		return measured{}, fmt.Errorf("%s: %w", l.label, err)
	}
	return m, nil
}

// showProgress rewrites one line on l.progress every half second until
// the returned function is called.
func (l loop) showProgress(ops *atomic.Int64, start time.Time) func() {
	if l.progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprintf(l.progress, "\r\033[K")
				return
			case <-t.C:
				s := time.Since(start).Seconds()
				fmt.Fprintf(l.progress, "\r\033[K%s: %d ops in %.1fs (%.0f/s)", l.label, ops.Load(), s, float64(ops.Load())/s)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
