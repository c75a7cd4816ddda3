package storecontract

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"providerdir/store"
)

var updateTests = []test{
	{"Contract", testUpdateContract},
	{"ConcurrentLosesNothing", testUpdateConcurrent},
	{"ContextEndsRetries", testUpdateContextEnds},
}

// errRefused is a change function's own error in the update tests.
var errRefused = errors.New("refused by the change")

// bump returns old with its body, a decimal number (empty is 0), one higher.
func bump(old store.Record) store.Record {
	n, _ := strconv.Atoi(string(old.Body))
	old.Body = []byte(strconv.Itoa(n + 1))
	return old
}

// testUpdateContract holds store.Update to each outcome its doc promises, on the backend: what
// is written, what is returned, and how often the change function is called.
func testUpdateContract(t *testing.T, s store.Store) {
	far := time.Now().Add(48 * time.Hour).Truncate(time.Millisecond)
	const kind = "upd"
	cases := []struct {
		name   string
		stored *store.Record // the record in place before Update, if any
		opts   []store.UpdateOption
		change func(s store.Store, old store.Record) (store.Record, error)
		// wantErr is the error Update returns; want is then what it returns (on success) and
		// what the store holds afterwards (nil: no record).
		wantErr   error
		want      *store.Record
		wantCalls int
	}{
		{
			name:    "absent without create is not found and never changed",
			change:  func(_ store.Store, old store.Record) (store.Record, error) { return bump(old), nil },
			wantErr: store.ErrNotFound,
		},
		{
			name: "absent with create is created from a bare record",
			opts: []store.UpdateOption{store.CreateIfAbsent()},
			change: func(_ store.Store, old store.Record) (store.Record, error) {
				if old.Version != 0 || old.Body != nil || old.Kind != kind || old.ID == "" {
					return old, errors.New("create did not start from a bare record")
				}
				return bump(old), nil
			},
			want:      &store.Record{Version: 1, Body: []byte("1")},
			wantCalls: 1,
		},
		{
			name:      "present is swapped at the version read",
			stored:    &store.Record{Body: []byte("41")},
			change:    func(_ store.Store, old store.Record) (store.Record, error) { return bump(old), nil },
			want:      &store.Record{Version: 2, Body: []byte("42")},
			wantCalls: 1,
		},
		{
			name:      "the change's error is returned and nothing written",
			stored:    &store.Record{Body: []byte("7")},
			change:    func(store.Store, store.Record) (store.Record, error) { return store.Record{}, errRefused },
			wantErr:   errRefused,
			want:      &store.Record{Version: 1, Body: []byte("7")},
			wantCalls: 1,
		},
		{
			name:      "skip write returns the record as read",
			stored:    &store.Record{Body: []byte("7"), ExpiresAt: far},
			change:    func(store.Store, store.Record) (store.Record, error) { return store.Record{}, store.SkipWrite },
			want:      &store.Record{Version: 1, Body: []byte("7"), ExpiresAt: far},
			wantCalls: 1,
		},
		{
			name:      "skip write on an absent record returns a bare record",
			opts:      []store.UpdateOption{store.CreateIfAbsent()},
			change:    func(store.Store, store.Record) (store.Record, error) { return store.Record{}, store.SkipWrite },
			wantCalls: 1,
		},
		{
			name:      "a change from old keeps its expiry",
			stored:    &store.Record{Body: []byte("1"), ExpiresAt: far},
			change:    func(_ store.Store, old store.Record) (store.Record, error) { return bump(old), nil },
			want:      &store.Record{Version: 2, Body: []byte("2"), ExpiresAt: far},
			wantCalls: 1,
		},
		{
			name:      "a record built afresh sets its own expiry",
			stored:    &store.Record{Body: []byte("1"), ExpiresAt: far},
			change:    func(store.Store, store.Record) (store.Record, error) { return store.Record{Body: []byte("x")}, nil },
			want:      &store.Record{Version: 2, Body: []byte("x")},
			wantCalls: 1,
		},
		{
			name:   "the key and version the change returns are ignored",
			stored: &store.Record{Body: []byte("1")},
			change: func(store.Store, store.Record) (store.Record, error) {
				return store.Record{Kind: "elsewhere", ID: "other", Version: 99, Body: []byte("y")}, nil
			},
			want:      &store.Record{Version: 2, Body: []byte("y")},
			wantCalls: 1,
		},
		{
			name:   "an expired record is absent",
			stored: &store.Record{Body: []byte("old"), ExpiresAt: time.Now().Add(-time.Second)},
			opts:   []store.UpdateOption{store.CreateIfAbsent()},
			change: func(_ store.Store, old store.Record) (store.Record, error) {
				if old.Version != 0 {
					return old, errors.New("an expired record was handed to the change")
				}
				return bump(old), nil
			},
			want:      &store.Record{Version: 1, Body: []byte("1")},
			wantCalls: 1,
		},
		{
			name:   "a lost race is retried on the newer record",
			stored: &store.Record{Body: []byte("10")},
			change: func(s store.Store, old store.Record) (store.Record, error) {
				if string(old.Body) == "10" { // another writer gets in first, once
					if _, err := s.PutRecord(context.Background(), bump(old)); err != nil {
						return old, err
					}
				}
				return bump(old), nil
			},
			want:      &store.Record{Version: 3, Body: []byte("12")},
			wantCalls: 2,
		},
		{
			name:   "every race lost gives up after the attempts",
			stored: &store.Record{Body: []byte("0")},
			opts:   []store.UpdateOption{store.UpdateAttempts(3)},
			change: func(s store.Store, old store.Record) (store.Record, error) {
				if _, err := s.PutRecord(context.Background(), bump(old)); err != nil {
					return old, err
				}
				return bump(old), nil
			},
			wantErr:   store.ErrConflict,
			want:      &store.Record{Version: 4, Body: []byte("3")},
			wantCalls: 3,
		},
		{
			name:   "one attempt reports the lost race",
			stored: &store.Record{Body: []byte("0")},
			opts:   []store.UpdateOption{store.UpdateAttempts(1)},
			change: func(s store.Store, old store.Record) (store.Record, error) {
				if _, err := s.PutRecord(context.Background(), bump(old)); err != nil {
					return old, err
				}
				return bump(old), nil
			},
			wantErr:   store.ErrConflict,
			want:      &store.Record{Version: 2, Body: []byte("1")},
			wantCalls: 1,
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := "r" + strconv.Itoa(i)
			if tc.stored != nil {
				r := *tc.stored
				r.Kind, r.ID = kind, id
				mustPutRecord(t, s, r)
			}
			calls := 0
			got, err := store.Update(t.Context(), s, kind, id, func(old store.Record) (store.Record, error) {
				calls++
				return tc.change(s, old)
			}, tc.opts...)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("Update: %v, want %v", err, tc.wantErr)
			}
			if calls != tc.wantCalls {
				t.Errorf("change called %d times, want %d", calls, tc.wantCalls)
			}
			var want store.Record
			if tc.want != nil {
				want = *tc.want
			}
			want.Kind, want.ID = kind, id
			if err == nil {
				if d := sameRecord(got, want); d != "" {
					t.Errorf("Update returned %s", d)
				}
			}
			held, gerr := s.GetRecord(t.Context(), kind, id)
			switch {
			case tc.want == nil:
				wantErr(t, gerr, store.ErrNotFound, "GetRecord after Update")
			case gerr != nil:
				t.Fatalf("GetRecord after Update: %v", gerr)
			default:
				if d := sameRecord(held, want); d != "" {
					t.Errorf("stored %s", d)
				}
			}
			if _, err := s.GetRecord(t.Context(), "elsewhere", "other"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a record was written under the key the change returned: %v", err)
			}
		})
	}
}

