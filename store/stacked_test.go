package store_test

import (
	"errors"
	"slices"
	"testing"

	"providerdir/store"
	"providerdir/store/embedded"
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
	s, err := embedded.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
