package records_test

import (
	"bytes"
	"testing"

	"providerdir/catalog"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
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
