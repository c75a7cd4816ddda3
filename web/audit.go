package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/gorilla/mux"

	"providerdir/rest/auditpack"
	"providerdir/rest/dataset"
)

// AuditSource gives the pages the audit packs, as the audit-pack API builds them
// (*auditpack.Service): a page shows the very pack its JSON and PDF forms carry.
type AuditSource interface {
	Build(ctx context.Context, slug string) (auditpack.Pack, error)
	Catalog() []auditpack.Entry
}

// auditIndexData is the list of audit packs.
type auditIndexData struct {
	Groups []auditGroup
}

// auditGroup is the packs of one kind of study.
type auditGroup struct {
	Heading string
	Entries []auditpack.Entry
}

// auditData is an audit page's content: the pack, its table's columns and its chart.
type auditData struct {
	auditpack.Pack
	Columns []auditpack.Column
	Chart   svgChart
	// Facility is true for a facility study, whose rows count facilities and rate them.
	Facility bool
}

// auditIndex serves GET /audit: every audit pack, by kind of study.
func (s *Site) auditIndex(w http.ResponseWriter, r *http.Request) {
	if s.audit == nil {
		s.notFound(w, r)
		return
	}
	s.render(w, r, http.StatusOK, tmplAuditIndex, layoutData{Title: "Audit packs", Page: auditIndexData{Groups: auditGroups(s.audit.Catalog())}})
}

// auditGroups groups the catalog by kind of study, in the catalog's order.
func auditGroups(entries []auditpack.Entry) []auditGroup {
	headings := map[string]string{string(dataset.SpecialtySupply): "Specialty supply studies", string(dataset.FacilityQuality): "Facility studies"}
	var groups []auditGroup
	for _, e := range entries {
		i := slices.IndexFunc(groups, func(g auditGroup) bool { return g.Entries[0].Kind == e.Kind })
		if i < 0 {
			heading, ok := headings[e.Kind]
			if !ok {
				heading = e.Kind
			}
			groups = append(groups, auditGroup{Heading: heading})
			i = len(groups) - 1
		}
		groups[i].Entries = append(groups[i].Entries, e)
	}
	return groups
}

// auditPage serves GET /audit/{slug}: the web form of an audit pack, showing what its PDF shows
// and linking its JSON and PDF on the service host. Without an audit source every slug is 404.
func (s *Site) auditPage(w http.ResponseWriter, r *http.Request) {
	if s.audit == nil {
		s.notFound(w, r)
		return
	}
	pack, err := s.audit.Build(r.Context(), mux.Vars(r)["slug"])
	if errors.Is(err, auditpack.ErrNoPack) || errors.Is(err, auditpack.ErrNotLoaded) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, "audit page: build the audit pack", err)
		return
	}
	s.render(w, r, http.StatusOK, tmplAudit, layoutData{Title: "Audit pack: " + pack.DisplayName, Scripts: []string{"sort.js"}, Page: auditData{
		Pack:     pack,
		Columns:  auditpack.Columns(pack),
		Chart:    newSVGChart(auditpack.NewChart(pack)),
		Facility: pack.Kind == string(dataset.FacilityQuality),
	}})
}

// Geometry of the audit page's chart, in SVG user units: the same layout as the PDF's, a row
// per state with its name, code, bar and value, scaled by the browser to the page's width.
const (
	svgWidth   = 400.0
	svgNameW   = 100.0
	svgCodeW   = 20.0
	svgValueW  = 44.0
	svgRowH    = 12.0
	svgBar     = 8.0
	svgTop     = 52.0 // room for the legend and the threshold's label above the bars
	svgBottom  = 34.0 // room for the axis' labels and unit below
	svgBarLeft = svgNameW + svgCodeW
	svgBarW    = svgWidth - svgBarLeft - svgValueW
)

// svgChart is a chart with its coordinates worked out for the template.
type svgChart struct {
	auditpack.Chart
	Width, Height                   float64
	Rows                            []svgRow
	Ticks                           []svgTick
	Top, Bottom                     float64
	ThresholdX, LabelX, UnitX       float64
	LabelAnchor                     string
	AxisY, UnitY, BarLeft, BarRight float64
}

type svgRow struct {
	auditpack.ChartBar
	Y, TextY, Width, ValueX float64
	Value                   string
}

type svgTick struct {
	X     float64
	Label string
}

func newSVGChart(c auditpack.Chart) svgChart {
	at := func(v float64) float64 { return svgBarLeft + c.Fraction(v)*svgBarW }
	bottom := svgTop + float64(len(c.Bars))*svgRowH
	sc := svgChart{Chart: c, Width: svgWidth, Height: bottom + svgBottom, Top: svgTop, Bottom: bottom,
		ThresholdX: at(c.Threshold), AxisY: bottom + 11, UnitY: bottom + 25, UnitX: svgBarLeft + svgBarW/2,
		BarLeft: svgBarLeft, BarRight: svgBarLeft + svgBarW}
	// The line's short label starts at the line, or ends there when the line is far right, so
	// it never runs off the chart; the legend above says what the threshold is.
	sc.LabelX, sc.LabelAnchor = sc.ThresholdX+3, "start"
	if c.Fraction(c.Threshold) > 0.75 {
		sc.LabelX, sc.LabelAnchor = sc.ThresholdX-3, "end"
	}
	for i, b := range c.Bars {
		y := svgTop + float64(i)*svgRowH
		sc.Rows = append(sc.Rows, svgRow{ChartBar: b, Y: y + (svgRowH-svgBar)/2, TextY: y + svgRowH/2,
			Width: c.Fraction(b.Value) * svgBarW, ValueX: at(b.Value) + 3, Value: strconv.FormatFloat(b.Value, 'f', -1, 64)})
	}
	for _, t := range c.Ticks {
		sc.Ticks = append(sc.Ticks, svgTick{X: at(t), Label: c.TickLabel(t)})
	}
	return sc
}
