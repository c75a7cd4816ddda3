package ident

// StateCategory says what kind of jurisdiction a two-letter code names. The service counts "the
// 51" (50 states and the District of Columbia) separately from territories, freely associated
// states and military postal codes, all of which still appear in provider addresses.
type StateCategory uint8

// State categories.
const (
	CategoryState StateCategory = iota + 1
	CategoryDistrict
	CategoryTerritory
	CategoryFreelyAssociated
	CategoryMilitary
)

func (c StateCategory) String() string {
	switch c {
	case CategoryState:
		return "state"
	case CategoryDistrict:
		return "district"
	case CategoryTerritory:
		return "territory"
	case CategoryFreelyAssociated:
		return "freely associated state"
	case CategoryMilitary:
		return "military postal code"
	}
	return "unknown"
}

// State is a USPS two-letter code with its name and, where the Census Bureau assigns one, its
// two-digit FIPS code.
type State struct {
	Code     string // USPS code, e.g. "CA"
	Name     string // e.g. "California"
	FIPS     string // e.g. "06"; empty for military postal codes
	Category StateCategory
}

// InThe51 reports whether s is one of the 50 states or the District of Columbia.
func (s State) InThe51() bool { return s.Category == CategoryState || s.Category == CategoryDistrict }

// Territory reports whether s is outside the 51 (territory, freely associated state, military).
func (s State) Territory() bool { return !s.InThe51() }

// states is ordered by FIPS code, then the military codes; the order is part of the API of
// States and The51.
var states = [...]State{
	{"AL", "Alabama", "01", CategoryState},
	{"AK", "Alaska", "02", CategoryState},
	{"AZ", "Arizona", "04", CategoryState},
	{"AR", "Arkansas", "05", CategoryState},
	{"CA", "California", "06", CategoryState},
	{"CO", "Colorado", "08", CategoryState},
	{"CT", "Connecticut", "09", CategoryState},
	{"DE", "Delaware", "10", CategoryState},
	{"DC", "District of Columbia", "11", CategoryDistrict},
	{"FL", "Florida", "12", CategoryState},
	{"GA", "Georgia", "13", CategoryState},
	{"HI", "Hawaii", "15", CategoryState},
	{"ID", "Idaho", "16", CategoryState},
	{"IL", "Illinois", "17", CategoryState},
	{"IN", "Indiana", "18", CategoryState},
	{"IA", "Iowa", "19", CategoryState},
	{"KS", "Kansas", "20", CategoryState},
	{"KY", "Kentucky", "21", CategoryState},
	{"LA", "Louisiana", "22", CategoryState},
	{"ME", "Maine", "23", CategoryState},
	{"MD", "Maryland", "24", CategoryState},
	{"MA", "Massachusetts", "25", CategoryState},
	{"MI", "Michigan", "26", CategoryState},
	{"MN", "Minnesota", "27", CategoryState},
	{"MS", "Mississippi", "28", CategoryState},
	{"MO", "Missouri", "29", CategoryState},
	{"MT", "Montana", "30", CategoryState},
	{"NE", "Nebraska", "31", CategoryState},
	{"NV", "Nevada", "32", CategoryState},
	{"NH", "New Hampshire", "33", CategoryState},
	{"NJ", "New Jersey", "34", CategoryState},
	{"NM", "New Mexico", "35", CategoryState},
	{"NY", "New York", "36", CategoryState},
	{"NC", "North Carolina", "37", CategoryState},
	{"ND", "North Dakota", "38", CategoryState},
	{"OH", "Ohio", "39", CategoryState},
	{"OK", "Oklahoma", "40", CategoryState},
	{"OR", "Oregon", "41", CategoryState},
	{"PA", "Pennsylvania", "42", CategoryState},
	{"RI", "Rhode Island", "44", CategoryState},
	{"SC", "South Carolina", "45", CategoryState},
	{"SD", "South Dakota", "46", CategoryState},
	{"TN", "Tennessee", "47", CategoryState},
	{"TX", "Texas", "48", CategoryState},
	{"UT", "Utah", "49", CategoryState},
	{"VT", "Vermont", "50", CategoryState},
	{"VA", "Virginia", "51", CategoryState},
	{"WA", "Washington", "53", CategoryState},
	{"WV", "West Virginia", "54", CategoryState},
	{"WI", "Wisconsin", "55", CategoryState},
	{"WY", "Wyoming", "56", CategoryState},
	{"AS", "American Samoa", "60", CategoryTerritory},
	{"FM", "Federated States of Micronesia", "64", CategoryFreelyAssociated},
	{"GU", "Guam", "66", CategoryTerritory},
	{"MH", "Marshall Islands", "68", CategoryFreelyAssociated},
	{"MP", "Northern Mariana Islands", "69", CategoryTerritory},
	{"PW", "Palau", "70", CategoryFreelyAssociated},
	{"PR", "Puerto Rico", "72", CategoryTerritory},
	{"UM", "U.S. Minor Outlying Islands", "74", CategoryTerritory},
	{"VI", "U.S. Virgin Islands", "78", CategoryTerritory},
	{"AA", "Armed Forces Americas", "", CategoryMilitary},
	{"AE", "Armed Forces Europe, Middle East, Africa and Canada", "", CategoryMilitary},
	{"AP", "Armed Forces Pacific", "", CategoryMilitary},
}

