package store_test

import (
	"maps"
	"testing"

	"providerdir/store"
	"providerdir/testing/backends"
)

// ServingSince returns the snapshot it is given while the pointer stays at its version, and
// reads the pointer afresh once a switch or a rollback has moved it.
func TestServingSince(t *testing.T) {
	s := backends.Embedded(t)
	ctx := t.Context()
	fresh, err := store.ServingSince(ctx, s, store.Snapshot{})
	if err != nil || fresh.Version != 0 || len(fresh.Collections) != 0 {
		t.Fatalf("fresh store: %+v, %v; want the empty snapshot", fresh, err)
	}
	g1, g2 := newGeneration(t, s), newGeneration(t, s)
	first, err := store.Switch(ctx, s, fresh, map[string]string{"c": g1}, "one")
	if err != nil {
		t.Fatal(err)
	}
	second, err := store.Switch(ctx, s, first, map[string]string{"c": g2}, "two")
	if err != nil {
		t.Fatal(err)
	}
	// kept stands for a snapshot a reader holds: its maps differ from the stored pointer's, so
	// getting it back shows the pointer was not decoded again.
	kept := second
	kept.Collections = map[string]string{"kept": "yes"}
	tests := []struct {
		name string
		last store.Snapshot
		want map[string]string
	}{
		{"nothing read before", store.Snapshot{}, map[string]string{"c": g2}},
		{"read at this version", kept, map[string]string{"kept": "yes"}},
		{"read before the last switch", first, map[string]string{"c": g2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := store.ServingSince(ctx, s, tt.last)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got.Collections, tt.want) || got.Version != second.Version {
				t.Errorf("got %v at version %d, want %v at %d", got.Collections, got.Version, tt.want, second.Version)
			}
		})
	}
	if _, err := store.Rollback(ctx, s); err != nil {
		t.Fatal(err)
	}
	back, err := store.ServingSince(ctx, s, kept)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(back.Collections, map[string]string{"c": g1}) {
		t.Errorf("after a rollback: %v, want %v", back.Collections, map[string]string{"c": g1})
	}
}

func newGeneration(t *testing.T, s store.Store) string {
	t.Helper()
	g, err := store.NewGeneration(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
