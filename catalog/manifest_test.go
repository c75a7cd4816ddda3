package catalog_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"providerdir/catalog"
	"providerdir/store"
	"providerdir/testing/backends"
)

// manifestDoc stores m as ingest does: one document per family, the family as its id.
func manifestDoc(t *testing.T, m catalog.Manifest) store.Document {
	t.Helper()
	body, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return store.Document{ID: m.Family, Body: body}
}

// The manifests are read from the generation asked for, or from the serving one, in family
// order; a collection never switched reads as none, and a body that is not a manifest is an error
// naming its document.
func TestManifests(t *testing.T) {
	ctx := context.Background()
	st := backends.Embedded(t)

	if ms, err := catalog.Manifests(ctx, st); err != nil || len(ms) != 0 {
		t.Fatalf("before any ingest: %v, %v", ms, err)
	}
	nppes := catalog.Manifest{Family: "nppes", Snapshot: "2026-10-01", Rows: 7,
		Coverage: catalog.Coverage{Start: "2026-10-01", End: "ongoing"},
		Files:    []catalog.File{{Name: "npidata_pfile_x.csv", Rows: 8, Rejected: 1, Errors: []catalog.RowError{{Line: 3, Reason: "bad NPI"}}}}}
	leie := catalog.Manifest{Family: "oig_leie", Snapshot: "2026-09-01"}
	if err := st.Put(ctx, "g1", catalog.ManifestCollection, []store.Document{manifestDoc(t, leie), manifestDoc(t, nppes)}); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, "g2", catalog.ManifestCollection, []store.Document{{ID: "nppes", Body: []byte(`{"family":7}`)}}); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Switch(ctx, st, snap, map[string]string{catalog.ManifestCollection: "g1"}, "test"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		read     func() ([]catalog.Manifest, error)
		families []string
		err      string
	}{
		{"serving", func() ([]catalog.Manifest, error) { return catalog.Manifests(ctx, st) }, []string{"nppes", "oig_leie"}, ""},
		{"one generation", func() ([]catalog.Manifest, error) { return catalog.ManifestsAt(ctx, st, "g1") }, []string{"nppes", "oig_leie"}, ""},
		{"no generation", func() ([]catalog.Manifest, error) { return catalog.ManifestsAt(ctx, st, "") }, nil, ""},
		{"not a manifest", func() ([]catalog.Manifest, error) { return catalog.ManifestsAt(ctx, st, "g2") }, nil, `decode manifest "nppes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := tt.read()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.Family)
			}
			if strings.Join(got, ",") != strings.Join(tt.families, ",") {
				t.Fatalf("families %v, want %v", got, tt.families)
			}
			if len(ms) > 0 {
				m := ms[0]
				if m.Coverage != nppes.Coverage || len(m.Files) != 1 || m.Files[0].Errors[0] != nppes.Files[0].Errors[0] || m.Rows != 7 {
					t.Errorf("nppes manifest read back as %+v", m)
				}
			}
		})
	}
}
