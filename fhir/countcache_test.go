package fhir

import (
	"context"
	"testing"

	"providerdir/store"
	"providerdir/testing/backends"
)

// Totals are cached per generation and query: a second count is served without the store, and
// another generation or condition is counted afresh.
func TestCountCache(t *testing.T) {
	st := backends.Embedded(t)
	ctx := context.Background()
	doc := func(id, v string) store.Document {
		return store.Document{ID: id, Body: []byte(`{}`), Keys: []store.Key{{Param: "p", Value: v}}}
	}
	if err := st.Put(ctx, "g1", "c", []store.Document{doc("a", "x"), doc("b", "x"), doc("c", "y")}); err != nil {
		t.Fatal(err)
	}
	var cc countCache
	q := store.Query{Collection: "c", Generation: "g1", Where: []store.Condition{{Param: "p", Values: []string{"x"}}}}
	if n, err := cc.count(ctx, st, q); err != nil || n != 2 {
		t.Fatalf("count %d, %v", n, err)
	}
	// The generation is immutable in use; writing into it here shows the second answer came
	// from the cache.
	if err := st.Put(ctx, "g1", "c", []store.Document{doc("d", "x")}); err != nil {
		t.Fatal(err)
	}
	if n, _ := cc.count(ctx, st, q); n != 2 {
		t.Errorf("cached count %d, want 2", n)
	}
	q.Where[0].Values = []string{"y"}
	if n, _ := cc.count(ctx, st, q); n != 1 {
		t.Errorf("other condition counted %d, want 1", n)
	}
	q.Generation = "g2"
	if n, _ := cc.count(ctx, st, q); n != 0 {
		t.Errorf("other generation counted %d, want 0", n)
	}
	long := store.Query{Collection: "c", Generation: "g1", Where: []store.Condition{{Param: "p", Values: make([]string, 2000)}}}
	for i := range long.Where[0].Values {
		long.Where[0].Values[i] = "v"
	}
	if _, ok := countKey(long); ok {
		t.Error("a long chain query got a cache key")
	}
}
