package store_test

import (
	"fmt"
	"testing"

	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/storecontract"
)

// BenchmarkStacked reads a two-layer stack (a base of benchBase documents, a top replacing one
// in a hundred and deleting as many more) against the base generation alone, on the embedded
// store: Get of a document the top leaves alone, Get of one it replaced, and a page of 20
// documents of one state ordered by a key. "unwrapped" is the backend without store.Stacked,
// so that the plain rows show what the wrapper costs a plain generation. calls/op is the
// number of backend calls one read makes.
func BenchmarkStacked(b *testing.B) {
	emb := backends.Embedded(b)
	counted := &storecontract.Counting{Store: emb}
	s := store.Stacked(counted)
	const benchBase = 20000
	writeBenchStack(b, s, benchBase)
	stack := store.StackGeneration("g2", "g1")
	kept := func(i int) string { return benchID(i*100 + 50) } // never touched by the top
	changed := func(i int) string { return benchID(i * 100) } // replaced by the top
	reads := []struct {
		name string
		st   store.Store
		gen  string
		id   func(int) string
	}{
		{"unwrapped", emb, "g1", kept},
		{"plain", s, "g1", kept},
		{"stack/kept", s, stack, kept},
		{"stack/changed", s, stack, changed},
	}
	for _, r := range reads {
		b.Run("Get/"+r.name, func(b *testing.B) {
			counted.Reset()
			i := 0
			for b.Loop() {
				if _, err := r.st.Get(b.Context(), r.gen, "c", r.id(i%(benchBase/100))); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(counted.Total())/float64(b.N), "calls/op")
		})
	}
	pages := []struct {
		name string
		st   store.Store
		gen  string
	}{
		{"unwrapped", emb, "g1"},
		{"plain", s, "g1"},
		{"stack", s, stack},
	}
	for _, r := range pages {
		b.Run("FindPage/"+r.name, func(b *testing.B) {
			counted.Reset()
			i := 0
			for b.Loop() {
				q := store.Query{Generation: r.gen, Collection: "c", OrderBy: "rank", Limit: 20,
					Where: []store.Condition{{Param: "state", Values: []string{benchState(i)}}}}
				if p, err := r.st.Find(b.Context(), q); err != nil || len(p.Docs) != 20 {
					b.Fatal(len(p.Docs), err)
				}
				i++
			}
			b.ReportMetric(float64(counted.Total())/float64(b.N), "calls/op")
		})
	}
}

func benchID(i int) string    { return fmt.Sprintf("p%07d", i) }
func benchState(i int) string { return fmt.Sprintf("s%02d", i%50) }

func benchDoc(i int, version string) store.Document {
	return store.Document{ID: benchID(i), Body: fmt.Appendf(nil, `{"id":%q,"v":%q,"pad":"%0200d"}`, benchID(i), version, i),
		Keys: []store.Key{{Param: "state", Value: benchState(i)}, {Param: "rank", Value: fmt.Sprintf("%07d", (i*7919)%1000003)}}}
}

// writeBenchStack writes n documents into g1 and, into g2, a replacement of every hundredth
// (with a new rank) and a deletion of the one after it, each masked.
func writeBenchStack(b *testing.B, s store.Store, n int) {
	var base, top, mask []store.Document
	flush := func(gen, coll string, docs *[]store.Document, force bool) {
		if len(*docs) >= 1000 || force && len(*docs) > 0 {
			if err := s.Put(b.Context(), gen, coll, *docs); err != nil {
				b.Fatal(err)
			}
			*docs = (*docs)[:0]
		}
	}
	for i := range n {
		d := benchDoc(i, "1")
		base = append(base, d)
		switch i % 100 {
		case 0:
			nd := benchDoc(i, "2")
			nd.Keys[1].Value = "x" + nd.Keys[1].Value
			top = append(top, nd)
			mask = append(mask, store.Document{ID: d.ID, Body: []byte(`{}`), Keys: d.Keys})
		case 1:
			mask = append(mask, store.Document{ID: d.ID, Body: []byte(`{}`), Keys: d.Keys})
		}
		flush("g1", "c", &base, false)
	}
	flush("g1", "c", &base, true)
	flush("g2", "c", &top, true)
	flush("g2", store.MaskCollection("c"), &mask, true)
}
