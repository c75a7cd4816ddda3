package carecompare

import (
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/testing/readercheck"
)

func read(t *testing.T, kind Kind, file string) ([]Facility, *source.Report) {
	t.Helper()
	return readercheck.DrainFile(t, func(path string, opts ...source.Option) (*source.Reader[Facility], error) {
		return Open(kind, path, opts...)
	}, file)
}

func val(p *float64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

func measures(f Facility) string {
	var b strings.Builder
	for _, m := range f.Measures {
		b.WriteString(m.Name + "=" + val(m.Value))
		if m.Footnote != "" {
			b.WriteString("[" + m.Footnote + "]")
		}
		b.WriteString(";")
	}
	return b.String()
}

func TestHospitals(t *testing.T) {
	got, rep := read(t, Hospital, "Hospital_General_Information.csv")
	if len(got) != 2 {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	a := got[0]
	if a.Kind != Hospital || a.CCN != "010001" || a.FacilityType != "Acute Care Hospitals" || val(a.OverallStar) != "3" ||
		a.Ownership != "Government - Hospital District or Authority" || a.County != "HOUSTON" || len(a.Measures) != 19 {
		t.Errorf("first: %+v", a)
	}
	if !strings.HasPrefix(measures(a), "MORT Group Measure Count=7;Count of Facility MORT Measures=6;Count of MORT Measures Better=0;") {
		t.Errorf("measures %s", measures(a))
	}
	b := got[1]
	if b.OverallStar != nil || b.StarFootnote != "16" {
		t.Errorf("suppressed rating: %+v", b)
	}
	for _, m := range b.Measures {
		if m.Value != nil {
			t.Errorf("suppressed measure %s = %v", m.Name, *m.Value)
		}
	}
	if b.Measures[0].Footnote != "5" || b.Measures[4].Footnote != "5" || b.Measures[5].Footnote != "" {
		t.Errorf("group footnotes: %s", measures(b))
	}
	readercheck.RowErrors(t, rep, []source.RowError{
		{File: "Hospital_General_Information.csv", Line: 4, Column: "Facility ID", Reason: "invalid CCN: wrong length", Value: "1001"},
		{File: "Hospital_General_Information.csv", Line: 5, Column: "Hospital overall rating", Reason: "star rating not 1 to 5 in half steps", Value: "6"},
		{File: "Hospital_General_Information.csv", Line: 6, Column: "MORT Group Measure Count", Reason: "bad measure value", Value: "lots"},
		{File: "Hospital_General_Information.csv", Line: 7, Reason: "wrong column count", Value: "2 columns, header has 38"},
	})
}

func TestNursingHomes(t *testing.T) {
	got, rep := read(t, NursingHome, "NH_ProviderInfo_Oct2025.csv")
	if len(got) != 2 || rep.Encoding != "ISO-8859-1" {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	a := got[0]
	if val(a.OverallStar) != "4" || a.FacilityType != "Medicare and Medicaid" || a.Ownership != "For profit - Corporation" ||
		a.Certified != (source.Date{Year: 1969, Month: 9, Day: 1}) || a.AsOf != (source.Date{Year: 2025, Month: 10, Day: 1}) ||
		measures(a) != "Health Inspection Rating=5;QM Rating=3;Staffing Rating=2;" {
		t.Errorf("first: %+v %s", a, measures(a))
	}
	b := got[1]
	if b.Name != "PEÑA VALLEY HEALTHCARE CENTER" || b.OverallStar != nil || b.StarFootnote != "18" ||
		measures(b) != "Health Inspection Rating=nil[18];QM Rating=3;Staffing Rating=nil[18];" {
		t.Errorf("second: %+v %s", b, measures(b))
	}
	readercheck.RowErrors(t, rep, []source.RowError{{File: "NH_ProviderInfo_Oct2025.csv", Line: 4,
		Column: "Date First Approved to Provide Medicare and Medicaid Services", Reason: "bad date", Value: "1967-13-01"}})
}

func TestDialysis(t *testing.T) {
	got, rep := read(t, Dialysis, "DFC_FACILITY.csv")
	if len(got) != 2 || rep.Rejected != 0 {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	a := got[0]
	if val(a.OverallStar) != "5" || a.Period.Start != (source.Date{Year: 2020, Month: 1, Day: 1}) ||
		a.Period.End != (source.Date{Year: 2023, Month: 12, Day: 31}) || a.Period.Text != "01Jan2020-31Dec2023" ||
		measures(a) != "Mortality Rate (Facility)=12.4;Readmission Rate (Facility)=nil;" || a.Ownership != "Non-profit" {
		t.Errorf("first: %+v %s", a, measures(a))
	}
	// A published zero is a value, not a suppressed one.
	if b := got[1]; b.OverallStar != nil || b.StarFootnote != "255" || measures(b) != "Mortality Rate (Facility)=0;Readmission Rate (Facility)=27.5;" || b.Address2 != "SUITE 2" {
		t.Errorf("second: %+v %s", b, measures(b))
	}
}

func TestHomeHealth(t *testing.T) {
	got, rep := read(t, HomeHealth, "HH_Provider_Oct2025.csv")
	if len(got) != 2 {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	if a := got[0]; val(a.OverallStar) != "3.5" || a.Certified != (source.Date{Year: 1966, Month: 7, Day: 1}) ||
		measures(a) != "How often patients got better at walking or moving around=81.2;DTC Risk-Standardized Rate=80.43;" {
		t.Errorf("first: %+v %s", a, measures(a))
	}
	if b := got[1]; b.OverallStar != nil || !strings.HasPrefix(b.StarFootnote, "The number of") ||
		measures(b) != "How often patients got better at walking or moving around=nil[Too few];DTC Risk-Standardized Rate=nil;" {
		t.Errorf("second: %+v %s", b, measures(b))
	}
	readercheck.RowErrors(t, rep, []source.RowError{{File: "HH_Provider_Oct2025.csv", Line: 4,
		Column: "Quality of patient care star rating", Reason: "star rating not 1 to 5 in half steps", Value: "3.25"}})
}

func TestHospices(t *testing.T) {
	got, rep := read(t, Hospice, "Hospice_General-Information_Oct2025.csv")
	if len(got) != 2 || rep.Rejected != 0 {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	if a := got[0]; a.Kind != Hospice || a.OverallStar != nil || a.Measures != nil || a.Ownership != "For-Profit" ||
		a.Certified != (source.Date{Year: 1990, Month: 9, Day: 1}) {
		t.Errorf("first: %+v", a)
	}
	if b := got[1]; b.ZIP != "00901" || b.CCN != "401501" {
		t.Errorf("second: %+v", b)
	}
}

func TestASCs(t *testing.T) {
	got, rep := read(t, ASC, "ASC_Facility.csv")
	if len(got) != 2 {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	a := got[0]
	if a.CCN != "01C0001001" || a.NPI != "1234567893" || a.Period.Start != (source.Date{Year: 2023, Month: 1, Day: 1}) ||
		a.Period.End != (source.Date{Year: 2023, Month: 12, Day: 31}) || measures(a) != "ASC-1 Rate*=0;ASC-9 Rate*=94.5;ASC-12 RSHV Rate=3.2;" {
		t.Errorf("first: %+v %s", a, measures(a))
	}
	if b := got[1]; b.NPI != "" || measures(b) != "ASC-1 Rate*=nil[7];ASC-9 Rate*=nil[7];ASC-12 RSHV Rate=nil[5];" {
		t.Errorf("second: %+v %s", b, measures(b))
	}
	readercheck.RowErrors(t, rep, []source.RowError{{File: "ASC_Facility.csv", Line: 4, Column: "NPI", Reason: "invalid NPI: bad check digit", Value: "1234567890"}})
}

func TestHospiceCAHPS(t *testing.T) {
	got, rep := readercheck.DrainFile(t, OpenMeasures, "Provider_CAHPS_Hospice_Survey_Data_Oct2025.csv")
	if len(got) != 3 {
		t.Fatalf("got %d: %s", len(got), rep)
	}
	if a := got[0]; !a.Summary() || val(a.Star) != "4" || a.Score != nil || a.Period.Start != (source.Date{Year: 2023, Month: 1, Day: 1}) ||
		a.Period.End != (source.Date{Year: 2024, Month: 12, Day: 31}) {
		t.Errorf("summary star row: %+v", a)
	}
	if b := got[1]; b.Summary() || b.Star != nil || val(b.Score) != "78" {
		t.Errorf("measure row: %+v", b)
	}
	if c := got[2]; c.Star != nil || c.Footnote != "10" {
		t.Errorf("suppressed star: %+v", c)
	}
	readercheck.RowErrors(t, rep, []source.RowError{
		{File: "Provider_CAHPS_Hospice_Survey_Data_Oct2025.csv", Line: 5, Column: "Star Rating", Reason: "star rating not 1 to 5 in half steps", Value: "0"},
		{File: "Provider_CAHPS_Hospice_Survey_Data_Oct2025.csv", Line: 6, Column: "CMS Certification Number (CCN)", Reason: "invalid CCN: character not allowed at its position", Value: "0115O3"},
	})
}

func TestFileErrors(t *testing.T) {
	_, err := Open(NursingHome, filepath.Join("testdata", "Hospital_General_Information.csv"))
	readercheck.Refused(t, err, `header does not match Care Compare NH_ProviderInfo: missing "CMS Certification Number (CCN)", "Provider Name", "Overall Rating"`)
	if _, err := Open(Kind(99), "testdata/ASC_Facility.csv"); err == nil {
		t.Error("unknown kind accepted")
	}
	readercheck.Missing(t, OpenMeasures)
	for _, k := range Kinds() {
		if k.String() == "unknown" {
			t.Errorf("kind %d has no name", k)
		}
	}
}

func TestParsePeriod(t *testing.T) {
	tests := []struct{ in, start, end string }{
		{"01/01/2023 - 12/31/2024", "2023-01-01", "2024-12-31"},
		{"01/01/2023-12/31/2024", "2023-01-01", "2024-12-31"},
		{"2023-01-01 - 2023-12-31", "2023-01-01", "2023-12-31"},
		{"2023-01-01-2023-12-31", "2023-01-01", "2023-12-31"},
		{"01Jan2020-31Dec2023", "2020-01-01", "2023-12-31"},
		{"2023", "2023-01-01", "2023-12-31"},
		{"Q1 2023 - Q4 2023", "", ""},
		{"12/31/2024 - 01/01/2023", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		p := parsePeriod(tt.in)
		if p.Start.String() != tt.start || p.End.String() != tt.end || p.Text != tt.in {
			t.Errorf("parsePeriod(%q) = %+v", tt.in, p)
		}
	}
}

func TestParseMeasure(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"12.5", "12.5", true}, {"0", "0", true}, {"1,234", "1234", true}, {"27.5%", "27.5", true}, {"-3", "-3", true},
		{"Not Available", "nil", true}, {"NOT AVAILABLE", "nil", true}, {"", "nil", true}, {"--", "nil", true}, {"Not Applicable", "nil", true},
		{"lots", "", false}, {"NaN", "", false}, {"1e400", "", false}, {"Inf", "", false},
	}
	for _, tt := range tests {
		f, present, ok := parseMeasure(tt.in)
		v := &f
		if !present {
			v = nil
		}
		if ok != tt.ok || ok && val(v) != tt.want {
			t.Errorf("parseMeasure(%q) = %s, %v", tt.in, val(v), ok)
		}
	}
}

func FuzzFacilities(f *testing.F) {
	readercheck.Seed(f, "*.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range Kinds() {
			for _, fac := range readercheck.Fuzz(t, data, func(r io.Reader, name string, opts ...source.Option) (*source.Reader[Facility], error) {
				return NewReader(k, r, name, opts...)
			}) {
				if ident.ValidateCCN(fac.CCN) != nil || fac.OverallStar != nil && (*fac.OverallStar < 1 || *fac.OverallStar > 5) {
					t.Fatalf("accepted %+v", fac)
				}
				// A date of the period comes from text the row printed.
				if (!fac.Period.Start.IsZero() || !fac.Period.End.IsZero()) && strings.TrimSpace(fac.Period.Text) == "" {
					t.Fatalf("period %+v stated by no text", fac.Period)
				}
				for _, m := range fac.Measures {
					if m.Value != nil && (math.IsNaN(*m.Value) || math.IsInf(*m.Value, 0)) {
						t.Fatalf("measure %s = %v", m.Name, *m.Value)
					}
				}
			}
		}
	})
}

func FuzzMeasures(f *testing.F) {
	readercheck.FuzzFiles(f, "Provider_CAHPS_*.csv", NewMeasureReader, func(m MeasureRow) bool {
		return ident.ValidateCCN(m.CCN) != nil || m.Code == ""
	})
}

func benchData(b *testing.B) []byte {
	return readercheck.RepeatFile(b, "Hospital_General_Information.csv", 2, 8<<20)
}

func BenchmarkHospitals(b *testing.B) {
	readercheck.BenchRead(b, benchData(b), func(r io.Reader, name string, opts ...source.Option) (*source.Reader[Facility], error) {
		return NewReader(Hospital, r, name, opts...)
	})
}

func BenchmarkHospitalsBareCSV(b *testing.B) { readercheck.BenchBareCSV(b, benchData(b)) }
