package mapping

import (
	"maps"
	"slices"
	"testing"

	"providerdir/match"
	"providerdir/source"
	"providerdir/source/nppes"
	"providerdir/store"
	"providerdir/stored"
)

func sampleProvider() nppes.Provider {
	p := nppes.Provider{
		NPI:             "1234567893",
		EntityType:      nppes.EntityIndividual,
		Name:            nppes.Name{First: "Zoë", Middle: "A", Last: "O'Brien-Núñez", Credential: "MD"},
		Practice:        nppes.Address{Line1: "1 Main St", City: "Santa Fe", State: "NM", PostalCode: "875011234", Phone: "5055550100"},
		EnumerationDate: source.Date{Year: 2007, Month: 3, Day: 1},
		LastUpdate:      source.Date{Year: 2025, Month: 5, Day: 2},
	}
	p.Taxonomies[0] = nppes.Taxonomy{Code: "207RC0000X", License: "MD123", LicenseState: "NM", Primary: true}
	p.Taxonomies[1] = nppes.Taxonomy{Code: "207R00000X"}
	return p
}

func TestRegistryKeys(t *testing.T) {
	p := sampleProvider()
	rec, keys := Registry(&p)
	if !rec.Active || rec.PrimaryTaxonomy != "207RC0000X" || rec.EntityType != "individual" || len(rec.Taxonomies) != 2 {
		t.Fatalf("record %+v", rec)
	}
	for _, want := range []struct{ param, value string }{
		{stored.KeyActive, "true"}, {stored.KeyState, "NM"}, {stored.KeyPostal, "87501"},
		{stored.KeyPostal, "875011234"}, {stored.KeyTaxonomy, "207RC0000X"}, {stored.KeyTaxonomy, "207R00000X"},
		{stored.KeyFamily, "obrien nunez"}, {stored.KeyGiven, "zoe"},
		{match.ParamToken, "obriennunez"}, {match.ParamToken, "zoe"}, {match.ParamStateToken, "NM|zoe"},
		{match.ParamTokenInitial, "obriennunez|z"}, {match.ParamTokenInitial, "zoe|o"},
	} {
		if !slices.ContainsFunc(keys, func(k store.Key) bool { return k.Param == want.param && k.Value == want.value }) {
			t.Errorf("no key %s=%q in %v", want.param, want.value, keys)
		}
	}
	// Keys nothing queries cost a national ingest an index entry per record.
	params := map[string]bool{}
	for _, k := range keys {
		params[k.Param] = true
	}
	want := []string{stored.KeyActive, stored.KeyEntity, stored.KeyFamily, stored.KeyGiven, stored.KeyMatchState, stored.KeyMatchZip, stored.KeyPostal, match.ParamToken, match.ParamTokenInitial, match.ParamStateToken, stored.KeyState, stored.KeyTaxonomy}
	if got := slices.Sorted(maps.Keys(params)); !slices.Equal(got, want) {
		t.Errorf("registry key params %q, want %q", got, want)
	}
	p.DeactivationDate = source.Date{Year: 2024, Month: 1, Day: 1}
	if rec, _ := Registry(&p); rec.Active {
		t.Error("a deactivated NPI maps as active")
	}
}

// BenchmarkRegistryDocument is the per-row cost of the registry's mapping at ingest: record,
// keys, provenance and JSON encoding.
func BenchmarkRegistryDocument(b *testing.B) {
	p := sampleProvider()
	prov := stored.SnapshotInfo{Dataset: stored.NPPES, Snapshot: "2025-06-08"}.Provenance(1)
	b.ReportAllocs()
	for b.Loop() {
		rec, keys := Registry(&p)
		if _, err := stored.NewDocument(p.NPI, rec, prov, keys); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRegistryMatchKeys: an active individual carries one matching key per family and given
// value, in its state and at its 5-digit ZIP; a deactivated one and an organization carry none.
func TestRegistryMatchKeys(t *testing.T) {
	p := &nppes.Provider{NPI: "1234567893", EntityType: nppes.EntityIndividual,
		Name:     nppes.Name{First: "José", Middle: "A", Last: "Garcia Lopez"},
		Practice: nppes.Address{State: "KS", PostalCode: "672081234"}}
	_, keys := Registry(p)
	var state, zip []string
	for _, k := range keys {
		switch k.Param {
		case stored.KeyMatchState:
			state = append(state, k.Value)
		case stored.KeyMatchZip:
			zip = append(zip, k.Value)
		}
	}
	slices.Sort(state)
	want := []string{"garcia lopez|a|KS", "garcia lopez|jose|KS", "garcia|a|KS", "garcia|jose|KS", "lopez|a|KS", "lopez|jose|KS"}
	if !slices.Equal(state, want) {
		t.Errorf("match_state %q, want %q", state, want)
	}
	if len(zip) != len(want) || !slices.Contains(zip, stored.MatchKey("garcia lopez", "jose", "KS", "67208")) {
		t.Errorf("match_zip %q", zip)
	}

	p.DeactivationDate, _ = source.ParseDate("2020-01-02")
	_, keys = Registry(p)
	org := &nppes.Provider{NPI: "1234567893", EntityType: nppes.EntityOrganization, OrgName: "Acme",
		Practice: nppes.Address{State: "KS", PostalCode: "67208"}}
	_, orgKeys := Registry(org)
	for _, k := range append(keys, orgKeys...) {
		if k.Param == stored.KeyMatchState || k.Param == stored.KeyMatchZip {
			t.Errorf("unexpected matching key %s=%q", k.Param, k.Value)
		}
	}
}

func TestNameWord(t *testing.T) {
	for _, tt := range []struct {
		word string
		dels []string
	}{
		{"amy", []string{"my", "ay", "am"}},
		{"anne", []string{"nne", "ane", "ann"}}, // the doubled n gives one deletion
	} {
		rec, keys := NameWord(tt.word)
		if rec.Word != tt.word {
			t.Errorf("NameWord(%q) record %+v", tt.word, rec)
		}
		var got []string
		for _, k := range keys {
			if k.Param != match.ParamDeletion {
				t.Errorf("NameWord(%q) key %+v", tt.word, k)
			}
			got = append(got, k.Value)
		}
		if !slices.Equal(got, tt.dels) {
			t.Errorf("NameWord(%q) deletions %q, want %q", tt.word, got, tt.dels)
		}
	}
}
