package auditpack_test

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"providerdir/rest/auditpack"
	"providerdir/rest/dataset"
	"providerdir/testing/externaltools"
)

// pdfText extracts a PDF's text with pdftotext (Debian poppler-utils), keeping the layout so a
// table row stays on one line. Without it the test ends as externaltools.Missing says.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	bin := externaltools.LookPath(t, "pdftotext", "apt-get install -y poppler-utils")
	cmd := exec.Command(bin, "-layout", "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("pdftotext: %v: %s", err, errOut.String())
	}
	return out.String()
}

var spaces = regexp.MustCompile(`\s+`)

// The PDF of a pack states what its JSON does: the title, the methodology version, every state's
// row of the density table with the same figures, the national figures, the provenance fields
// and the limitations.
func TestPDFMatchesJSON(t *testing.T) {
	e := demo(t)
	for _, slug := range []string{"cardiology-supply", "pediatrics-supply", "nursing-home-quality", "hospice-availability"} {
		t.Run(slug, func(t *testing.T) {
			p := decodePack(t, e.Get(t, "/api/audit-pack/"+slug+"/json", "").Raw)
			r := e.Get(t, "/api/audit-pack/"+slug+"/pdf", "")
			if r.Status != 200 || r.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(r.Raw, []byte("%PDF-")) {
				t.Fatalf("status %d, content type %q, %.8q", r.Status, r.Header.Get("Content-Type"), r.Raw)
			}
			text := pdfText(t, r.Raw)
			lines := map[string]bool{}
			for _, l := range strings.Split(text, "\n") {
				lines[strings.TrimSpace(spaces.ReplaceAllString(l, " "))] = true
			}
			flat := spaces.ReplaceAllString(text, " ")
			for _, want := range []string{p.DisplayName, "methodology " + p.MethodologyVersion, "Density by state", "Density table",
				"Provenance of each field", "Reproducibility", "Limitations", "Version history", "Compliance Q&A",
				dataset.Grouped(p.Figures.National.Count) + " " + p.Figures.Unit, dataset.Decimal(p.Figures.National.Per100k) + " per 100,000"} {
				if !strings.Contains(flat, want) {
					t.Errorf("the PDF does not say %q", want)
				}
			}
			for _, s := range p.Figures.States {
				under := "no"
				if s.Underserved {
					under = "yes"
				}
				row := strings.Join([]string{s.StateCode, s.StateName, dataset.Grouped(s.Count), dataset.Grouped(s.Population),
					dataset.Decimal(s.Per100k), strconv.Itoa(s.Rank), strconv.Itoa(s.Quartile), under}, " ")
				if s.Rated != nil {
					stars := "-"
					if s.MeanStarRating != nil {
						stars = strconv.FormatFloat(*s.MeanStarRating, 'f', 2, 64)
					}
					row += " " + dataset.Grouped(*s.Rated) + " " + stars
				}
				if !lines[row] {
					t.Errorf("no table line %q", row)
				}
			}
			for field := range p.Provenance {
				if !lines[field] {
					t.Errorf("provenance field %s is not listed", field)
				}
			}
			for _, l := range p.Limitations {
				if !strings.Contains(flat, l[:40]) {
					t.Errorf("limitation %q is not listed", l[:40])
				}
			}
		})
	}
}

// Equal packs give equal documents, and the document changes with the figures.
func TestPDFDeterministic(t *testing.T) {
	e := demo(t)
	p, err := e.Packs.Build(context.Background(), "dermatology-supply")
	if err != nil {
		t.Fatal(err)
	}
	a, err := auditpack.PDF(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := auditpack.PDF(p)
	if !bytes.Equal(a, b) {
		t.Error("two renderings of one pack differ")
	}
	p.Figures.States[0].Count++
	if c, _ := auditpack.PDF(p); bytes.Equal(a, c) {
		t.Error("a changed figure gives the same document")
	}
}

// pages splits pdftotext's output at its form feeds, one string per page.
func pages(text string) []string { return strings.Split(text, "\f") }

// The density chart is drawn, not pasted: no image in the document, and its page names every
// state, by code and name, with the labelled threshold line.
func TestPDFChartIsVector(t *testing.T) {
	e := demo(t)
	for _, slug := range []string{"dermatology-supply", "dialysis-quality"} {
		t.Run(slug, func(t *testing.T) {
			p, err := e.Packs.Build(context.Background(), slug)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := auditpack.PDF(p)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(doc, []byte("/Subtype /Image")) {
				t.Error("the PDF holds an image")
			}
			var chart string
			for _, pg := range pages(pdfText(t, doc)) {
				if strings.Contains(pg, "Density by state") {
					chart = pg
				}
			}
			if chart == "" {
				t.Fatal("no page is headed Density by state")
			}
			words := map[string]bool{}
			for _, w := range strings.Fields(chart) {
				words[w] = true
			}
			flat := spaces.ReplaceAllString(chart, " ")
			for _, s := range p.Figures.States {
				if !words[s.StateCode] || !strings.Contains(flat, s.StateName) || !strings.Contains(flat, dataset.Decimal(s.Per100k)) {
					t.Errorf("the chart's page lacks %s (%s, %s)", s.StateCode, s.StateName, dataset.Decimal(s.Per100k))
				}
			}
			label := "underserved below " + dataset.Decimal(p.Figures.National.Threshold)
			if strings.Count(flat, label) < 2 { // on its line and in the legend
				t.Errorf("the threshold line is not labelled %q:\n%s", label, chart)
			}
		})
	}
}

// Each reproducibility step is a paragraph of its own starting with its number, one rule per
// step, and a command is set in a monospaced font without the backticks that mark it.
func TestPDFStepsOneItemEach(t *testing.T) {
	e := demo(t)
	p, err := e.Packs.Build(context.Background(), "cardiology-supply")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := auditpack.PDF(p)
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, doc)
	starts := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		starts[strings.Join(strings.Fields(l), " ")] = true
	}
	lineStarting := func(prefix string) bool {
		for l := range starts {
			if strings.HasPrefix(l, prefix) {
				return true
			}
		}
		return false
	}
	for _, s := range p.Reproducibility.Steps {
		var prose []string
		for _, seg := range auditpack.Segments(s.Action) {
			prose = append(prose, seg.Text)
		}
		first := strings.Join(strings.Fields(strings.Join(prose, ""))[:3], " ")
		if !lineStarting(strconv.Itoa(s.Step) + ". " + first) {
			t.Errorf("no line starts step %d: %q", s.Step, strconv.Itoa(s.Step)+". "+first)
		}
	}
	if strings.Contains(text, "`") {
		t.Error("a backtick is printed")
	}
	if !strings.Contains(spaces.ReplaceAllString(text, " "), auditpack.RejectsCommand) {
		t.Errorf("the command %q is not printed whole", auditpack.RejectsCommand)
	}
	if !bytes.Contains(doc, []byte("/BaseFont /Courier")) {
		t.Error("no command is set in Courier")
	}
}
