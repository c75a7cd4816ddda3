package storecontract

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"providerdir/store"
)

var zeroTime time.Time

var recordTests = []test{
	{"CreateAndGet", testRecordCreate},
	{"CompareAndSwap", testRecordCAS},
	{"Delete", testRecordDelete},
	{"KindsAreSeparate", testRecordKinds},
	{"List", testListRecords},
}

func mustPutRecord(t testing.TB, s store.Store, r store.Record) store.Record {
	t.Helper()
	got, err := s.PutRecord(t.Context(), r)
	if err != nil {
		t.Fatalf("PutRecord(%s/%s v%d): %v", r.Kind, r.ID, r.Version, err)
	}
	return got
}

// sameRecord reports how got differs from want in kind, id, version, body and expiry, or "".
// Expiry is compared to the millisecond, the precision every backend keeps.
func sameRecord(got, want store.Record) string {
	switch {
	case got.Kind != want.Kind || got.ID != want.ID:
		return fmt.Sprintf("record %s/%s, want %s/%s", got.Kind, got.ID, want.Kind, want.ID)
	case got.Version != want.Version:
		return fmt.Sprintf("record %s/%s: version %d, want %d", want.Kind, want.ID, got.Version, want.Version)
	case !bytes.Equal(got.Body, want.Body):
		return fmt.Sprintf("record %s/%s: body %q, want %q", want.Kind, want.ID, clip(got.Body), clip(want.Body))
	case got.ExpiresAt.IsZero() != want.ExpiresAt.IsZero():
		return fmt.Sprintf("record %s/%s: expires %v, want %v", want.Kind, want.ID, got.ExpiresAt, want.ExpiresAt)
	case !want.ExpiresAt.IsZero() && got.ExpiresAt.Sub(want.ExpiresAt).Abs() >= time.Millisecond:
		return fmt.Sprintf("record %s/%s: expires %v, want %v", want.Kind, want.ID, got.ExpiresAt, want.ExpiresAt)
	}
	return ""
}

func testRecordCreate(t *testing.T, s store.Store) {
	ctx := t.Context()
	binary := []byte{0, 1, 2, 0xff, '"', '\\', 0}
	far := time.Now().Add(48 * time.Hour)
	cases := []store.Record{
		{Kind: "apikey", ID: "k1", Body: []byte(`{"scope":"read"}`)},
		{Kind: "apikey", ID: "k2", Body: binary},
		{Kind: "apikey", ID: "k3"},
		{Kind: "jti", ID: "with spaces/and:colons ü", Body: []byte("x"), ExpiresAt: far},
	}
	for _, r := range cases {
		got := mustPutRecord(t, s, r)
		want := r
		want.Version = 1
		if diff := sameRecord(got, want); diff != "" {
			t.Errorf("PutRecord returned %s", diff)
		}
		read, err := s.GetRecord(ctx, r.Kind, r.ID)
		if err != nil {
			t.Fatalf("GetRecord(%s/%s): %v", r.Kind, r.ID, err)
		}
		if diff := sameRecord(read, want); diff != "" {
			t.Errorf("GetRecord returned %s", diff)
		}
		// Creating again over a live record loses.
		_, err = s.PutRecord(ctx, store.Record{Kind: r.Kind, ID: r.ID, Body: []byte("other")})
		wantErr(t, err, store.ErrConflict, "create over a live record")
		if read, _ := s.GetRecord(ctx, r.Kind, r.ID); !bytes.Equal(read.Body, r.Body) || read.Version != 1 {
			t.Errorf("a lost create changed the record: %q v%d", read.Body, read.Version)
		}
	}
	// The store keeps its own copy of the body.
	body := []byte("abc")
	mustPutRecord(t, s, store.Record{Kind: "k", ID: "copy", Body: body})
	body[0] = 'X'
	read, _ := s.GetRecord(ctx, "k", "copy")
	read.Body[1] = 'Y'
	if again, _ := s.GetRecord(ctx, "k", "copy"); string(again.Body) != "abc" {
		t.Errorf("record body aliased the caller's slices: %q", again.Body)
	}
	_, err := s.GetRecord(ctx, "apikey", "missing")
	wantErr(t, err, store.ErrNotFound, "GetRecord of a missing record")
}

