package bench

import (
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteCPUPNG draws results as bars, a group per target and a bar per
// client count: on the left the server's CPU time per value (the figure
// that predicts a dedicated server's throughput when the clients share
// the cores and bound the run), on the right values/s. Points whose
// server CPU was not measured are drawn at 0.
func WriteCPUPNG(w io.Writer, rs []Result, title string) error {
	if len(rs) == 0 {
		return fmt.Errorf("no results to draw")
	}
	var labels []string
	var threads []int
	for _, r := range rs {
		if !slices.Contains(labels, r.Label()) {
			labels = append(labels, r.Label())
		}
		if !slices.Contains(threads, r.Threads) {
			threads = append(threads, r.Threads)
		}
	}
	slices.Sort(threads)
	at := func(label string, threads int) (Result, bool) {
		for _, r := range rs {
			if r.Label() == label && r.Threads == threads {
				return r, true
			}
		}
		return Result{}, false
	}
	panel := func(name string, of func(Result) float64) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = name
		width := vg.Points(float64(480) / float64((len(threads)+1)*len(labels)))
		for i, n := range threads {
			vals := make(plotter.Values, len(labels))
			for j, l := range labels {
				if r, ok := at(l, n); ok {
					vals[j] = of(r)
				}
			}
			bars, err := plotter.NewBarChart(vals, width)
			if err != nil {
				return nil, err
			}
			bars.Color = plotutil.Color(i)
			bars.LineStyle.Width = 0
			bars.Offset = width * vg.Length(2*i-len(threads)+1) / 2
			p.Add(bars)
			p.Legend.Add(fmt.Sprintf("%d clients", n), bars)
		}
		p.NominalX(labels...)
		p.X.Tick.Label.Rotation = math.Pi / 8
		p.X.Tick.Label.XAlign = draw.XRight
		p.Legend.Top = true
		return p, nil
	}
	left, err := panel(title+": server CPU µs per value (lower is cheaper)", Result.cpuPerValue)
	if err != nil {
		return err
	}
	right, err := panel("values/s", func(r Result) float64 { return r.ValsPerS })
	if err != nil {
		return err
	}
	return writePanels(w, left, right)
}
