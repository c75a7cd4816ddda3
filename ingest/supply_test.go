package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/mapping/study"
	"providerdir/source/reference"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/backends"
)

// The supply projection writes one study per specialty and per registered code, and its counts
// agree with the registry's own search-key index: the active records holding a code, by state.
func TestSupplyStudies(t *testing.T) {
	base := drops(t).Base
	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	want := int64(len(study.Specialties()) + len(study.AllCodes()))
	if got := count(t, s, catalog.SupplyStudies); got != want {
		t.Fatalf("%d studies stored, want %d", got, want)
	}
	snap, err := store.Serving(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	gen := snap.Generation(catalog.SupplyStudies)
	tests := []struct{ specialty, code string }{
		{"cardiology", ""}, {"dermatology", ""}, {"dermatology", "207ND0900X"}, {"pediatrics", "2080P0204X"},
		{"psychiatry", "2084P0800X"},
	}
	for _, tt := range tests {
		d, err := s.Get(ctx, gen, catalog.SupplyStudies, study.ID(tt.specialty, tt.code))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.specialty, tt.code, err)
		}
		b := decodeStudy(t, d)
		sp, _ := study.Lookup(tt.specialty)
		codes := sp.Codes
		if tt.code != "" {
			codes = []string{tt.code}
		}
		if len(b.Rows) != 51 || b.National.Population != 340110988 || b.MethodologyVersion != study.MethodologyVersion {
			t.Fatalf("%s: %d rows, population %d, version %s", d.ID, len(b.Rows), b.National.Population, b.MethodologyVersion)
		}
		if b.Registry.DatasetID != "nppes" || b.Census.DatasetID != "census_pep_v2024" || b.Taxonomy == nil || b.ReleaseDate != b.Registry.Snapshot {
			t.Errorf("%s: provenance %+v %+v", d.ID, b.Registry, b.Census)
		}
		var total int64
		for _, r := range b.Rows {
			n := count(t, s, catalog.RegistryProviders,
				store.Condition{Param: stored.KeyTaxonomy, Values: codes},
				store.Condition{Param: stored.KeyActive, Values: []string{"true"}},
				store.Condition{Param: stored.KeyEntity, Values: []string{"individual"}},
				store.Condition{Param: stored.KeyState, Values: []string{r.StateCode}})
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

func decodeStudy(t *testing.T, d store.Document) study.Study {
	t.Helper()
	var st study.Study
	if err := json.Unmarshal(d.Body, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// An ingest of unchanged files rebuilds the studies when the serving ones were computed with
// another methodology version (the service was upgraded), reloading no family; once they are
// current, the next ingest does nothing.
func TestReingestRebuildsOutdatedStudies(t *testing.T) {
	base := drops(t).Base
	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	serving, _ := store.Serving(ctx, s)
	gen := serving.Generation(catalog.SupplyStudies)
	id := study.ID(study.Specialties()[0].Slug, "")
	d, err := s.Get(ctx, gen, catalog.SupplyStudies, id)
	if err != nil {
		t.Fatal(err)
	}
	old := bytes.Replace(d.Body, []byte(`"methodology_version":"`+study.MethodologyVersion+`"`), []byte(`"methodology_version":"v2000.01.1"`), 1)
	if bytes.Equal(old, d.Body) {
		t.Fatal("the stored study does not carry the methodology version")
	}
	d.Body = old
	if err := s.Put(ctx, gen, catalog.SupplyStudies, []store.Document{d}); err != nil {
		t.Fatal(err)
	}

	res, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()})
	if err != nil || !res.Switched {
		t.Fatalf("outdated studies not rebuilt: switched %v, %v", res.Switched, err)
	}
	for _, f := range res.Families {
		if !f.Unchanged {
			t.Errorf("family %s reloaded although its files are identical", f.Manifest.Family)
		}
	}
	after, _ := store.Serving(ctx, s)
	d, err = s.Get(ctx, after.Generation(catalog.SupplyStudies), catalog.SupplyStudies, id)
	if err != nil || decodeStudy(t, d).MethodologyVersion != study.MethodologyVersion {
		t.Fatalf("rebuilt study: %v", err)
	}
	if again, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()}); err != nil || again.Switched {
		t.Errorf("current studies rebuilt again: switched %v, %v", again.Switched, err)
	}
}

// The studies an ingest counts while the registry loads are the studies counted from the
// stored registry: a rebuild of the same snapshot's studies through the store (the registry
// unchanged, the studies outdated) writes the same documents.
func TestSupplyCountedWhileLoadingMatchesStore(t *testing.T) {
	base := drops(t).Base
	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	studies := func() map[string][]byte {
		snap, err := store.Serving(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.Find(ctx, store.Query{Collection: catalog.SupplyStudies, Generation: snap.Generation(catalog.SupplyStudies), Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, d := range page.Docs {
			out[d.ID] = d.Body
		}
		return out
	}
	loaded := studies()
	// Outdate one study so that the next ingest, with every family unchanged, recounts them all
	// from the stored registry.
	snap, _ := store.Serving(ctx, s)
	id := study.ID(study.Specialties()[0].Slug, "")
	d, err := s.Get(ctx, snap.Generation(catalog.SupplyStudies), catalog.SupplyStudies, id)
	if err != nil {
		t.Fatal(err)
	}
	d.Body = bytes.Replace(d.Body, []byte(`"methodology_version":"`+study.MethodologyVersion+`"`), []byte(`"methodology_version":"v2000.01.1"`), 1)
	if err := s.Put(ctx, snap.Generation(catalog.SupplyStudies), catalog.SupplyStudies, []store.Document{d}); err != nil {
		t.Fatal(err)
	}
	if res, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()}); err != nil || !res.Switched {
		t.Fatalf("studies not rebuilt: %v", err)
	}
	scanned := studies()
	if len(scanned) != len(loaded) {
		t.Fatalf("%d studies from the store, %d while loading", len(scanned), len(loaded))
	}
	for id, body := range loaded {
		if !bytes.Equal(scanned[id], body) {
			t.Errorf("study %s differs:\nwhile loading %s\nfrom the store %s", id, body, scanned[id])
		}
	}
}
