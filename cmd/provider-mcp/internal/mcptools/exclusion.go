package mcptools

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

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
	// Fact is the exclusion fact as the resolver sent it, with its provenance (the snapshot of
	// the list it was read from); null when the status is unknown for want of one.
	Fact json.RawMessage `json:"fact"`
}

// exclusion reduces a provider record with its facts, as the resolver sent it, to the exclusion
// check: a missing fact, or a value that is not a boolean, is unknown, never false.
func exclusion(record json.RawMessage) (json.RawMessage, error) {
	var rec struct {
		NPI   string            `json:"npi"`
		Facts []json.RawMessage `json:"facts"`
	}
	if err := json.Unmarshal(record, &rec); err != nil {
		return nil, err
	}
	out := ExclusionCheck{NPI: rec.NPI, Status: StatusUnknown}
	for _, raw := range rec.Facts {
		var f struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(raw, &f) != nil || f.Type != resolverclient.FactExclusion {
			continue
		}
		out.Fact = raw
		switch string(f.Value) {
		case "true":
			out.Status = StatusExcluded
		case "false":
			out.Status = StatusNotExcluded
		}
		break
	}
	return json.Marshal(out)
}

// exclusionSchema is the output schema of check_exclusion: its fact a resolver fact or null.
func exclusionSchema() *jsonschema.Schema {
	s := withEnum(schemaFor[ExclusionCheck](), "status", StatusExcluded, StatusNotExcluded, StatusUnknown)
	fact := schemaFor[resolverclient.Fact]()
	fact.Types, fact.Type = []string{"null", fact.Type}, ""
	s.Properties["fact"] = fact
	return s
}
