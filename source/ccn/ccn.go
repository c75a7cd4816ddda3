// Package ccn reads the table of CMS Certification Number state codes (cms/ccn_state_codes.csv:
// ccn_state_code, state_abbr, state_name), the two characters at the front of every CCN, as
// listed in the CMS State Operations Manual (Pub. 100-07) section 2779A1. The codes are SSA-style,
// not FIPS, and include overflow codes (A0-E3) and codes for Canada, Mexico and other countries.
//
// ident compiles the same table in, so validating a CCN needs no file; this package's tests hold
// the two equal, and the synthetic data generator reads the names from here.
package ccn

import (
	"io"
	"io/fs"

	"providerdir/source"
)

// File is the path of the table in a reference set (see source/reference).
const File = "cms/ccn_state_codes.csv"

// StateCode is one row of the table.
type StateCode struct {
	Code string // two characters, e.g. "05", "A0"
	Abbr string // USPS code, or CN, MX, FC for Canada, Mexico, foreign countries
	Name string // e.g. "California"
}

var (
	schema  = source.NewSchema("CCN state code table")
	colCode = schema.Required("ccn_state_code")
	colAbbr = schema.Required("state_abbr")
	colName = schema.Required("state_name")
)

func decode(r *source.Row) (StateCode, bool) {
	s := StateCode{Code: r.Code(colCode, 2), Abbr: r.Required(colAbbr), Name: r.Required(colName)}
	if len(s.Code) != 2 {
		r.Fail(colCode, "state code is not two characters", s.Code)
	}
	if len(s.Abbr) != 2 {
		r.Fail(colAbbr, "abbreviation is not two letters", s.Abbr)
	}
	return s, true
}

// Open opens the table.
func Open(path string, opts ...source.Option) (*source.Reader[StateCode], error) {
	return source.Open(path, schema, decode, opts...)
}

// NewReader reads the table from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[StateCode], error) {
	return source.NewReader(r, name, schema, decode, opts...)
}

// Load reads the whole table from the file name in fsys (File in a reference set), failing on
// any bad row.
func Load(fsys fs.FS, name string) ([]StateCode, error) {
	return source.LoadFS(fsys, name, NewReader)
}
