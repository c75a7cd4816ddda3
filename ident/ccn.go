package ident

import "strings"

// CCN forms, after the CMS State Operations Manual (Pub. 100-07) section 2779: the first two
// characters are a state code from the CCN state table (SSA-style, not FIPS, with overflow codes
// for states that ran out of numbers); what follows depends on the kind of provider.
//
//	SS9999      Medicare provider: four digits whose range gives the provider type
//	SS999E      emergency hospital, non-federal (F: federal)
//	SSA999      Medicaid-only facility; third position A,B,E,F,G,H,J,K or L
//	SSP999      organ procurement organization
//	SSU?99      IPPS-excluded unit or swing-bed approval; third position M,R,S,T,U,W,Y or Z,
//	            fourth a digit or the parent hospital's type letter A-H,J,K
//	SSC9999999  ten characters: supplier (C ambulatory surgical center, D CLIA lab, X portable x-ray)
//
// Care Compare publishes ambulatory surgical centers under their ten-character supplier numbers,
// so the ten-character form is accepted as a CCN too.

// ValidateCCN checks a CMS Certification Number in one of the forms above. Letters must be
// uppercase, as CMS publishes them.
func ValidateCCN(s string) error {
	switch {
	case s == "":
		return fail(KindCCN, s, ReasonEmpty)
	case spaced(s):
		return fail(KindCCN, s, ReasonSurroundSpaces)
	case len(s) != 6 && len(s) != 10:
		return fail(KindCCN, s, ReasonLength)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' {
			return fail(KindCCN, s, ReasonLowercase)
		}
	}
	if _, ok := ccnStates[s[:2]]; !ok {
		return fail(KindCCN, s, ReasonUnknownState)
	}
	if !ccnTailOK(s[2:]) {
		return fail(KindCCN, s, ReasonBadCharacter)
	}
	return nil
}

// Letters that may stand in the third character of a CCN (the first after the state code).
const (
	ccnSupplierLetters = "CDX"        // an eight-character tail: a supplier
	ccnUnitLetters     = "ABEFGHJKLP" // a letter and three digits
	ccnSubunitLetters  = "MRSTUWYZ"   // a letter, the parent's type, two digits
	ccnParentTypes     = "0123456789ABCDEFGHJK"
)

func ccnTailOK(t string) bool {
	if len(t) == 8 { // supplier
		return oneOf(ccnSupplierLetters, t[0]) && allDigits(t[1:])
	}
	switch c := t[0]; {
	case isDigit(c):
		// Medicare provider (four digits) or emergency hospital (three digits and E or F).
		return allDigits(t[1:3]) && (isDigit(t[3]) || t[3] == 'E' || t[3] == 'F')
	case oneOf(ccnUnitLetters, c):
		return allDigits(t[1:])
	case oneOf(ccnSubunitLetters, c):
		return oneOf(ccnParentTypes, t[1]) && allDigits(t[2:])
	}
	return false
}

// oneOf reports whether c is one of the bytes of set.
func oneOf(set string, c byte) bool { return strings.IndexByte(set, c) >= 0 }

// CCNState returns the USPS code (or "CN", "MX", "FC" for Canada, Mexico and other foreign
// countries) that a CCN state code stands for. Several codes can map to one state: 05, 55, 75,
// 92, A0-A1 and B2-B5, D6-D8 are all California.
func CCNState(code string) (string, bool) {
	s, ok := ccnStates[code]
	return s, ok
}

// CCNStateCodes returns the CCN state table as code -> USPS code; the map is the caller's.
func CCNStateCodes() map[string]string {
	out := make(map[string]string, len(ccnStates))
	for k, v := range ccnStates {
		out[k] = v
	}
	return out
}

// ccnStates is the state table of SOM 2779A1 (138 codes); the source/ccn tests check it against
// the published reference file.
var ccnStates = func() map[string]string {
	m := make(map[string]string, len(ccnStateTable))
	for _, e := range ccnStateTable {
		m[e[0]] = e[1]
	}
	return m
}()

var ccnStateTable = [...][2]string{
	{"00", "AZ"}, {"01", "AL"}, {"02", "AK"}, {"03", "AZ"}, {"04", "AR"}, {"05", "CA"}, {"06", "CO"}, {"07", "CT"},
	{"08", "DE"}, {"09", "DC"}, {"10", "FL"}, {"11", "GA"}, {"12", "HI"}, {"13", "ID"}, {"14", "IL"}, {"15", "IN"},
	{"16", "IA"}, {"17", "KS"}, {"18", "KY"}, {"19", "LA"}, {"20", "ME"}, {"21", "MD"}, {"22", "MA"}, {"23", "MI"},
	{"24", "MN"}, {"25", "MS"}, {"26", "MO"}, {"27", "MT"}, {"28", "NE"}, {"29", "NV"}, {"30", "NH"}, {"31", "NJ"},
	{"32", "NM"}, {"33", "NY"}, {"34", "NC"}, {"35", "ND"}, {"36", "OH"}, {"37", "OK"}, {"38", "OR"}, {"39", "PA"},
	{"40", "PR"}, {"41", "RI"}, {"42", "SC"}, {"43", "SD"}, {"44", "TN"}, {"45", "TX"}, {"46", "UT"}, {"47", "VT"},
	{"48", "VI"}, {"49", "VA"}, {"50", "WA"}, {"51", "WV"}, {"52", "WI"}, {"53", "WY"}, {"54", "ID"}, {"55", "CA"},
	{"56", "CN"}, {"57", "NY"}, {"58", "WV"}, {"59", "MX"}, {"64", "AS"}, {"65", "GU"}, {"66", "MP"}, {"67", "TX"},
	{"68", "FL"}, {"69", "FL"}, {"70", "KS"}, {"71", "LA"}, {"72", "OH"}, {"73", "PA"}, {"74", "TX"}, {"75", "CA"},
	{"76", "IA"}, {"77", "MN"}, {"78", "IL"}, {"79", "MO"}, {"80", "MD"}, {"81", "CT"}, {"82", "MA"}, {"83", "NJ"},
	{"84", "PR"}, {"85", "GA"}, {"86", "NC"}, {"87", "SC"}, {"88", "TN"}, {"89", "AR"}, {"90", "OK"}, {"91", "CO"},
	{"92", "CA"}, {"93", "OR"}, {"94", "WA"}, {"95", "LA"}, {"96", "NM"}, {"97", "TX"}, {"99", "FC"}, {"A0", "CA"},
	{"A1", "CA"}, {"A2", "FL"}, {"A3", "LA"}, {"A4", "MI"}, {"A5", "MS"}, {"A6", "OH"}, {"A7", "PA"}, {"A8", "TN"},
	{"A9", "TX"}, {"B0", "KY"}, {"B1", "WV"}, {"B2", "CA"}, {"B3", "CA"}, {"B4", "CA"}, {"B5", "CA"}, {"B6", "NC"},
	{"B7", "AL"}, {"B8", "MP"}, {"B9", "DE"}, {"C0", "DC"}, {"C1", "FL"}, {"C2", "GA"}, {"C3", "GU"}, {"C4", "IL"},
	{"C5", "IN"}, {"C6", "ME"}, {"C7", "MI"}, {"C8", "MS"}, {"C9", "MO"}, {"D0", "NE"}, {"D1", "NY"}, {"D2", "OH"},
	{"D3", "PA"}, {"D4", "SC"}, {"D5", "VA"}, {"D6", "CA"}, {"D7", "CA"}, {"D8", "CA"}, {"D9", "AZ"}, {"E1", "NV"},
	{"E2", "TX"}, {"E3", "TX"},
}
