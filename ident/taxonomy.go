package ident

// ValidateTaxonomy checks the shape of a NUCC Health Care Provider Taxonomy code: ten characters,
// three digits, six digits or uppercase letters, and a final "X" (e.g. "207RC0000X"). Whether the
// code exists in the current code set is a question for the NUCC reference data, since codes are
// added and retired twice a year while old NPPES records keep the retired ones.
func ValidateTaxonomy(s string) error {
	switch {
	case s == "":
		return fail(KindTaxonomy, s, ReasonEmpty)
	case spaced(s):
		return fail(KindTaxonomy, s, ReasonSurroundSpaces)
	case len(s) != 10:
		return fail(KindTaxonomy, s, ReasonLength)
	case s[9] != 'X':
		if s[9] == 'x' {
			return fail(KindTaxonomy, s, ReasonLowercase)
		}
		return fail(KindTaxonomy, s, ReasonNoSuffixX)
	}
	for i := 0; i < 9; i++ {
		c := s[i]
		if isDigit(c) || i >= 3 && isUpper(c) {
			continue
		}
		if c >= 'a' && c <= 'z' {
			return fail(KindTaxonomy, s, ReasonLowercase)
		}
		return fail(KindTaxonomy, s, ReasonBadCharacter)
	}
	return nil
}