var (
	stateByCode = make(map[string]int, len(states))
	stateByFIPS = make(map[string]int, len(states))
)

func init() {
	for i, s := range states {
		stateByCode[s.Code] = i
		if s.FIPS != "" {
			stateByFIPS[s.FIPS] = i
		}
	}
}

// ValidateState checks a two-letter USPS state, district, territory or military code. Codes are
// uppercase as published; "ca" is rejected with ReasonLowercase so callers can decide to fold.
func ValidateState(code string) error {
	switch {
	case code == "":
		return fail(KindState, code, ReasonEmpty)
	case spaced(code):
		return fail(KindState, code, ReasonSurroundSpaces)
	case len(code) != 2:
		return fail(KindState, code, ReasonLength)
	}
	if _, ok := stateByCode[code]; ok {
		return nil
	}
	if c0, c1 := code[0], code[1]; c0 >= 'a' && c0 <= 'z' || c1 >= 'a' && c1 <= 'z' {
		return fail(KindState, code, ReasonLowercase)
	}
	return fail(KindState, code, ReasonUnknownState)
}

// LookupState returns the state with the given USPS code.
func LookupState(code string) (State, bool) {
	i, ok := stateByCode[code]
	if !ok {
		return State{}, false
	}
	return states[i], true
}

// StateByFIPS returns the state with the given two-digit FIPS code.
func StateByFIPS(fips string) (State, bool) {
	i, ok := stateByFIPS[fips]
	if !ok {
		return State{}, false
	}
	return states[i], true
}

// States returns every known code, the 51 first in FIPS order, then territories and freely
// associated states in FIPS order, then military codes. The slice is the caller's.
func States() []State {
	out := make([]State, len(states))
	copy(out, states[:])
	return out
}

// The51 returns the 50 states and the District of Columbia in FIPS order.
func The51() []State {
	out := make([]State, 0, 51)
	for _, s := range states {
		if s.InThe51() {
			out = append(out, s)
		}
	}
	return out
}

// ValidateCountyFIPS checks a five-digit county FIPS code: two digits of a state or territory
// FIPS code followed by a three-digit county code other than 000 (which names the state itself).
// Only the shape and state part are checked; county lists change (Connecticut's planning regions
// replaced its counties in 2022), so membership belongs to the census reference data.
func ValidateCountyFIPS(s string) error {
	switch {
	case s == "":
		return fail(KindCountyFIPS, s, ReasonEmpty)
	case spaced(s):
		return fail(KindCountyFIPS, s, ReasonSurroundSpaces)
	case len(s) != 5:
		return fail(KindCountyFIPS, s, ReasonLength)
	case !allDigits(s):
		return fail(KindCountyFIPS, s, ReasonNotDigits)
	}
	if _, ok := stateByFIPS[s[:2]]; !ok {
		return fail(KindCountyFIPS, s, ReasonUnknownState)
	}
	if s[2:] == "000" {
		return fail(KindCountyFIPS, s, ReasonStatewideFIPS)
	}
	return nil
}
