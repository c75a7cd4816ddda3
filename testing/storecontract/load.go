package storecontract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"providerdir/store"
)

// Bulk loads (store.Loader) are optional; a backend without them skips these tests. A load must
// be indistinguishable from Puts of the same batches in the same order once committed, and
// invisible before.
var loadTests = []test{
	{"SameAsPut", func(t *testing.T, s store.Store) { testLoadSameAsPut(t, s, loadBatches(false, true)) }},
	{"SameAsPutInOrder", func(t *testing.T, s store.Store) { testLoadSameAsPut(t, s, loadBatches(true, false)) }},
	{"SameAsPutInOrderThenRepeats", func(t *testing.T, s store.Store) { testLoadSameAsPut(t, s, loadBatches(true, true)) }},
	{"CallerReusesMemory", testLoadReusedMemory},
	{"InvisibleUntilCommit", testLoadInvisible},
	{"NonEmptyCollection", testLoadNonEmpty},
	{"PutDuringLoad", testLoadPutDuring},
	{"Abort", testLoadAbort},
	{"PutAfterCommit", testLoadThenPut},
	{"Validation", testLoadValidation},
	{"Empty", testLoadEmpty},
}

func loader(t *testing.T, s store.Store) store.Loader {
	t.Helper()
	l, ok := s.(store.Loader)
	if !ok {
		t.Skip("the backend has no bulk load")
	}
	return l
}

func mustLoad(t *testing.T, l store.Loader, gen, coll string) store.Loading {
	t.Helper()
	ld, err := l.Load(t.Context(), gen, coll)
	if err != nil {
		t.Fatalf("Load(%s, %s): %v", gen, coll, err)
	}
	return ld
}

// loadBatches is random documents in batches, in id order or not, and with repeats: later
// versions of some documents whose keys differ (dropped, changed and added), within a batch
// and across batches. Backends may take a faster path for documents that come in order.
func loadBatches(inOrder, repeats bool) [][]store.Document {
	docs := modelDocs(23, 600)
	if inOrder {
		slices.SortFunc(docs, func(a, b store.Document) int { return strings.Compare(a.ID, b.ID) })
	}
	var batches [][]store.Document
	for i := 0; i < len(docs); i += 97 {
		batches = append(batches, docs[i:min(i+97, len(docs))])
	}
	if !repeats {
		return batches
	}
	again := modelDocs(29, 600)
	var redo []store.Document
	for i := 0; i < len(docs); i += 13 {
		d := again[i]
		d.ID = docs[i].ID
		d.Body = fmt.Appendf(nil, `{"v":2,"i":%d}`, i)
		redo = append(redo, d)
	}
	if !inOrder {
		batches[2] = append(batches[2], redo[:5]...) // repeats inside a batch and of earlier batches
	}
	return append(batches, redo)
}

