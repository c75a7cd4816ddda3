package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"providerdir/store"
	"providerdir/store/embedded"
)

// EachRecord visits every record of a kind across pages, in id order, and stops at the
// callback's first error.
func TestEachRecord(t *testing.T) {
	s, err := embedded.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const n = 1203 // more than two pages
	for i := range n {
		if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: fmt.Sprintf("r%05d", i), Body: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.PutRecord(ctx, store.Record{Kind: "other", ID: "x", Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := store.EachRecord(ctx, s, "k", func(r store.Record) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != n || ids[0] != "r00000" || ids[n-1] != fmt.Sprintf("r%05d", n-1) {
		t.Fatalf("%d records, first %v", len(ids), ids[:1])
	}
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			t.Fatalf("out of order at %d: %s %s", i, ids[i-1], ids[i])
		}
	}
	stop := errors.New("stop")
	seen := 0
	err = store.EachRecord(ctx, s, "k", func(store.Record) error {
		if seen++; seen == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || seen != 3 {
		t.Errorf("after an error: %v, %d visited", err, seen)
	}
}
