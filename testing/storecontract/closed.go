package storecontract

import (
	"errors"
	"testing"
	"time"

	"providerdir/store"
)

var closedTests = []test{
	{"CallsAfterClose", testClosed},
}

func testClosed(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustPut(t, s, "g1", "c", doc("a", `{}`, "k", "v"))
	mustPutRecord(t, s, store.Record{Kind: "k", ID: "a"})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	calls := map[string]func() error{
		"Put": func() error { return s.Put(ctx, "g1", "c", []store.Document{doc("b", `{}`)}) },
		"Get": func() error { _, err := s.Get(ctx, "g1", "c", "a"); return err },
		"GetBodies": func() error {
			_, err := s.GetBodies(ctx, "g1", "c", []string{"a"}, nil)
			return err
		},
		"GetMany": func() error {
			_, err := s.GetMany(ctx, "g1", "c", []string{"a"}, nil)
			return err
		},
		"Find": func() error {
			_, err := s.Find(ctx, store.Query{Generation: "g1", Collection: "c", Where: []store.Condition{exact("k", "v")}})
			return err
		},
		"Count":          func() error { _, err := s.Count(ctx, store.Query{Generation: "g1", Collection: "c"}); return err },
		"Generations":    func() error { _, err := s.Generations(ctx); return err },
		"DropGeneration": func() error { return s.DropGeneration(ctx, "g1") },
		"GetRecord":      func() error { _, err := s.GetRecord(ctx, "k", "a"); return err },
		"PutRecord":      func() error { _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "b"}); return err },
		"DeleteRecord":   func() error { return s.DeleteRecord(ctx, "k", "a", 0) },
		"ListRecords":    func() error { _, err := s.ListRecords(ctx, "k", "", 10); return err },
		"Incr":           func() error { _, err := s.Incr(ctx, "n", 1, time.Time{}); return err },
		"Serving":        func() error { _, err := store.Serving(ctx, s); return err },
	}
	for name, call := range calls {
		wantErr(t, call(), store.ErrClosed, name+" after Close")
	}
	// A second Close neither panics nor reports success at something it did not do.
	if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		t.Errorf("second Close: %v, want nil or ErrClosed", err)
	}
}
