package fhirmap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"providerdir/stored"
	"testing"
)

// A served meta is byte for byte the Meta encoding/json writes, for each provenance, resource
// type and date, whether its members are written directly or go through the encoder, and
// whether its tags are marshaled or come from the cache.
func TestMetaMarshal(t *testing.T) {
	doi := "10.1234/x"
	provs := []stored.Provenance{
		{Source: "NPPES", SourceURL: "https://download.cms.gov/nppes/NPI_Files.html", DatasetID: "nppes", Snapshot: "2025-06-08",
			Methodology: "nppes-registry/1.0.0", LastChecked: "2026-11-22T15:39:41Z", Confidence: 1, DataAvailability: []string{"present"},
			PipelineVersion: "abc", License: "LicenseRef-US-Government-Public-Domain", CoverageStart: "2005-05-23", CoverageEnd: "2025-06-08"},
		{Source: "Open Payments <&>", DatasetID: "openpayments", Confidence: 0.8, DataAvailability: []string{"present", "suppressed"}, DOI: &doi},
		{Source: "  padded  code ", Confidence: 0.85},
		// Source members that JSON escapes, or that have no snapshot.
		{Source: "x", SourceURL: "https://example.org/a?b=1&c=2", Snapshot: "2025-06-08"},
		{Source: "x", SourceURL: "https://example.org/<a", Snapshot: "2025-06-08"},
		{Source: "x", SourceURL: "https://example.org/a>", Snapshot: "2025-06-08"},
		{Source: "x", SourceURL: `https://example.org/"q"`, Snapshot: "2025-06-08"},
		{Source: "x", SourceURL: `https://example.org/\q`, Snapshot: "2025-06-08"},
		{Source: "x", SourceURL: "https://exämple.org/", Snapshot: "2025-06-08"},
		{Source: "x", SourceURL: "https://example.org/\u2028", Snapshot: "2025-06-08\xff"},
		{Source: "x", SourceURL: "https://example.org/", Snapshot: "2025\t06"},
		{Source: "x", SourceURL: "https://example.org/"},
	}
	// Variants of the first provenance that differ in one thing each, which a cache keyed on
	// less would answer with the first one's tags.
	for _, change := range []func(p *stored.Provenance){
		func(p *stored.Provenance) { p.Confidence = 0.5 },
		func(p *stored.Provenance) { p.DOI = &doi },
		func(p *stored.Provenance) { p.DataAvailability = []string{"absent"} },
		func(p *stored.Provenance) { p.LastChecked = "2026-11-23T00:00:00Z" },
		func(p *stored.Provenance) { p.CoverageEnd = "ongoing" },
	} {
		v := provs[0]
		change(&v)
		provs = append(provs, v)
	}
	for i, p := range provs {
		for _, updated := range []string{"2024-06-04", "", "2024-06-04T10:11:12Z", "2024-06", "2024<06>04"} {
			for _, typ := range []string{TypePractitioner, TypeLocation, TypeHealthcareService} {
				checkMeta(t, fmt.Sprintf("provenance %d, %s, updated %q", i, typ, updated), newMeta(typ, updated, p))
			}
		}
	}
}

// checkMeta compares the meta of a resource stored and then served (tags marshaled, then
// cached) with encoding/json's.
func checkMeta(t *testing.T, name string, m resourceMeta) {
	t.Helper()
	type head struct {
		ResourceType string `json:"resourceType"`
		ID           string `json:"id"`
	}
	want := struct {
		head
		Meta Meta `json:"meta"`
	}{head{m.resourceType, "x1"}, m.members()}
	want.Meta.Tag = provenanceTags(m.prov)
	for round := range 2 { // tags marshaled, then cached
		r, err := encode(m.resourceType, "x1", head{m.resourceType, "x1"}, m, nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Open(r.Doc.Body)
		if err != nil {
			t.Fatal(err)
		}
		want.Meta.VersionID = st.ETag
		wantJSON, err := json.Marshal(&want)
		if err != nil {
			t.Fatal(err)
		}
		tags, err := RenderTags(r.Tags.Document().Body, TagSystemPrefix)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.AppendServed(nil, tags); !bytes.Equal(got, wantJSON) {
			t.Errorf("%s, round %d:\n got %s\nwant %s", name, round, got, wantJSON)
		}
	}
}
