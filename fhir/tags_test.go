package fhir

import (
	"context"
	"errors"
	"strings"
	"testing"

	"providerdir/catalog"
	"providerdir/store"
	"providerdir/testing/backends"
)

// A tag set is read from the store once and then served by id, whatever generation asks; a
// missing or malformed one is an error that is not a 404.
func TestTagSets(t *testing.T) {
	st := backends.Embedded(t)
	ctx := context.Background()
	sets := []store.Document{
		{ID: "00000000000000a1", Body: []byte(`[{"system":"urn:providerdir:provenance:_source","code":"NPPES"}]`)},
		{ID: "00000000000000b2", Body: []byte(`[{"system":"http://elsewhere/_source","code":"NPPES"}]`)},
	}
	if err := st.Put(ctx, "g1", catalog.FHIRTags, sets); err != nil {
		t.Fatal(err)
	}
	tags := tagSets{st: st, base: "https://dir.example/fhir/provenance/"}
	want := `"tag":[{"system":"https://dir.example/fhir/provenance/_source","code":"NPPES"}]`
	if got, err := tags.get(ctx, "g1", "00000000000000a1"); err != nil || string(got) != want {
		t.Fatalf("get = %s, %v; want %s", got, err, want)
	}
	if err := st.DropGeneration(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	if got, err := tags.get(ctx, "g2", "00000000000000a1"); err != nil || string(got) != want {
		t.Errorf("after the store lost it: get = %s, %v; want it from memory", got, err)
	}

	if err := st.Put(ctx, "g3", catalog.FHIRTags, sets[1:]); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ gen, id, want string }{
		{"g3", "00000000000000c3", "not found"},
		{"", "00000000000000c3", "has no tag sets"},
		{"g3", "00000000000000b2", "not a provenance key"},
	} {
		_, err := tags.get(ctx, tt.gen, tt.id)
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, store.ErrNotFound) {
			t.Errorf("get(%q, %q) = %v; want an error saying %q, not a store.ErrNotFound", tt.gen, tt.id, err, tt.want)
		}
	}
}
