package fhirmap

import "testing"

// The Plan-Net codes of a taxonomy: the role code of the longest listed prefix, the
// organization type of its grouping, and the place type where the grouping names one.
func TestTaxonomyCodes(t *testing.T) {
	tests := []struct {
		taxonomy, role, orgType, place string
	}{
		{"207R00000X", "ph", "prvgrp", ""},
		{"363LF0000X", "crnp", "prvgrp", ""},
		{"363A00000X", "pa", "prvgrp", ""},
		{"364S00000X", "apn", "prvgrp", ""},
		{"156FX1800X", "op", "prvgrp", ""},
		{"156FC0800X", "te", "prvgrp", ""},
		{"2255A2300X", "at", "prvgrp", ""},
		{"225100000X", "pt", "prvgrp", ""},
		{"103TC0700X", "py", "prvgrp", ""},
		{"106S00000X", "bh", "prvgrp", ""},
		{"282N00000X", "", "fac", "HOSP"},
		{"314000000X", "", "fac", "SNF"},
		{"261QP2300X", "", "fac", "OF"},
		{"333600000X", "", "prvgrp", "PHARM"},
		{"193200000X", "", "prvgrp", ""},
		{"343900000X", "", "atyprv", ""},
		{"", "", "prvgrp", ""},
	}
	for _, tt := range tests {
		role, ok := providerRole(tt.taxonomy)
		if ok != (tt.role != "") || role.Code != tt.role || ok && role.System != SystemProviderRole {
			t.Errorf("providerRole(%q) = %+v %v, want %q", tt.taxonomy, role, ok, tt.role)
		}
		if got := orgTypeOfTaxonomy(tt.taxonomy); got != tt.orgType || orgTypes[got] == "" {
			t.Errorf("orgTypeOfTaxonomy(%q) = %q, want %q", tt.taxonomy, got, tt.orgType)
		}
		if place, ok := taxonomyLocationType(tt.taxonomy); place.code != tt.place || ok != (tt.place != "") {
			t.Errorf("taxonomyLocationType(%q) = %q, want %q", tt.taxonomy, place.code, tt.place)
		}
	}
}
