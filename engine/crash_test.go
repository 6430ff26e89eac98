package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/embedded"
)

// history records, per sequence, every value handed out before a crash
// point. A value counts as "before" only if the crash flag was still clear
// after the value arrived, so the check can never raise a false alarm.
type history struct {
	mu     sync.Mutex
	values map[string]map[int64]bool
	max    map[string]int64
}

func newHistory() *history {
	return &history{values: map[string]map[int64]bool{}, max: map[string]int64{}}
}

func (h *history) add(t testing.TB, seq string, r seqmath.Range) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.values[seq] == nil {
		h.values[seq] = map[int64]bool{}
	}
	for i := range r.Count {
		v := r.At(i)
		if h.values[seq][v] {
			t.Errorf("%s: value %d handed out twice", seq, v)
		}
		h.values[seq][v] = true
		if m, ok := h.max[seq]; !ok || v > m {
			h.max[seq] = v
		}
	}
}

// TestCrashConcurrent runs concurrent nextval, reserve and DDL, takes a
// crash clone of the file system at a random moment (dropping a random
// share of unsynced writes), recovers from it, and checks: no value is
// handed out twice across all generations, every sequence resumes beyond
// every value returned before the crash, and every acknowledged CREATE and
// DROP survived.
func TestCrashConcurrent(t *testing.T) {
	iterations := 60
	if testing.Short() {
		iterations = 15
	}
	rng := rand.New(rand.NewPCG(7, uint64(iterations)))
	fs := vfs.NewCrashableMem()
	e := openFS(t, fs)
	names, counter := crashSequences(t, e)
	h := newHistory()
	ddlState := map[string]bool{} // acknowledged existence of DDL-goroutine sequences
	ddlSeq := 0
	for it := range iterations {
		ci := &crashIteration{t: t, e: e, it: it, names: names, counter: counter, h: h, stop: make(chan struct{}),
			ddlSeq: &ddlSeq, ddlAcked: map[string]bool{}}
		ci.inflight.Store("")
		var wg sync.WaitGroup
		for g := range 6 {
			wg.Add(1)
			go func() { defer wg.Done(); ci.takeValues(g) }()
		}
		wg.Add(1)
		go func() { defer wg.Done(); ci.runDDL() }()
		for range 1 + rng.IntN(200) {
			runtime.Gosched()
		}
		ci.crashed.Store(true)
		clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(uint64(it), 1))})
		close(ci.stop)
		e.Close()
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		for k, v := range ci.ddlAcked {
			ddlState[k] = v
		}
		maybe := ci.inflight.Load().(string)

		fs = clone
		e = openFS(t, fs)
		for _, n := range names {
			v := counter(n, next(t, e, n))
			h.add(t, n.key, seqmath.Range{First: v, Count: 1, Increment: 1})
			if m := h.max[n.key]; v < m {
				t.Fatalf("iteration %d: %s resumed at %d, behind %d", it, n, v, m)
			}
		}
		for name, exists := range ddlState {
			if name == maybe {
				delete(ddlState, name)
				continue
			}
			_, err := e.Info(mustName(t, name))
			if exists != (err == nil) {
				t.Fatalf("iteration %d: %s should exist=%v after crash, Info err %v", it, name, exists, err)
			}
		}
	}
	e.Close()
}

// crashSequences creates the sequences TestCrashConcurrent takes values
// of: plain ones of several caches, and shaped ones, whose history holds
// their counters (values map back one to one; counter does, and checks
// that no value comes from the skip range).
func crashSequences(t *testing.T, e *Engine) ([]Name, func(Name, int64) int64) {
	var names []Name
	for i, c := range []int64{1, 2, 10, 1000, 100000} {
		n := mustName(t, fmt.Sprintf("s%d", i))
		names = append(names, n)
		if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(c)}, false); err != nil {
			t.Fatal(err)
		}
	}
	shapes := map[string]seqmath.Shape{}
	for i, sh := range []seqmath.Shape{
		seqmath.Shape{Kind: seqmath.BitReversed}.WithSkip(1<<61, 5<<60),
		{Kind: seqmath.Sharded, ShardBits: 4, RangeBits: 64},
	} {
		n := mustName(t, fmt.Sprintf("shaped%d", i))
		names = append(names, n)
		spec := seqmath.Spec{Cache: i64(100), Shape: &sh}
		if lo, hi, ok := sh.Skip(); ok {
			spec.Skip = &[2]int64{lo, hi}
		}
		if _, err := e.Create(ctx, n, spec, false); err != nil {
			t.Fatal(err)
		}
		shapes[n.key] = sh
	}
	counter := func(n Name, v int64) int64 {
		sh, ok := shapes[n.key]
		if !ok {
			return v
		}
		if sh.Skipped(v) {
			t.Errorf("%s: value %d from the skip range", n, v)
		}
		c, ok := sh.Counter(v)
		if !ok {
			t.Errorf("%s: value %d is not one of the shape's", n, v)
		}
		return c
	}
	return names, counter
}

