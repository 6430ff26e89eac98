package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Label names a line of a table or chart: the target, and the variant
// (mode, sequence count, id scheme) when there is one.
func (r Result) Label() string {
	if r.Variant == "" {
		return r.Target
	}
	return r.Target + " " + r.Variant
}

// WriteTable prints results as an aligned table, then the ratios.
func WriteTable(w io.Writer, rs []Result) error {
	if err := writeResults(w, rs); err != nil {
		return err
	}
	return writeRatios(w, Ratios(rs))
}

// writeResults prints results as an aligned table.
func writeResults(w io.Writer, rs []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\ttarget\tthreads\tsize\tops\tvalues\tseconds\tvalues/s\tmean ms\tp50 ms\tp75 ms\tp90 ms\tp99 ms\tmax ms\tserver CPU µs/op\tof it system\t")
	for _, r := range rs {
		cpu, sys := "-", "-"
		if r.ServerCPUUs > 0 {
			cpu = strconv.FormatFloat(r.ServerCPUUs, 'f', 2, 64)
			sys = strconv.FormatFloat(r.ServerSysUs, 'f', 2, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.2f\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\t\n",
			r.Workload, r.Label(), r.Threads, r.Size, r.Ops, r.Values, r.Seconds, r.ValsPerS,
			r.MeanMs, r.P50Ms, r.P75Ms, r.P90Ms, r.P99Ms, r.MaxMs, cpu, sys)
	}
	return tw.Flush()
}

// writeRatios prints ratios as an aligned table after a blank line
// (nothing if there are none).
func writeRatios(w io.Writer, ratios []Ratio) error {
	if len(ratios) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tthreads\tsize\tthis\tagainst\tratio\tof\t")
	for _, q := range ratios {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%.2fx\t%s\t\n", q.Workload, q.Threads, q.Size, q.This, q.Against, q.X, q.Of)
	}
	return tw.Flush()
}

// Ratio compares two points measured in the same run.
type Ratio struct {
	Workload string
	Threads  int
	Size     int
	This     string  // a seqd label (insert: an id scheme)
	Against  string  // a peer's label (insert: the database's auto-increment)
	X        float64 // This / Against
	Of       string  // "values/s", "server CPU/value" (lower is cheaper), or for insert "time" (lower is faster)
}

// Ratios compares, at every (workload, threads, size) point and Spanner
// mode, each seqd result with each peer's of the same durability class
// (cached, or every value durable before it is returned: -nocache and
// redis-always) and with the no-op ceiling, in values/s and, where both
// servers' CPU was measured, in server CPU per value; for insert, each id
// scheme's time with the auto-increment (identity) of the same database.
func Ratios(rs []Result) []Ratio {
	var out []Ratio
	for i, a := range rs {
		for j, b := range rs {
			if i == j || a.Workload != b.Workload || a.Threads != b.Threads || a.Size != b.Size {
				continue
			}
			if a.Workload == "insert" {
				if a.Target == b.Target && (b.Variant == "identity" || b.Variant == "auto_increment") && a.Variant != b.Variant && b.MeanMs > 0 {
					x := a.MeanMs / b.MeanMs
					if a.Size == 0 && a.ValsPerS > 0 { // fixed time: the time per row
						x = b.ValsPerS / a.ValsPerS
					}
					out = append(out, Ratio{a.Workload, a.Threads, a.Size, a.Label(), b.Label(), x, "time"})
				}
				continue
			}
			if !strings.HasPrefix(a.Target, Seqd) || strings.HasPrefix(b.Target, Seqd) || b.ValsPerS == 0 {
				continue
			}
			if a.Workload == "spanner" && a.Variant != b.Variant {
				continue
			}
			// Like with like: cached with cached, NO CACHE with NO CACHE;
			// everything against the ceiling.
			if b.Target != Noop && b.Target != NoopMySQL && durableEach(a.Target) != durableEach(b.Target) {
				continue
			}
			out = append(out, Ratio{a.Workload, a.Threads, a.Size, a.Label(), b.Label(), a.ValsPerS / b.ValsPerS, "values/s"})
			if ca, cb := a.cpuPerValue(), b.cpuPerValue(); ca > 0 && cb > 0 {
				out = append(out, Ratio{a.Workload, a.Threads, a.Size, a.Label(), b.Label(), ca / cb, "server CPU/value"})
			}
		}
	}
	return out
}

// durableEach reports whether a target makes every value durable before
// returning it: a NO CACHE sequence, or Redis with appendfsync always.
func durableEach(target string) bool {
	return strings.HasSuffix(target, "-nocache") || target == RedisAlways
}

// cpuPerValue is the server's CPU time per value received, in µs (0 if
// not measured): ServerCPUUs is per operation, and a pipelined or bulk
// operation brings many values.
func (r Result) cpuPerValue() float64 {
	if r.ServerCPUUs <= 0 || r.Values == 0 {
		return 0
	}
	return r.ServerCPUUs * float64(r.Ops) / float64(r.Values)
}

var csvHeader = []string{"workload", "target", "variant", "threads", "size", "ops", "values", "seconds",
	"ops_per_s", "values_per_s", "mean_ms", "p50_ms", "p75_ms", "p90_ms", "p99_ms", "max_ms", "server_cpu_us_per_op", "index_bytes", "server_sys_us_per_op"}

// WriteCSV writes one row per result, with a header.
func WriteCSV(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, r := range rs {
		cw.Write([]string{r.Workload, r.Target, r.Variant, strconv.Itoa(r.Threads), strconv.Itoa(r.Size),
			strconv.FormatInt(r.Ops, 10), strconv.FormatInt(r.Values, 10), f(r.Seconds), f(r.OpsPerS), f(r.ValsPerS),
			f(r.MeanMs), f(r.P50Ms), f(r.P75Ms), f(r.P90Ms), f(r.P99Ms), f(r.MaxMs), f(r.ServerCPUUs), strconv.FormatInt(r.IndexBytes, 10), f(r.ServerSysUs)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the results and their ratios as one JSON document.
func WriteJSON(w io.Writer, rs []Result) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		Results []Result `json:"results"`
		Ratios  []Ratio  `json:"ratios"`
	}{rs, Ratios(rs)})
}

// modelReport is the hotspot model in JSON, labelled as a model.
type modelReport struct {
	Note    string        `json:"note"`
	Config  ModelConfig   `json:"config"`
	Results []ModelResult `json:"results"`
}

// WriteHotspotJSON writes the hotspot model (its parameters and figures)
// and the measured results as one JSON document.
func WriteHotspotJSON(w io.Writer, mc ModelConfig, ms []ModelResult, rs []Result) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		Model   modelReport `json:"model"`
		Results []Result    `json:"results"`
	}{modelReport{"a model, not a measurement", mc.withDefaults(), ms}, rs})
}
