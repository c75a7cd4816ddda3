package ident

import (
	"errors"
	"testing"
)

// checkErr fails unless err is nil or an *Error of the given kind carrying the input.
func checkErr(t *testing.T, err error, kind Kind, in string) {
	t.Helper()
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind != kind || e.Value != in || e.Reason == "" {
		t.Fatalf("bad error for %q: %#v", in, err)
	}
}

func FuzzValidateNPI(f *testing.F) {
	for _, s := range []string{"1234567893", "1234567890", "", "123456789x", "0000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateNPI(s)
		checkErr(t, err, KindNPI, s)
		if err != nil {
			return
		}
		d, derr := NPICheckDigit(s[:9])
		if derr != nil || d != s[9] {
			t.Fatalf("%q valid but NPICheckDigit gives %q, %v", s, d, derr)
		}
	})
}

func FuzzValidateCCN(f *testing.F) {
	for _, s := range []string{"010001", "21SA26", "01C0001001", "A01234", "05Q001", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateCCN(s)
		checkErr(t, err, KindCCN, s)
		if err == nil {
			if _, ok := CCNState(s[:2]); !ok || len(s) != 6 && len(s) != 10 {
				t.Fatalf("%q accepted", s)
			}
		}
	})
}

func FuzzValidateState(f *testing.F) {
	for _, s := range []string{"CA", "ca", "ZZ", "", "PR"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateState(s)
		checkErr(t, err, KindState, s)
		if _, ok := LookupState(s); ok != (err == nil) {
			t.Fatalf("ValidateState(%q) = %v but LookupState ok = %v", s, err, ok)
		}
	})
}

func FuzzValidateCountyFIPS(f *testing.F) {
	for _, s := range []string{"01001", "06000", "99999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateCountyFIPS(s)
		checkErr(t, err, KindCountyFIPS, s)
		if err == nil {
			if st, ok := StateByFIPS(s[:2]); !ok || st.FIPS != s[:2] {
				t.Fatalf("%q accepted with unknown state", s)
			}
		}
	})
}

func FuzzValidateTaxonomy(f *testing.F) {
	for _, s := range []string{"207RC0000X", "207RC0000x", "", "XXXXXXXXXX"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateTaxonomy(s)
		checkErr(t, err, KindTaxonomy, s)
		if err == nil && (len(s) != 10 || s[9] != 'X') {
			t.Fatalf("%q accepted", s)
		}
	})
}