// testUpdateConcurrent: 20 goroutines each add 1 ten times to a number in a record that none of
// them created, through store.Update. Nothing is lost and nothing is created twice.
func testUpdateConcurrent(t *testing.T, s store.Store) {
	const workers, each = 20, 10
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				_, err := store.Update(t.Context(), s, "tally", "u", func(old store.Record) (store.Record, error) {
					return bump(old), nil
				}, store.CreateIfAbsent(), store.UpdateAttempts(10000))
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	r, err := s.GetRecord(t.Context(), "tally", "u")
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Body) != strconv.Itoa(workers*each) || r.Version != workers*each {
		t.Errorf("tally %s at version %d, want %d at version %d", r.Body, r.Version, workers*each, workers*each)
	}
}

// testUpdateContextEnds: an update that keeps losing stops with the context's error once the
// context ends, rather than running out its attempts.
func testUpdateContextEnds(t *testing.T, s store.Store) {
	mustPutRecord(t, s, store.Record{Kind: "upd", ID: "ctx", Body: []byte("0")})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	calls := 0
	_, err := store.Update(ctx, s, "upd", "ctx", func(old store.Record) (store.Record, error) {
		calls++
		if _, err := s.PutRecord(context.Background(), bump(old)); err != nil {
			return old, err
		}
		cancel()
		return bump(old), nil
	}, store.UpdateAttempts(1000))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Update after the context ended: %v, want context.Canceled", err)
	}
	if calls != 1 {
		t.Errorf("change called %d times after the context ended, want 1", calls)
	}
}
