package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"providerdir/store"
	"providerdir/testing/backends"
)

func TestStoreTimesEveryOperation(t *testing.T) {
	raw := backends.Embedded(t)
	m := New()
	s := m.Store(raw)
	ctx := context.Background()

	if err := s.Put(ctx, "g1", "things", []store.Document{{ID: "a", Body: []byte(`{}`), Keys: []store.Key{{Param: "k", Value: "v"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "g1", "things", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "g1", "things", "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get missing: %v", err)
	}
	if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "r", Body: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "r", Body: []byte("2")}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("create over an existing record: %v", err)
	}
	if _, err := s.Find(ctx, store.Query{Collection: "things", Generation: "g1"}); err != nil {
		t.Fatal(err)
	}
	if u, ok := s.(interface{ Unwrap() store.Store }); !ok || u.Unwrap() != store.Store(raw) {
		t.Error("wrapper does not unwrap to the backend")
	}

	body := scrape(t, m)
	for _, want := range []string{
		`providerd_store_operation_duration_seconds_count{op="put",outcome="ok"} 1`,
		`providerd_store_operation_duration_seconds_count{op="get",outcome="ok"} 1`,
		`providerd_store_operation_duration_seconds_count{op="get",outcome="not_found"} 1`,
		`providerd_store_operation_duration_seconds_count{op="put_record",outcome="ok"} 1`,
		`providerd_store_operation_duration_seconds_count{op="put_record",outcome="conflict"} 1`,
		`providerd_store_operation_duration_seconds_count{op="find",outcome="ok"} 1`,
		`providerd_store_documents_written_total{collection="things"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
}
