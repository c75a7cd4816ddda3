package auditpack

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"providerdir/rest/dataset"
)

// Page geometry of the PDF, in millimetres (A4 portrait).
const (
	pageMargin = 15.0
	lineHeight = 5.0
	tableLine  = 4.2
)

// document is a PDF being written: the fpdf document and its translator of UTF-8 text into the
// core fonts' code page.
type document struct {
	pdf   *fpdf.Fpdf
	tr    func(string) string
	width float64 // printable width
}

// PDF renders a pack as a document: title and versions, the national figures, a chart of
// density by state, the density table, provenance, reproducibility steps, limitations, version
// history and the compliance Q&A. Equal packs give equal bytes: the document's dates are the
// pack's last refresh.
func PDF(p Pack) ([]byte, error) {
	chart, err := densityChart(p)
	if err != nil {
		return nil, err
	}
	pdf := fpdf.New("P", "mm", "A4", "")
	// fpdf writes its fonts and images from maps; sorted, equal packs give equal bytes.
	pdf.SetCatalogSort(true)
	pdf.SetMargins(pageMargin, pageMargin, pageMargin)
	pdf.SetAutoPageBreak(true, pageMargin+5)
	if t, err := time.Parse(time.RFC3339, p.LastRefreshed); err == nil {
		pdf.SetCreationDate(t)
		pdf.SetModificationDate(t)
	}
	pdf.SetTitle(p.DisplayName+" audit pack", true)
	pdf.SetAuthor(dataset.Authors, true)
	pdf.SetSubject("Audit pack "+p.DatasetSlug+", methodology "+p.MethodologyVersion, true)
	pageW, _ := pdf.GetPageSize()
	d := &document{pdf: pdf, tr: pdf.UnicodeTranslatorFromDescriptor(""), width: pageW - 2*pageMargin}
	pdf.AliasNbPages("{nb}")
	pdf.SetFooterFunc(func() {
		pdf.SetY(-pageMargin)
		pdf.SetFont("Helvetica", "I", 7)
		pdf.SetTextColor(110, 110, 110)
		pdf.CellFormat(0, 4, d.tr(p.DatasetSlug+" audit pack, schema "+p.SchemaVersion+", methodology "+p.MethodologyVersion+
			"   page "+strconv.Itoa(pdf.PageNo())+" of {nb}"), "", 0, "C", false, 0, "")
		pdf.SetTextColor(0, 0, 0)
	})
	pdf.AddPage()
	d.cover(p)
	d.heading("Density by state")
	pdf.RegisterImageOptionsReader("chart", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(chart))
	pdf.ImageOptions("chart", pageMargin, pdf.GetY(), d.width, 0, true, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	d.table(p)
	d.provenance(p)
	d.steps(p)
	d.list("Limitations", p.Limitations)
	d.history(p)
	d.compliance(p)
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("auditpack: write the PDF: %w", err)
	}
	return buf.Bytes(), nil
}

func (d *document) heading(s string) {
	d.pdf.Ln(3)
	d.pdf.SetFont("Helvetica", "B", 12)
	d.pdf.CellFormat(0, 7, d.tr(s), "B", 1, "L", false, 0, "")
	d.pdf.Ln(1.5)
}

func (d *document) text(size float64, style, s string) {
	d.pdf.SetFont("Helvetica", style, size)
	d.pdf.MultiCell(0, lineHeight, d.tr(s), "", "L", false)
}

// field writes a label and its value on one line.
func (d *document) field(label, value string) {
	d.pdf.SetFont("Helvetica", "B", 9)
	d.pdf.CellFormat(42, lineHeight, d.tr(label), "", 0, "L", false, 0, "")
	d.pdf.SetFont("Helvetica", "", 9)
	d.pdf.MultiCell(0, lineHeight, d.tr(value), "", "L", false)
}

