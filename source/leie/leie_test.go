package leie

import (
	"strings"
	"testing"
	"time"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/testing/readercheck"
)

func date(y, m, d int) source.Date { return source.Date{Year: y, Month: time.Month(m), Day: d} }

func TestUpdated(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, "UPDATED.csv")
	want := []Exclusion{
		{LastName: "DOE", FirstName: "JANE", MiddleName: "Q", General: "IND- LIC HC SERV PRO", Specialty: "NURSE/NURSES AIDE",
			DOB: date(1970, 1, 15), Address: "1 MAIN ST", City: "AUSTIN", State: "TX", ZIP: "78701", Type: "1128b4", ExclusionDate: date(2020, 3, 12)},
		{BusinessName: `ACME PHARMACY, "THE" BEST`, General: "BUSINESS", Specialty: "PHARMACY", NPI: "1234567893", Address: "2 ELM ST",
			City: "BOSTON", State: "MA", ZIP: "02110", Type: "1128a1", ExclusionDate: date(2019, 11, 1), WaiverDate: date(2020, 1, 1), WaiverState: "MA"},
		{LastName: "PEÑA", FirstName: "JOSÉ", General: "IND- LIC HC SERV PRO", Specialty: "PHYSICIAN", UPIN: "A12345", NPI: "1245319599",
			City: "SAN JUAN", State: "PR", ZIP: "00901", Type: "1128b7", ExclusionDate: date(2018, 6, 1)},
	}
	readercheck.Equal(t, "record", got, want)
	if !got[0].Individual() || got[1].Individual() {
		t.Error("Individual() wrong")
	}
	wantErr := []source.RowError{
		{File: "UPDATED.csv", Line: 5, Column: "NPI", Reason: "invalid NPI: bad check digit", Value: "1234567890"},
		{File: "UPDATED.csv", Line: 6, Column: "EXCLDATE", Reason: "bad date", Value: "20201332"},
		{File: "UPDATED.csv", Line: 7, Column: "EXCLDATE", Reason: "missing value", Value: "00000000"},
		{File: "UPDATED.csv", Line: 8, Column: "LASTNAME", Reason: "neither LASTNAME nor BUSNAME given"},
		{File: "UPDATED.csv", Line: 9, Reason: "wrong column count", Value: "15 columns, header has 18"},
	}
	if rep.Encoding != "ISO-8859-1" {
		t.Errorf("report %s", rep)
	}
	readercheck.RowErrors(t, rep, wantErr)
}

func TestMonthlyReinstatements(t *testing.T) {
	got, _ := readercheck.DrainFile(t, Open, "2501rein.csv")
	if len(got) != 1 || got[0].ReinstatementDate != date(2025, 1, 15) || got[0].Type != "1128b14" {
		t.Errorf("got %+v", got)
	}
}

func TestFileErrors(t *testing.T) {
	_, err := NewReader(strings.NewReader("NPI,Entity Type Code\n"), "npidata.csv")
	readercheck.Refused(t, err, `npidata.csv: header does not match OIG LEIE: missing "LASTNAME", "FIRSTNAME"`)
	readercheck.Missing(t, Open)
}

func FuzzReader(f *testing.F) {
	readercheck.FuzzFiles(f, "*.csv", NewReader, func(e Exclusion) bool {
		return e.NPI != "" && ident.ValidateNPI(e.NPI) != nil || e.ExclusionDate.IsZero() || e.Type == ""
	})
}

func benchData(b *testing.B) []byte { return readercheck.RepeatFile(b, "UPDATED.csv", 3, 8<<20) }

func BenchmarkReader(b *testing.B) {
	readercheck.BenchRead(b, benchData(b), NewReader)
}

func BenchmarkBareCSV(b *testing.B) { readercheck.BenchBareCSV(b, benchData(b)) }
