package store_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"providerdir/store"
	"providerdir/testing/backends"
)

// EachRecord visits every record of a kind across pages, in id order, and stops at the
// callback's first error.
func TestEachRecord(t *testing.T) {
	s := backends.Embedded(t)
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
	err := store.EachRecord(ctx, s, "k", func(store.Record) error {
		if seen++; seen == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || seen != 3 {
		t.Errorf("after an error: %v, %d visited", err, seen)
	}
}

// DecodeRecords decodes every record of a kind across pages, in id order, and returns nothing
// but the error when one does not decode.
func TestDecodeRecords(t *testing.T) {
	s := backends.Embedded(t)
	ctx := context.Background()
	const n = 1001 // more than two pages
	for i := range n {
		if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: fmt.Sprintf("r%05d", i), Body: []byte(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	atoi := func(r store.Record) (int, error) { return strconv.Atoi(string(r.Body)) }
	got, err := store.DecodeRecords(ctx, s, "k", atoi)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d records, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("record %d decoded as %d", i, v)
		}
	}
	if none, err := store.DecodeRecords(ctx, s, "absent", atoi); err != nil || len(none) != 0 {
		t.Errorf("an absent kind: %v, %v", none, err)
	}
	if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "r00500x", Body: []byte("not a number")}); err != nil {
		t.Fatal(err)
	}
	if got, err := store.DecodeRecords(ctx, s, "k", atoi); !errors.Is(err, strconv.ErrSyntax) || got != nil {
		t.Errorf("a record that does not decode: %d records, %v", len(got), err)
	}
}

// EachDocument visits every document a query finds across pages, in the query's order, and
// stops at the callback's first error.
func TestEachDocument(t *testing.T) {
	s := backends.Embedded(t)
	ctx := context.Background()
	const n = 2345 // more than two default pages
	var docs []store.Document
	for i := range n {
		state := "CA"
		if i%3 == 0 {
			state = "NY"
		}
		docs = append(docs, store.Document{ID: fmt.Sprintf("d%05d", i), Body: []byte("{}"), Keys: []store.Key{{Param: "state", Value: state}}})
	}
	if err := s.Put(ctx, "g1", "c", docs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		q     store.Query
		want  int
		first string
	}{
		{"all, default pages", store.Query{Collection: "c", Generation: "g1"}, n, "d00000"},
		{"a condition, small pages", store.Query{Collection: "c", Generation: "g1", Limit: 7, Where: []store.Condition{{Param: "state", Values: []string{"NY"}}}}, (n + 2) / 3, "d00000"},
		{"descending", store.Query{Collection: "c", Generation: "g1", Descending: true}, n, fmt.Sprintf("d%05d", n-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ids []string
			if err := store.EachDocument(ctx, s, tc.q, func(d *store.Document) error { ids = append(ids, d.ID); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(ids) != tc.want || ids[0] != tc.first {
				t.Fatalf("%d documents, first %v; want %d, first %s", len(ids), ids[:min(1, len(ids))], tc.want, tc.first)
			}
			for i := 1; i < len(ids); i++ {
				if (ids[i-1] >= ids[i]) != tc.q.Descending {
					t.Fatalf("out of order at %d: %s %s", i, ids[i-1], ids[i])
				}
			}
		})
	}
	stop := errors.New("stop")
	seen := 0
	err := store.EachDocument(ctx, s, store.Query{Collection: "c", Generation: "g1"}, func(*store.Document) error {
		if seen++; seen == 1500 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || seen != 1500 {
		t.Fatalf("stopped with %v after %d documents", err, seen)
	}
}
