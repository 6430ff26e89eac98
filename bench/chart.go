package bench

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// WritePNG draws results as a PNG: on the left, throughput (values/s)
// against threads, a line per target (for insert, the time of one
// repetition against rows); on the right, latency percentiles p50, p90
// and p99 as bars, per target at the largest thread count (insert: the
// largest size).
func WritePNG(w io.Writer, rs []Result, title string) error {
	if len(rs) == 0 {
		return fmt.Errorf("no results to draw")
	}
	insert := rs[0].Workload == "insert"
	x := func(r Result) float64 { return float64(r.Threads) }
	y := func(r Result) float64 { return r.ValsPerS }
	xName, yName := "threads", "values/s"
	if insert {
		x = func(r Result) float64 { return float64(r.Size) }
		y = func(r Result) float64 { return r.MeanMs }
		xName, yName = "rows", "ms per repetition (lower is better)"
	}
	var labels []string
	lines := map[string]plotter.XYs{}
	for _, r := range rs {
		l := r.Label()
		if _, ok := lines[l]; !ok {
			labels = append(labels, l)
		}
		lines[l] = append(lines[l], plotter.XY{X: x(r), Y: y(r)})
	}

	left := plot.New()
	left.Title.Text = title
	left.X.Label.Text, left.Y.Label.Text = xName, yName
	xs := map[float64]bool{}
	for _, r := range rs {
		xs[x(r)] = true
	}
	if len(xs) > 2 {
		left.X.Scale = plot.LogScale{}
		left.X.Tick.Marker = plot.ConstantTicks(ticks(xs))
	}
	var lineArgs []any
	for _, l := range labels {
		pts := lines[l]
		slices.SortFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		lineArgs = append(lineArgs, l, pts)
	}
	if err := plotutil.AddLinePoints(left, lineArgs...); err != nil {
		return err
	}
	left.Legend.Top, left.Legend.Left = true, true

	// Latency bars at the largest x of each label.
	right := plot.New()
	right.Title.Text = "latency percentiles (ms)"
	var last []Result
	for _, l := range labels {
		var best Result
		for _, r := range rs {
			if r.Label() == l && x(r) >= x(best) {
				best = r
			}
		}
		last = append(last, best)
	}
	width := vg.Points(float64(360) / float64(3*len(last)+1))
	for i, p := range []struct {
		name string
		of   func(Result) float64
	}{{"p50", func(r Result) float64 { return r.P50Ms }}, {"p90", func(r Result) float64 { return r.P90Ms }}, {"p99", func(r Result) float64 { return r.P99Ms }}} {
		vals := make(plotter.Values, len(last))
		for j, r := range last {
			vals[j] = p.of(r)
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = width * vg.Length(i-1)
		right.Add(bars)
		right.Legend.Add(p.name, bars)
	}
	names := make([]string, len(last))
	for i, r := range last {
		at := fmt.Sprintf("%d thr", r.Threads)
		if insert {
			at = fmt.Sprintf("%d rows", r.Size)
		}
		names[i] = r.Label() + "\n" + at
	}
	right.NominalX(names...)
	right.X.Tick.Label.Rotation = math.Pi / 8
	right.X.Tick.Label.XAlign = draw.XRight
	right.Legend.Top = true

	return writePanels(w, left, right)
}

// writePanels draws two plots side by side as one PNG.
func writePanels(w io.Writer, left, right *plot.Plot) error {
	img := vgimg.New(vg.Points(1400), vg.Points(600))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(20), PadTop: vg.Points(10), PadBottom: vg.Points(10), PadLeft: vg.Points(10), PadRight: vg.Points(10)}
	canvases := plot.Align([][]*plot.Plot{{left, right}}, tiles, dc)
	left.Draw(canvases[0][0])
	right.Draw(canvases[0][1])
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

func ticks(xs map[float64]bool) []plot.Tick {
	var ts []plot.Tick
	for v := range xs {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	slices.SortFunc(ts, func(a, b plot.Tick) int { return cmp.Compare(a.Value, b.Value) })
	return ts
}

// WriteModelPNG draws the hotspot model: on the left, the share of each
// window's writes the busiest node took, a line per key shape; on the
// right, the cluster write rate the hottest node allows.
func WriteModelPNG(w io.Writer, cfg ModelConfig, ms []ModelResult) error {
	if len(ms) == 0 {
		return fmt.Errorf("no model results to draw")
	}
	cfg = cfg.withDefaults()
	left := plot.New()
	left.Title.Text = fmt.Sprintf("MODEL: busiest of %d nodes, share of writes", cfg.Nodes)
	left.X.Label.Text = "writes (millions)"
	left.Y.Label.Text = "busiest node's share of the window"
	left.Y.Min, left.Y.Max = 0, 1.05
	per := float64(cfg.Window)
	var lineArgs []any
	for _, m := range ms {
		pts := make(plotter.XYs, len(m.Hottest))
		for i, h := range m.Hottest {
			pts[i] = plotter.XY{X: float64(i+1) * per / 1e6, Y: h}
		}
		lineArgs = append(lineArgs, m.Shape, pts)
	}
	if err := plotutil.AddLines(left, lineArgs...); err != nil {
		return err
	}
	left.Legend.Top = true

	right := plot.New()
	right.Title.Text = fmt.Sprintf("MODEL: cluster writes/s at %.0f writes/s per node", cfg.NodeWrites)
	vals := make(plotter.Values, len(ms))
	names := make([]string, len(ms))
	for i, m := range ms {
		vals[i], names[i] = m.WriteRate, m.Shape
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(40))
	if err != nil {
		return err
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	right.Add(bars)
	right.NominalX(names...)
	right.X.Tick.Label.Rotation = math.Pi / 8
	right.X.Tick.Label.XAlign = draw.XRight

	return writePanels(w, left, right)
}
