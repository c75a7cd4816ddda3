package openpayments

import (
	"strings"
	"testing"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/testing/readercheck"
)

const (
	py2023 = "OP_DTL_GNRL_PGYR2023_P06282024.csv"
	py2016 = "OP_DTL_GNRL_PGYR2016_P06302017.csv"
)

func TestCoveredRecipientGeneration(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, py2023)
	if len(got) != 2 {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	p := got[0]
	if p.RecordID != "900000001" || p.NPI != "1234567893" || p.ProfileID != "123456" || p.FirstName != "JOSÉ" || p.LastName != "MUÑOZ" ||
		p.Amount != 123450 || p.Amount.String() != "1234.50" || p.Date != (source.Date{Year: 2023, Month: 3, Day: 15}) || p.Count != 1 ||
		p.Nature != "Consulting Fee" || p.PayerName != "ACME PHARMA, INC." || p.PayerID != "100000000001" ||
		p.Specialty != "Allopathic & Osteopathic Physicians|Internal Medicine|Cardiovascular Disease" || p.LicenseState != "NM" ||
		p.PhysicianOwnership != source.No || p.ProgramYear != 2023 || p.PublicationDate != (source.Date{Year: 2024, Month: 6, Day: 28}) ||
		strings.Join(p.Products, "|") != "WIDGETIX|GADGETRA" || p.ZIP != "87532-1234" {
		t.Errorf("physician payment: %+v", p)
	}
	th := got[1]
	if th.RecipientType != "Covered Recipient Teaching Hospital" || th.TeachingHospitalCCN != "010001" || th.NPI != "" ||
		th.Amount != 1500 || th.Date != (source.Date{Year: 2023, Month: 1, Day: 2}) || th.Products != nil {
		t.Errorf("teaching hospital payment: %+v", th)
	}
	want := []source.RowError{
		{File: py2023, Line: 4, Column: "Covered_Recipient_NPI", Reason: "invalid NPI: bad check digit", Value: "1234567890"},
		{File: py2023, Line: 5, Column: "Total_Amount_of_Payment_USDollars", Reason: "bad amount", Value: "12.345"},
		{File: py2023, Line: 6, Column: "Date_of_Payment", Reason: "bad date", Value: "2023-02-30"},
		{File: py2023, Line: 7, Column: "Teaching_Hospital_CCN", Reason: "invalid CCN: wrong length", Value: "01001"},
		{File: py2023, Line: 8, Column: "Total_Amount_of_Payment_USDollars", Reason: "bad amount"},
		{File: py2023, Line: 9, Reason: "wrong column count", Value: "10 columns, header has 85"},
	}
	readercheck.RowErrors(t, rep, want)
}

func TestPhysicianGeneration(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, py2016)
	if len(got) != 1 || rep.Rejected != 0 {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	p := got[0]
	if p.ProfileID != "98765" || p.FirstName != "ANNE" || p.LastName != "SMITH" || p.NameSuffix != "JR" || p.NPI != "" ||
		p.PrimaryType != "Medical Doctor" || p.Specialty != "Allopathic & Osteopathic Physicians|Family Medicine" ||
		p.LicenseState != "MA" || p.Amount != 100000 || p.Count != 2 || p.PhysicianOwnership != source.Yes || p.ProgramYear != 2016 {
		t.Errorf("got %+v", p)
	}
}

func TestParseCents(t *testing.T) {
	tests := []struct {
		in   string
		want Cents
		ok   bool
	}{
		{"0", 0, true}, {"15", 1500, true}, {"1234.5", 123450, true}, {"1234.56", 123456, true}, {"1,234.56", 123456, true},
		{".5", 50, true}, {"-12.01", -1201, true}, {"0.07", 7, true},
		{"", 0, false}, {"-", 0, false}, {"1.", 0, false}, {"1.234", 0, false}, {"$5", 0, false}, {",5", 0, false},
		{"5,", 0, false}, {"1e3", 0, false}, {"12345678901234", 0, false}, {"1.2.3", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseCents(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseCents(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	for _, c := range []Cents{0, 7, 50, 123456, -1201} {
		if back, ok := ParseCents(c.String()); !ok || back != c {
			t.Errorf("%d -> %q -> %d", c, c.String(), back)
		}
	}
}

func TestFileErrors(t *testing.T) {
	_, err := NewReader(strings.NewReader("Physician_Profile_ID,Physician_First_Name\n"), "OP_PH_PRFL_SPLMTL.csv")
	readercheck.Refused(t, err, `header does not match Open Payments general payments: missing "Record_ID", "Covered_Recipient_Type"`)
	readercheck.Missing(t, Open)
}

func FuzzReader(f *testing.F) {
	readercheck.FuzzFiles(f, "*.csv", NewReader, func(p Payment) bool {
		return p.NPI != "" && ident.ValidateNPI(p.NPI) != nil || p.Date.IsZero() || p.RecordID == ""
	})
}

func FuzzParseCents(f *testing.F) {
	for _, s := range []string{"1234.56", "-0.5", "1,000", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := ParseCents(s)
		if !ok {
			return
		}
		if back, ok := ParseCents(c.String()); !ok || back != c {
			t.Fatalf("%q -> %d -> %q does not round-trip", s, c, c.String())
		}
	})
}

func benchData(b *testing.B) []byte { return readercheck.RepeatFile(b, py2023, 2, 8<<20) }

func BenchmarkReader(b *testing.B) {
	readercheck.BenchRead(b, benchData(b), NewReader)
}

func BenchmarkBareCSV(b *testing.B) { readercheck.BenchBareCSV(b, benchData(b)) }
