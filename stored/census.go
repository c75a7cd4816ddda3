package stored

// CensusStateRecord is a state's row of the Census population estimates as stored: the fields
// keep their Go names in the stored JSON.
type CensusStateRecord struct {
	FIPS       string // two digits, e.g. "06"
	Code       string // USPS code, e.g. "CA"
	Name       string // as published, e.g. "California"
	Region     string // Census region code, "1".."4" ("X" for Puerto Rico)
	Division   string // Census division code
	Population int64  // POPESTIMATE2024, July 1, 2024
	InThe51    bool   // one of the 50 states or DC; false for Puerto Rico
}

// CensusCountyRecord is a county's row of the Census population estimates as stored, its fields
// under their Go names as CensusStateRecord's.
type CensusCountyRecord struct {
	FIPS       string // five digits, state then county, e.g. "35013"
	StateFIPS  string
	StateCode  string // USPS code of the state
	StateName  string // STNAME as published
	Name       string // CTYNAME as published, e.g. "Doña Ana County"
	Population int64  // POPESTIMATE2024
}

// Search-key params of Census state and county documents.
const (
	KeyFIPS = "fips"
	KeyName = "name"
)
