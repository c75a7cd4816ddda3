package storecontract

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"providerdir/store"
)

var validationTests = []test{
	{"InvalidArguments", testInvalidArguments},
	{"RejectedBatchWritesNothing", testRejectedBatch},
	{"DefaultLimit", testDefaultLimit},
}

// badNames are collection, generation, kind and counter names every backend must reject.
var badNames = []string{"", "a b", "a/b", "a\x00b", "a$b", "ä", strings.Repeat("n", 129)}

func testInvalidArguments(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustPut(t, s, "g1", "c", doc("a", `{}`, "k", "v"))
	okDoc := doc("ok", `{}`, "k", "v")
	q := func(mut func(*store.Query)) store.Query {
		q := store.Query{Generation: "g1", Collection: "c"}
		mut(&q)
		return q
	}
	cursorOf := func(raw string) string { return base64.RawURLEncoding.EncodeToString([]byte(raw)) }

	type call struct {
		name string
		do   func(ctx context.Context) error
	}
	var calls []call
	for _, bad := range badNames {
		calls = append(calls,
			call{"Put generation " + bad, func(ctx context.Context) error { return s.Put(ctx, bad, "c", []store.Document{okDoc}) }},
			call{"Put collection " + bad, func(ctx context.Context) error { return s.Put(ctx, "g1", bad, []store.Document{okDoc}) }},
			call{"Get generation " + bad, func(ctx context.Context) error { _, err := s.Get(ctx, bad, "c", "a"); return err }},
			call{"Get collection " + bad, func(ctx context.Context) error { _, err := s.Get(ctx, "g1", bad, "a"); return err }},
			call{"Find generation " + bad, func(ctx context.Context) error {
				_, err := s.Find(ctx, q(func(q *store.Query) { q.Generation = bad }))
				return err
			}},
			call{"Count collection " + bad, func(ctx context.Context) error {
				_, err := s.Count(ctx, q(func(q *store.Query) { q.Collection = bad }))
				return err
			}},
			call{"DropGeneration " + bad, func(ctx context.Context) error { return s.DropGeneration(ctx, bad) }},
			call{"GetRecord kind " + bad, func(ctx context.Context) error { _, err := s.GetRecord(ctx, bad, "a"); return err }},
			call{"PutRecord kind " + bad, func(ctx context.Context) error {
				_, err := s.PutRecord(ctx, store.Record{Kind: bad, ID: "a"})
				return err
			}},
			call{"DeleteRecord kind " + bad, func(ctx context.Context) error { return s.DeleteRecord(ctx, bad, "a", 0) }},
			call{"ListRecords kind " + bad, func(ctx context.Context) error { _, err := s.ListRecords(ctx, bad, "", 10); return err }},
			call{"Incr name " + bad, func(ctx context.Context) error { _, err := s.Incr(ctx, bad, 1, time.Time{}); return err }},
		)
	}
	for _, badID := range []string{"", "a\x00b", strings.Repeat("i", store.MaxIDLen+1)} {
		calls = append(calls,
			call{"Put id " + badID, func(ctx context.Context) error { return s.Put(ctx, "g1", "c", []store.Document{{ID: badID}}) }},
			call{"Get id " + badID, func(ctx context.Context) error { _, err := s.Get(ctx, "g1", "c", badID); return err }},
			call{"GetRecord id " + badID, func(ctx context.Context) error { _, err := s.GetRecord(ctx, "k", badID); return err }},
			call{"PutRecord id " + badID, func(ctx context.Context) error {
				_, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: badID})
				return err
			}},
			call{"DeleteRecord id " + badID, func(ctx context.Context) error { return s.DeleteRecord(ctx, "k", badID, 0) }},
		)
	}
	badKeys := map[string]store.Key{
		"empty param":    {Param: "", Value: "v"},
		"NUL in param":   {Param: "p\x00", Value: "v"},
		"NUL in value":   {Param: "p", Value: "v\x00w"},
		"NUL only value": {Param: "p", Value: "\x00"},
	}
	for name, k := range badKeys {
		calls = append(calls, call{"Put key " + name, func(ctx context.Context) error {
			return s.Put(ctx, "g1", "c", []store.Document{{ID: "x", Keys: []store.Key{{Param: "ok", Value: "ok"}, k}}})
		}})
	}
	badQueries := map[string]store.Query{
		"limit above MaxLimit":     q(func(q *store.Query) { q.Limit = store.MaxLimit + 1 }),
		"cursor not base64":        q(func(q *store.Query) { q.After = "!!!not a cursor" }),
		"cursor not JSON":          q(func(q *store.Query) { q.After = cursorOf("not json") }),
		"cursor without id":        q(func(q *store.Query) { q.After = cursorOf(`{"v":"x"}`) }),
		"cursor of wrong shape":    q(func(q *store.Query) { q.After = cursorOf(`[1,2]`) }),
		"condition without values": q(func(q *store.Query) { q.Where = []store.Condition{{Param: "k"}} }),
		"condition without param":  q(func(q *store.Query) { q.Where = []store.Condition{{Values: []string{"v"}}} }),
		"unknown match":            q(func(q *store.Query) { q.Where = []store.Condition{{Param: "k", Values: []string{"v"}, Match: 7}} }),
		"NUL in condition value": q(func(q *store.Query) {
			q.Where = []store.Condition{{Param: "k", Values: []string{"v", "w\x00"}}}
		}),
		"NUL in condition param": q(func(q *store.Query) { q.Where = []store.Condition{{Param: "k\x00", Values: []string{"v"}}} }),
		"alternative without values": q(func(q *store.Query) {
			q.Where = []store.Condition{{Param: "k", Values: []string{"v"}, Or: []store.Alternative{{Param: "j"}}}}
		}),
		"alternative without param": q(func(q *store.Query) {
			q.Where = []store.Condition{{Param: "k", Values: []string{"v"}, Or: []store.Alternative{{Values: []string{"v"}}}}}
		}),
		"NUL in alternative value": q(func(q *store.Query) {
			q.Where = []store.Condition{{Param: "k", Values: []string{"v"}, Or: []store.Alternative{{Param: "j", Values: []string{"w\x00"}}}}}
		}),
	}
	for name, bq := range badQueries {
		calls = append(calls, call{"Find " + name, func(ctx context.Context) error { _, err := s.Find(ctx, bq); return err }})
		if !strings.HasPrefix(name, "cursor") && !strings.HasPrefix(name, "limit") {
			// Count ignores After and Limit; the rest must be rejected the same way.
			calls = append(calls, call{"Count " + name, func(ctx context.Context) error { _, err := s.Count(ctx, bq); return err }})
		}
	}
	calls = append(calls,
		call{"PutRecord negative version", func(ctx context.Context) error {
			_, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "a", Version: -1})
			return err
		}},
		call{"DeleteRecord negative version", func(ctx context.Context) error { return s.DeleteRecord(ctx, "k", "a", -1) }},
		call{"ListRecords limit above MaxLimit", func(ctx context.Context) error {
			_, err := s.ListRecords(ctx, "k", "", store.MaxLimit+1)
			return err
		}},
	)
	for _, c := range calls {
		wantErr(t, c.do(ctx), store.ErrInvalid, c.name)
	}
	// None of the rejected calls may have written anything.
	if n := mustCount(t, s, store.Query{Generation: "g1", Collection: "c"}); n != 1 {
		t.Errorf("after rejected calls, Count() = %d, want 1", n)
	}
	gens, err := s.Generations(ctx)
	if err != nil || !equalIDs(gens, []string{"g1"}) {
		t.Errorf("after rejected calls, Generations() = %q, %v; want [g1]", gens, err)
	}
}

