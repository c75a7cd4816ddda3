package main

import (
	"fmt"
	"image/color"
	"math"
	"os"

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
	legendBand   = 0.5 * vg.Inch
	chartFont    = vg.Length(12)
)

var (
	oursColour    = color.RGBA{R: 31, G: 97, B: 160, A: 255}
	ceilingColour = color.RGBA{R: 120, G: 120, B: 120, A: 255}
)

// writeChart draws, for each scenario in the order of the rows, a panel of its own: the p99
// latency against the offered rate, ours beside the ceiling measured in the same run, on a
// linear axis from 0 fitted to that scenario, so a slow scenario hides no other. The legend sits
// above the panels, outside every plot. The PNG is sized for a page: three panels across.
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
	for i, name := range names {
		var ours, ceiling plotter.XYs
		for _, r := range rows {
			if r.scenario == name {
				ours = append(ours, plotter.XY{X: float64(r.rate), Y: ms(r.server.quantile(0.99))})
				ceiling = append(ceiling, plotter.XY{X: float64(r.rate), Y: ms(r.ceiling.quantile(0.99))})
			}
		}
		p, oursLine, ceilingLine, err := panel(name, ours, ceiling)
		if err != nil {
			return fmt.Errorf("chart: %s: %w", name, err)
		}
		if i == 0 {
			legend.Add("ours: p99", oursLine)
			legend.Add("ceiling (the same bytes from a bare server): p99", ceilingLine)
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

// panel is one scenario's plot: ours and the ceiling's p99 against the offered rate, with a
// point at every rate measured.
func panel(name string, ours, ceiling plotter.XYs) (*plot.Plot, *plotter.Line, *plotter.Line, error) {
	p := plot.New()
	p.Title.Text = name
	p.Title.TextStyle.Font.Size = chartFont
	p.X.Label.Text = "offered requests/s"
	p.Y.Label.Text = "p99 ms"
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = chartFont - 1
		ax.Tick.Label.Font.Size = chartFont - 2
	}
	top := 0.0
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
	var lines [2]*plotter.Line
	for i, s := range []struct {
		pts    plotter.XYs
		colour color.Color
		dashed bool
	}{{ceiling, ceilingColour, true}, {ours, oursColour, false}} {
		l, pts, err := plotter.NewLinePoints(s.pts)
		if err != nil {
			return nil, nil, nil, err
		}
		l.Color, l.Width = s.colour, vg.Points(2)
		if s.dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		pts.Color, pts.Shape, pts.Radius = s.colour, draw.CircleGlyph{}, vg.Points(3)
		p.Add(l, pts)
		lines[i] = l
	}
	return p, lines[1], lines[0], nil
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