// crashIteration is one generation of TestCrashConcurrent: goroutines
// taking values and one running DDL until the crash.
type crashIteration struct {
	t       *testing.T
	e       *Engine
	it      int
	names   []Name
	counter func(Name, int64) int64
	h       *history
	stop    chan struct{}
	crashed atomic.Bool // set at the crash point: later results are not recorded

	ddlSeq   *int            // the DDL sequences made so far, across generations
	inflight atomic.Value    // the DDL statement's sequence that may be in flight at the crash
	ddlAcked map[string]bool // acknowledged before the crash: created (true) or dropped
}

// takeValues takes values (nextval, and reserve one time in four) of
// random sequences until stopped, recording those returned before the
// crash.
func (ci *crashIteration) takeValues(g int) {
	t, e := ci.t, ci.e
	r := rand.New(rand.NewPCG(uint64(ci.it), uint64(g)))
	for {
		select {
		case <-ci.stop:
			return
		default:
		}
		n := ci.names[r.IntN(len(ci.names))]
		var got seqmath.Range
		var err error
		if r.IntN(4) == 0 {
			_, got, err = e.Reserve(ctx, n, int64(1+r.IntN(50)))
		} else {
			var v int64
			_, v, err = e.Nextval(ctx, n)
			got = seqmath.Range{First: ci.counter(n, v), Count: 1, Increment: 1}
		}
		if err != nil {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s: %v", n, err)
			}
			return
		}
		if !ci.crashed.Load() {
			ci.h.add(t, n.key, got)
		}
	}
}

// runDDL creates and drops sequences one statement at a time; only its
// last statement can be in flight at the crash.
func (ci *crashIteration) runDDL() {
	t, e := ci.t, ci.e
	r := rand.New(rand.NewPCG(uint64(ci.it), 99))
	for {
		select {
		case <-ci.stop:
			return
		default:
		}
		var name string
		var err error
		create := r.IntN(2) == 0 || *ci.ddlSeq < 3
		if create {
			*ci.ddlSeq++
			name = fmt.Sprintf("t%d", *ci.ddlSeq)
			ci.inflight.Store(name)
			_, err = e.Create(ctx, mustName(t, name), seqmath.Spec{Cache: i64(5)}, false)
		} else {
			name = fmt.Sprintf("t%d", 1+r.IntN(*ci.ddlSeq))
			ci.inflight.Store(name)
			err = e.Drop(ctx, mustName(t, name))
			if errors.Is(err, ErrNotFound) {
				err = nil
			}
		}
		if err != nil {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("ddl %s: %v", name, err)
			}
			return
		}
		if ci.crashed.Load() {
			// Acknowledged after the crash point: its outcome in the
			// clone is unknown, so it stays the in-flight one.
			return
		}
		ci.ddlAcked[name] = create
	}
}

// TestCrashSkipBound checks the bounded gap: with no caller blocked, a
// crash skips fewer than CACHE values, whatever writes were in flight.
func TestCrashSkipBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 100 {
		fs := vfs.NewCrashableMem()
		e := openFS(t, fs)
		cache := []int64{1, 2, 3, 17, 1000}[rng.IntN(5)]
		inc := []int64{1, -1, 7, -300}[rng.IntN(4)]
		n := mustName(t, "s")
		if _, err := e.Create(ctx, n, seqmath.Spec{Cache: &cache, Increment: &inc}, false); err != nil {
			t.Fatal(err)
		}
		var last int64
		for range 1 + rng.IntN(300) {
			last = next(t, e, n)
		}
		if rng.IntN(2) == 0 {
			quiesce(e)
		}
		clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(uint64(it), 2))})
		opts := e.seqs.get(n.key).opts
		e.Close()
		e = openFS(t, clone)
		info, err := e.Info(n)
		if err != nil {
			t.Fatal(err)
		}
		v := next(t, e, n)
		e.Close()
		skipped := (v-last)/inc - 1
		if skipped < 0 || skipped > cache-1 {
			t.Fatalf("iteration %d (%+v): last %d, resumed at %d: skipped %d values", it, opts, last, v, skipped)
		}
		// Counted as burned: at least what was skipped, never more than
		// the window a mark carries.
		if b := info.Burned; b.Crash < skipped || b.Crash > cache || b.Failover != 0 || b.Release != 0 {
			t.Fatalf("iteration %d (%+v): skipped %d, counted %+v", it, opts, skipped, b)
		}
	}
	// After a clean close nothing is counted.
	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "s")
	if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	next(t, e, n)
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	if b := e.Stats().Burned; b != (Burned{}) {
		t.Fatalf("after a clean close: %+v", b)
	}
}

