package sam

import (
	"strings"
	"testing"
	"time"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/testing/readercheck"
)

func date(y, m, d int) source.Date { return source.Date{Year: y, Month: time.Month(m), Day: d} }

// TestLayouts reads the V2 layout (CRLF, every field quoted, blank lines, bad rows) and the older
// DUNS layout into the same record.
func TestLayouts(t *testing.T) {
	tests := []struct {
		file    string
		want    []Exclusion
		errs    []source.RowError
		charset string
	}{
		{
			file: "SAM_Exclusions_Public_Extract_V2_25159.CSV",
			want: []Exclusion{
				{Classification: "Individual", Prefix: "DR.", First: "JANE", Middle: "Q", Last: "DOE", City: "AUSTIN", State: "TX",
					Country: "USA", ZIP: "78701", Program: "Reciprocal", Agency: "HHS", CTCode: "Z1", Type: "Prohibition/Restriction",
					Comments: "Excluded by HHS from all Federal health care programs.", ActiveDate: date(2020, 3, 12), Indefinite: true,
					SAMNumber: "S4MR00001", NPI: "1234567893", CreationDate: date(2020, 3, 13)},
				{Classification: "Firm", Name: "ACME MEDICAL SUPPLY, LLC", Address1: "12 ELM ST", Address2: "SUITE 4", City: "BOSTON",
					State: "MA", Country: "USA", ZIP: "02110", UEI: "ABCDEF123456", Program: "Reciprocal", Agency: "OPM",
					Type: "Ineligible (Proceedings Completed)", ActiveDate: date(2019, 11, 1), TerminationDate: date(2026, 11, 1),
					CrossReference: "(also JOHN ROE)", SAMNumber: "S4MR00002", CAGE: "7ZZ12", CreationDate: date(2019, 11, 2)},
				{Classification: "Vessel", Name: "SEA STAR", Country: "PAN", Program: "Reciprocal", Agency: "TREAS-OFAC",
					Type: "Prohibition/Restriction", ActiveDate: date(2022, 5, 5), Indefinite: true, SAMNumber: "S4MR00005",
					CreationDate: date(2022, 5, 5)},
			},
			errs: []source.RowError{
				{File: "SAM_Exclusions_Public_Extract_V2_25159.CSV", Line: 5, Column: "NPI", Reason: "invalid NPI: bad check digit", Value: "1234567890"},
				{File: "SAM_Exclusions_Public_Extract_V2_25159.CSV", Line: 6, Column: "Active Date", Reason: "bad date", Value: "02/30/2021"},
				{File: "SAM_Exclusions_Public_Extract_V2_25159.CSV", Line: 8, Column: "Name", Reason: "neither Name nor Last given"},
				{File: "SAM_Exclusions_Public_Extract_V2_25159.CSV", Line: 9, Reason: "wrong column count", Value: "14 columns, header has 31"},
			},
			charset: "UTF-8",
		},
		{
			file: "SAM_Exclusions_Public_Extract_19106.CSV",
			want: []Exclusion{
				{Classification: "Individual", First: "JOSÉ", Last: "PEÑA", City: "SAN JUAN", State: "PR", Country: "USA", ZIP: "00901",
					Program: "Reciprocal", Agency: "HHS", CTCode: "Z1", Type: "Prohibition/Restriction", ActiveDate: date(2018, 6, 1),
					Indefinite: true, SAMNumber: "S4MR00007", NPI: "1245319599"},
				{Classification: "Firm", Name: "NORTH CLINIC INC", Address1: "1 MAIN ST", City: "MIAMI", State: "FL", Country: "USA",
					ZIP: "33101", DUNS: "123456789", Program: "Procurement", Agency: "VA", Type: "Ineligible (Proceedings Pending)",
					ActiveDate: date(2019, 7, 15), TerminationDate: date(2022, 7, 14), SAMNumber: "S4MR00008", CAGE: "1AB23"},
			},
			charset: "ISO-8859-1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, rep := readercheck.DrainFile(t, Open, tt.file)
			readercheck.Equal(t, "record", got, tt.want)
			if rep.Encoding != tt.charset {
				t.Errorf("report %s", rep)
			}
			readercheck.RowErrors(t, rep, tt.errs)
		})
	}
}

func TestIndividual(t *testing.T) {
	for class, want := range map[string]bool{"Individual": true, "INDIVIDUAL": true, "Firm": false, "Vessel": false} {
		e := Exclusion{Classification: class}
		if e.Individual() != want {
			t.Errorf("%s: Individual() = %v", class, !want)
		}
	}
}

func TestWrongFile(t *testing.T) {
	_, err := NewReader(strings.NewReader("LASTNAME,FIRSTNAME\n"), "UPDATED.csv")
	readercheck.Refused(t, err, `UPDATED.csv: header does not match SAM.gov exclusions public extract: missing "Classification"`)
}

func FuzzReader(f *testing.F) {
	readercheck.FuzzFiles(f, "*.CSV", NewReader, func(e Exclusion) bool {
		return e.NPI != "" && ident.ValidateNPI(e.NPI) != nil || e.ActiveDate.IsZero() || e.Type == "" || e.Name == "" && e.Last == ""
	})
}
