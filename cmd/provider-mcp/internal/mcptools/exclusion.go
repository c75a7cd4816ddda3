package mcptools

import (
	"encoding/json"

	"providerdir/resolverclient"
)

// Statuses of an exclusion check.
const (
	StatusExcluded    = "excluded"
	StatusNotExcluded = "not_excluded"
	// StatusUnknown: the resolver gave no exclusion fact (the list is not loaded), or one whose
	// value is not a boolean. It is never to be read as not excluded.
	StatusUnknown = "unknown"
)

// ExclusionCheck is the result of check_exclusion: the provider record with include=facts reduced
// to its exclusion fact.
type ExclusionCheck struct {
	NPI    string `json:"npi"`
	Status string `json:"status"`
	// Fact is the exclusion fact as the resolver gave it, with its provenance (the snapshot of
	// the list it was read from); null when the status is unknown for want of one.
	Fact *resolverclient.Fact `json:"fact"`
}

// exclusion reduces a record with its facts to the exclusion check: a missing fact is unknown,
// never false.
func exclusion(p *resolverclient.ProviderWithFacts) *ExclusionCheck {
	out := &ExclusionCheck{NPI: p.NPI, Status: StatusUnknown, Fact: p.Fact(resolverclient.FactExclusion)}
	if out.Fact == nil {
		return out
	}
	var listed bool
	if err := json.Unmarshal(out.Fact.Value, &listed); err != nil {
		return out
	}
	out.Status = StatusNotExcluded
	if listed {
		out.Status = StatusExcluded
	}
	return out
}