// TestModel drives random operations, clean restarts and crashes against
// the engine and a naive model that would persist every value: values
// match the model exactly except after a crash, where the engine must
// resume strictly beyond the model's last value and at most CACHE-1
// values past it.
func TestModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	fs := vfs.NewCrashableMem()
	e := openFS(t, fs)
	type model struct {
		opts  seqmath.Options
		state seqmath.State
		last  seqmath.Range // the last range handed out, while it may be released
		slack int64         // values released since the last restart: a crash may skip them too
	}
	models := map[string]*model{}
	var names []Name
	for i := range 4 {
		n := mustName(t, fmt.Sprintf("m%d", i))
		spec := seqmath.Spec{Cache: i64([]int64{1, 5, 100, 50000}[i]), Increment: i64([]int64{1, -3, 2, 1}[i])}
		if _, err := e.Create(ctx, n, spec, false); err != nil {
			t.Fatal(err)
		}
		o, s, _ := seqmath.Create(spec)
		models[n.key] = &model{opts: o, state: s}
		names = append(names, n)
	}
	for step := range 4000 {
		n := names[rng.IntN(len(names))]
		m := models[n.key]
		switch op := rng.IntN(100); {
		case op < 60:
			want, ns, werr := m.opts.Next(m.state, n.Rel())
			_, got, err := e.Nextval(ctx, n)
			if (err == nil) != (werr == nil) || err == nil && got != want {
				t.Fatalf("step %d %s: nextval %d %v, model %d %v", step, n, got, err, want, werr)
			}
			if err == nil {
				m.last = seqmath.Range{First: got, Count: 1, Increment: m.opts.Increment}
			}
			m.state = ns
		case op < 75:
			k := int64(1 + rng.IntN(1000))
			_, r, err := e.Reserve(ctx, n, k)
			if err != nil {
				t.Fatal(err)
			}
			want, ns, _ := m.opts.Reserve(m.state, r.Count, n.Rel())
			if r != want {
				t.Fatalf("step %d %s: reserve %+v, model %+v", step, n, r, want)
			}
			m.state, m.last = ns, r
		case op < 80:
			v := m.state.Last + int64(rng.IntN(100))*m.opts.Increment
			called := rng.IntN(2) == 0
			ns, werr := m.opts.Setval(v, called, n.Rel())
			if _, err := e.Setval(ctx, n, v, called); (err == nil) != (werr == nil) {
				t.Fatalf("setval: %v vs %v", err, werr)
			}
			if werr == nil {
				m.state, m.last = ns, seqmath.Range{}
			}
		case op < 84:
			spec := seqmath.Spec{Cache: i64(int64(1 + rng.IntN(200)))}
			if rng.IntN(2) == 0 {
				spec.Restart = true
			}
			o, s, _ := seqmath.Alter(m.opts, m.state, spec)
			if err := e.Alter(ctx, n, spec); err != nil {
				t.Fatal(err)
			}
			m.opts, m.state, m.last = o, s, seqmath.Range{}
		case op < 88:
			// Give back a tail of the last range, or a made-up range the
			// engine must refuse.
			first, last := m.state.Last-m.opts.Increment, m.state.Last
			if m.last.Count > 0 {
				first, last = m.last.At(rng.Int64N(m.last.Count)), m.last.Last()
			}
			ns, wk, _ := m.opts.Release(m.state, m.last.Count, first, last)
			k, err := e.Release(n, first, last)
			if err != nil || k != wk {
				t.Fatalf("step %d %s: release %d..%d gave back %d %v, model %d", step, n, first, last, k, err, wk)
			}
			if k > 0 {
				m.state, m.last = ns, seqmath.Range{}
				m.slack += k
			}
		case op < 92:
			e.Close()
			e = openFS(t, fs)
			for _, m := range models {
				m.last, m.slack = seqmath.Range{}, 0
			}
		default:
			clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(uint64(step), 5))})
			e.Close()
			fs = clone
			e = openFS(t, fs)
			for _, cn := range names {
				cm := models[cn.key]
				want, _, werr := cm.opts.Next(cm.state, cn.Rel())
				_, got, err := e.Nextval(ctx, cn)
				if werr != nil {
					if err == nil {
						t.Fatalf("step %d %s: past the limit after crash: %d", step, cn, got)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				skipped := (got - want) / cm.opts.Increment
				if skipped < 0 || skipped > cm.opts.Cache-1+cm.slack {
					t.Fatalf("step %d %s: after crash got %d, model next %d (cache %d, released %d)", step, cn, got, want, cm.opts.Cache, cm.slack)
				}
				cm.state = seqmath.State{Last: got, Called: true}
				cm.last = seqmath.Range{First: got, Count: 1, Increment: cm.opts.Increment}
				cm.slack = 0
			}
		}
	}
	e.Close()
}

