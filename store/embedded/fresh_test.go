package embedded

import (
	"context"
	"fmt"
	"testing"

	"providerdir/store"
)

// TestIDFilter: every id added is reported, across the filter's growth, and ids never added are
// mostly not.
func TestIDFilter(t *testing.T) {
	var f idFilter
	const n = 100000
	for i := range n {
		f.add(fmt.Sprint("in", i))
	}
	for i := range n {
		if !f.mayHave(fmt.Sprint("in", i)) {
			t.Fatalf("id %d added but not reported", i)
		}
	}
	fp := 0
	for i := range n {
		if f.mayHave(fmt.Sprint("out", i)) {
			fp++
		}
	}
	if fp > n/20 {
		t.Errorf("%d false positives in %d", fp, n)
	}
}

// TestFreshCollectionReplace: documents replaced in a collection that was empty when first
// written (no read of absent ids) still lose their old index entries and are counted once, and
// so are those of a generation dropped and written again.
func TestFreshCollectionReplace(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	put := func(value string, ids ...string) {
		t.Helper()
		var docs []store.Document
		for _, id := range ids {
			docs = append(docs, store.Document{ID: id, Body: []byte(`{}`), Keys: []store.Key{{Param: "p", Value: value}}})
		}
		if err := s.Put(ctx, "g1", "c", docs); err != nil {
			t.Fatal(err)
		}
	}
	count := func(value string) int64 {
		t.Helper()
		q := store.Query{Collection: "c", Generation: "g1"}
		if value != "" {
			q.Where = []store.Condition{{Param: "p", Values: []string{value}}}
		}
		n, err := s.Count(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for round := range 2 {
		put("old", "a", "b", "c")
		put("new", "b", "d")
		put("newer", "c")
		if got := [4]int64{count(""), count("old"), count("new"), count("newer")}; got != [4]int64{4, 1, 2, 1} {
			t.Errorf("round %d: all, old, new, newer = %v, want [4 1 2 1]", round, got)
		}
		if err := s.DropGeneration(ctx, "g1"); err != nil {
			t.Fatal(err)
		}
		if n := count(""); n != 0 {
			t.Fatalf("round %d: %d documents after the drop", round, n)
		}
	}
}
