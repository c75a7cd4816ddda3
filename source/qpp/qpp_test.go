package qpp

import (
	"reflect"
	"strings"
	"testing"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/testing/readercheck"
)

func pt(v float64) *float64 { return &v }

// TestLayouts reads the three header layouts of the scores file into the same record.
func TestLayouts(t *testing.T) {
	tests := []struct {
		file string
		want []Score
		errs []source.RowError
	}{
		{
			file: "ec_score_file_PY2023.csv",
			want: []Score{
				{NPI: "1234567893", OrgPACID: "1234500001", LastName: "DOE", FirstName: "JANE", Source: "group",
					Quality: pt(88.41), PI: pt(100), IA: pt(100), Cost: pt(71.2), FinalWithoutCPB: pt(89.07), Final: 92.5},
				{NPI: "1234567893", OrgPACID: "1234500002", LastName: "DOE", FirstName: "JANE", Source: "individual",
					Quality: pt(75), IA: pt(100), FinalWithoutCPB: pt(76.1), Final: 80},
				{NPI: "1245319599", LastName: "O'NEIL, JR", FirstName: "SEAN", Source: "facility-based", FacilityCCN: "450001",
					FacilityName: "NORTH HOSPITAL", Quality: pt(64.3), IA: pt(40), Cost: pt(55.5), FinalWithoutCPB: pt(60.1), Final: 61.35},
			},
			errs: []source.RowError{
				{File: "ec_score_file_PY2023.csv", Line: 5, Column: "NPI", Reason: "invalid NPI: bad check digit", Value: "1234567890"},
				{File: "ec_score_file_PY2023.csv", Line: 6, Column: "Quality_category_score", Reason: "bad score", Value: "101"},
				{File: "ec_score_file_PY2023.csv", Line: 7, Column: "final_MIPS_score", Reason: "missing value"},
			},
		},
		{
			file: "ec_score_file_PY2019.csv",
			want: []Score{{NPI: "1234567893", OrgPACID: "1234500001", LastName: "DOE", FirstName: "JANE", Source: "group",
				Quality: pt(90), PI: pt(95.5), IA: pt(100), Final: 93.2}},
		},
		{
			file: "ec_score_file_PY2018.csv",
			want: []Score{{NPI: "1234567893", OrgPACID: "1234500001", LastName: "DOE", FirstName: "JANE", Source: "individual",
				Quality: pt(70), PI: pt(80), IA: pt(100), Final: 82}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, rep := readercheck.DrainFile(t, Open, tt.file)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("records:\n got %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(rep.Errors, tt.errs) && (len(rep.Errors) != 0 || len(tt.errs) != 0) {
				t.Errorf("errors:\n got %+v\nwant %+v", rep.Errors, tt.errs)
			}
		})
	}
}

func TestWrongFile(t *testing.T) {
	_, err := NewReader(strings.NewReader("NPI,Entity Type Code\n"), "npidata.csv")
	readercheck.Refused(t, err, `npidata.csv: header does not match QPP clinician MIPS final scores (ec_score_file): missing "source"`)
}

func FuzzReader(f *testing.F) {
	readercheck.FuzzFiles(f, "*.csv", NewReader, func(s Score) bool {
		return ident.ValidateNPI(s.NPI) != nil || s.Source == "" || s.Final < 0 || s.Final > 100
	})
}