func (d *document) cover(p Pack) {
	d.pdf.SetFont("Helvetica", "B", 18)
	d.pdf.MultiCell(0, 9, d.tr(p.DisplayName), "", "L", false)
	d.pdf.SetFont("Helvetica", "", 11)
	d.pdf.CellFormat(0, 6, d.tr("Audit pack  |  methodology "+p.MethodologyVersion+"  |  schema "+p.SchemaVersion), "", 1, "L", false, 0, "")
	d.pdf.Ln(2)
	d.text(9.5, "", p.Description)
	d.pdf.Ln(2)
	d.field("Dataset", p.DatasetSlug)
	d.field("Methodology version", p.MethodologyVersion)
	d.field("Methodology", p.MethodologyURL)
	d.field("Snapshot date", p.SnapshotDate)
	d.field("Last refreshed", p.LastRefreshed)
	d.field("Refresh cadence", p.RefreshCadence)
	n := p.Figures.National
	d.field("National", fmt.Sprintf("%s %s, population %s, %s per 100,000", dataset.Grouped(n.Count), p.Figures.Unit,
		dataset.Grouped(n.Population), dataset.Decimal(n.Per100k)))
	d.field("Underserved", fmt.Sprintf("%d states below %s per 100,000 (3/4 of the national density)", n.Underserved, dataset.Decimal(n.Threshold)))
	d.field("Citation", p.Citation)
	d.field("JSON", p.Links.JSON)
}

