// Package pos reads the CMS Provider of Services files (POS_File_Hospital_Non_Hospital_Facilities
// and the separate Hospital and Non-Hospital extracts, "Provider of Services File" record layout):
// one row per certified facility, several hundred uppercase columns of which this reader takes
// the identity, location, ownership and status ones.
//
// Some releases, and any file that passed through a spreadsheet, drop leading zeros from codes
// ("1" for "01"); codes are restored to their published widths (category, subtype, general
// control type, termination code: 2; FIPS state 2, FIPS county 3; ZIP 5). Dates are YYYYMMDD.
// The CCN (PRVDR_NUM) must have one of the ident.ValidateCCN forms.
package pos

import (
	"io"

	"providerdir/ident"
	"providerdir/source"
)

// Address is the facility's street address and telephone.
type Address struct {
	Street, City, State, ZIP, Phone string
}

// Facility is one row of the file.
type Facility struct {
	CCN                       string
	Name                      string
	Category                  string // PRVDR_CTGRY_CD, two digits; "01" is a hospital
	Subtype                   string // PRVDR_CTGRY_SBTYP_CD, two digits; for hospitals "01" short-term, "11" critical access ...
	Address                   Address
	CountyFIPS                string // five digits from FIPS_STATE_CD and FIPS_CNTY_CD; "" when not given
	SSAState, SSACounty       string
	CBSA                      string
	Ownership                 string // GNRL_CNTL_TYPE_CD, the general control (ownership) type, two digits
	Termination               string // PGM_TRMNTN_CD, two digits; "00" means active
	TerminationDate           source.Date
	CertificationDate         source.Date
	OriginalParticipationDate source.Date
	RelatedProvider           string // RELATED_PROVIDER_NUMBER (e.g. the parent of a unit)
	Beds                      *int64 // BED_CNT (hospital files); nil when not given
	CertifiedBeds             *int64 // CRTFD_BED_CNT
}

// Active reports whether the facility's participation is not terminated.
func (f *Facility) Active() bool { return f.Termination == "00" }

// Hospital reports whether the facility is in the hospital category.
func (f *Facility) Hospital() bool { return f.Category == "01" }

var (
	schema         = source.NewSchema("CMS Provider of Services")
	colCCN         = schema.Required("PRVDR_NUM")
	colName        = schema.Required("FAC_NAME")
	colCategory    = schema.Required("PRVDR_CTGRY_CD")
	colSubtype     = schema.Required("PRVDR_CTGRY_SBTYP_CD")
	colStreet      = schema.Required("ST_ADR")
	colCity        = schema.Required("CITY_NAME")
	colState       = schema.Required("STATE_CD")
	colZIP         = schema.Required("ZIP_CD")
	colPhone       = schema.Optional("PHNE_NUM")
	colFIPSState   = schema.Optional("FIPS_STATE_CD")
	colFIPSCounty  = schema.Optional("FIPS_CNTY_CD")
	colSSAState    = schema.Optional("SSA_STATE_CD")
	colSSACounty   = schema.Optional("SSA_CNTY_CD")
	colCBSA        = schema.Optional("CBSA_CD")
	colControl     = schema.Required("GNRL_CNTL_TYPE_CD")
	colTermination = schema.Required("PGM_TRMNTN_CD")
	colTermDate    = schema.Optional("TRMNTN_EXPRTN_DT")
	colCertified   = schema.Optional("CRTFCTN_DT")
	colOriginal    = schema.Optional("ORGNL_PRTCPTN_DT")
	colRelated     = schema.Optional("RELATED_PROVIDER_NUMBER")
	colBeds        = schema.Optional("BED_CNT")
	colCertBeds    = schema.Optional("CRTFD_BED_CNT")
)

func decode(r *source.Row) (Facility, bool) {
	f := Facility{
		CCN:      r.CCN(colCCN),
		Name:     r.Required(colName),
		Category: r.Code(colCategory, 2),
		Subtype:  r.Code(colSubtype, 2),
		Address: Address{Street: r.Str(colStreet), City: r.Str(colCity), State: r.Str(colState),
			ZIP: r.Code(colZIP, 5), Phone: r.Str(colPhone)},
		SSAState:                  r.Code(colSSAState, 2),
		SSACounty:                 r.Code(colSSACounty, 3),
		CBSA:                      r.Str(colCBSA),
		Ownership:                 r.Code(colControl, 2),
		Termination:               r.Code(colTermination, 2),
		TerminationDate:           r.Date(colTermDate),
		CertificationDate:         r.Date(colCertified),
		OriginalParticipationDate: r.Date(colOriginal),
		RelatedProvider:           r.Str(colRelated),
		Beds:                      count(r, colBeds),
		CertifiedBeds:             count(r, colCertBeds),
	}
	if st, co := r.Code(colFIPSState, 2), r.Code(colFIPSCounty, 3); st != "" && co != "" {
		f.CountyFIPS = st + co
		if err := ident.ValidateCountyFIPS(f.CountyFIPS); err != nil {
			r.Fail(colFIPSCounty, "invalid county FIPS code", f.CountyFIPS)
		}
	}
	if f.Category == "" {
		r.Fail(colCategory, "missing value", "")
	}
	return f, true
}

func count(r *source.Row, c source.Col) *int64 {
	if n, ok := r.Int(c); ok {
		return &n
	}
	return nil
}

// Open opens a Provider of Services file.
func Open(path string, opts ...source.Option) (*source.Reader[Facility], error) {
	return source.Open(path, schema, decode, opts...)
}

// NewReader reads a Provider of Services file from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Facility], error) {
	return source.NewReader(r, name, schema, decode, opts...)
}
