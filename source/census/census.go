// Package census reads the Census Bureau's Vintage 2024 population estimates, as published:
//
//   - NST-EST2024-ALLDATA.csv (nation, regions, divisions, states, Puerto Rico): the states are
//     the rows of summary level 040, their population the POPESTIMATE2024 column;
//   - co-est2024-alldata.csv (states and counties, ISO-8859-1): the counties are the rows of
//     summary level 050, their FIPS code STATE followed by COUNTY.
//
// Layout: the Census "Annual Resident Population Estimates ... (NST-EST2024-ALLDATA)" and
// "(CO-EST2024-ALLDATA)" file layouts. Rows of other summary levels are skipped, not rejected.
// The service uses the state figures to weight per-capita measures and the synthetic data
// generator uses both to place providers; the 51 state figures sum to the US row, 340,110,988.
package census

import (
	"io"
	"io/fs"

	"providerdir/ident"
	"providerdir/source"
)

// Paths of the two files in a reference set (see source/reference).
const (
	StatesFile   = "census/NST-EST2024-ALLDATA.csv"
	CountiesFile = "census/co-est2024-alldata.csv"
)

// State is one row of summary level 040.
type State struct {
	FIPS       string // two digits, e.g. "06"
	Code       string // USPS code, e.g. "CA"
	Name       string // as published, e.g. "California"
	Region     string // Census region code, "1".."4" ("X" for Puerto Rico)
	Division   string // Census division code
	Population int64  // POPESTIMATE2024, July 1, 2024
	InThe51    bool   // one of the 50 states or DC; false for Puerto Rico
}

// County is one row of summary level 050.
type County struct {
	FIPS       string // five digits, state then county, e.g. "35013"
	StateFIPS  string
	StateCode  string // USPS code of the state
	StateName  string // STNAME as published
	Name       string // CTYNAME as published, e.g. "Doña Ana County"
	Population int64  // POPESTIMATE2024
}

const sumlevState, sumlevCounty = "040", "050"

var (
	stateSchema  = source.NewSchema("Census NST-EST2024-ALLDATA")
	sSumlev      = stateSchema.Required("SUMLEV")
	sRegion      = stateSchema.Required("REGION")
	sDivision    = stateSchema.Required("DIVISION")
	sState       = stateSchema.Required("STATE")
	sName        = stateSchema.Required("NAME")
	sPopulation  = stateSchema.Required("POPESTIMATE2024")
	countySchema = source.NewSchema("Census co-est2024-alldata")
	cSumlev      = countySchema.Required("SUMLEV")
	cState       = countySchema.Required("STATE")
	cCounty      = countySchema.Required("COUNTY")
	cStateName   = countySchema.Required("STNAME")
	cName        = countySchema.Required("CTYNAME")
	cPopulation  = countySchema.Required("POPESTIMATE2024")
)

func decodeState(r *source.Row) (State, bool) {
	if r.Code(sSumlev, 3) != sumlevState {
		return State{}, false
	}
	s := State{
		FIPS:     r.Code(sState, 2),
		Name:     r.Required(sName),
		Region:   r.Str(sRegion),
		Division: r.Str(sDivision),
	}
	st, ok := ident.StateByFIPS(s.FIPS)
	if !ok {
		r.Fail(sState, "unknown state FIPS code", s.FIPS)
	}
	s.Code, s.InThe51 = st.Code, st.InThe51()
	s.Population = population(r, sPopulation)
	return s, true
}

func decodeCounty(r *source.Row) (County, bool) {
	if r.Code(cSumlev, 3) != sumlevCounty {
		return County{}, false
	}
	c := County{
		StateFIPS: r.Code(cState, 2),
		StateName: r.Required(cStateName),
		Name:      r.Required(cName),
	}
	c.FIPS = c.StateFIPS + r.Code(cCounty, 3)
	if err := ident.ValidateCountyFIPS(c.FIPS); err != nil {
		r.Fail(cCounty, "invalid county FIPS code", c.FIPS)
	}
	st, _ := ident.StateByFIPS(c.StateFIPS)
	c.StateCode = st.Code
	c.Population = population(r, cPopulation)
	return c, true
}

func population(r *source.Row, c source.Col) int64 {
	n, ok := r.Int(c)
	if !ok && !r.Failed() {
		r.Fail(c, "missing value", "")
	}
	return n
}

// OpenStates opens NST-EST2024-ALLDATA.csv; the reader yields the summary-level-040 rows.
func OpenStates(path string, opts ...source.Option) (*source.Reader[State], error) {
	return source.Open(path, stateSchema, decodeState, opts...)
}

// NewStateReader reads NST-EST2024-ALLDATA from r, named name in reports.
func NewStateReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[State], error) {
	return source.NewReader(r, name, stateSchema, decodeState, opts...)
}

// OpenCounties opens co-est2024-alldata.csv; the reader yields the summary-level-050 rows.
func OpenCounties(path string, opts ...source.Option) (*source.Reader[County], error) {
	return source.Open(path, countySchema, decodeCounty, opts...)
}

// NewCountyReader reads co-est2024-alldata from r, named name in reports.
func NewCountyReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[County], error) {
	return source.NewReader(r, name, countySchema, decodeCounty, opts...)
}

// LoadStates reads every state row (the 51 and Puerto Rico) of the file name in fsys (StatesFile
// in a reference set), failing on any bad row.
func LoadStates(fsys fs.FS, name string) ([]State, error) {
	return source.LoadFS(fsys, name, NewStateReader)
}

// LoadCounties reads every county row of the file name in fsys (CountiesFile in a reference
// set), failing on any bad row.
func LoadCounties(fsys fs.FS, name string) ([]County, error) {
	return source.LoadFS(fsys, name, NewCountyReader)
}

// The51 returns the states of list that are among the 50 states and DC, in list order.
func The51(list []State) []State {
	var out []State
	for _, s := range list {
		if s.InThe51 {
			out = append(out, s)
		}
	}
	return out
}
