package storecontract

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"providerdir/store"
)

var counterTests = []test{
	{"Sequential", testCounterSequential},
	{"Concurrent", testCounterConcurrent},
}

var concurrencyTests = []test{
	{"CompareAndSwapRace", testCASRace},
	{"CreateRace", testCreateRace},
	{"ReadModifyWriteLosesNothing", testRMWRetries},
	{"ConcurrentPutsKeepIndexConsistent", testConcurrentPuts},
}

func testCounterSequential(t *testing.T, s store.Store) {
	ctx := t.Context()
	steps := []struct {
		name  string
		delta int64
		want  int64
	}{
		{"a", 1, 1}, {"a", 1, 2}, {"a", 1, 3},
		{"b", 1, 1}, // counters are independent
		{"a", 5, 8}, {"a", -10, -2}, {"a", 0, -2},
		{"a.b", 7, 7}, // a name extending another's is another counter
		{"c", 0, 0},   // a zero delta on a new counter reads zero
		{"c", math.MaxInt32, math.MaxInt32},
		{"b", 1, 2},
	}
	for _, st := range steps {
		got, err := s.Incr(ctx, st.name, st.delta, time.Time{})
		if err != nil {
			t.Fatalf("Incr(%s, %d): %v", st.name, st.delta, err)
		}
		if got != st.want {
			t.Errorf("Incr(%s, %d) = %d, want %d", st.name, st.delta, got, st.want)
		}
	}
	// Counters and records are separate namespaces.
	if _, err := s.GetRecord(ctx, "a", "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetRecord(a, a) after Incr(a): %v", err)
	}
}

// testCounterConcurrent: 50 goroutines add 1 twenty times each. The final value is exactly
// 1000, and every call returned a distinct value: no increment was lost or duplicated.
func testCounterConcurrent(t *testing.T, s store.Store) {
	const workers, each = 50, 20
	results := make([][]int64, workers)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := make(chan struct{}) // release all goroutines at once, to make races likely
	for w := range workers {
		wg.Go(func() {
			<-start
			for range each {
				v, err := s.Incr(t.Context(), "hits", 1, time.Time{})
				if err != nil {
					errs <- err
					return
				}
				results[w] = append(results[w], v)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Incr: %v", err)
	}
	var all []int64
	for _, r := range results {
		// One goroutine's calls are sequential, so its values rise.
		if !slices.IsSorted(r) {
			t.Errorf("one goroutine saw values go down: %v", r)
		}
		all = append(all, r...)
	}
	slices.Sort(all)
	for i, v := range all {
		if v != int64(i+1) {
			t.Fatalf("returned values are not exactly 1..%d: position %d holds %d", workers*each, i, v)
		}
	}
	if v, err := s.Incr(t.Context(), "hits", 0, time.Time{}); err != nil || v != workers*each {
		t.Errorf("final value %d, %v; want %d", v, err, workers*each)
	}
}

// testCASRace: in each round 50 goroutines try to move a record from the version they all read
// to the next. Exactly one wins each round; the rest get ErrConflict.
func testCASRace(t *testing.T, s store.Store) {
	const workers, rounds = 50, 5
	cur := mustPutRecord(t, s, store.Record{Kind: "lock", ID: "x", Body: []byte("start")})
	for round := range rounds {
		var wins, conflicts int
		var mu sync.Mutex
		var wg sync.WaitGroup
		var winner string
		start := make(chan struct{})
		for w := range workers {
			wg.Go(func() {
				<-start
				r := cur
				r.Body = fmt.Appendf(nil, "round %d worker %d", round, w)
				got, err := s.PutRecord(t.Context(), r)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
					winner = string(r.Body)
					if got.Version != cur.Version+1 {
						t.Errorf("winner got version %d, want %d", got.Version, cur.Version+1)
					}
				case errors.Is(err, store.ErrConflict):
					conflicts++
				default:
					t.Errorf("PutRecord: %v", err)
				}
			})
		}
		close(start)
		wg.Wait()
		if wins != 1 || conflicts != workers-1 {
			t.Fatalf("round %d: %d winners and %d conflicts, want 1 and %d", round, wins, conflicts, workers-1)
		}
		got, err := s.GetRecord(t.Context(), "lock", "x")
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != cur.Version+1 || string(got.Body) != winner {
			t.Fatalf("round %d: stored v%d %q, want v%d %q", round, got.Version, got.Body, cur.Version+1, winner)
		}
		cur = got
	}
}

// testCreateRace: 50 goroutines create the same record; exactly one succeeds.
func testCreateRace(t *testing.T, s store.Store) {
	const workers = 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	start := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			<-start
			_, err := s.PutRecord(t.Context(), store.Record{Kind: "once", ID: "x", Body: []byte(strconv.Itoa(w))})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				wins++
			} else if !errors.Is(err, store.ErrConflict) {
				t.Errorf("PutRecord: %v", err)
			}
		})
	}
	close(start)
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d creates won, want 1", wins)
	}
}

