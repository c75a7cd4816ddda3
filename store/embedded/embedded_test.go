package embedded

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/testing/storecontract"
)

func open(t testing.TB, opts ...Option) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), append([]Option{WithCacheSize(8 << 20), WithMemTableSize(4 << 20)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Error(err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storecontract.Run(t, func(t *testing.T) store.Store { return open(t) })
}

// TestConformancePlanner runs the suite again with the query planner's probe cut short, so
// that the small test data drives the strategies otherwise reserved for large collections.
// With a cap of 1 no condition ever counts as small: leapfrog intersection, the unbounded
// candidate scan and the ordered index walk answer everything. With a cap of 3 the small
// conditions of the test data are found and the large ones are not, mixing the strategies.
func TestConformancePlanner(t *testing.T) {
	if testing.Short() {
		t.Skip("the suite already ran with the default planner")
	}
	for _, cap := range []int{1, 3} {
		t.Run(fmt.Sprintf("probeCap=%d", cap), func(t *testing.T) {
			t.Parallel()
			storecontract.Run(t, func(t *testing.T) store.Store {
				return open(t, func(c *config) { c.probeCap = cap })
			})
		})
	}
}

// TestConformanceLoadRuns runs the suite with bulk loads spilling a run every few documents and
// merging at most three at once, so that commits merge many runs in several passes and versions
// of a document meet across runs.
func TestConformanceLoadRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("the suite already ran with the default load buffer")
	}
	t.Parallel()
	storecontract.Run(t, func(t *testing.T) store.Store {
		return open(t, func(c *config) { c.loadBuffer, c.loadFanIn = 2048, 3 })
	})
}

// BenchmarkStore measures the store as deployed: default cache and memtable sizes.
func BenchmarkStore(b *testing.B) {
	storecontract.Bench(b, func(b *testing.B) store.Store {
		s, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// TestReopen checks that documents, index entries, counts, records, counters and the serving
// pointer survive closing and reopening the directory.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := store.NewGeneration(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	docs := []store.Document{
		{ID: "a", Body: []byte(`{"a":1}`), Keys: []store.Key{{Param: "state", Value: "CA"}, {Param: "name", Value: "smith"}}},
		{ID: "b", Body: []byte(`{"b":2}`), Keys: []store.Key{{Param: "state", Value: "NY"}, {Param: "name", Value: "smythe"}}},
	}
	if err := s.Put(ctx, gen, "practitioner", docs); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Switch(ctx, s, store.Snapshot{}, map[string]string{"practitioner": gen}, "load")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutRecord(ctx, store.Record{Kind: "apikey", ID: "k", Body: []byte("secret-hash")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := store.Serving(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != snap.Version || got.Generation("practitioner") != gen || got.Label != "load" {
		t.Fatalf("serving pointer after reopen = %+v, want version %d serving %s", got, snap.Version, gen)
	}
	d, err := s.Get(ctx, gen, "practitioner", "b")
	if err != nil || string(d.Body) != `{"b":2}` || len(d.Keys) != 2 {
		t.Fatalf("Get after reopen: %+v, %v", d, err)
	}
	p, err := s.Find(ctx, store.Query{Generation: gen, Collection: "practitioner",
		Where: []store.Condition{{Param: "name", Values: []string{"sm"}, Match: store.Prefix}}, OrderBy: "state", Descending: true})
	if err != nil || len(p.Docs) != 2 || p.Docs[0].ID != "b" || p.Docs[1].ID != "a" {
		t.Fatalf("Find after reopen: %v, %v", p.Docs, err)
	}
	if n, err := s.Count(ctx, store.Query{Generation: gen, Collection: "practitioner"}); err != nil || n != 2 {
		t.Fatalf("Count after reopen = %d, %v", n, err)
	}
	if r, err := s.GetRecord(ctx, "apikey", "k"); err != nil || string(r.Body) != "secret-hash" || r.Version != 1 {
		t.Fatalf("record after reopen: %+v, %v", r, err)
	}
	// The generation counter continued: no generation id is handed out twice.
	next, err := store.NewGeneration(ctx, s)
	if err != nil || next <= gen {
		t.Fatalf("NewGeneration after reopen = %q, %v; want after %q", next, err, gen)
	}
	// A second process cannot open a directory in use.
	if other, err := Open(dir); err == nil {
		other.Close()
		t.Fatal("a second Open of a directory in use succeeded")
	}
}

// TestSweep checks that the sweep reclaims expired records and counters (and their expiry
// entries) and leaves live ones.
func TestSweep(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	past, future := time.Now().Add(-time.Minute), time.Now().Add(time.Hour)
	for _, r := range []store.Record{
		{Kind: "jti", ID: "old1", ExpiresAt: past},
		{Kind: "jti", ID: "old2", ExpiresAt: past.Add(time.Second)},
		{Kind: "jti", ID: "new", ExpiresAt: future},
		{Kind: "jti", ID: "forever"},
	} {
		if _, err := s.PutRecord(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Incr(ctx, "window", 1, past); err != nil {
		t.Fatal(err)
	}
	// A record rewritten to a later expiry must not be swept by its old entry.
	r, err := s.PutRecord(ctx, store.Record{Kind: "jti", ID: "moved", ExpiresAt: future})
	if err != nil {
		t.Fatal(err)
	}
	r.ExpiresAt = future.Add(time.Hour)
	if _, err := s.PutRecord(ctx, r); err != nil {
		t.Fatal(err)
	}

	n, err := s.sweep(time.Now())
	if err != nil || n != 3 {
		t.Fatalf("sweep deleted %d, %v; want 3", n, err)
	}
	for _, k := range [][]byte{recordKey("jti", "old1"), recordKey("jti", "old2"), counterKey("window")} {
		if _, found, _ := s.readStored(k); found {
			t.Errorf("%q still stored after the sweep", k)
		}
	}
	for _, id := range []string{"new", "forever", "moved"} {
		if _, err := s.GetRecord(ctx, "jti", id); err != nil {
			t.Errorf("live record %s after the sweep: %v", id, err)
		}
	}
	// Only the live records' expiry entries remain.
	keys, err := s.expiredKeys([]byte{tagExpiry, 0}, []byte{tagExpiry, 1})
	if err != nil || len(keys) != 2 {
		t.Errorf("expiry entries after the sweep: %d, %v; want 2", len(keys), err)
	}
	if n, err := s.sweep(time.Now()); err != nil || n != 0 {
		t.Errorf("second sweep deleted %d, %v", n, err)
	}
}
