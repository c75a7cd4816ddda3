// Package leie reads the HHS Office of Inspector General's List of Excluded Individuals/Entities:
// the full UPDATED.csv and the monthly supplements (yymmexcl.csv for new exclusions, yymmrein.csv
// for reinstatements), which share one 18-column layout (LASTNAME, FIRSTNAME, MIDNAME, BUSNAME,
// GENERAL, SPECIALTY, UPIN, NPI, DOB, ADDRESS, CITY, STATE, ZIP, EXCLTYPE, EXCLDATE, REINDATE,
// WAIVERDATE, WVRSTATE; OIG "LEIE Downloadable Databases" record layout).
//
// The header is unquoted, the values quoted, lines end in CRLF. Dates are YYYYMMDD with
// 00000000 for "none", and an NPI of 0000000000 means the exclusion names no NPI (most predate
// the NPI); both sentinels read as absent. Any other NPI must pass its check digit.
package leie

import (
	"io"

	"providerdir/source"
)

// Exclusion is one row of the list.
type Exclusion struct {
	LastName, FirstName, MiddleName string // individuals
	BusinessName                    string // entities
	General                         string // general category, e.g. "IND- LIC HC SERV PRO"
	Specialty                       string // e.g. "NURSE/NURSES AIDE"
	UPIN                            string
	NPI                             string // "" when the list has 0000000000
	DOB                             source.Date
	Address, City, State, ZIP       string
	Type                            string // exclusion authority, e.g. "1128a1", "1128b4"
	ExclusionDate                   source.Date
	ReinstatementDate               source.Date // set in reinstatement files
	WaiverDate                      source.Date
	WaiverState                     string
}

// Individual reports whether the exclusion names a person rather than a business.
func (e *Exclusion) Individual() bool { return e.BusinessName == "" }

// The "none" sentinels of the list.
const (
	noDate = "00000000"
	noNPI  = "0000000000"
)

var (
	schema       = source.NewSchema("OIG LEIE")
	colLast      = schema.Required("LASTNAME")
	colFirst     = schema.Required("FIRSTNAME")
	colMid       = schema.Required("MIDNAME")
	colBus       = schema.Required("BUSNAME")
	colGeneral   = schema.Required("GENERAL")
	colSpecialty = schema.Required("SPECIALTY")
	colUPIN      = schema.Required("UPIN")
	colNPI       = schema.Required("NPI")
	colDOB       = schema.Required("DOB")
	colAddress   = schema.Required("ADDRESS")
	colCity      = schema.Required("CITY")
	colState     = schema.Required("STATE")
	colZIP       = schema.Required("ZIP")
	colType      = schema.Required("EXCLTYPE")
	colExcl      = schema.Required("EXCLDATE")
	colRein      = schema.Required("REINDATE")
	colWaiver    = schema.Required("WAIVERDATE")
	colWvrState  = schema.Required("WVRSTATE")
)

func decode(r *source.Row) (Exclusion, bool) {
	e := Exclusion{
		LastName:          r.Str(colLast),
		FirstName:         r.Str(colFirst),
		MiddleName:        r.Str(colMid),
		BusinessName:      r.Str(colBus),
		General:           r.Str(colGeneral),
		Specialty:         r.Str(colSpecialty),
		UPIN:              r.Str(colUPIN),
		NPI:               r.OptionalNPI(colNPI, noNPI),
		DOB:               r.Date(colDOB, noDate),
		Address:           r.Str(colAddress),
		City:              r.Str(colCity),
		State:             r.Str(colState),
		ZIP:               r.Str(colZIP),
		Type:              r.Required(colType),
		ExclusionDate:     r.Date(colExcl, noDate),
		ReinstatementDate: r.Date(colRein, noDate),
		WaiverDate:        r.Date(colWaiver, noDate),
		WaiverState:       r.Str(colWvrState),
	}
	if e.LastName == "" && e.BusinessName == "" {
		r.Fail(colLast, "neither LASTNAME nor BUSNAME given", "")
	}
	if e.ExclusionDate.IsZero() && !r.Failed() {
		r.Fail(colExcl, "missing value", r.Raw(colExcl))
	}
	return e, true
}

// Open opens UPDATED.csv or a monthly exclusion or reinstatement file.
func Open(path string, opts ...source.Option) (*source.Reader[Exclusion], error) {
	return source.Open(path, schema, decode, opts...)
}

// NewReader reads the list from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Exclusion], error) {
	return source.NewReader(r, name, schema, decode, opts...)
}
