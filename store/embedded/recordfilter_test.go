package embedded

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"providerdir/store"
)

// A store reopened builds its record filter from what it holds: every record and counter
// written before is found again, and keys never written are mostly answered by the filter.
func TestRecordFilterAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(dir, WithCacheSize(8<<20))
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	for i := range n {
		if _, err := s.PutRecord(ctx, store.Record{Kind: "quota", ID: fmt.Sprint("subject-", i), Body: []byte("{}"), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Incr(ctx, fmt.Sprint("counter-", i), 1, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, WithCacheSize(8<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.records.base != 2*n {
		t.Errorf("the filter was built from %d keys, want %d", s.records.base, 2*n)
	}
	for i := range n {
		if _, err := s.GetRecord(ctx, "quota", fmt.Sprint("subject-", i)); err != nil {
			t.Fatalf("record %d after reopening: %v", i, err)
		}
		if v, err := s.Incr(ctx, fmt.Sprint("counter-", i), 1, time.Time{}); err != nil || v != 2 {
			t.Fatalf("counter %d after reopening: %d, %v; want 2", i, v, err)
		}
	}
	held := 0
	for i := range n {
		if s.records.mayHold(recordKey("quota", fmt.Sprint("absent-", i))) {
			held++
		}
	}
	if held > n/20 {
		t.Errorf("the filter holds %d of %d keys never written", held, n)
	}
	if _, err := s.GetRecord(ctx, "quota", "absent-0"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("absent record: %v, want ErrNotFound", err)
	}
}

// Records created while the filter is built again are all found after it: the build and the
// writers race, and a key the build's scan missed must be in the new filter anyway.
func TestRecordFilterRebuildUnderWrites(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	const rounds, writers, each = 20, 4, 100
	for r := range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, writers+1)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if _, err := s.PutRecord(ctx, store.Record{Kind: "guard", ID: fmt.Sprintf("r%d-w%d-%d", r, w, i), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.rebuildRecordFilter(); err != nil {
				errs <- err
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for w := range writers {
			for i := range each {
				if _, err := s.GetRecord(ctx, "guard", fmt.Sprintf("r%d-w%d-%d", r, w, i)); err != nil {
					t.Fatalf("round %d: record w%d-%d: %v", r, w, i, err)
				}
			}
		}
	}
}

// A rebuild is due once the filter has taken in as many keys again as its build found, and not
// before the floor.
func TestRecordFilterDue(t *testing.T) {
	for _, tc := range []struct {
		base, added int
		want        bool
	}{
		{0, recordFilterFloor - 1, false},
		{0, recordFilterFloor, true},
		{3 * recordFilterFloor, 2 * recordFilterFloor, false},
		{3 * recordFilterFloor, 3 * recordFilterFloor, true},
	} {
		f := recordFilter{cur: newIDFilter(16), base: tc.base, added: tc.added}
		if got := f.due(); got != tc.want {
			t.Errorf("base %d, added %d: due %v, want %v", tc.base, tc.added, got, tc.want)
		}
	}
}
