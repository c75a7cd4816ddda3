package pecos

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

func TestEnrollments(t *testing.T) {
	r, err := Open(filepath.Join("testdata", "base_edge.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, rep := sourcetest.Drain(t, r)
	want := []Enrollment{
		{NPI: "1234567893", AssociateID: "1234567", EnrollmentID: "I20040101000001", ProviderTypeCode: "14-08",
			ProviderTypeDesc: "PRACTITIONER - FAMILY PRACTICE", State: "NM", FirstName: "JOSE", MiddleName: "A", LastName: "MUÑOZ"},
		{NPI: "1245319599", AssociateID: "7654321", EnrollmentID: "O20050101000002", ProviderTypeCode: "12-70",
			ProviderTypeDesc: "PART B SUPPLIER - CLINIC/GROUP PRACTICE", State: "MA", OrgName: `ACME "BEST" CLINIC, LLC`},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v", got)
	}
	wantErr := []source.RowError{
		{File: "base_edge.csv", Line: 4, Column: "NPI", Reason: "invalid NPI: bad check digit", Value: "1234567890"},
		{File: "base_edge.csv", Line: 5, Column: "ENRLMT_ID", Reason: "missing value"},
		{File: "base_edge.csv", Line: 6, Reason: "wrong column count", Value: "4 columns, header has 10"},
	}
	if len(rep.Errors) != len(wantErr) {
		t.Fatalf("errors %+v", rep.Errors)
	}
	for i := range wantErr {
		if rep.Errors[i] != wantErr[i] {
			t.Errorf("error %d: got %+v, want %+v", i, rep.Errors[i], wantErr[i])
		}
	}
}

func TestHospitalEnrollments(t *testing.T) {
	r, err := OpenHospitals(filepath.Join("testdata", "Hospital_Enrollments_edge.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, rep := sourcetest.Drain(t, r)
	if len(got) != 3 {
		t.Fatalf("got %d: %+v", len(got), got)
	}
	a := got[0]
	if a.NPI != "1245319599" || a.CCN != "010001" || a.MultipleNPI != source.No || a.OrgName != "SOUTHEAST HEALTH, INC" ||
		a.IncorporationDate != (source.Date{Year: 1985, Month: time.July, Day: 1}) || a.ProprietaryNonprofit != "N" ||
		a.Address != (Address{Line1: "1108 ROSS CLARK CIRCLE", City: "DOTHAN", State: "AL", ZIP: "36301"}) ||
		strings.Join(a.Subgroups, "|") != "GENERAL|ACUTE CARE" || a.REHConversion != source.No {
		t.Errorf("first: %+v", a)
	}
	b := got[1]
	if b.CCN != "A01234" || b.MultipleNPI != source.Yes || strings.Join(b.Subgroups, "|") != "PSYCHIATRIC|OTHER" ||
		b.REHConversion != source.Yes || b.REHConversionDate != (source.Date{Year: 2024, Month: time.January, Day: 15}) ||
		b.Address.Line2 != "STE 100" {
		t.Errorf("second: %+v", b)
	}
	if c := got[2]; c.CCN != "" || c.Subgroups != nil || !c.IncorporationDate.IsZero() {
		t.Errorf("third: %+v", c)
	}
	wantErr := []source.RowError{
		{File: "Hospital_Enrollments_edge.csv", Line: 5, Column: "CCN", Reason: "invalid CCN: character not allowed at its position", Value: "45X001"},
		{File: "Hospital_Enrollments_edge.csv", Line: 6, Column: "INCORPORATION DATE", Reason: "bad date", Value: "1990-02-30"},
		{File: "Hospital_Enrollments_edge.csv", Line: 7, Column: "MULTIPLE NPI FLAG", Reason: "bad yes/no flag", Value: "MAYBE"},
		{File: "Hospital_Enrollments_edge.csv", Line: 8, Reason: "wrong column count", Value: "4 columns, header has 29"},
	}
	if len(rep.Errors) != len(wantErr) {
		t.Fatalf("errors %+v", rep.Errors)
	}
	for i := range wantErr {
		if rep.Errors[i] != wantErr[i] {
			t.Errorf("error %d: got %+v, want %+v", i, rep.Errors[i], wantErr[i])
		}
	}
}

func TestFileErrors(t *testing.T) {
	_, err := OpenHospitals(filepath.Join("testdata", "base_edge.csv"))
	if err == nil || !strings.Contains(err.Error(), `header does not match PECOS Hospital_Enrollments: missing "ENROLLMENT ID", "ENROLLMENT STATE"`) {
		t.Errorf("base file as hospitals: %v", err)
	}
	_, err = Open(filepath.Join("testdata", "Hospital_Enrollments_edge.csv"))
	if err == nil || !strings.Contains(err.Error(), `missing "PECOS_ASCT_CNTL_ID", "ENRLMT_ID"`) {
		t.Errorf("hospitals as base file: %v", err)
	}
	if _, err := Open("testdata/none.csv"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func FuzzEnrollments(f *testing.F) {
	sourcetest.Seed(f, "base_*.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, e := range sourcetest.Fuzz(t, data, func(r io.Reader) (*source.Reader[Enrollment], error) {
			return NewReader(r, "fuzz.csv")
		}) {
			if ident.ValidateNPI(e.NPI) != nil || e.EnrollmentID == "" {
				t.Fatalf("accepted %+v", e)
			}
		}
	})
}

func FuzzHospitalEnrollments(f *testing.F) {
	sourcetest.Seed(f, "Hospital_*.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, h := range sourcetest.Fuzz(t, data, func(r io.Reader) (*source.Reader[HospitalEnrollment], error) {
			return NewHospitalReader(r, "fuzz.csv")
		}) {
			if ident.ValidateNPI(h.NPI) != nil || h.CCN != "" && ident.ValidateCCN(h.CCN) != nil {
				t.Fatalf("accepted %+v", h)
			}
		}
	})
}

func benchData(b *testing.B, name string, good int) []byte {
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(raw, []byte("\n"))
	rows := make([]string, good)
	for i := range rows {
		rows[i] = string(lines[1+i])
	}
	return sourcetest.Repeat(string(lines[0]), rows, 8<<20)
}

func BenchmarkEnrollments(b *testing.B) {
	sourcetest.BenchRead(b, benchData(b, "base_edge.csv", 2), func(r io.Reader) (*source.Reader[Enrollment], error) {
		return NewReader(r, "bench.csv")
	})
}

func BenchmarkEnrollmentsBareCSV(b *testing.B) {
	sourcetest.BenchBareCSV(b, benchData(b, "base_edge.csv", 2))
}

func BenchmarkHospitalEnrollments(b *testing.B) {
	sourcetest.BenchRead(b, benchData(b, "Hospital_Enrollments_edge.csv", 3), func(r io.Reader) (*source.Reader[HospitalEnrollment], error) {
		return NewHospitalReader(r, "bench.csv")
	})
}

func BenchmarkHospitalEnrollmentsBareCSV(b *testing.B) {
	sourcetest.BenchBareCSV(b, benchData(b, "Hospital_Enrollments_edge.csv", 3))
}