// TestInjectedErrors fails the store's commit log's writes and syncs
// mid-run: the engine
// must report the failure, stop handing out values of the affected
// sequences, and never have handed out a value that is not durable.
func TestInjectedErrors(t *testing.T) {
	for _, kind := range []errorfs.OpKind{errorfs.OpFileSync, errorfs.OpFileWrite} {
		t.Run(fmt.Sprint(kind), func(t *testing.T) {
			mem := vfs.NewCrashableMem()
			toggle := &errorfs.Toggle{Injector: errorfs.InjectorFunc(func(op errorfs.Op) error {
				if strings.HasSuffix(op.Path, ".seqlog") && (op.Kind == kind || kind == errorfs.OpFileSync && op.Kind == errorfs.OpFileSyncData || kind == errorfs.OpFileWrite && op.Kind == errorfs.OpFileWriteAt) {
					return errorfs.ErrInjected
				}
				return nil
			})}
			e := openFS(t, errorfs.Wrap(mem, toggle))
			h := newHistory()
			var names []Name
			for i, c := range []int64{1, 50, 100000} {
				n := mustName(t, fmt.Sprintf("e%d", i))
				names = append(names, n)
				if _, err := e.Create(ctx, n, seqmath.Spec{Cache: &c}, false); err != nil {
					t.Fatal(err)
				}
				for range 10 {
					v := next(t, e, n)
					h.add(t, n.key, seqmath.Range{First: v, Count: 1, Increment: 1})
				}
			}
			toggle.On()
			var wg sync.WaitGroup
			for _, n := range names {
				wg.Add(1)
				go func() {
					defer wg.Done()
					failed := false
					for range 2000 {
						_, v, err := e.Nextval(ctx, n)
						if err != nil {
							if !errors.Is(err, ErrStorage) {
								t.Errorf("%s: unexpected error %v", n, err)
							}
							failed = true
							continue
						}
						if failed {
							t.Errorf("%s: value %d handed out after a storage failure", n, v)
							return
						}
						h.add(t, n.key, seqmath.Range{First: v, Count: 1, Increment: 1})
					}
					if !failed {
						t.Errorf("%s: 2000 values with a failing commit log", n)
					}
				}()
			}
			wg.Wait()
			if _, err := e.Create(ctx, mustName(t, "late"), seqmath.Spec{}, false); !errors.Is(err, ErrStorage) {
				t.Fatalf("create on a failed store: %v", err)
			}
			// Only what was synced survives.
			e2 := openFS(t, mem.CrashClone(vfs.CrashCloneCfg{}))
			defer e2.Close()
			for _, n := range names {
				if v := next(t, e2, n); v <= h.max[n.key] {
					t.Fatalf("%s: resumed at %d, but %d was handed out", n, v, h.max[n.key])
				}
			}
		})
	}
}

// TestBurnedAtTakeover: an engine that leads a cluster (Leadership set)
// and opens a store its predecessor did not close counts the values it
// skips as burned by failover, not by crash.
func TestBurnedAtTakeover(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openFS(t, fs)
	n := mustName(t, "s")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(100)}, false); err != nil {
		t.Fatal(err)
	}
	last := next(t, e, n)
	quiesce(e)
	clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	e.Close()
	st, err := embedded.Open("db", embedded.Options{FS: clone})
	if err != nil {
		t.Fatal(err)
	}
	e, err = Open(ctx, Config{Store: st, Leadership: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	b := e.Stats().Burned
	v := next(t, e, n)
	if skipped := v - last - 1; b.Crash != 0 || b.Release != 0 || b.Failover < skipped || b.Failover == 0 || b.Failover > 100 {
		t.Fatalf("last %d, resumed at %d: burned %+v", last, v, b)
	}
}
