package quota

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

var minute5 = Policy{Name: "m5", Windows: []Window{{Name: NameMinute, Length: time.Minute, Step: time.Second, Limit: 5}}}

// stored returns how many requests the stored record of subject under p counts at now, and
// its expiry; 0 and the zero time when there is no record.
func stored(t *testing.T, s store.Store, p Policy, subject string, now time.Time) (int64, time.Time) {
	t.Helper()
	rec, err := s.GetRecord(context.Background(), RecordKind, p.Name+"/"+subject)
	if errors.Is(err, store.ErrNotFound) {
		return 0, time.Time{}
	}
	if err != nil {
		t.Fatal(err)
	}
	states, err := decode(rec.Body, p)
	if err != nil {
		t.Fatal(err)
	}
	return evaluate(states, now, 1).States[0].Used, rec.ExpiresAt
}

func allowTimes(t *testing.T, l *Limiter, p Policy, subject string, n int) Decision {
	t.Helper()
	var d Decision
	for range n {
		var err error
		if d, err = l.Allow(context.Background(), p, subject); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// A local limiter's counts reach the store when it writes behind and when it closes, and a
// limiter opened after it goes on from them.
func TestLocalWritesBehind(t *testing.T) {
	s := backends.Embedded(t)
	clock := handclock.New()
	l := NewLocal(s, clock.Now, time.Hour, nil)
	allowTimes(t, l, minute5, "a", 2)
	if n, _ := stored(t, s, minute5, "a", clock.Now()); n != 0 {
		t.Fatalf("the store holds %d requests before the write-behind", n)
	}
	writeBehind(t, l)
	n, expires := stored(t, s, minute5, "a", clock.Now())
	if want := clock.Now().Truncate(time.Second).Add(time.Second + time.Minute); n != 2 || !expires.Equal(want) {
		t.Fatalf("after the write-behind the store holds %d requests expiring %s, want 2 expiring %s", n, expires, want)
	}
	allowTimes(t, l, minute5, "a", 1)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if n, _ := stored(t, s, minute5, "a", clock.Now()); n != 3 {
		t.Fatalf("after Close the store holds %d requests, want 3", n)
	}
	if _, err := l.Allow(context.Background(), minute5, "a"); !errors.Is(err, errClosed) {
		t.Fatalf("a decision after Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}

	next := openLocal(t, s, clock.Now)
	if d := allowTimes(t, next, minute5, "a", 2); !d.Allowed || d.States[0].Remaining != 0 {
		t.Fatalf("the next limiter's 4th and 5th requests: %+v", d)
	}
	if d := allowTimes(t, next, minute5, "a", 1); d.Allowed {
		t.Fatal("the next limiter admitted a 6th request in the minute")
	}
}

// A subject metered in neither of two write-behind passes is dropped from memory, and its next
// request reads its windows from the store again.
func TestLocalDropsIdleSubjects(t *testing.T) {
	s := backends.Embedded(t)
	clock := handclock.New()
	l := openLocal(t, s, clock.Now)
	m := l.m.(*localMeter)
	allowTimes(t, l, minute5, "idle", 2)
	allowTimes(t, l, minute5, "busy", 1)
	writeBehind(t, l) // writes both
	allowTimes(t, l, minute5, "busy", 1)
	writeBehind(t, l) // writes busy; idle was not metered since the last pass: dropped
	if got := m.held(); got != 1 {
		t.Fatalf("%d subjects held, want 1 (busy)", got)
	}
	writeBehind(t, l) // busy was written and not metered since: dropped
	if got := m.held(); got != 0 {
		t.Fatalf("%d subjects held, want none", got)
	}
	if d := allowTimes(t, l, minute5, "idle", 3); !d.Allowed || d.States[0].Remaining != 0 {
		t.Fatalf("idle's 3rd to 5th requests after it was dropped: %+v", d)
	}
	if d := allowTimes(t, l, minute5, "idle", 1); d.Allowed {
		t.Fatal("a dropped subject forgot its counts")
	}
}

// The stored record is not always the one the limiter last wrote; its own windows win.
func TestLocalWritesOverAForeignRecord(t *testing.T) {
	tests := []struct {
		name   string
		change func(ctx context.Context, s store.Store, rec store.Record) error
	}{
		{"deleted", func(ctx context.Context, s store.Store, rec store.Record) error {
			return s.DeleteRecord(ctx, RecordKind, rec.ID, 0)
		}},
		{"rewritten", func(ctx context.Context, s store.Store, rec store.Record) error {
			_, err := s.PutRecord(ctx, rec) // the same body at the next version
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := backends.Embedded(t)
			clock := handclock.New()
			l := openLocal(t, s, clock.Now)
			allowTimes(t, l, minute5, "a", 1)
			writeBehind(t, l)
			rec, err := s.GetRecord(ctx, RecordKind, "m5/a")
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.change(ctx, s, rec); err != nil {
				t.Fatal(err)
			}
			allowTimes(t, l, minute5, "a", 2)
			writeBehind(t, l)
			if n, _ := stored(t, s, minute5, "a", clock.Now()); n != 3 {
				t.Fatalf("the store holds %d requests, want 3", n)
			}
		})
	}
}

// Windows that count nothing any more by the time they are written leave no record behind,
// rather than one that never expires.
func TestLocalWritesNoEmptyRecord(t *testing.T) {
	s := backends.Embedded(t)
	clock := handclock.New()
	l := openLocal(t, s, clock.Now)
	allowTimes(t, l, minute5, "a", 1)
	writeBehind(t, l)
	allowTimes(t, l, minute5, "a", 1)
	clock.Advance(2 * time.Minute)
	if _, err := l.Peek(context.Background(), minute5, "a"); err != nil { // prunes both requests
		t.Fatal(err)
	}
	writeBehind(t, l)
	if _, err := s.GetRecord(context.Background(), RecordKind, "m5/a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the emptied windows' record: %v", err)
	}
}

// failingStore is a real store whose record reads and writes fail while fail is set.
type failingStore struct {
	store.Store
	fail atomic.Bool
}

var errInjected = errors.New("injected failure")

func (f *failingStore) GetRecord(ctx context.Context, kind, id string) (store.Record, error) {
	if f.fail.Load() {
		return store.Record{}, errInjected
	}
	return f.Store.GetRecord(ctx, kind, id)
}

func (f *failingStore) PutRecord(ctx context.Context, r store.Record) (store.Record, error) {
	if f.fail.Load() {
		return store.Record{}, errInjected
	}
	return f.Store.PutRecord(ctx, r)
}

// A failed read refuses the decision with an error and a failed write keeps the counts for the
// next pass; nothing is lost or counted twice.
func TestLocalStoreFailures(t *testing.T) {
	s := &failingStore{Store: backends.Embedded(t)}
	clock := handclock.New()
	l := openLocal(t, s, clock.Now)
	s.fail.Store(true)
	if _, err := l.Allow(context.Background(), minute5, "a"); !errors.Is(err, errInjected) {
		t.Fatalf("a decision whose windows could not be read: %v", err)
	}
	s.fail.Store(false)
	allowTimes(t, l, minute5, "a", 2)
	s.fail.Store(true)
	if err := l.m.(*localMeter).writeBehind(context.Background()); !errors.Is(err, errInjected) {
		t.Fatalf("a write-behind whose write failed: %v", err)
	}
	s.fail.Store(false)
	if n, _ := stored(t, s, minute5, "a", clock.Now()); n != 0 {
		t.Fatalf("a failed write stored %d requests", n)
	}
	writeBehind(t, l)
	if n, _ := stored(t, s, minute5, "a", clock.Now()); n != 2 {
		t.Fatalf("the store holds %d requests after the retried write, want 2", n)
	}
}

// Decisions racing write-behind passes, which write and drop subjects under them, admit exactly
// each subject's limit, and what is finally stored is what was admitted: none is counted into a
// subject a pass has just dropped.
func TestLocalRacesWriteBehind(t *testing.T) {
	tests := []struct {
		name  string
		limit int64
		asks  int // per worker
	}{
		{"every request admitted", 1 << 20, 3000},
		{"limits reached", 50, 3000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Policy{Name: "race", Windows: []Window{{Name: NameMinute, Length: time.Minute, Step: time.Second, Limit: tt.limit}}}
			s := backends.Embedded(t)
			clock := handclock.New()
			l := NewLocal(s, clock.Now, time.Hour, nil)
			m := l.m.(*localMeter)
			const subjects, workers = 64, 8
			var admitted, asked [subjects]atomic.Int64
			stop := make(chan struct{})
			passes := make(chan error, 1)
			go func() {
				for {
					select {
					case <-stop:
						passes <- nil
						return
					default:
					}
					if err := m.writeBehind(context.Background()); err != nil {
						passes <- err
						return
					}
				}
			}()
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range tt.asks {
						// Each worker sweeps the subjects at its own pace, so that most are
						// idle for a pass or two between requests and get dropped.
						k := (w*7 + i*(1+w%3)) % subjects
						asked[k].Add(1)
						d, err := l.Allow(context.Background(), p, fmt.Sprint("s", k))
						if err != nil {
							t.Error(err)
							return
						}
						if d.Allowed {
							admitted[k].Add(1)
						}
					}
				})
			}
			wg.Wait()
			close(stop)
			if err := <-passes; err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			for k := range subjects {
				got := admitted[k].Load()
				if want := min(asked[k].Load(), tt.limit); got != want {
					t.Errorf("subject %d: %d admitted in one minute, want %d", k, got, want)
				}
				if n, _ := stored(t, s, p, fmt.Sprint("s", k), clock.Now()); n != got {
					t.Errorf("subject %d: %d admitted, %d stored", k, got, n)
				}
			}
		})
	}
}

// held is how many subjects the meter holds in memory.
func (m *localMeter) held() int { return m.subjects.len() }
