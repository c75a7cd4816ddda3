package supply

import "providerdir/stored"

// Field is the contract's ProvenanceField: one value with where it came from, when that source
// was last reconciled, how sure the match is where that applies, and its caveat.
type Field struct {
	Value       any    `json:"value"`
	Source      string `json:"source"`
	SourceURL   string `json:"source_url,omitempty"`
	LastChecked string `json:"last_checked"`
	// ConfidenceScore is present for values read from a source record (see the methodology's
	// confidence_score rule); computed figures have none.
	ConfidenceScore *float64 `json:"confidence_score,omitempty"`
	AttributionText string   `json:"attribution_text,omitempty"`
	Limitations     string   `json:"limitations,omitempty"`
}

// origin is where a set of values came from: one source snapshot, or a computation over several.
type origin struct {
	source, url, checked, attribution string
	confidence                        *float64
}

// recordOrigin is a source snapshot whose values are read from its records, with the records'
// confidence.
func recordOrigin(p stored.Provenance) origin {
	c := p.Confidence
	return origin{source: p.Source, url: p.SourceURL, checked: p.LastChecked, confidence: &c,
		attribution: attribution(p)}
}

// attribution names a source snapshot the way a citation would.
func attribution(p stored.Provenance) string {
	s := p.Source
	if p.Snapshot != "" {
		s += ", snapshot " + p.Snapshot
	}
	if p.License == stored.LicensePublicDomainUSGov {
		s += " (U.S. Government work, public domain)"
	}
	return s + "."
}

func (o origin) field(v any, limitations string) Field {
	return Field{Value: v, Source: o.source, SourceURL: o.url, LastChecked: o.checked,
		ConfidenceScore: o.confidence, AttributionText: o.attribution, Limitations: limitations}
}

// latest is the later of two RFC 3339 UTC timestamps (as the store writes them, they compare as
// strings): a figure computed from two sources was last checked when the later one was.
func latest(a, b string) string {
	if a > b {
		return a
	}
	return b
}
