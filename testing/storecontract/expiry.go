package storecontract

import (
	"errors"
	"testing"
	"time"

	"providerdir/store"
)

var expiryTests = []test{
	{"Records", testRecordExpiry},
	{"Counters", testCounterExpiry},
}

// expiryDelay is how far ahead the expiring records and counters are set to expire.
const expiryDelay = 1500 * time.Millisecond

// sleepPast sleeps until deadline has certainly passed, with a margin for clock granularity
// between the test and the store.
func sleepPast(deadline time.Time) {
	time.Sleep(time.Until(deadline) + 250*time.Millisecond)
}

func testRecordExpiry(t *testing.T, s store.Store) {
	ctx := t.Context()
	deadline := time.Now().Add(expiryDelay)
	short := mustPutRecord(t, s, store.Record{Kind: "jti", ID: "short", Body: []byte("s"), ExpiresAt: deadline})
	mustPutRecord(t, s, store.Record{Kind: "jti", ID: "long", ExpiresAt: time.Now().Add(time.Hour)})
	mustPutRecord(t, s, store.Record{Kind: "jti", ID: "forever"})
	cas := mustPutRecord(t, s, store.Record{Kind: "jti", ID: "cas", ExpiresAt: deadline})
	del := mustPutRecord(t, s, store.Record{Kind: "jti", ID: "del", ExpiresAt: deadline})
	// An update that removes the expiry keeps the record alive.
	kept := mustPutRecord(t, s, store.Record{Kind: "jti", ID: "kept", ExpiresAt: deadline})
	kept.ExpiresAt = time.Time{}
	mustPutRecord(t, s, kept)

	// A record that expires in the past is absent at once, and may be created again.
	mustPutRecord(t, s, store.Record{Kind: "jti", ID: "past", Body: []byte("old"), ExpiresAt: time.Now().Add(-time.Second)})
	_, err := s.GetRecord(ctx, "jti", "past")
	wantErr(t, err, store.ErrNotFound, "GetRecord of a record created already expired")
	if r := mustPutRecord(t, s, store.Record{Kind: "jti", ID: "past", Body: []byte("new")}); r.Version != 1 {
		t.Errorf("create over an expired record: version %d, want 1", r.Version)
	}

	// Before the deadline the short record is there (checked only if the test got here in time:
	// the suite never depends on how fast the machine is).
	if time.Now().Before(deadline.Add(-500 * time.Millisecond)) {
		if got, err := s.GetRecord(ctx, "jti", "short"); err != nil || sameRecord(got, short) != "" {
			t.Errorf("before expiry: %v %s", err, sameRecord(got, short))
		}
	}
	sleepPast(deadline)

	for _, id := range []string{"short", "cas", "del"} {
		_, err := s.GetRecord(ctx, "jti", id)
		wantErr(t, err, store.ErrNotFound, "GetRecord of expired "+id)
	}
	for _, id := range []string{"long", "forever", "kept", "past"} {
		if _, err := s.GetRecord(ctx, "jti", id); err != nil {
			t.Errorf("GetRecord(%s) after the others expired: %v", id, err)
		}
	}
	recs, err := s.ListRecords(ctx, "jti", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range recs {
		listed = append(listed, r.ID)
	}
	if want := []string{"forever", "kept", "long", "past"}; !equalIDs(listed, want) {
		t.Errorf("ListRecords after expiry = %q, want %q", listed, want)
	}
	// An expired record cannot be updated or deleted: it no longer exists.
	cas.Body = []byte("late")
	_, err = s.PutRecord(ctx, cas)
	wantErr(t, err, store.ErrConflict, "CAS on an expired record")
	wantErr(t, s.DeleteRecord(ctx, "jti", "del", del.Version), store.ErrNotFound, "delete of an expired record")
	wantErr(t, s.DeleteRecord(ctx, "jti", "del", 0), store.ErrNotFound, "delete (version 0) of an expired record")
	// A create takes its place, fresh.
	again := mustPutRecord(t, s, store.Record{Kind: "jti", ID: "short", Body: []byte("again")})
	if again.Version != 1 {
		t.Errorf("create over an expired record: version %d, want 1", again.Version)
	}
	got, err := s.GetRecord(ctx, "jti", "short")
	if err != nil || string(got.Body) != "again" || !got.ExpiresAt.IsZero() {
		t.Errorf("re-created record: %q expires %v, %v", got.Body, got.ExpiresAt, err)
	}
	_, err = s.GetRecord(ctx, "jti", "cas")
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a CAS that lost on an expired record brought it back: %v", err)
	}
}

func testCounterExpiry(t *testing.T, s store.Store) {
	ctx := t.Context()
	incr := func(name string, delta int64, exp time.Time, want int64) {
		t.Helper()
		got, err := s.Incr(ctx, name, delta, exp)
		if err != nil {
			t.Fatalf("Incr(%s): %v", name, err)
		}
		if got != want {
			t.Errorf("Incr(%s, %d) = %d, want %d", name, delta, got, want)
		}
	}
	deadline := time.Now().Add(expiryDelay)
	incr("window", 1, deadline, 1)
	incr("window", 1, time.Time{}, 2)
	// The first expiry stays: a later expiry argument does not extend the window.
	incr("first", 1, deadline, 1)
	incr("first", 1, time.Now().Add(time.Hour), 2)
	// A counter created without expiry never expires, whatever later calls pass.
	incr("plain", 1, time.Time{}, 1)
	incr("plain", 1, deadline, 2)
	// A counter created already expired starts again at the next call.
	incr("past", 3, time.Now().Add(-time.Second), 3)
	incr("past", 3, time.Time{}, 3)
	sleepPast(deadline)

	incr("window", 1, time.Time{}, 1)
	incr("window", 1, time.Time{}, 2)
	incr("first", 5, time.Time{}, 5)
	incr("plain", 1, time.Time{}, 3)
}
