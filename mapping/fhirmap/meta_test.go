package fhirmap

import (
	"bytes"
	"encoding/json"
	"testing"

	"providerdir/mapping"
)

// A meta written with cached tags is byte for byte the Meta encoding/json writes, for each
// provenance, whether its tags are marshaled or come from the cache.
func TestMetaMarshal(t *testing.T) {
	doi := "10.1234/x"
	provs := []mapping.Provenance{
		{Source: "NPPES", SourceURL: "https://download.cms.gov/nppes/NPI_Files.html", DatasetID: "nppes", Snapshot: "2025-06-08",
			Methodology: "nppes-registry/1.0.0", LastChecked: "2026-11-22T15:39:41Z", Confidence: 1, DataAvailability: []string{"present"},
			PipelineVersion: "abc", License: "LicenseRef-US-Government-Public-Domain", CoverageStart: "2005-05-23", CoverageEnd: "2025-06-08"},
		{Source: "Open Payments <&>", DatasetID: "openpayments", Confidence: 0.8, DataAvailability: []string{"present", "suppressed"}, DOI: &doi},
		{Source: "  padded  code ", Confidence: 0.85},
	}
	// Variants of the first provenance that differ in one thing each, which a cache keyed on
	// less would answer with the first one's tags.
	for _, change := range []func(p *mapping.Provenance){
		func(p *mapping.Provenance) { p.Confidence = 0.5 },
		func(p *mapping.Provenance) { p.DOI = &doi },
		func(p *mapping.Provenance) { p.DataAvailability = []string{"absent"} },
		func(p *mapping.Provenance) { p.LastChecked = "2026-11-23T00:00:00Z" },
		func(p *mapping.Provenance) { p.CoverageEnd = "ongoing" },
	} {
		v := provs[0]
		change(&v)
		provs = append(provs, v)
	}
	for i, p := range provs {
		for _, updated := range []string{"2024-06-04", ""} {
			m := newMeta(TypePractitioner, updated, p)
			want := m.Meta
			want.Tag = provenanceTags(p)
			wantJSON, err := json.Marshal(&want)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 2 { // marshaled, then cached
				got, err := m.marshal()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, wantJSON) {
					t.Errorf("provenance %d, updated %q, round %d:\n got %s\nwant %s", i, updated, round, got, wantJSON)
				}
			}
		}
	}
}
