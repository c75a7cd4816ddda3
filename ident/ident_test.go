package ident

import (
	"errors"
	"strings"
	"testing"
)

func reasonOf(t *testing.T, err error) Reason {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *ident.Error", err)
	}
	return e.Reason
}

func TestValidateNPI(t *testing.T) {
	tests := []struct {
		in   string
		want Reason
	}{
		{"1234567893", ""},
		{"1245319599", ""}, // published CMS example
		{"1234567890", ReasonCheckDigit},
		{"0000000000", ReasonCheckDigit},
		{"0000000006", ""},
		{"", ReasonEmpty},
		{"123456789", ReasonLength},
		{"12345678931", ReasonLength},
		{"12345678a3", ReasonNotDigits},
		{" 1234567893", ReasonSurroundSpaces},
		{"1234567893 ", ReasonSurroundSpaces},
		{"１２３４５６７８９３", ReasonLength}, // full-width digits are not ASCII digits
	}
	for _, tt := range tests {
		if got := reasonOf(t, ValidateNPI(tt.in)); got != tt.want {
			t.Errorf("ValidateNPI(%q) reason %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNPICheckDigit(t *testing.T) {
	tests := []struct {
		base string
		want byte
		err  Reason
	}{
		{"123456789", '3', ""},
		{"124531959", '9', ""},
		{"000000000", '6', ""},
		{"12345678", 0, ReasonLength},
		{"12345678x", 0, ReasonNotDigits},
		{"", 0, ReasonEmpty},
	}
	for _, tt := range tests {
		got, err := NPICheckDigit(tt.base)
		if r := reasonOf(t, err); r != tt.err || got != tt.want {
			t.Errorf("NPICheckDigit(%q) = %q, %q; want %q, %q", tt.base, got, r, tt.want, tt.err)
		}
	}
	// Every base completed with its check digit validates, and no other digit does.
	for _, base := range []string{"100000000", "199999999", "281234567", "987654321"} {
		d, _ := NPICheckDigit(base)
		for c := byte('0'); c <= '9'; c++ {
			err := ValidateNPI(base + string(c))
			if (c == d) != (err == nil) {
				t.Errorf("ValidateNPI(%s%c) = %v, check digit %c", base, c, err, d)
			}
		}
	}
}

func TestValidateCCN(t *testing.T) {
	tests := []struct {
		in   string
		want Reason
	}{
		{"010001", ""},     // Medicare short-term hospital, Alabama
		{"051300", ""},     // critical access hospital range
		{"21034E", ""},     // emergency hospital, non-federal
		{"12345F", ""},     // emergency hospital, federal
		{"05E123", ""},     // Medicaid-only nursing facility
		{"05G001", ""},     // ICF/IID
		{"05P001", ""},     // organ procurement organization
		{"21S101", ""},     // psychiatric unit
		{"21SA26", ""},     // psychiatric unit of a long-term care hospital
		{"52TA05", ""},     // rehabilitation unit
		{"A01234", ""},     // overflow state code A0 (California)
		{"E31234", ""},     // overflow state code E3 (Texas)
		{"01C0001001", ""}, // ambulatory surgical center supplier number
		{"05D0642610", ""}, // CLIA laboratory
		{"", ReasonEmpty},
		{"01000", ReasonLength},
		{"0100011", ReasonLength},
		{"010001 ", ReasonSurroundSpaces},
		{"98C001", ReasonUnknownState}, // 98 is not assigned
		{"F01234", ReasonUnknownState},
		{"05c0001001", ReasonLowercase},
		{"05s101", ReasonLowercase},
		{"05Q001", ReasonBadCharacter},
		{"05SI26", ReasonBadCharacter}, // I is not a parent type letter
		{"05SA2X", ReasonBadCharacter},
		{"0512E4", ReasonBadCharacter},
		{"05Q0001001", ReasonBadCharacter},
		{"05C000100A", ReasonBadCharacter},
	}
	for _, tt := range tests {
		if got := reasonOf(t, ValidateCCN(tt.in)); got != tt.want {
			t.Errorf("ValidateCCN(%q) reason %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCCNState(t *testing.T) {
	tests := []struct {
		code, want string
		ok         bool
	}{
		{"05", "CA", true}, {"B5", "CA", true}, {"09", "DC", true}, {"C0", "DC", true},
		{"40", "PR", true}, {"56", "CN", true}, {"99", "FC", true}, {"98", "", false}, {"", "", false},
	}
	for _, tt := range tests {
		got, ok := CCNState(tt.code)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CCNState(%q) = %q, %v; want %q, %v", tt.code, got, ok, tt.want, tt.ok)
		}
	}
	if n := len(CCNStateCodes()); n != 138 {
		t.Errorf("CCNStateCodes has %d codes, want 138", n)
	}
	m := CCNStateCodes()
	m["05"] = "XX"
	if s, _ := CCNState("05"); s != "CA" {
		t.Error("CCNStateCodes returned the package's own map")
	}
}

func TestValidateState(t *testing.T) {
	tests := []struct {
		in   string
		want Reason
	}{
		{"CA", ""}, {"DC", ""}, {"PR", ""}, {"GU", ""}, {"AE", ""}, {"PW", ""},
		{"", ReasonEmpty}, {"C", ReasonLength}, {"CAL", ReasonLength}, {"ca", ReasonLowercase},
		{"Ca", ReasonLowercase}, {"ZZ", ReasonUnknownState}, {"CN", ReasonUnknownState}, {" CA", ReasonSurroundSpaces},
	}
	for _, tt := range tests {
		if got := reasonOf(t, ValidateState(tt.in)); got != tt.want {
			t.Errorf("ValidateState(%q) reason %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStates(t *testing.T) {
	the51 := The51()
	if len(the51) != 51 {
		t.Fatalf("The51 has %d entries", len(the51))
	}
	states, territories := 0, 0
	for _, s := range States() {
		if s.InThe51() {
			states++
		} else if !s.Territory() {
			t.Errorf("%s neither in the 51 nor flagged territory", s.Code)
		} else {
			territories++
		}
		got, ok := LookupState(s.Code)
		if !ok || got != s {
			t.Errorf("LookupState(%s) = %+v, %v", s.Code, got, ok)
		}
		if s.FIPS != "" {
			if got, ok := StateByFIPS(s.FIPS); !ok || got != s {
				t.Errorf("StateByFIPS(%s) = %+v, %v", s.FIPS, got, ok)
			}
		}
		if s.Category.String() == "unknown" {
			t.Errorf("%s has no category", s.Code)
		}
	}
	if states != 51 || territories == 0 {
		t.Errorf("%d in the 51, %d outside", states, territories)
	}
	if pr, _ := LookupState("PR"); pr.InThe51() || pr.Category != CategoryTerritory {
		t.Errorf("Puerto Rico is %v", pr.Category)
	}
	if dc, _ := LookupState("DC"); !dc.InThe51() || dc.Category != CategoryDistrict {
		t.Errorf("DC is %v", dc.Category)
	}
	if _, ok := StateByFIPS("03"); ok {
		t.Error("FIPS 03 is not assigned")
	}
}

func TestValidateCountyFIPS(t *testing.T) {
	tests := []struct {
		in   string
		want Reason
	}{
		{"01001", ""}, {"09110", ""}, {"02063", ""}, {"72001", ""}, {"11001", ""},
		{"", ReasonEmpty}, {"1001", ReasonLength}, {"010011", ReasonLength}, {"0100A", ReasonNotDigits},
		{"03001", ReasonUnknownState}, {"99001", ReasonUnknownState}, {"06000", ReasonStatewideFIPS},
		{"06001 ", ReasonSurroundSpaces},
	}
	for _, tt := range tests {
		if got := reasonOf(t, ValidateCountyFIPS(tt.in)); got != tt.want {
			t.Errorf("ValidateCountyFIPS(%q) reason %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValidateTaxonomy(t *testing.T) {
	tests := []struct {
		in   string
		want Reason
	}{
		{"207RC0000X", ""}, {"193200000X", ""}, {"261QM0801X", ""}, {"1223G0001X", ""}, {"101Y00000X", ""},
		{"", ReasonEmpty}, {"207RC0000", ReasonLength}, {"207RC0000XX", ReasonLength},
		{"207RC00000", ReasonNoSuffixX}, {"207RC0000x", ReasonLowercase}, {"207rc0000X", ReasonLowercase},
		{"2A7RC0000X", ReasonBadCharacter}, {"207RC-000X", ReasonBadCharacter}, {"207RC0000X ", ReasonSurroundSpaces},
	}
	for _, tt := range tests {
		if got := reasonOf(t, ValidateTaxonomy(tt.in)); got != tt.want {
			t.Errorf("ValidateTaxonomy(%q) reason %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	err := ValidateNPI("1234567890")
	want := `invalid NPI "1234567890": bad check digit`
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	long := ValidateNPI(strings.Repeat("9", 100)).Error()
	if len(long) > 100 {
		t.Errorf("long value not truncated: %q", long)
	}
}

func TestValidatorsDoNotAllocate(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		_ = ValidateNPI("1234567893")
		_ = ValidateCCN("010001")
		_ = ValidateState("CA")
		_ = ValidateCountyFIPS("01001")
		_ = ValidateTaxonomy("207RC0000X")
	})
	if n != 0 {
		t.Errorf("valid values allocate %.1f times", n)
	}
}
