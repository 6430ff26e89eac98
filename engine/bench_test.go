package engine

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/embedded"
)

// openDisk opens an engine on a real directory, so fsyncs are real.
func openDisk(b *testing.B) *Engine {
	st, err := embedded.Open(b.TempDir(), embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := Open(ctx, Config{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func benchNextval(b *testing.B, goroutines, sequences int, cache int64) {
	e := openDisk(b)
	defer e.Close()
	names := make([]Name, sequences)
	for i := range names {
		names[i] = mustName(b, fmt.Sprintf("s%d", i))
		if _, err := e.Create(ctx, names[i], seqmath.Spec{Cache: &cache}, false); err != nil {
			b.Fatal(err)
		}
	}
	before := e.Stats()
	var next atomic.Int64
	b.ResetTimer()
	var wg sync.WaitGroup
	per := b.N / goroutines
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := per
			if g == 0 {
				n += b.N % goroutines
			}
			for range n {
				i := int(next.Add(1)) % sequences
				if _, _, err := e.Nextval(ctx, names[i]); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	st := e.Stats()
	if c := st.Commits - before.Commits; c > 0 {
		b.ReportMetric(float64(b.N)/float64(c), "values/fsync")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
}

// BenchmarkNextval: nextval on the engine with 1 and 8 goroutines, on 1
// and 64 sequences, CACHE 100000 (values from memory), and NO CACHE with 64
// concurrent callers, where every value is durable before it returns.
func BenchmarkNextval(b *testing.B) {
	for _, g := range []int{1, 8} {
		for _, s := range []int{1, 64} {
			b.Run(fmt.Sprintf("cache100000/goroutines=%d/sequences=%d", g, s), func(b *testing.B) {
				benchNextval(b, g, s, 100000)
			})
		}
	}
	for _, s := range []int{1, 64} {
		b.Run(fmt.Sprintf("nocache/goroutines=64/sequences=%d", s), func(b *testing.B) {
			benchNextval(b, 64, s, 1)
		})
	}
}

// BenchmarkMemory1M stores one million sequence records, opens an engine
// on them (the recovery path) and reports the heap the engine holds.
func BenchmarkMemory1M(b *testing.B) {
	const count = 1_000_000
	for range b.N {
		dir := b.TempDir()
		st, err := embedded.Open(dir, embedded.Options{})
		if err != nil {
			b.Fatal(err)
		}
		tok, _ := st.Acquire(ctx)
		opts, state, _ := seqmath.Create(seqmath.Spec{Cache: ptr(int64(1000))})
		var ops []storage.Op
		for i := range count {
			rec := record{id: uint64(i + 1), opts: opts, state: state}
			ops = append(ops, storage.Op{Key: fmt.Sprintf("public.seq_%07d", i), Value: rec.encode()})
			if len(ops) == 10000 {
				if _, err := st.Commit(ctx, tok, ops); err != nil {
					b.Fatal(err)
				}
				ops = ops[:0]
			}
		}
		st.Close()
		ops = nil
		runtime.GC()
		var m0 runtime.MemStats
		runtime.ReadMemStats(&m0)
		st, _ = embedded.Open(dir, embedded.Options{})
		e, err := Open(ctx, Config{Store: st})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var m1 runtime.MemStats
		runtime.ReadMemStats(&m1)
		if got := e.seqs.len(); got != count {
			b.Fatalf("%d sequences after reopen", got)
		}
		// Every sequence in use: one value each, so each has a window.
		all := make(chan *seq, 1024)
		var wg sync.WaitGroup
		for range 256 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for s := range all {
					if _, err := e.reserve(ctx, s, 1, true); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		for s := range e.seqs.values() {
			all <- s
		}
		close(all)
		wg.Wait()
		quiesce(e)
		runtime.GC()
		var m2 runtime.MemStats
		runtime.ReadMemStats(&m2)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/(1<<20), "MiB-loaded")
		b.ReportMetric(float64(m2.HeapAlloc-m0.HeapAlloc)/(1<<20), "MiB-in-use")
		b.ReportMetric(float64(m2.HeapAlloc-m0.HeapAlloc)/count, "B/seq")
		e.Close()
	}
}
