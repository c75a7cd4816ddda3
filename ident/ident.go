// Package ident holds the one validator per identifier kind that the project accepts from
// outside: NPI, CCN, state and territory codes, county FIPS codes and NUCC taxonomy codes.
//
// The same functions check values read from federal files (package source and its readers) and
// values arriving at the HTTP edge, so a value the readers accept is exactly a value a client may
// ask for. Validators are pure, allocation-free on success, and need no files: the small code
// tables they depend on are compiled in, and the tests of the reference loaders check those
// tables against the published reference files.
//
// Failures are data, not prose: every validator returns an *Error carrying the identifier kind,
// the rejected value and a Reason drawn from a fixed set, so callers can count rejections by
// reason and render their own messages.
package ident

import "fmt"

// Kind names an identifier kind.
type Kind string

// The identifier kinds validated by this package.
const (
	KindNPI        Kind = "NPI"
	KindCCN        Kind = "CCN"
	KindState      Kind = "state code"
	KindCountyFIPS Kind = "county FIPS code"
	KindTaxonomy   Kind = "taxonomy code"
)

// Reason says why a value was rejected. Reasons are a small fixed set, so they can key counters.
type Reason string

// The reasons a validator can give.
const (
	ReasonEmpty          Reason = "empty"
	ReasonLength         Reason = "wrong length"
	ReasonNotDigits      Reason = "not all digits"
	ReasonCheckDigit     Reason = "bad check digit"
	ReasonUnknownState   Reason = "unknown state code"
	ReasonBadCharacter   Reason = "character not allowed at its position"
	ReasonNoSuffixX      Reason = "does not end in X"
	ReasonStatewideFIPS  Reason = "county part 000 names a whole state"
	ReasonUnknownCode    Reason = "unknown code"
	ReasonLowercase      Reason = "lowercase letters"
	ReasonSurroundSpaces Reason = "surrounding spaces"
)

// Error reports a rejected identifier.
type Error struct {
	Kind   Kind
	Value  string
	Reason Reason
}

func (e *Error) Error() string {
	v := e.Value
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	return fmt.Sprintf("invalid %s %q: %s", e.Kind, v, e.Reason)
}

func fail(k Kind, v string, r Reason) error { return &Error{Kind: k, Value: v, Reason: r} }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// spaced reports whether s starts or ends with a space or tab; validators take values already
// trimmed, and say so rather than failing on a confusing later check.
func spaced(s string) bool {
	return s != "" && (s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t')
}