func testRecordCAS(t *testing.T, s store.Store) {
	ctx := t.Context()
	r := mustPutRecord(t, s, store.Record{Kind: "client", ID: "c1", Body: []byte("v1")})
	r.Body = []byte("v2")
	r2 := mustPutRecord(t, s, r)
	if r2.Version != 2 || string(r2.Body) != "v2" {
		t.Fatalf("CAS from version 1 returned v%d %q, want v2 \"v2\"", r2.Version, r2.Body)
	}
	for _, stale := range []int64{1, 3, 100} {
		_, err := s.PutRecord(ctx, store.Record{Kind: "client", ID: "c1", Version: stale, Body: []byte("stale")})
		wantErr(t, err, store.ErrConflict, fmt.Sprintf("CAS with version %d when the record is at 2", stale))
	}
	got, err := s.GetRecord(ctx, "client", "c1")
	if err != nil || got.Version != 2 || string(got.Body) != "v2" {
		t.Fatalf("after lost CAS: v%d %q %v, want v2 \"v2\"", got.Version, got.Body, err)
	}
	// Versions keep counting.
	for want := int64(3); want <= 6; want++ {
		got.Body = fmt.Appendf(nil, "v%d", want)
		got = mustPutRecord(t, s, got)
		if got.Version != want {
			t.Fatalf("version %d, want %d", got.Version, want)
		}
	}
	// A CAS on a record that does not exist is a conflict: the version it expects is not there.
	_, err = s.PutRecord(ctx, store.Record{Kind: "client", ID: "absent", Version: 1})
	wantErr(t, err, store.ErrConflict, "CAS on an absent record")
	_, err = s.GetRecord(ctx, "client", "absent")
	wantErr(t, err, store.ErrNotFound, "GetRecord after a CAS on an absent record")
	// A CAS may add and remove an expiry.
	got.ExpiresAt = time.Now().Add(time.Hour)
	withExpiry := mustPutRecord(t, s, got)
	if read, _ := s.GetRecord(ctx, "client", "c1"); sameRecord(read, withExpiry) != "" {
		t.Errorf("after setting an expiry: %s", sameRecord(read, withExpiry))
	}
	withExpiry.ExpiresAt = time.Time{}
	noExpiry := mustPutRecord(t, s, withExpiry)
	if read, _ := s.GetRecord(ctx, "client", "c1"); sameRecord(read, noExpiry) != "" {
		t.Errorf("after removing the expiry: %s", sameRecord(read, noExpiry))
	}
}

func testRecordDelete(t *testing.T, s store.Store) {
	ctx := t.Context()
	r := mustPutRecord(t, s, store.Record{Kind: "sub", ID: "s1", Body: []byte("x")})
	r = mustPutRecord(t, s, r) // version 2

	wantErr(t, s.DeleteRecord(ctx, "sub", "s1", 1), store.ErrConflict, "delete with a stale version")
	wantErr(t, s.DeleteRecord(ctx, "sub", "s1", 3), store.ErrConflict, "delete with a future version")
	if _, err := s.GetRecord(ctx, "sub", "s1"); err != nil {
		t.Fatalf("record gone after a delete that lost: %v", err)
	}
	if err := s.DeleteRecord(ctx, "sub", "s1", r.Version); err != nil {
		t.Fatalf("delete with the right version: %v", err)
	}
	_, err := s.GetRecord(ctx, "sub", "s1")
	wantErr(t, err, store.ErrNotFound, "GetRecord after delete")
	wantErr(t, s.DeleteRecord(ctx, "sub", "s1", 0), store.ErrNotFound, "delete of a deleted record")
	wantErr(t, s.DeleteRecord(ctx, "sub", "s1", 2), store.ErrNotFound, "delete of a deleted record with a version")
	wantErr(t, s.DeleteRecord(ctx, "sub", "never", 0), store.ErrNotFound, "delete of an absent record")

	// Version 0 deletes whatever is there.
	r = mustPutRecord(t, s, store.Record{Kind: "sub", ID: "s2"})
	mustPutRecord(t, s, r)
	if err := s.DeleteRecord(ctx, "sub", "s2", 0); err != nil {
		t.Fatalf("delete with version 0: %v", err)
	}
	// After a delete the id may be created afresh, starting again at version 1.
	again := mustPutRecord(t, s, store.Record{Kind: "sub", ID: "s1", Body: []byte("new")})
	if again.Version != 1 {
		t.Errorf("re-created record has version %d, want 1", again.Version)
	}
	if recs, err := s.ListRecords(ctx, "sub", "", 10); err != nil || len(recs) != 1 || recs[0].ID != "s1" {
		t.Errorf("ListRecords after deletes = %v, %v; want only s1", recs, err)
	}
}

