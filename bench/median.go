package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Repeated runs (seqbench -runs N): on shared cores one run's figures
// drift, so a point's figures are reported as the median of the runs'
// and a ratio as the median of the ratios each run measured (both sides
// of a ratio are always from the same run).

// MedianResults is, for each point of the runs (workload, target,
// variant, threads, size), a Result whose every figure is the median of
// that figure over the runs that measured the point, in the first run's
// order.
func MedianResults(runs [][]Result) []Result {
	type key struct {
		workload, target, variant string
		threads, size             int
	}
	keyOf := func(r Result) key { return key{r.Workload, r.Target, r.Variant, r.Threads, r.Size} }
	byKey := map[key][]Result{}
	var order []key
	for _, run := range runs {
		for _, r := range run {
			k := keyOf(r)
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], r)
		}
	}
	out := make([]Result, 0, len(order))
	for _, k := range order {
		rs := byKey[k]
		m := rs[0]
		f := func(of func(Result) float64) float64 {
			xs := make([]float64, len(rs))
			for i, r := range rs {
				xs[i] = of(r)
			}
			return median(xs)
		}
		i := func(of func(Result) int64) int64 {
			return int64(f(func(r Result) float64 { return float64(of(r)) }))
		}
		m.Ops, m.Values = i(func(r Result) int64 { return r.Ops }), i(func(r Result) int64 { return r.Values })
		m.Seconds = f(func(r Result) float64 { return r.Seconds })
		m.OpsPerS, m.ValsPerS = f(func(r Result) float64 { return r.OpsPerS }), f(func(r Result) float64 { return r.ValsPerS })
		m.MeanMs, m.P50Ms = f(func(r Result) float64 { return r.MeanMs }), f(func(r Result) float64 { return r.P50Ms })
		m.P75Ms, m.P90Ms = f(func(r Result) float64 { return r.P75Ms }), f(func(r Result) float64 { return r.P90Ms })
		m.P99Ms, m.MaxMs = f(func(r Result) float64 { return r.P99Ms }), f(func(r Result) float64 { return r.MaxMs })
		m.ServerCPUUs, m.ServerSysUs = f(func(r Result) float64 { return r.ServerCPUUs }), f(func(r Result) float64 { return r.ServerSysUs })
		out = append(out, m)
	}
	return out
}

// MedianRatios is, for each ratio the runs measured, the median of its
// runs' values, in the first run's order.
func MedianRatios(runs [][]Result) []Ratio {
	type key struct {
		workload, this, against, of string
		threads, size               int
	}
	byKey := map[key][]float64{}
	first := map[key]Ratio{}
	var order []key
	for _, run := range runs {
		for _, q := range Ratios(run) {
			k := key{q.Workload, q.This, q.Against, q.Of, q.Threads, q.Size}
			if _, ok := first[k]; !ok {
				first[k] = q
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], q.X)
		}
	}
	out := make([]Ratio, 0, len(order))
	for _, k := range order {
		q := first[k]
		q.X = median(byKey[k])
		out = append(out, q)
	}
	return out
}

// median of xs (the mean of the middle two for an even count); xs is
// reordered.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.SortFunc(xs, cmp.Compare[float64])
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// WriteMedianTable prints the medians of the runs as WriteTable prints
// one run, the ratios being the medians of the runs' ratios.
func WriteMedianTable(w io.Writer, runs [][]Result) error {
	fmt.Fprintf(w, "medians of %d runs\n", len(runs))
	if err := writeResults(w, MedianResults(runs)); err != nil {
		return err
	}
	return writeRatios(w, MedianRatios(runs))
}

// WriteMedianJSON writes the medians of the runs, the medians of their
// ratios, and every run's results, as one JSON document.
func WriteMedianJSON(w io.Writer, runs [][]Result) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		Results []Result   `json:"results"`
		Ratios  []Ratio    `json:"ratios"`
		Runs    [][]Result `json:"runs"`
	}{MedianResults(runs), MedianRatios(runs), runs})
}
