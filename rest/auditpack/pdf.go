package auditpack

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"

	"providerdir/rest/dataset"
)

// Page geometry of the PDF, in millimetres (A4 portrait).
const (
	pageMargin = 15.0
	lineHeight = 5.0
	tableLine  = 4.2
	stepIndent = 6.0 // the width of a reproducibility step's number
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
	d.chart(p)
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

// Geometry of the density chart in the PDF, in millimetres: a column of state names, one of
// codes, the bars, and room for the longest bar's value.
const (
	chartNameW  = 32.0
	chartCodeW  = 9.0
	chartValueW = 16.0
	chartRow    = 3.9
	chartBar    = 2.7
)

// Colours of the chart: bars, underserved bars, the threshold line, grid lines.
var (
	barColour         = [3]int{38, 97, 156}
	underservedColour = [3]int{214, 96, 77}
	thresholdColour   = [3]int{150, 0, 0}
	gridColour        = [3]int{215, 220, 228}
)

// chart draws the density chart as vector graphics on a page of its own, sized to the printable
// width: a row per state with its name, code, bar and value, grid lines at the axis' ticks, and
// the underserved threshold as a dashed line labelled where it starts.
func (d *document) chart(p Pack) {
	c := NewChart(p)
	pdf := d.pdf
	pdf.AddPage()
	d.heading("Density by state")
	d.text(9, "B", c.Title)
	x0 := pageMargin
	barX := x0 + chartNameW + chartCodeW
	barW := d.width - chartNameW - chartCodeW - chartValueW
	at := func(v float64) float64 { return barX + c.Fraction(v)*barW }
	fill := func(rgb [3]int) { pdf.SetFillColor(rgb[0], rgb[1], rgb[2]) }
	draw := func(rgb [3]int) { pdf.SetDrawColor(rgb[0], rgb[1], rgb[2]) }

	// Legend: the two bar colours and the threshold line.
	pdf.Ln(1)
	y := pdf.GetY()
	pdf.SetFont("Helvetica", "", 7.5)
	x := x0
	for _, item := range []struct {
		colour [3]int
		text   string
	}{{barColour, "state at or above the threshold"}, {underservedColour, "underserved state"}} {
		fill(item.colour)
		pdf.Rect(x, y+0.8, 4, 2.4, "F")
		pdf.Text(x+5.5, y+3, d.tr(item.text))
		x += 7 + pdf.GetStringWidth(d.tr(item.text))
	}
	draw(thresholdColour)
	pdf.SetLineWidth(0.4)
	pdf.SetDashPattern([]float64{1.2, 0.8}, 0)
	pdf.Line(x, y+2, x+6, y+2)
	pdf.SetDashPattern(nil, 0)
	pdf.Text(x+7.5, y+3, d.tr("threshold: "+c.ThresholdLabel))

	// The threshold's label sits above the bars, starting at its line (ending there when the
	// line is too far right for it to fit).
	y += 6
	pdf.SetTextColor(thresholdColour[0], thresholdColour[1], thresholdColour[2])
	label := d.tr(c.ThresholdLabel)
	tx := at(c.Threshold) + 1
	if w := pdf.GetStringWidth(label); tx+w > x0+d.width {
		tx = at(c.Threshold) - 1 - w
	}
	pdf.Text(tx, y+2.5, label)
	pdf.SetTextColor(0, 0, 0)
	top := y + 4
	bottom := top + float64(len(c.Bars))*chartRow

	// Grid lines and the axis' tick labels below the bars.
	draw(gridColour)
	pdf.SetLineWidth(0.2)
	pdf.SetFont("Helvetica", "", 7)
	for _, t := range c.Ticks {
		pdf.Line(at(t), top, at(t), bottom)
		s := c.TickLabel(t)
		pdf.Text(at(t)-pdf.GetStringWidth(s)/2, bottom+3.5, s)
	}
	unit := d.tr(c.Unit + " per 100,000 residents")
	pdf.Text(barX+barW/2-pdf.GetStringWidth(unit)/2, bottom+7.5, unit)

	for i, b := range c.Bars {
		ry := top + float64(i)*chartRow
		pdf.SetFont("Helvetica", "", 7)
		pdf.Text(x0, ry+chartBar, d.tr(b.Name))
		pdf.SetFont("Helvetica", "B", 7)
		pdf.Text(x0+chartNameW, ry+chartBar, b.Code)
		colour := barColour
		if b.Underserved {
			colour = underservedColour
		}
		fill(colour)
		if w := c.Fraction(b.Value) * barW; w > 0 {
			pdf.Rect(barX, ry+(chartRow-chartBar)/2, w, chartBar, "F")
		}
		pdf.SetFont("Helvetica", "", 6.5)
		pdf.Text(at(b.Value)+1, ry+chartBar, dataset.Decimal(b.Value))
	}
	draw(thresholdColour)
	pdf.SetLineWidth(0.4)
	pdf.SetDashPattern([]float64{1.2, 0.8}, 0)
	pdf.Line(at(c.Threshold), top-0.5, at(c.Threshold), bottom)
	pdf.SetDashPattern(nil, 0)
	pdf.SetLineWidth(0.2)
	pdf.SetDrawColor(0, 0, 0)
	pdf.SetY(bottom + 10)
}

// Column is one column of a pack's density table, as the PDF and the web page both show it.
type Column struct {
	Title string
	// Numeric columns are right-aligned and sort as numbers.
	Numeric bool
	// Text is a state's cell as shown; Value the figure it shows, unformatted, to sort by.
	Text, Value func(dataset.StateFigures) string
	width       float64 // in the PDF, in millimetres
}

// Columns are the density table's columns: the state, its figures and, for a facility study,
// its rated facilities and mean star rating.
func Columns(p Pack) []Column {
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	decimal := func(f float64) string { return dataset.Decimal(f) }
	unit := p.Figures.Unit
	if unit != "" {
		unit = strings.ToUpper(unit[:1]) + unit[1:]
	}
	cols := []Column{
		{Title: "State", Text: func(s dataset.StateFigures) string { return s.StateCode }, Value: func(s dataset.StateFigures) string { return s.StateCode }, width: 12},
		{Title: "Name", Text: func(s dataset.StateFigures) string { return s.StateName }, Value: func(s dataset.StateFigures) string { return s.StateName }, width: 42},
		{Title: unit, Numeric: true, Text: func(s dataset.StateFigures) string { return dataset.Grouped(s.Count) }, Value: func(s dataset.StateFigures) string { return count(s.Count) }, width: 18},
		{Title: "Population", Numeric: true, Text: func(s dataset.StateFigures) string { return dataset.Grouped(s.Population) }, Value: func(s dataset.StateFigures) string { return count(s.Population) }, width: 24},
		{Title: "Per 100k", Numeric: true, Text: func(s dataset.StateFigures) string { return decimal(s.Per100k) }, Value: func(s dataset.StateFigures) string { return decimal(s.Per100k) }, width: 18},
		{Title: "Rank", Numeric: true, Text: func(s dataset.StateFigures) string { return strconv.Itoa(s.Rank) }, Value: func(s dataset.StateFigures) string { return strconv.Itoa(s.Rank) }, width: 12},
		{Title: "Quartile", Numeric: true, Text: func(s dataset.StateFigures) string { return strconv.Itoa(s.Quartile) }, Value: func(s dataset.StateFigures) string { return strconv.Itoa(s.Quartile) }, width: 15},
		{Title: "Underserved", Text: func(s dataset.StateFigures) string { return yesNo(s.Underserved) }, Value: func(s dataset.StateFigures) string { return yesNo(s.Underserved) }, width: 21},
	}
	if p.Kind == string(dataset.FacilityQuality) {
		cols[1].width = 30
		stars := func(s dataset.StateFigures) string {
			if s.MeanStarRating == nil {
				return "-"
			}
			return strconv.FormatFloat(*s.MeanStarRating, 'f', 2, 64)
		}
		cols = append(cols,
			Column{Title: "Rated", Numeric: true, Text: func(s dataset.StateFigures) string { return dataset.Grouped(deref(s.Rated)) },
				Value: func(s dataset.StateFigures) string { return count(deref(s.Rated)) }, width: 10},
			Column{Title: "Stars", Numeric: true, Text: stars, Value: func(s dataset.StateFigures) string {
				if s.MeanStarRating == nil {
					return "0"
				}
				return stars(s)
			}, width: 10})
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
	cols := Columns(p)
	align := func(c Column) string {
		if c.Numeric {
			return "R"
		}
		return "L"
	}
	header := func() {
		d.pdf.SetFont("Helvetica", "B", 8)
		d.pdf.SetFillColor(225, 232, 240)
		for _, c := range cols {
			d.pdf.CellFormat(c.width, tableLine+1, d.tr(c.Title), "1", 0, align(c), true, 0, "")
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
			d.pdf.CellFormat(c.width, tableLine, d.tr(c.Text(s)), "LR", 0, align(c), fill, 0, "")
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
		detail := s.Details()
		// Each step is a paragraph of its own, its number hanging, commands set in Courier.
		d.pdf.SetFont("Helvetica", "B", 8.5)
		d.pdf.CellFormat(stepIndent, lineHeight, strconv.Itoa(s.Step)+".", "", 0, "R", false, 0, "")
		d.pdf.SetLeftMargin(pageMargin + stepIndent + 1.5)
		d.pdf.SetX(pageMargin + stepIndent + 1.5)
		for _, seg := range Segments(s.Action) {
			if seg.Code {
				d.pdf.SetFont("Courier", "", 8.5)
			} else {
				d.pdf.SetFont("Helvetica", "", 8.5)
			}
			d.pdf.Write(lineHeight, d.tr(seg.Text))
		}
		d.pdf.Ln(-1)
		if len(detail) > 0 {
			d.pdf.SetFont("Helvetica", "", 7.5)
			d.pdf.SetTextColor(70, 70, 70)
			d.pdf.MultiCell(0, lineHeight-0.8, d.tr(strings.Join(detail, "; ")), "", "L", false)
			d.pdf.SetTextColor(0, 0, 0)
		}
		d.pdf.SetLeftMargin(pageMargin)
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
