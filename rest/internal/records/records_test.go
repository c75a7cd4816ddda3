package records_test

import (
	"bytes"
	"testing"

	"providerdir/catalog"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/backends"
	"providerdir/testing/demostore"
)

func TestMain(m *testing.M) { demostore.Main(m) }

// Keyed reads the documents of a key's values as the store holds them, bodies alone: the
// readers decode bodies, and a backend that keeps the keys beside a body neither decodes nor
// returns them.
func TestKeyedReadsBodies(t *testing.T) {
	d := demostore.Open(t)
	ctx := t.Context()
	v, err := records.New(d.Store).Serving(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gen := v.Snap.Generation(catalog.Enrollments)
	page, err := d.Store.Find(ctx, store.Query{Collection: catalog.Enrollments, Generation: gen, Limit: 3})
	if err != nil || len(page.Docs) == 0 {
		t.Fatalf("no enrollment to read: %v", err)
	}
	var npis []string
	want := map[string][]byte{}
	for _, doc := range page.Docs {
		for _, k := range doc.Keys {
			if k.Param == stored.KeyNPI {
				npis = append(npis, k.Value)
			}
		}
		want[doc.ID] = doc.Body
	}
	tests := []struct {
		name   string
		values []string
	}{
		{"one value", npis[:1]},
		{"several values", append(npis, "0000000000")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := v.Keyed(ctx, catalog.Enrollments, stored.KeyNPI, tt.values...)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) == 0 {
				t.Fatal("no document read")
			}
			for _, doc := range docs {
				if doc.Keys != nil {
					t.Errorf("%s: %d keys read with the body", doc.ID, len(doc.Keys))
				}
				if w, ok := want[doc.ID]; ok && !bytes.Equal(doc.Body, w) {
					t.Errorf("%s: body differs from the stored one", doc.ID)
				}
			}
		})
	}
}

// A reader keeps the snapshot it decoded, yet every switch and rollback shows on its next view.
func TestServingFollowsSwitches(t *testing.T) {
	s := backends.Embedded(t)
	ctx := t.Context()
	r := records.New(s)
	serving := func() map[string]string {
		t.Helper()
		v, err := r.Serving(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v.Snap.Collections
	}
	if got := serving(); len(got) != 0 {
		t.Fatalf("fresh store serves %v", got)
	}
	snap := store.Snapshot{}
	var gens []string
	for range 3 {
		g, err := store.NewGeneration(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, g)
		if snap, err = store.Switch(ctx, s, snap, map[string]string{catalog.RegistryProviders: g}, "step"); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if got := serving()[catalog.RegistryProviders]; got != g {
				t.Fatalf("after the switch to %s the reader serves %s", g, got)
			}
		}
	}
	if _, err := store.Rollback(ctx, s); err != nil {
		t.Fatal(err)
	}
	if got := serving()[catalog.RegistryProviders]; got != gens[1] {
		t.Errorf("after the rollback the reader serves %s, want %s", got, gens[1])
	}
}
