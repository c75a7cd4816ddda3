package ingest_test

import (
	"context"
	"encoding/json"
	"testing"

	"providerdir/ingest"
	"providerdir/mapping"
	"providerdir/mapping/supply"
	"providerdir/store"
)

// The supply projection writes one study per specialty and per registered code, and its counts
// agree with the registry's own search-key index: the active records holding a code, by state.
func TestSupplyStudies(t *testing.T) {
	base, _, _, _ := drops(t)
	s := openStore(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: referenceDir(t)}); err != nil {
		t.Fatal(err)
	}
	want := int64(len(supply.Specialties()) + len(supply.AllCodes()))
	if got := count(t, s, ingest.SupplyStudies); got != want {
		t.Fatalf("%d studies stored, want %d", got, want)
	}
	snap, err := store.Serving(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	gen := snap.Generation(ingest.SupplyStudies)
	tests := []struct{ specialty, code string }{
		{"cardiology", ""}, {"dermatology", ""}, {"dermatology", "207ND0900X"}, {"pediatrics", "2080P0204X"},
		{"psychiatry", "2084P0800X"},
	}
	for _, tt := range tests {
		d, err := s.Get(ctx, gen, ingest.SupplyStudies, supply.ID(tt.specialty, tt.code))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.specialty, tt.code, err)
		}
		b := decodeStudy(t, d)
		sp, _ := supply.Lookup(tt.specialty)
		codes := sp.Codes
		if tt.code != "" {
			codes = []string{tt.code}
		}
		if len(b.Rows) != 51 || b.National.Population != 340110988 || b.MethodologyVersion != supply.MethodologyVersion {
			t.Fatalf("%s: %d rows, population %d, version %s", d.ID, len(b.Rows), b.National.Population, b.MethodologyVersion)
		}
		if b.Registry.DatasetID != "nppes" || b.Census.DatasetID != "census_pep_v2024" || b.Taxonomy == nil || b.ReleaseDate != b.Registry.Snapshot {
			t.Errorf("%s: provenance %+v %+v", d.ID, b.Registry, b.Census)
		}
		var total int64
		for _, r := range b.Rows {
			n := count(t, s, ingest.RegistryProviders,
				store.Condition{Param: mapping.KeyTaxonomy, Values: codes},
				store.Condition{Param: mapping.KeyActive, Values: []string{"true"}},
				store.Condition{Param: mapping.KeyEntity, Values: []string{"individual"}},
				store.Condition{Param: mapping.KeyState, Values: []string{r.StateCode}})
			if r.ActiveProviders != n {
				t.Errorf("%s %s: %d providers, the registry index says %d", d.ID, r.StateCode, r.ActiveProviders, n)
			}
			total += n
		}
		if total != b.National.ActiveProviders {
			t.Errorf("%s: national %d, rows sum to %d", d.ID, b.National.ActiveProviders, total)
		}
		if tt.code == "" && total == 0 {
			t.Errorf("%s: no providers counted", d.ID)
		}
	}
}

func decodeStudy(t *testing.T, d store.Document) supply.Study {
	t.Helper()
	var st supply.Study
	if err := json.Unmarshal(d.Body, &st); err != nil {
		t.Fatal(err)
	}
	return st
}
