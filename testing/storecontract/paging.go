package storecontract

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"providerdir/store"
)

var pagingTests = []test{
	{"EveryShapeEveryPageSize", testPagingShapes},
	{"StableUnderConcurrentWrites", testPagingStable},
}

// testPagingShapes pages through every hand-checked shape with page sizes 1, 2 and 7: each
// match is served exactly once, in order.
func testPagingShapes(t *testing.T, s store.Store) {
	mustPut(t, s, "g1", "practitioner", shapeDocs...)
	for _, tc := range shapeCases {
		q := store.Query{Generation: "g1", Collection: "practitioner", Where: tc.where, OrderBy: tc.orderBy, Descending: tc.desc}
		for _, limit := range []int{1, 2, 7} {
			if got := ids(findAll(t, s, q, limit)); !equalIDs(got, tc.want) {
				t.Errorf("%s, limit %d: got %q, want %q", tc.name, limit, got, tc.want)
			}
		}
	}
}

// testPagingStable writes between pages: after each page it inserts documents that sort just
// before and just after the cursor (and, when ordering by a key, documents tying with the
// cursor's order value on either side of its id), and replaces the next unserved document with
// an identical-keyed copy. Every original document must be served exactly once, in order; an
// inserted document is served exactly when it sorts after the cursor it was inserted behind.
func testPagingStable(t *testing.T, s store.Store) {
	shapes := []store.Query{
		{},
		{Descending: true},
		{OrderBy: "rank"},
		{OrderBy: "rank", Descending: true},
		{OrderBy: "rank", Where: []store.Condition{exact("state", "CA")}},
		{Where: []store.Condition{prefix("name", "n")}},
		{Where: []store.Condition{exact("state", "CA"), prefix("name", "n")}, Descending: true},
	}
	mk := func(id string, num int) store.Document {
		return doc(id, fmt.Sprintf(`{"id":%q}`, id), "state", "CA", "name", fmt.Sprintf("n%03d", num), "rank", fmt.Sprintf("r%03d", num))
	}
	for i, shape := range shapes {
		gen := fmt.Sprintf("g%d", i)
		q := shape
		q.Generation, q.Collection, q.Limit = gen, "c", 4
		var originals []store.Document
		for n := 10; n <= 300; n += 10 {
			originals = append(originals, mk(fmt.Sprintf("o%03d", n), n))
		}
		mustPut(t, s, gen, "c", originals...)
		// expected holds the originals and the inserts that sort after the cursor at the time.
		expected := newModel(originals...)
		all := newModel(originals...)
		orderKey := func(d store.Document) ranked {
			r := ranked{id: d.ID}
			if q.OrderBy != "" {
				r.value = smallest(d.Keys, q.OrderBy)
			}
			return r
		}
		// after reports whether a sorts after b in the query's order.
		after := func(a, b store.Document) bool {
			ka, kb := orderKey(a), orderKey(b)
			c := cmp.Or(strings.Compare(ka.value, kb.value), strings.Compare(ka.id, kb.id))
			if q.Descending {
				c = -c
			}
			return c > 0
		}

		var served []string
		for round := 1; ; round++ {
			if round > 1000 {
				t.Fatalf("%s: paging does not end", describe(q))
			}
			p, err := s.Find(t.Context(), q)
			if err != nil {
				t.Fatalf("Find(%s): %v", describe(q), err)
			}
			served = append(served, ids(p.Docs)...)
			if p.Next == "" {
				break
			}
			last := p.Docs[len(p.Docs)-1]
			num, err := strconv.Atoi(last.ID[1:4])
			if err != nil {
				t.Fatalf("unexpected id %q", last.ID)
			}
			inserts := []store.Document{
				mk(fmt.Sprintf("o%03db%d", num-5, round), num-5),
				mk(fmt.Sprintf("o%03da%d", num+5, round), num+5),
			}
			if q.OrderBy != "" {
				// Same order value as the cursor, ids on either side of it.
				lo := mk(fmt.Sprintf("o%03d", num-1)+"t"+fmt.Sprint(round), num)
				hi := mk(last.ID+"t"+fmt.Sprint(round), num)
				lo.Keys, hi.Keys = last.Keys, last.Keys
				inserts = append(inserts, lo, hi)
			}
			for _, d := range inserts {
				if all[d.ID].ID != "" {
					t.Fatalf("test bug: id %q inserted twice", d.ID)
				}
				all.put(d)
				if after(d, last) {
					expected.put(d)
				}
			}
			// Replace the next unserved original (same keys, new body).
			next := ""
			for _, id := range expected.query(q) {
				if after(all[id], last) && strings.HasPrefix(id, "o") && len(id) == 4 {
					next = id
					break
				}
			}
			if next != "" {
				replaced := all[next]
				replaced.Body = []byte(fmt.Sprintf(`{"id":%q,"replaced":%d}`, next, round))
				inserts = append(inserts, replaced)
			}
			mustPut(t, s, gen, "c", inserts...)
			q.After = p.Next
		}
		if want := expected.query(q); !equalIDs(served, want) {
			t.Errorf("%s with writes between pages:\n got %q\nwant %q", describe(q), served, want)
		}
	}
}

func smallest(keys []store.Key, param string) string {
	best, ok := "", false
	for _, k := range keys {
		if k.Param == param && (!ok || k.Value < best) {
			best, ok = k.Value, true
		}
	}
	return best
}
