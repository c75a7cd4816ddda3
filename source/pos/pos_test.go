package pos

import (
	"strings"
	"testing"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/testing/readercheck"
)

func TestFacilities(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, "POS_edge.csv")
	if len(got) != 3 {
		t.Fatalf("got %d records: %+v\n%s", len(got), got, rep)
	}
	a := got[0]
	if a.CCN != "010001" || a.Category != "01" || a.Subtype != "01" || !a.Hospital() || !a.Active() ||
		a.Ownership != "04" || a.CountyFIPS != "01069" || a.CBSA != "20020" || *a.Beds != 420 || *a.CertifiedBeds != 420 ||
		a.OriginalParticipationDate != (source.Date{Year: 1966, Month: 7, Day: 1}) || a.Address.ZIP != "36301" {
		t.Errorf("first: %+v", a)
	}
	b := got[1]
	if b.Name != `BIG BEND "REGIONAL" HOSPITAL, INC` || b.Category != "01" || b.Subtype != "11" || b.Termination != "01" ||
		b.Active() || b.Ownership != "06" || b.CountyFIPS != "48043" ||
		b.TerminationDate != (source.Date{Year: 2023, Month: 6, Day: 30}) {
		t.Errorf("second (leading zeros lost): %+v", b)
	}
	c := got[2]
	if c.CCN != "22E001" || c.Category != "02" || c.Subtype != "" || c.Hospital() || c.Termination != "00" ||
		c.Ownership != "03" || c.Address.ZIP != "02110" || c.CountyFIPS != "25025" || c.Beds != nil || !c.CertificationDate.IsZero() {
		t.Errorf("third: %+v", c)
	}
	wantErr := []source.RowError{
		{File: "POS_edge.csv", Line: 5, Column: "PRVDR_NUM", Reason: "invalid CCN: unknown state code", Value: "98X001"},
		{File: "POS_edge.csv", Line: 6, Column: "ORGNL_PRTCPTN_DT", Reason: "bad date", Value: "19661301"},
		{File: "POS_edge.csv", Line: 7, Column: "BED_CNT", Reason: "bad number", Value: "many"},
		{File: "POS_edge.csv", Line: 8, Column: "FIPS_CNTY_CD", Reason: "invalid county FIPS code", Value: "03069"},
		{File: "POS_edge.csv", Line: 9, Reason: "wrong column count", Value: "4 columns, header has 23"},
	}
	readercheck.RowErrors(t, rep, wantErr)
}

func TestLowercaseHeader(t *testing.T) {
	// API downloads spell the same columns in lowercase.
	in := "prvdr_num,fac_name,prvdr_ctgry_cd,prvdr_ctgry_sbtyp_cd,st_adr,city_name,state_cd,zip_cd,gnrl_cntl_type_cd,pgm_trmntn_cd\n" +
		"010001,A HOSPITAL,1,1,1 ST,DOTHAN,AL,36301,4,0\n"
	r, err := NewReader(strings.NewReader(in), "pos.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := readercheck.Drain(t, r)
	if len(got) != 1 || got[0].Category != "01" || got[0].Ownership != "04" || got[0].Termination != "00" {
		t.Errorf("got %+v", got)
	}
}

func TestFileErrors(t *testing.T) {
	_, err := NewReader(strings.NewReader("Facility ID,Facility Name\n"), "Hospital_General_Information.csv")
	readercheck.Refused(t, err, `header does not match CMS Provider of Services: missing "PRVDR_NUM", "FAC_NAME"`)
	readercheck.Missing(t, Open)
}

func FuzzReader(f *testing.F) {
	readercheck.FuzzFiles(f, "*.csv", NewReader, func(fac Facility) bool {
		return ident.ValidateCCN(fac.CCN) != nil || fac.CountyFIPS != "" && ident.ValidateCountyFIPS(fac.CountyFIPS) != nil
	})
}

func benchData(b *testing.B) []byte { return readercheck.RepeatFile(b, "POS_edge.csv", 3, 8<<20) }

func BenchmarkReader(b *testing.B) {
	readercheck.BenchRead(b, benchData(b), NewReader)
}

func BenchmarkBareCSV(b *testing.B) { readercheck.BenchBareCSV(b, benchData(b)) }
