package conformance

import (
	"encoding/json"
	"testing"
)

// TestStringMatch: a string search's match must hold a value of the parameter that starts with
// the searched text, case and accents aside, as R4 defines string search.
func TestStringMatch(t *testing.T) {
	var prac, loc map[string]any
	if err := json.Unmarshal([]byte(`{"resourceType":"Practitioner","name":[{"text":"DR. JOSÉ A NÚÑEZ-SMITH M.D.","family":"NÚÑEZ-SMITH","given":["JOSÉ","A"],"prefix":["DR."],"suffix":["M.D."]}],
		"address":[{"line":["1 MAIN ST"],"city":"ST. LOUIS","state":"MO","postalCode":"63101","country":"US"}]}`), &prac); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"resourceType":"Location","name":"ACME CLINIC - 1 MAIN ST","address":{"city":"SPRINGFIELD","state":"IL"}}`), &loc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		r            map[string]any
		param, value string
		want         bool
	}{
		{prac, "name", "nunez", true},
		{prac, "name", "Jose", true},
		{prac, "name", "dr. j", true},
		{prac, "name", "m.d", true},
		{prac, "name", "smith", false}, // inside the family name
		{prac, "family", "núñez-s", true},
		{prac, "family", "jose", false},
		{prac, "given", "a", true},
		{prac, "address", "1 main", true},
		{prac, "address", "main", false},
		{prac, "address", "st. l", true},
		{prac, "address", "st louis", false}, // punctuation counts
		{prac, "address-city", "st. louis", true},
		{prac, "address-state", "mo", true},
		{loc, "name", "acme clinic - 1", true},
		{loc, "name", "clinic", false},
		{loc, "address-city", "spring", true},
	}
	for _, tt := range tests {
		parts := stringParts[tt.param](tt.r)
		got := false
		for _, p := range parts {
			got = got || startsFolded(p, tt.value)
		}
		if got != tt.want {
			t.Errorf("%s %s=%q: %v, want %v (values %q)", tt.r["resourceType"], tt.param, tt.value, got, tt.want, parts)
		}
	}
}
