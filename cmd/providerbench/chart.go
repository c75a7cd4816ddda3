package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Chart geometry: panels per row, each panel's size, the legend's band above them, the font.
const (
	chartColumns = 3
	panelWidth   = 4 * vg.Inch
	panelHeight  = 2.8 * vg.Inch
	legendBand   = 0.7 * vg.Inch
	chartFont    = vg.Length(12)
)

var (
	oursColour    = color.RGBA{R: 31, G: 97, B: 160, A: 255}
	ceilingColour = color.RGBA{R: 120, G: 120, B: 120, A: 255}
	targetColour  = color.RGBA{R: 190, G: 40, B: 40, A: 255}
)

// writeChart draws, for each scenario in the order of the rows, a panel of its own: the p99
// latency against the offered rate, ours beside the ceiling measured in the same run, with a
// point and a tick at every rate measured, and the service's p99 target as a horizontal line
// where the scenario has one; on a linear axis from 0 fitted to that scenario, so a slow
// scenario hides no other. The legend sits above the panels, outside every plot. The PNG is
// sized for a page: three panels across.
func writeChart(file string, rows []row) error {
	names := scenarioOrder(rows)
	cols := min(chartColumns, len(names))
	lines := (len(names) + cols - 1) / cols
	width, height := vg.Length(cols)*panelWidth, vg.Length(lines)*panelHeight+legendBand
	img := vgimg.New(width, height)
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	legend := plot.NewLegend()
	legend.TextStyle.Font.Size = chartFont
	legend.Top, legend.Left = true, true
	var targetShown bool
	for i, name := range names {
		p, lines, err := panel(name, rows)
		if err != nil {
			return fmt.Errorf("chart: %s: %w", name, err)
		}
		if i == 0 {
			legend.Add("ours: p99", lines.ours)
			legend.Add("ceiling (the same bytes from a bare server): p99", lines.ceiling)
		}
		if lines.target != nil && !targetShown {
			legend.Add("the service's p99 target", lines.target)
			targetShown = true
		}
		col, line := vg.Length(i%cols), vg.Length(i/cols)
		p.Draw(draw.Crop(dc, col*panelWidth, col*panelWidth+panelWidth-width, height-legendBand-(line+1)*panelHeight, -legendBand-line*panelHeight))
	}
	legend.Draw(draw.Crop(dc, 0.15*vg.Inch, 0, height-legendBand+0.1*vg.Inch, -0.05*vg.Inch))
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("chart: %w", err)
	}
	return f.Close()
}

// panelLines are the lines of one panel, for the legend: target is nil for a scenario without
// a p99 target.
type panelLines struct {
	ours, ceiling, target *plotter.Line
}

// panel is one scenario's plot from its rows: ours and the ceiling's p99 against the offered
// rate, a point and an x tick at every rate measured, and the scenario's p99 target, when it has
// one, as a horizontal line across the panel.
func panel(name string, rows []row) (*plot.Plot, panelLines, error) {
	var ours, ceiling plotter.XYs
	var ticks []plot.Tick
	targetMs := 0.0
	for _, r := range rows {
		if r.scenario != name {
			continue
		}
		ours = append(ours, plotter.XY{X: float64(r.rate), Y: ms(r.server.quantile(0.99))})
		ceiling = append(ceiling, plotter.XY{X: float64(r.rate), Y: ms(r.ceiling.quantile(0.99))})
		ticks = append(ticks, plot.Tick{Value: float64(r.rate), Label: strconv.Itoa(r.rate)})
		if r.target != nil && r.target.maxP99 > 0 {
			targetMs = ms(r.target.maxP99)
		}
	}
	p := plot.New()
	p.Title.Text = name
	p.Title.TextStyle.Font.Size = chartFont
	p.X.Label.Text = "offered requests/s"
	p.Y.Label.Text = "p99 ms"
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = chartFont - 1
		ax.Tick.Label.Font.Size = chartFont - 2
	}
	p.X.Tick.Marker = plot.ConstantTicks(append([]plot.Tick{{Value: 0, Label: "0"}}, ticks...))
	top := targetMs
	for _, pts := range []plotter.XYs{ours, ceiling} {
		for _, pt := range pts {
			top = math.Max(top, pt.Y)
		}
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.15, 0.1)
	p.X.Min, p.X.Max = 0, 0
	for _, pt := range ours {
		p.X.Max = math.Max(p.X.Max, pt.X*1.1)
	}
	p.Add(plotter.NewGrid())
	var lines panelLines
	if targetMs > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: targetMs}, {X: p.X.Max, Y: targetMs}})
		if err != nil {
			return nil, lines, err
		}
		l.Color, l.Width, l.Dashes = targetColour, vg.Points(1.5), []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		lines.target = l
	}
	for _, s := range []struct {
		pts    plotter.XYs
		colour color.Color
		dashed bool
		line   **plotter.Line
	}{{ceiling, ceilingColour, true, &lines.ceiling}, {ours, oursColour, false, &lines.ours}} {
		l, pts, err := plotter.NewLinePoints(s.pts)
		if err != nil {
			return nil, lines, err
		}
		l.Color, l.Width = s.colour, vg.Points(2)
		if s.dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		pts.Color, pts.Shape, pts.Radius = s.colour, draw.CircleGlyph{}, vg.Points(3)
		p.Add(l, pts)
		*s.line = l
	}
	return p, lines, nil
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