func testLoadSameAsPut(t *testing.T, s store.Store, batches [][]store.Document) {
	l := loader(t, s)
	ld := mustLoad(t, l, "g1", "loaded")
	m := newModel()
	for _, b := range batches {
		if err := ld.Add(t.Context(), b); err != nil {
			t.Fatalf("Add: %v", err)
		}
		mustPut(t, s, "g1", "put", b...)
		m.put(b...)
	}
	if err := ld.Commit(t.Context()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	for id, want := range m {
		if diff := sameDoc(mustGet(t, s, "g1", "loaded", id), want); diff != "" {
			t.Errorf("Get after load: %s", diff)
		}
	}
	for _, q := range append(modelQueries, store.Query{Where: []store.Condition{exact("state", "CA")}, OrderBy: "name"}) {
		q.Generation = "g1"
		q.Collection = "put"
		want := ids(findAll(t, s, q, 50))
		if model := m.query(q); !equalIDs(want, model) {
			t.Fatalf("Put disagrees with the model on %s", describe(q))
		}
		q.Collection = "loaded"
		if got := ids(findAll(t, s, q, 50)); !equalIDs(got, want) {
			t.Errorf("Find(%s) after load:\n got %q\nwant %q", describe(q), got, want)
		}
		if n := mustCount(t, s, q); n != int64(len(want)) {
			t.Errorf("Count(%s) after load = %d, want %d", describe(q), n, len(want))
		}
	}
}

// testLoadReusedMemory overwrites every body and key list given to Add as soon as Add returns,
// as an ingest that reuses its buffers does: what the load stores must be what it was given.
func testLoadReusedMemory(t *testing.T, s store.Store) {
	l := loader(t, s)
	for _, inOrder := range []bool{false, true} { // documents in id order may take another path
		coll := fmt.Sprintf("inorder-%t", inOrder)
		ld := mustLoad(t, l, "g1", coll)
		m := newModel()
		for _, b := range loadBatches(inOrder, true) {
			m.put(b...)
			given := make([]store.Document, len(b))
			for i, d := range b {
				given[i] = store.Document{ID: d.ID, Body: bytes.Clone(d.Body), Keys: slices.Clone(d.Keys)}
			}
			if err := ld.Add(t.Context(), given); err != nil {
				t.Fatalf("Add: %v", err)
			}
			for _, d := range given {
				for i := range d.Body {
					d.Body[i] = '#'
				}
				for i := range d.Keys {
					d.Keys[i] = store.Key{Param: "overwritten", Value: "x"}
				}
			}
		}
		if err := ld.Commit(t.Context()); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		for id, want := range m {
			if diff := sameDoc(mustGet(t, s, "g1", coll, id), want); diff != "" {
				t.Fatalf("documents in id order %t: %s", inOrder, diff)
			}
		}
		if n := mustCount(t, s, store.Query{Generation: "g1", Collection: coll, Where: []store.Condition{exact("overwritten", "x")}}); n != 0 {
			t.Errorf("documents in id order %t: %d documents found by a key written after Add", inOrder, n)
		}
	}
}

func testLoadInvisible(t *testing.T, s store.Store) {
	l := loader(t, s)
	ld := mustLoad(t, l, "g1", "c")
	if err := ld.Add(t.Context(), roundTripDocs()); err != nil {
		t.Fatal(err)
	}
	q := store.Query{Generation: "g1", Collection: "c"}
	if n := mustCount(t, s, q); n != 0 {
		t.Errorf("Count before Commit = %d, want 0", n)
	}
	_, err := s.Get(t.Context(), "g1", "c", roundTripDocs()[0].ID)
	wantErr(t, err, store.ErrNotFound, "Get before Commit")
	if err := ld.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := mustCount(t, s, q); n != int64(len(roundTripDocs())) {
		t.Errorf("Count after Commit = %d, want %d", n, len(roundTripDocs()))
	}
}

func testLoadNonEmpty(t *testing.T, s store.Store) {
	l := loader(t, s)
	mustPut(t, s, "g1", "c", doc("a", `{}`, "k", "v"))
	_, err := l.Load(t.Context(), "g1", "c")
	wantErr(t, err, store.ErrConflict, "Load into a collection with documents")
	// Another collection and another generation are empty.
	mustLoad(t, l, "g1", "other").Abort()
	mustLoad(t, l, "g2", "c").Abort()
}

func testLoadPutDuring(t *testing.T, s store.Store) {
	l := loader(t, s)
	ld := mustLoad(t, l, "g1", "c")
	if err := ld.Add(t.Context(), []store.Document{doc("a", `{"from":"load"}`, "k", "load")}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "g1", "c", doc("b", `{"from":"put"}`, "k", "put"))
	wantErr(t, ld.Commit(t.Context()), store.ErrConflict, "Commit after a Put into the collection")
	q := store.Query{Generation: "g1", Collection: "c"}
	if got := ids(findAll(t, s, q, 10)); !equalIDs(got, []string{"b"}) {
		t.Errorf("after the failed Commit the collection holds %q, want only the Put's [b]", got)
	}
	q.Where = []store.Condition{exact("k", "load")}
	if n := mustCount(t, s, q); n != 0 {
		t.Errorf("the failed load left %d index entries", n)
	}
}

func testLoadAbort(t *testing.T, s store.Store) {
	l := loader(t, s)
	ld := mustLoad(t, l, "g1", "c")
	if err := ld.Add(t.Context(), roundTripDocs()); err != nil {
		t.Fatal(err)
	}
	ld.Abort()
	ld.Abort()
	wantErr(t, ld.Commit(t.Context()), store.ErrInvalid, "Commit after Abort")
	wantErr(t, ld.Add(t.Context(), roundTripDocs()), store.ErrInvalid, "Add after Abort")
	if n := mustCount(t, s, store.Query{Generation: "g1", Collection: "c"}); n != 0 {
		t.Errorf("Count after Abort = %d, want 0", n)
	}
	// The collection can be loaded afresh; a cancelled Commit leaves it empty too.
	ld = mustLoad(t, l, "g1", "c")
	if err := ld.Add(t.Context(), roundTripDocs()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := ld.Commit(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit with a cancelled context: %v, want context.Canceled", err)
	}
	if n := mustCount(t, s, store.Query{Generation: "g1", Collection: "c"}); n != 0 {
		t.Errorf("Count after a cancelled Commit = %d, want 0", n)
	}
	ld.Abort() // after a failed Commit: no effect
}

func testLoadThenPut(t *testing.T, s store.Store) {
	l := loader(t, s)
	ld := mustLoad(t, l, "g1", "c")
	if err := ld.Add(t.Context(), []store.Document{
		doc("a", `{"v":1}`, "k", "x", "k", "y"),
		doc("b", `{"v":1}`, "k", "x"),
	}); err != nil {
		t.Fatal(err)
	}
	if err := ld.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	// A Put replacing a loaded document removes the entries it no longer has.
	mustPut(t, s, "g1", "c", doc("a", `{"v":2}`, "k", "z"), doc("c", `{"v":1}`, "k", "x"))
	for _, tc := range []struct {
		value string
		want  []string
	}{{"x", []string{"b", "c"}}, {"y", nil}, {"z", []string{"a"}}} {
		q := store.Query{Generation: "g1", Collection: "c", Where: []store.Condition{exact("k", tc.value)}}
		if got := ids(findAll(t, s, q, 10)); !equalIDs(got, tc.want) {
			t.Errorf("k=%s after Put over a load: %q, want %q", tc.value, got, tc.want)
		}
	}
	if n := mustCount(t, s, store.Query{Generation: "g1", Collection: "c"}); n != 3 {
		t.Errorf("Count = %d, want 3", n)
	}
	_, err := l.Load(t.Context(), "g1", "c")
	wantErr(t, err, store.ErrConflict, "Load into a loaded collection")
}

func testLoadValidation(t *testing.T, s store.Store) {
	l := loader(t, s)
	_, err := l.Load(t.Context(), "", "c")
	wantErr(t, err, store.ErrInvalid, "Load with an empty generation")
	ld := mustLoad(t, l, "g1", "c")
	defer ld.Abort()
	wantErr(t, ld.Add(t.Context(), []store.Document{{ID: ""}}), store.ErrInvalid, "Add of a document without an id")
	wantErr(t, ld.Add(t.Context(), []store.Document{doc("a", `{}`, "k", "v\x00")}), store.ErrInvalid, "Add of a key with a NUL")
}

func testLoadEmpty(t *testing.T, s store.Store) {
	l := loader(t, s)
	if err := mustLoad(t, l, "g1", "c").Commit(t.Context()); err != nil {
		t.Fatalf("Commit of an empty load: %v", err)
	}
	mustPut(t, s, "g1", "c", doc("a", `{}`))
	if n := mustCount(t, s, store.Query{Generation: "g1", Collection: "c"}); n != 1 {
		t.Errorf("Count = %d, want 1", n)
	}
}
