package nucc

import (
	"errors"
	"io/fs"
	"os"
	"testing"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/source/reference"
	"providerdir/testing/readercheck"
)

func TestRealCodeSet(t *testing.T) {
	set, err := Load(reference.Embedded(), File)
	if err != nil {
		t.Fatal(err)
	}
	byCode := ByCode(set)
	if len(set) != 883 || len(byCode) != 883 {
		t.Fatalf("%d codes, %d distinct; want 883", len(set), len(byCode))
	}
	sections := map[string]int{}
	for _, tx := range set {
		sections[tx.Section]++
		if tx.DisplayName == "" || tx.Grouping == "" || tx.Classification == "" {
			t.Errorf("incomplete %+v", tx)
		}
	}
	if sections["Individual"] != 698 || sections["Non-Individual"] != 185 {
		t.Errorf("sections %v", sections)
	}
	c := byCode["207RC0000X"]
	if c.Classification != "Internal Medicine" || c.Specialization != "Cardiovascular Disease" ||
		c.DisplayName != "Cardiovascular Disease Physician" || c.Grouping != "Allopathic & Osteopathic Physicians" {
		t.Errorf("207RC0000X: %+v", c)
	}
	if g := byCode["193200000X"]; g.Specialization != "" || g.DisplayName != "Multi-Specialty Group" {
		t.Errorf("193200000X: %+v", g)
	}
}

func TestEdgeCases(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, "taxonomy_edge.csv")
	if len(got) != 2 || got[0].Definition != "A physician who \"specializes\"\nin the heart, across two lines." || got[1].Code != "193200000X" {
		t.Errorf("got %+v", got)
	}
	want := []source.RowError{
		{File: "taxonomy_edge.csv", Line: 4, Column: "Code", Reason: "invalid taxonomy code: lowercase letters", Value: "207rc0000X"},
		{File: "taxonomy_edge.csv", Line: 5, Column: "Code", Reason: "missing value"},
		{File: "taxonomy_edge.csv", Line: 6, Column: "Grouping", Reason: "missing value"},
	}
	readercheck.RowErrors(t, rep, want)
}

func TestMisheaded(t *testing.T) {
	_, err := source.OpenFS(reference.Embedded(), "cms/ccn_state_codes.csv", NewReader)
	readercheck.Refused(t, err, `header does not match NUCC taxonomy: missing "Code", "Grouping", "Classification", "Specialization"`)
	if _, err := Load(os.DirFS("testdata"), "nope.csv"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func FuzzReader(f *testing.F) {
	readercheck.FuzzFiles(f, "*.csv", NewReader, func(tx Taxonomy) bool {
		return ident.ValidateTaxonomy(tx.Code) != nil
	})
}

func benchData(b *testing.B) []byte { return readercheck.Reference(b, File) }

func BenchmarkReader(b *testing.B) {
	readercheck.BenchRead(b, benchData(b), NewReader)
}

func BenchmarkBareCSV(b *testing.B) { readercheck.BenchBareCSV(b, benchData(b)) }
