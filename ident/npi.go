package ident

// ValidateNPI checks a National Provider Identifier: exactly 10 ASCII digits whose last digit is
// the Luhn check digit computed over the card-issuer prefix "80840" followed by the first nine
// digits (45 CFR 162.406; the CMS "NPI check digit" note). 1234567893 is valid, 1234567890 is not.
func ValidateNPI(s string) error {
	switch {
	case s == "":
		return fail(KindNPI, s, ReasonEmpty)
	case spaced(s):
		return fail(KindNPI, s, ReasonSurroundSpaces)
	case len(s) != 10:
		return fail(KindNPI, s, ReasonLength)
	case !allDigits(s):
		return fail(KindNPI, s, ReasonNotDigits)
	}
	if luhnNPI(s[:9]) != s[9] {
		return fail(KindNPI, s, ReasonCheckDigit)
	}
	return nil
}

// NPICheckDigit returns the check digit (as an ASCII digit) that completes the nine digits of
// base into a valid NPI. Generators of synthetic NPIs need it; base must be nine ASCII digits.
func NPICheckDigit(base string) (byte, error) {
	switch {
	case base == "":
		return 0, fail(KindNPI, base, ReasonEmpty)
	case len(base) != 9:
		return 0, fail(KindNPI, base, ReasonLength)
	case !allDigits(base):
		return 0, fail(KindNPI, base, ReasonNotDigits)
	}
	return luhnNPI(base), nil
}

// luhnNPI computes the check digit over "80840" + nine digits. In that 15-digit number the
// prefix sits where its 0 and 4 are doubled, so it always adds 8+0+8+8+0 = 24 to the Luhn sum;
// the sum starts there and only the nine digits are walked, doubling from the rightmost.
func luhnNPI(base string) byte {
	sum := 24
	for i := 8; i >= 0; i-- {
		d := int(base[i] - '0')
		if (8-i)%2 == 0 { // rightmost payload digit and every second one leftwards are doubled
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10)
}
