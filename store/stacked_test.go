package store_test

import (
	"errors"
	"slices"
	"testing"

	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/storecontract"
)

func TestStackGenerationLayers(t *testing.T) {
	tests := []struct {
		name string
		gen  string
		want []string
	}{
		{"plain", "g0000000001", []string{"g0000000001"}},
		{"two layers", store.StackGeneration("g2", "g1"), []string{"g2", "g1"}},
		{"three layers", store.StackGeneration("g3", store.StackGeneration("g2", "g1")), []string{"g3", "g2", "g1"}},
	}
	for _, tt := range tests {
		if got := store.Layers(tt.gen); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Layers(%q) = %q, want %q", tt.name, tt.gen, got, tt.want)
		}
	}
	// A composite is never a legal name, so no backend can hold a generation called that.
	if err := store.ValidateName("generation", store.StackGeneration("g2", "g1")); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a composite generation passes ValidateName: %v", err)
	}
	// The mask of a collection is a legal collection name of its own.
	mask := store.MaskCollection("fhir_Practitioner")
	if err := store.ValidateName("collection", mask); err != nil || mask == "fhir_Practitioner" {
		t.Errorf("MaskCollection = %q, %v; want a distinct legal name", mask, err)
	}
}

// Stacked wraps a store once, however often it is asked to, and also through a wrapper that
// unwraps to a stacked store.
func TestStackedWrapsOnce(t *testing.T) {
	s := backends.Embedded(t)
	once := store.Stacked(s)
	if twice := store.Stacked(once); twice != once {
		t.Error("Stacked of a stacked store wrapped it again")
	}
	outer := unwrapper{once}
	if got := store.Stacked(outer); got != store.Store(outer) {
		t.Error("Stacked of a wrapper around a stacked store wrapped it again")
	}
	if _, ok := once.(store.Loader); !ok {
		t.Error("a stacked store is no Loader")
	}
	if _, ok := once.(interface{ Unwrap() store.Store }); !ok {
		t.Error("a stacked store does not Unwrap")
	}
}

// unwrapper is a wrapper that adds nothing and unwraps, as the metrics wrapper does.
type unwrapper struct{ store.Store }

func (u unwrapper) Unwrap() store.Store { return u.Store }

// A plain generation costs the backend exactly the call it would cost unwrapped, and a stacked
// Get of a document the view holds costs one call more (the mask, then the layer that answers).
func TestStackedCalls(t *testing.T) {
	emb := backends.Embedded(t)
	counted := &storecontract.Counting{Store: emb}
	s := store.Stacked(counted)
	ctx := t.Context()
	put := func(gen, coll string, ids ...string) {
		t.Helper()
		for _, id := range ids {
			if err := s.Put(ctx, gen, coll, []store.Document{{ID: id, Body: []byte(`{}`)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("g1", "c", "kept", "changed", "deleted")
	put("g2", "c", "changed", "new")
	put("g2", store.MaskCollection("c"), "changed", "deleted")
	stack := store.StackGeneration("g2", "g1")
	tests := []struct {
		gen, id string
		calls   int64
	}{
		{"g1", "kept", 1},
		{"g1", "absent", 1},
		{stack, "kept", 2},
		{stack, "changed", 2},
		{stack, "deleted", 2},
		{stack, "new", 3},
	}
	for _, tt := range tests {
		counted.Reset()
		_, _ = s.Get(ctx, tt.gen, "c", tt.id)
		if n := counted.Total(); n != tt.calls {
			t.Errorf("Get(%s, %s) made %d backend calls, want %d", tt.gen, tt.id, n, tt.calls)
		}
	}
	for _, q := range []store.Query{{Generation: "g1", Collection: "c"}, {Generation: "g1", Collection: "c", OrderBy: "k"}} {
		counted.Reset()
		if _, err := s.Find(ctx, q); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Count(ctx, q); err != nil {
			t.Fatal(err)
		}
		if n := counted.Total(); n != 2 {
			t.Errorf("Find and Count of a plain generation made %d backend calls, want 2", n)
		}
	}
}
