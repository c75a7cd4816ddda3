package pecos

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/testing/readercheck"
)

func TestEnrollments(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, "base_edge.csv")
	want := []Enrollment{
		{NPI: "1234567893", AssociateID: "1234567", EnrollmentID: "I20040101000001", ProviderTypeCode: "14-08",
			ProviderTypeDesc: "PRACTITIONER - FAMILY PRACTICE", State: "NM", FirstName: "JOSE", MiddleName: "A", LastName: "MUÑOZ"},
		{NPI: "1245319599", AssociateID: "7654321", EnrollmentID: "O20050101000002", ProviderTypeCode: "12-70",
			ProviderTypeDesc: "PART B SUPPLIER - CLINIC/GROUP PRACTICE", State: "MA", OrgName: `ACME "BEST" CLINIC, LLC`},
	}
	readercheck.Equal(t, "record", got, want)
	wantErr := []source.RowError{
		{File: "base_edge.csv", Line: 4, Column: "NPI", Reason: "invalid NPI: bad check digit", Value: "1234567890"},
		{File: "base_edge.csv", Line: 5, Column: "ENRLMT_ID", Reason: "missing value"},
		{File: "base_edge.csv", Line: 6, Reason: "wrong column count", Value: "4 columns, header has 10"},
	}
	readercheck.RowErrors(t, rep, wantErr)
}

func TestHospitalEnrollments(t *testing.T) {
	got, rep := readercheck.DrainFile(t, OpenHospitals, "Hospital_Enrollments_edge.csv")
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
	readercheck.RowErrors(t, rep, wantErr)
}

func TestFileErrors(t *testing.T) {
	_, err := OpenHospitals(filepath.Join("testdata", "base_edge.csv"))
	readercheck.Refused(t, err, `header does not match PECOS Hospital_Enrollments: missing "ENROLLMENT ID", "ENROLLMENT STATE"`)
	_, err = Open(filepath.Join("testdata", "Hospital_Enrollments_edge.csv"))
	readercheck.Refused(t, err, `missing "PECOS_ASCT_CNTL_ID", "ENRLMT_ID"`)
	readercheck.Missing(t, Open)
}

func FuzzEnrollments(f *testing.F) {
	readercheck.FuzzFiles(f, "base_*.csv", NewReader, func(e Enrollment) bool {
		return ident.ValidateNPI(e.NPI) != nil || e.EnrollmentID == ""
	})
}

func FuzzHospitalEnrollments(f *testing.F) {
	readercheck.FuzzFiles(f, "Hospital_*.csv", NewHospitalReader, func(h HospitalEnrollment) bool {
		return ident.ValidateNPI(h.NPI) != nil || h.CCN != "" && ident.ValidateCCN(h.CCN) != nil
	})
}

func BenchmarkEnrollments(b *testing.B) {
	readercheck.BenchRead(b, readercheck.RepeatFile(b, "base_edge.csv", 2, 8<<20), NewReader)
}

func BenchmarkEnrollmentsBareCSV(b *testing.B) {
	readercheck.BenchBareCSV(b, readercheck.RepeatFile(b, "base_edge.csv", 2, 8<<20))
}

func BenchmarkHospitalEnrollments(b *testing.B) {
	readercheck.BenchRead(b, readercheck.RepeatFile(b, "Hospital_Enrollments_edge.csv", 3, 8<<20), NewHospitalReader)
}

func BenchmarkHospitalEnrollmentsBareCSV(b *testing.B) {
	readercheck.BenchBareCSV(b, readercheck.RepeatFile(b, "Hospital_Enrollments_edge.csv", 3, 8<<20))
}
