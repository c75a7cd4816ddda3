// Package qpp reads the Quality Payment Program's clinician MIPS final scores as Care Compare
// publishes them: "Clinician Public Reporting: Overall MIPS Performance" of the Provider Data
// Catalog (Doctors and Clinicians, dataset a174-a962, ec_score_file.csv), one row per clinician
// and the practice (Org_PAC_ID) the score was earned with, so an NPI recurs. CMS replaces the
// file each performance year; the year is in the dataset's title, not in the file.
//
// The header has changed with the years, and every layout is read into one record by name:
//
//	PY 2022 on: NPI, Org_PAC_ID, Provider Last Name, Provider First Name, source,
//	            Facility-based scoring Certification number, Facility Name,
//	            Quality_category_score, PI_category_score, IA_category_score,
//	            Cost_category_score, final_MIPS_score_without_CPB, final_MIPS_score
//	PY 2019-21: NPI, Org_PAC_ID, lst_nm, frst_nm, source, facility_ccn, facility_lbn, then the
//	            same scores (final_MIPS_score_without_CPB from PY 2020)
//	PY 2018:    lower-case names, cost before improvement activities, no facility columns
//
// The header's names follow a comma and a space (", Org_PAC_ID"); values are unquoted unless
// they hold a comma. A category the clinician was not scored in is blank or "N/A", read as
// absent, never as zero. Scores are points from 0 to 100.
package qpp

import (
	"io"
	"math"
	"strconv"

	"providerdir/source"
)

// Score is one row: a clinician's MIPS scores as earned with one practice.
type Score struct {
	NPI       string
	OrgPACID  string // the practice's PECOS associate control id; "" for an individual score
	LastName  string
	FirstName string
	// Source says whose submission the score comes from, as published (individual, group, APM
	// entity, virtual group).
	Source       string
	FacilityCCN  string // facility-based scoring: the hospital whose score was used
	FacilityName string
	// Category scores and the final score; nil when the file gives none.
	Quality, PI, IA, Cost *float64
	// FinalWithoutCPB is the final score before the complex patient bonus (from PY 2020).
	FinalWithoutCPB *float64
	Final           float64
}

var (
	schema          = source.NewSchema("QPP clinician MIPS final scores (ec_score_file)").Placeholders("N/A", "NA")
	colNPI          = schema.Required("NPI")
	colOrgPAC       = schema.Optional("Org_PAC_ID")
	colLast         = schema.Optional("Provider Last Name", "lst_nm")
	colFirst        = schema.Optional("Provider First Name", "frst_nm")
	colSource       = schema.Required("source")
	colFacilityCCN  = schema.Optional("Facility-based scoring Certification number", "facility_ccn")
	colFacilityName = schema.Optional("Facility Name", "facility_lbn")
	colQuality      = schema.Required("Quality_category_score")
	colPI           = schema.Optional("PI_category_score", "ACI_category_score")
	colIA           = schema.Required("IA_category_score")
	colCost         = schema.Optional("Cost_category_score")
	colWithoutCPB   = schema.Optional("final_MIPS_score_without_CPB")
	colFinal        = schema.Required("final_MIPS_score")
)

func decode(r *source.Row) (Score, bool) {
	s := Score{
		NPI:             r.NPI(colNPI),
		OrgPACID:        r.Str(colOrgPAC),
		LastName:        r.Str(colLast),
		FirstName:       r.Str(colFirst),
		Source:          r.Required(colSource),
		FacilityCCN:     r.OptionalCCN(colFacilityCCN),
		FacilityName:    r.Str(colFacilityName),
		Quality:         points(r, colQuality),
		PI:              points(r, colPI),
		IA:              points(r, colIA),
		Cost:            points(r, colCost),
		FinalWithoutCPB: points(r, colWithoutCPB),
	}
	if f := points(r, colFinal); f != nil {
		s.Final = *f
	} else if !r.Failed() {
		r.Fail(colFinal, "missing value", "")
	}
	return s, true
}

// points reads a score of column c: nil when blank or a placeholder; a value that is not a
// number from 0 to 100 rejects the row.
func points(r *source.Row, c source.Col) *float64 {
	v := r.Str(c)
	if v == "" {
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 100 {
		r.Fail(c, "bad score", v)
		return nil
	}
	return &f
}

// Open opens a scores file.
func Open(path string, opts ...source.Option) (*source.Reader[Score], error) {
	return source.Open(path, schema, decode, opts...)
}

// NewReader reads a scores file from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Score], error) {
	return source.NewReader(r, name, schema, decode, opts...)
}
