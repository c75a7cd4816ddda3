package study

import (
	"slices"
	"strings"
	"testing"

	"providerdir/ident"
)

// The registry is docs/contracts/supply-api.md §2 to the letter: twelve slugs, their code counts,
// and every code a well-formed NUCC code.
func TestRegistryMatchesTheContract(t *testing.T) {
	want := map[string]int{
		"cardiology": 1, "dermatology": 5, "gastroenterology": 1, "neurology": 1, "obgyn": 3,
		"oncology": 1, "ophthalmology": 1, "orthopedic": 1, "otolaryngology": 1, "pediatrics": 20,
		"psychiatry": 1, "urology": 1,
	}
	got := Specialties()
	if len(got) != len(want) {
		t.Fatalf("%d specialties", len(got))
	}
	if !slices.IsSortedFunc(got, func(a, b Specialty) int { return strings.Compare(a.Slug, b.Slug) }) {
		t.Error("specialties are not in slug order")
	}
	for _, s := range got {
		if len(s.Codes) != want[s.Slug] {
			t.Errorf("%s: %d codes, want %d", s.Slug, len(s.Codes), want[s.Slug])
		}
		for _, c := range s.Codes {
			if err := ident.ValidateTaxonomy(c); err != nil {
				t.Errorf("%s: %v", s.Slug, err)
			}
		}
	}
	if n := len(AllCodes()); n != 37 {
		t.Errorf("%d distinct codes, want 37", n)
	}
}

func TestLookupAndSupports(t *testing.T) {
	tests := []struct {
		slug, code string
		found, ok  bool
	}{
		{"cardiology", "207RC0000X", true, true},
		{"cardiology", "207ND0900X", true, false}, // registered, but for dermatology
		{"dermatology", "207NS0135X", true, true},
		{"pediatrics", "2080H0002X", true, true},
		{"pediatrics", "2080h0002x", true, false}, // codes compare exactly
		{"oncology", "207RX0202X", true, true},
		{"chiropractor", "111N00000X", false, false}, // an export dataset, not a specialty
		{"Cardiology", "207RC0000X", false, false},
	}
	for _, tt := range tests {
		s, found := Lookup(tt.slug)
		if found != tt.found || found && s.Supports(tt.code) != tt.ok {
			t.Errorf("%s %s: found %v supports %v", tt.slug, tt.code, found, found && s.Supports(tt.code))
		}
	}
	if s, ok := LookupStudy("obgyn-supply"); !ok || s.Slug != "obgyn" || s.Parent() != "207V00000X" {
		t.Errorf("LookupStudy(obgyn-supply) = %v %v", s, ok)
	}
	if _, ok := LookupStudy("obgyn"); ok {
		t.Error("LookupStudy accepted a specialty slug")
	}
}

func TestPrimarySpecialty(t *testing.T) {
	tests := []struct {
		primary string
		codes   []string
		want    string
	}{
		{"2084P0800X", []string{"2084N0400X", "2084P0800X"}, "psychiatry"},
		{"2084N0400X", []string{"2084N0400X", "2084P0800X"}, "neurology"},
		{"363L00000X", []string{"363L00000X", "2084P0800X", "207RC0000X"}, "cardiology"},
		{"363L00000X", []string{"363L00000X"}, ""},
	}
	for _, tt := range tests {
		s, ok := Primary(tt.primary, tt.codes)
		if ok != (tt.want != "") || s.Slug != tt.want {
			t.Errorf("Primary(%s, %v) = %q %v, want %q", tt.primary, tt.codes, s.Slug, ok, tt.want)
		}
	}
}