func testRecordKinds(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustPutRecord(t, s, store.Record{Kind: "a", ID: "x", Body: []byte("a")})
	mustPutRecord(t, s, store.Record{Kind: "b", ID: "x", Body: []byte("b")})
	// A kind whose name extends another's must stay separate too.
	mustPutRecord(t, s, store.Record{Kind: "a.b", ID: "x", Body: []byte("a.b")})
	for _, k := range []string{"a", "b", "a.b"} {
		r, err := s.GetRecord(ctx, k, "x")
		if err != nil || string(r.Body) != k || r.Version != 1 {
			t.Errorf("GetRecord(%s, x) = %q v%d %v", k, r.Body, r.Version, err)
		}
		recs, err := s.ListRecords(ctx, k, "", 10)
		if err != nil || len(recs) != 1 || string(recs[0].Body) != k {
			t.Errorf("ListRecords(%s) = %v, %v", k, recs, err)
		}
	}
	if err := s.DeleteRecord(ctx, "a", "x", 1); err != nil {
		t.Fatal(err)
	}
	if r, err := s.GetRecord(ctx, "b", "x"); err != nil || string(r.Body) != "b" {
		t.Errorf("deleting a/x touched b/x: %q %v", r.Body, err)
	}
	// Records never show up as documents or generations.
	gens, err := s.Generations(ctx)
	if err != nil || len(gens) != 0 {
		t.Errorf("Generations() = %q, %v with only records stored", gens, err)
	}
}

func testListRecords(t *testing.T, s store.Store) {
	ctx := t.Context()
	want := []string{"A", "a", "a0", "aa", "b", "key-01", "key-02", "key-10", "z", "ü"}
	// Created out of order; a neighbouring kind and an expired record must not be listed.
	for _, i := range []int{5, 2, 9, 0, 7, 3, 8, 1, 6, 4} {
		mustPutRecord(t, s, store.Record{Kind: "key", ID: want[i], Body: []byte(want[i])})
	}
	mustPutRecord(t, s, store.Record{Kind: "keys", ID: "b0"})
	mustPutRecord(t, s, store.Record{Kind: "ke", ID: "y"})
	mustPutRecord(t, s, store.Record{Kind: "key", ID: "expired", ExpiresAt: time.Now().Add(-time.Minute)})

	list := func(after string, limit int) []string {
		t.Helper()
		recs, err := s.ListRecords(ctx, "key", after, limit)
		if err != nil {
			t.Fatalf("ListRecords(key, %q, %d): %v", after, limit, err)
		}
		var out []string
		for _, r := range recs {
			if r.Kind != "key" || string(r.Body) != r.ID || r.Version != 1 {
				t.Errorf("listed record %s/%s v%d body %q", r.Kind, r.ID, r.Version, r.Body)
			}
			out = append(out, r.ID)
		}
		return out
	}
	cases := []struct {
		after string
		limit int
		want  []string
	}{
		{"", 100, want},
		{"", 3, want[:3]},
		{"a0", 3, []string{"aa", "b", "key-01"}},
		{"a00", 2, []string{"aa", "b"}}, // after need not be an existing id
		{"key-10", 100, []string{"z", "ü"}},
		{"ü", 100, nil},
	}
	for _, tc := range cases {
		if got := list(tc.after, tc.limit); !equalIDs(got, tc.want) {
			t.Errorf("ListRecords(key, %q, %d) = %q, want %q", tc.after, tc.limit, got, tc.want)
		}
	}
	// Paging by the last id visits every record once.
	var all []string
	for after := ""; ; {
		page := list(after, 3)
		all = append(all, page...)
		if len(page) < 3 {
			break
		}
		after = page[len(page)-1]
	}
	if !slices.Equal(all, want) {
		t.Errorf("paging ListRecords by 3 = %q, want %q", all, want)
	}
	if got := list("", 0); !equalIDs(got, want) {
		t.Errorf("ListRecords with limit 0 = %q, want %q", got, want)
	}
	recs, err := s.ListRecords(ctx, "empty", "", 10)
	if err != nil || len(recs) != 0 {
		t.Errorf("ListRecords of an unused kind = %v, %v", recs, err)
	}
}
