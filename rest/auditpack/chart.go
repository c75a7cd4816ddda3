package auditpack

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"providerdir/rest/dataset"
)

// Chart is a pack's density chart as the PDF and the web page both draw it: one horizontal bar
// per state, highest density first, each labelled with its state and value, on an axis from 0
// to a round number beyond the longest bar, with the underserved threshold as a labelled line.
// Positions are fractions of the axis, so each renderer sizes the chart to its own page.
type Chart struct {
	Title string
	// Unit is what the bars count per 100,000 residents.
	Unit string
	Bars []ChartBar
	// AxisMax is the axis' end, above every bar and the threshold; Ticks are its round values
	// from 0 to AxisMax.
	AxisMax float64
	Ticks   []float64
	// Threshold is the underserved threshold; ThresholdLabel says what the line is.
	Threshold      float64
	ThresholdLabel string
}

// ChartBar is one state's bar.
type ChartBar struct {
	Code, Name  string
	Value       float64
	Underserved bool
}

// NewChart lays out the density chart of a pack.
func NewChart(p Pack) Chart {
	states := slices.Clone(p.Figures.States)
	slices.SortStableFunc(states, func(a, b dataset.StateFigures) int {
		return cmp.Or(cmp.Compare(a.Rank, b.Rank), strings.Compare(a.StateName, b.StateName))
	})
	c := Chart{
		Title:     p.DisplayName + ": " + p.Figures.Unit + " per 100,000 residents, by state",
		Unit:      p.Figures.Unit,
		Threshold: p.Figures.National.Threshold,
		ThresholdLabel: "underserved below " + dataset.Decimal(p.Figures.National.Threshold) +
			" (3/4 of the national " + dataset.Decimal(p.Figures.National.Per100k) + ")",
	}
	top := c.Threshold
	for _, s := range states {
		c.Bars = append(c.Bars, ChartBar{Code: s.StateCode, Name: s.StateName, Value: s.Per100k, Underserved: s.Underserved})
		top = max(top, s.Per100k)
	}
	c.AxisMax, c.Ticks = axis(top)
	return c
}

// Fraction is where a value sits along the axis, 0 at its start and 1 at its end.
func (c Chart) Fraction(v float64) float64 { return v / c.AxisMax }

// TickLabel is a tick's value as the axis prints it, free of binary rounding noise.
func (c Chart) TickLabel(t float64) string {
	return strconv.FormatFloat(math.Round(t*1e6)/1e6, 'f', -1, 64)
}

// axis returns an axis end strictly above top, so the longest bar never meets the edge, and
// four to eight round ticks (multiples of 1, 2, 2.5 or 5 times a power of ten) up to it.
func axis(top float64) (end float64, ticks []float64) {
	if !(top > 0) || math.IsInf(top, 0) {
		return 1, []float64{0, 0.25, 0.5, 0.75, 1}
	}
	raw := top / 5
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * pow
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*pow >= raw {
			step = m * pow
			break
		}
	}
	n := math.Floor(top/step) + 1
	for i := 0.0; i <= n; i++ {
		ticks = append(ticks, i*step)
	}
	return n * step, ticks
}