// testRejectedBatch checks that a batch with one bad document writes none of its documents.
func testRejectedBatch(t *testing.T, s store.Store) {
	batch := []store.Document{doc("good1", `{}`, "k", "v"), {ID: ""}, doc("good2", `{}`, "k", "v")}
	wantErr(t, s.Put(t.Context(), "g1", "c", batch), store.ErrInvalid, "Put with an empty id in the batch")
	for _, id := range []string{"good1", "good2"} {
		_, err := s.Get(t.Context(), "g1", "c", id)
		wantErr(t, err, store.ErrNotFound, "Get "+id+" of a rejected batch")
	}
}

// testDefaultLimit checks that a Limit of zero or less serves DefaultLimit documents per page,
// in Find and in ListRecords.
func testDefaultLimit(t *testing.T, s store.Store) {
	ctx := t.Context()
	var docs []store.Document
	for i := range store.DefaultLimit + 5 {
		docs = append(docs, doc(string(rune('a'+i/10))+string(rune('0'+i%10)), `{}`, "k", "v"))
		if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: docs[i].ID, Body: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	mustPut(t, s, "g1", "c", docs...)
	for _, limit := range []int{0, -1} {
		p, err := s.Find(ctx, store.Query{Generation: "g1", Collection: "c", Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Docs) != store.DefaultLimit || p.Next == "" {
			t.Errorf("Find with Limit %d: %d docs (next %q), want %d and a cursor", limit, len(p.Docs), p.Next, store.DefaultLimit)
		}
		recs, err := s.ListRecords(ctx, "k", "", limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != store.DefaultLimit {
			t.Errorf("ListRecords with limit %d: %d records, want %d", limit, len(recs), store.DefaultLimit)
		}
	}
	if n := mustCount(t, s, store.Query{Generation: "g1", Collection: "c", Limit: 1}); n != int64(len(docs)) {
		t.Errorf("Count with Limit 1 = %d, want %d (Limit is ignored)", n, len(docs))
	}
}