// densityChart draws the states' densities, highest first, as a PNG.
func densityChart(p Pack) ([]byte, error) {
	states := slices.Clone(p.Figures.States)
	slices.SortStableFunc(states, func(a, b StateFigure) int { return cmp.Compare(a.Rank, b.Rank) })
	values := make(plotter.Values, len(states))
	names := make([]string, len(states))
	for i, s := range states {
		values[i], names[i] = s.Per100k, s.StateCode
	}
	pl := plot.New()
	pl.Title.Text = p.DisplayName + ": " + p.Figures.Unit + " per 100,000 residents"
	pl.Y.Label.Text = "per 100,000"
	pl.Y.Min = 0
	bars, err := plotter.NewBarChart(values, vg.Points(7))
	if err != nil {
		return nil, fmt.Errorf("auditpack: chart: %w", err)
	}
	bars.Color = color.RGBA{R: 38, G: 97, B: 156, A: 255}
	bars.LineStyle.Width = 0
	pl.Add(bars)
	pl.Add(plotter.NewGrid())
	pl.NominalX(names...)
	pl.X.Tick.Label.Font.Size = vg.Points(6)
	line := plotter.NewFunction(func(float64) float64 { return p.Figures.National.Threshold })
	line.Color = color.RGBA{R: 200, G: 60, B: 40, A: 255}
	line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	pl.Add(line)
	pl.Legend.Add("underserved threshold", line)
	pl.Legend.Top = true
	wt, err := pl.WriterTo(vg.Points(540), vg.Points(220), "png")
	if err != nil {
		return nil, fmt.Errorf("auditpack: chart: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("auditpack: chart: %w", err)
	}
	return buf.Bytes(), nil
}

// column is one column of the density table.
type column struct {
	title string
	width float64
	align string
	value func(StateFigure) string
}

func (d *document) columns(p Pack) []column {
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	cols := []column{
		{"State", 12, "L", func(s StateFigure) string { return s.StateCode }},
		{"Name", 42, "L", func(s StateFigure) string { return s.StateName }},
		{"Count", 18, "R", func(s StateFigure) string { return dataset.Grouped(s.Count) }},
		{"Population", 24, "R", func(s StateFigure) string { return dataset.Grouped(s.Population) }},
		{"Per 100k", 18, "R", func(s StateFigure) string { return dataset.Decimal(s.Per100k) }},
		{"Rank", 12, "R", func(s StateFigure) string { return strconv.Itoa(s.Rank) }},
		{"Quartile", 15, "R", func(s StateFigure) string { return strconv.Itoa(s.Quartile) }},
		{"Underserved", 21, "C", func(s StateFigure) string { return yesNo(s.Underserved) }},
	}
	if p.Kind == string(dataset.FacilityQuality) {
		cols[1].width = 30
		cols = append(cols,
			column{"Rated", 10, "R", func(s StateFigure) string { return dataset.Grouped(deref(s.Rated)) }},
			column{"Stars", 10, "R", func(s StateFigure) string {
				if s.MeanStarRating == nil {
					return "-"
				}
				return strconv.FormatFloat(*s.MeanStarRating, 'f', 2, 64)
			}})
	}
	return cols
}

func deref(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// table writes the density table, its header repeated on each page it runs over.
func (d *document) table(p Pack) {
	d.heading("Density table")
	cols := d.columns(p)
	header := func() {
		d.pdf.SetFont("Helvetica", "B", 8)
		d.pdf.SetFillColor(225, 232, 240)
		for _, c := range cols {
			d.pdf.CellFormat(c.width, tableLine+1, d.tr(c.title), "1", 0, c.align, true, 0, "")
		}
		d.pdf.Ln(-1)
	}
	header()
	_, pageH := d.pdf.GetPageSize()
	for i, s := range p.Figures.States {
		if d.pdf.GetY()+tableLine > pageH-pageMargin-5 {
			d.pdf.AddPage()
			header()
		}
		d.pdf.SetFont("Helvetica", "", 8)
		fill := i%2 == 1
		d.pdf.SetFillColor(245, 247, 250)
		for _, c := range cols {
			d.pdf.CellFormat(c.width, tableLine, d.tr(c.value(s)), "LR", 0, c.align, fill, 0, "")
		}
		d.pdf.Ln(-1)
	}
	total := 0.0
	for _, c := range cols {
		total += c.width
	}
	d.pdf.CellFormat(total, 0, "", "T", 1, "L", false, 0, "")
}

func (d *document) provenance(p Pack) {
	d.heading("Provenance of each field")
	fields := make([]string, 0, len(p.Provenance))
	for f := range p.Provenance {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for _, f := range fields {
		v := p.Provenance[f]
		src := v.Source
		if v.Snapshot != "" {
			src += ", snapshot " + v.Snapshot
		}
		if v.Column != "" {
			src += ", column " + v.Column
		}
		d.pdf.SetFont("Helvetica", "B", 9)
		d.pdf.MultiCell(0, lineHeight, d.tr(f), "", "L", false)
		d.text(8.5, "", src+". "+v.Derivation)
		d.pdf.Ln(0.8)
	}
}

func (d *document) steps(p Pack) {
	d.heading("Reproducibility")
	for _, f := range p.Reproducibility.Files {
		line := f.Name + " (" + f.Publisher + ", snapshot " + f.Snapshot + ")"
		if f.SHA256 != "" {
			line += " sha256 " + f.SHA256
		}
		d.text(8, "", line)
	}
	d.pdf.Ln(1)
	for _, s := range p.Reproducibility.Steps {
		var detail []string
		if s.File != "" {
			detail = append(detail, "file "+s.File)
		}
		if s.Keep != nil {
			values := strings.Join(s.Keep.Values, ", ")
			if len(s.Keep.Values) > 8 {
				values = strings.Join(s.Keep.Values[:8], ", ") + ", ... (" + strconv.Itoa(len(s.Keep.Values)) + " values)"
			}
			cols := s.Keep.Columns[0]
			if len(s.Keep.Columns) > 1 {
				cols = strings.Join(s.Keep.Columns[:min(2, len(s.Keep.Columns))], ", ")
				if len(s.Keep.Columns) > 2 {
					cols += ", ... (" + strconv.Itoa(len(s.Keep.Columns)) + " columns)"
				}
			}
			detail = append(detail, "keep "+s.Keep.Rule+" ["+values+"] on "+cols)
		}
		if s.Column != "" {
			detail = append(detail, "column "+s.Column+" by "+s.GroupBy)
		}
		if s.Formula != "" {
			detail = append(detail, s.Output+" = "+s.Formula)
		}
		line := strconv.Itoa(s.Step) + ". " + s.Action
		if len(detail) > 0 {
			line += " [" + strings.Join(detail, "; ") + "]"
		}
		d.text(8.5, "", line)
		d.pdf.Ln(0.8)
	}
}

func (d *document) list(title string, items []string) {
	d.heading(title)
	for _, it := range items {
		d.text(9, "", "- "+it)
	}
}

func (d *document) history(p Pack) {
	d.heading("Version history")
	for _, v := range p.VersionHistory {
		d.text(9, "B", v.Version+" ("+v.Date+")")
		d.text(9, "", v.Changes)
	}
}

func (d *document) compliance(p Pack) {
	d.heading("Compliance Q&A")
	for _, q := range p.Compliance {
		d.text(9, "B", q.Question)
		d.text(9, "", q.Answer)
		d.pdf.Ln(1)
	}
}
