package leie

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/source/internal/sourcetest"
)

func date(y, m, d int) source.Date { return source.Date{Year: y, Month: time.Month(m), Day: d} }

func TestUpdated(t *testing.T) {
	r, err := Open(filepath.Join("testdata", "UPDATED.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, rep := sourcetest.Drain(t, r)
	want := []Exclusion{
		{LastName: "DOE", FirstName: "JANE", MiddleName: "Q", General: "IND- LIC HC SERV PRO", Specialty: "NURSE/NURSES AIDE",
			DOB: date(1970, 1, 15), Address: "1 MAIN ST", City: "AUSTIN", State: "TX", ZIP: "78701", Type: "1128b4", ExclusionDate: date(2020, 3, 12)},
		{BusinessName: `ACME PHARMACY, "THE" BEST`, General: "BUSINESS", Specialty: "PHARMACY", NPI: "1234567893", Address: "2 ELM ST",
			City: "BOSTON", State: "MA", ZIP: "02110", Type: "1128a1", ExclusionDate: date(2019, 11, 1), WaiverDate: date(2020, 1, 1), WaiverState: "MA"},
		{LastName: "PEÑA", FirstName: "JOSÉ", General: "IND- LIC HC SERV PRO", Specialty: "PHYSICIAN", UPIN: "A12345", NPI: "1245319599",
			City: "SAN JUAN", State: "PR", ZIP: "00901", Type: "1128b7", ExclusionDate: date(2018, 6, 1)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d records: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
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
	if len(rep.Errors) != len(wantErr) || rep.Encoding != "ISO-8859-1" {
		t.Fatalf("report %s: %+v", rep, rep.Errors)
	}
	for i := range wantErr {
		if rep.Errors[i] != wantErr[i] {
			t.Errorf("error %d:\n got %+v\nwant %+v", i, rep.Errors[i], wantErr[i])
		}
	}
}

func TestMonthlyReinstatements(t *testing.T) {
	r, err := Open(filepath.Join("testdata", "2501rein.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, _ := sourcetest.Drain(t, r)
	if len(got) != 1 || got[0].ReinstatementDate != date(2025, 1, 15) || got[0].Type != "1128b14" {
		t.Errorf("got %+v", got)
	}
}

func TestFileErrors(t *testing.T) {
	_, err := NewReader(strings.NewReader("NPI,Entity Type Code\n"), "npidata.csv")
	if err == nil || !strings.Contains(err.Error(), `npidata.csv: header does not match OIG LEIE: missing "LASTNAME", "FIRSTNAME"`) {
		t.Errorf("mis-headed: %v", err)
	}
	if _, err := Open(filepath.Join("testdata", "2502excl.csv")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func FuzzReader(f *testing.F) {
	sourcetest.Seed(f, "*.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, e := range sourcetest.Fuzz(t, data, func(r io.Reader) (*source.Reader[Exclusion], error) {
			return NewReader(r, "fuzz.csv")
		}) {
			if e.NPI != "" && ident.ValidateNPI(e.NPI) != nil || e.ExclusionDate.IsZero() || e.Type == "" {
				t.Fatalf("accepted %+v", e)
			}
		}
	})
}

func benchData(b *testing.B) []byte {
	raw, err := os.ReadFile(filepath.Join("testdata", "UPDATED.csv"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(raw, []byte("\r\n"))
	return sourcetest.Repeat(string(lines[0]), []string{string(lines[1]), string(lines[2]), string(lines[3])}, 8<<20)
}

func BenchmarkReader(b *testing.B) {
	sourcetest.BenchRead(b, benchData(b), func(r io.Reader) (*source.Reader[Exclusion], error) {
		return NewReader(r, "bench.csv")
	})
}

func BenchmarkBareCSV(b *testing.B) { sourcetest.BenchBareCSV(b, benchData(b)) }
