package mcptools

import (
	"encoding/json"
	"testing"

	"providerdir/resolverclient"
)

// The exclusion check reads only a boolean exclusion fact: no fact, or a value that is not a
// boolean, is unknown, never not excluded.
func TestExclusion(t *testing.T) {
	fact := func(typ, value string) resolverclient.Fact {
		return resolverclient.Fact{Type: typ, Value: json.RawMessage(value)}
	}
	tests := []struct {
		name   string
		facts  []resolverclient.Fact
		status string
		fact   bool // the result carries the exclusion fact
	}{
		{"listed", []resolverclient.Fact{fact("pecos_enrolled", "true"), fact("exclusion", "true")}, StatusExcluded, true},
		{"not listed", []resolverclient.Fact{fact("exclusion", "false")}, StatusNotExcluded, true},
		{"no exclusion fact", []resolverclient.Fact{fact("pecos_enrolled", "false")}, StatusUnknown, false},
		{"no facts", nil, StatusUnknown, false},
		{"not a boolean", []resolverclient.Fact{fact("exclusion", `"pending"`)}, StatusUnknown, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &resolverclient.ProviderWithFacts{Provider: resolverclient.Provider{NPI: "1234567893"}, Facts: tt.facts}
			got := exclusion(p)
			if got.NPI != "1234567893" || got.Status != tt.status || (got.Fact != nil) != tt.fact {
				t.Errorf("%+v, want status %s with fact %v", got, tt.status, tt.fact)
			}
			if got.Fact != nil && got.Fact.Type != resolverclient.FactExclusion {
				t.Errorf("carries a %s fact", got.Fact.Type)
			}
		})
	}
}