// testRMWRetries: 20 goroutines each add 1 ten times to a number held in a record body, by
// read, compare-and-swap, and retry on conflict (the pattern callers use). Nothing is lost.
func testRMWRetries(t *testing.T, s store.Store) {
	const workers, each = 20, 10
	mustPutRecord(t, s, store.Record{Kind: "tally", ID: "x", Body: []byte("0")})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				for attempt := 0; ; attempt++ {
					if attempt > 10000 {
						t.Error("compare-and-swap never succeeded")
						return
					}
					r, err := s.GetRecord(t.Context(), "tally", "x")
					if err != nil {
						t.Error(err)
						return
					}
					n, _ := strconv.Atoi(string(r.Body))
					r.Body = []byte(strconv.Itoa(n + 1))
					if _, err = s.PutRecord(t.Context(), r); err == nil {
						break
					} else if !errors.Is(err, store.ErrConflict) {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	r, err := s.GetRecord(t.Context(), "tally", "x")
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Body) != strconv.Itoa(workers*each) || r.Version != workers*each+1 {
		t.Errorf("tally %s at version %d, want %d at version %d", r.Body, r.Version, workers*each, workers*each+1)
	}
}

// testConcurrentPuts: several writers replace an overlapping set of documents at once. In the
// end every document's index entries agree with its stored keys: a search by any writer's key
// finds exactly the documents that writer wrote last, and the count is the number of ids.
func testConcurrentPuts(t *testing.T, s store.Store) {
	const writers, batches, pool = 6, 25, 30
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				var docs []store.Document
				for i := range 5 {
					id := fmt.Sprintf("d%02d", (w*7+b*5+i)%pool)
					docs = append(docs, doc(id, fmt.Sprintf(`{"w":%d,"b":%d}`, w, b),
						"writer", strconv.Itoa(w), "batch", fmt.Sprintf("%d-%d", w, b), "all", "x"))
				}
				if err := s.Put(t.Context(), "g1", "c", docs); err != nil {
					t.Error(err)
					return
				}
				// Readers run alongside the writers.
				if _, err := s.Find(t.Context(), store.Query{Generation: "g1", Collection: "c",
					Where: []store.Condition{exact("all", "x")}, OrderBy: "batch", Limit: 7}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	final := newModel()
	for _, d := range findAll(t, s, store.Query{Generation: "g1", Collection: "c"}, 100) {
		final.put(d)
	}
	if len(final) != pool {
		t.Fatalf("%d documents stored, want %d", len(final), pool)
	}
	if n := mustCount(t, s, store.Query{Generation: "g1", Collection: "c"}); n != pool {
		t.Errorf("Count() = %d, want %d", n, pool)
	}
	queries := []store.Query{{Where: []store.Condition{exact("all", "x")}}, {OrderBy: "batch"}}
	for w := range writers {
		queries = append(queries,
			store.Query{Where: []store.Condition{exact("writer", strconv.Itoa(w))}},
			store.Query{Where: []store.Condition{prefix("batch", strconv.Itoa(w)+"-")}, OrderBy: "batch"})
	}
	for _, q := range queries {
		q.Generation, q.Collection = "g1", "c"
		want := final.query(q)
		if got := ids(findAll(t, s, q, 4)); !equalIDs(got, want) {
			t.Errorf("Find(%s) = %q, want %q", describe(q), got, want)
		}
		if n := mustCount(t, s, q); n != int64(len(want)) {
			t.Errorf("Count(%s) = %d, want %d", describe(q), n, len(want))
		}
	}
}
