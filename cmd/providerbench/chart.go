package main

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// writeChart draws the p99 latency of each scenario against the offered rate, one line per
// scenario in the order of the rows, on a logarithmic latency axis (a saturated surface is
// orders of magnitude slower than the others), to a PNG file.
func writeChart(file string, rows []row) error {
	p := plot.New()
	p.Title.Text = "p99 latency against offered load"
	p.X.Label.Text = "offered requests/s"
	p.Y.Label.Text = "p99 ms"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true
	var lines []any
	for _, name := range scenarioOrder(rows) {
		var pts plotter.XYs
		for _, r := range rows {
			if r.scenario == name {
				// The log axis cannot show 0: a run with no answer is drawn at its floor.
				pts = append(pts, plotter.XY{X: float64(r.rate), Y: max(ms(r.server.quantile(0.99)), 0.01)})
			}
		}
		lines = append(lines, name, pts)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, file)
}

// scenarioOrder lists the rows' scenarios once each, in their first order.
func scenarioOrder(rows []row) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.scenario] {
			seen[r.scenario] = true
			names = append(names, r.scenario)
		}
	}
	return names
}
