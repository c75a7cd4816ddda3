// Package storecontract is the conformance suite of the store contract. Every backend's tests call
// Run with a function that opens a fresh, empty store, so all backends are held to one behaviour
// and cannot drift apart: what a caller may rely on is exactly what this suite checks.
//
// The suite compares results with hand-written expectations and with a small in-memory model of
// the query semantics written independently of store.Matches, so a bug shared by a backend and
// the shared helpers still shows.
//
// Tests never assert how long anything takes. Where expiry must be observed they set an expiry a
// short time ahead, sleep past it, and check the state only after it has certainly passed.
package storecontract

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"providerdir/store"
)

// Run runs the whole conformance suite. open must return a new, empty store each time it is
// called and arrange its cleanup with t.Cleanup. The suite closes some stores itself, so the
// cleanup must accept that Close may already have been called (a second Close may return
// store.ErrClosed). Every check runs on a store of its own, so the checks of a group run in parallel
// (up to go test's -parallel): open is called from several goroutines at once.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	groups := []struct {
		name  string
		tests []test
		// serial: each check already drives its store from many goroutines at once, so the
		// checks run one after another, each with the store's connections to itself.
		serial bool
	}{
		{"Documents", documentTests, false},
		{"Validation", validationTests, false},
		{"Query", queryTests, false},
		{"Paging", pagingTests, false},
		{"Generations", generationTests, false},
		{"Records", recordTests, false},
		{"Expiry", expiryTests, false},
		{"Counters", counterTests, false},
		{"Concurrency", concurrencyTests, true},
		{"Update", updateTests, true},
		{"Snapshots", snapshotTests, false},
		{"Loading", loadTests, false},
		{"Stacked", stackedTests, false},
		{"Closed", closedTests, false},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					if !g.serial {
						t.Parallel()
					}
					s := open(t)
					if s == nil {
						t.Fatal("open returned a nil store")
					}
					tc.run(t, s)
				})
			}
		})
	}
}

// test is one conformance check, run against a freshly opened store.
type test struct {
	name string
	run  func(t *testing.T, s store.Store)
}

// doc builds a document; keys are given as param, value pairs.
func doc(id, body string, kv ...string) store.Document {
	if len(kv)%2 != 0 {
		panic("storecontract: doc needs param, value pairs")
	}
	d := store.Document{ID: id, Body: []byte(body)}
	for i := 0; i < len(kv); i += 2 {
		d.Keys = append(d.Keys, store.Key{Param: kv[i], Value: kv[i+1]})
	}
	return d
}

func mustPut(t testing.TB, s store.Store, gen, coll string, docs ...store.Document) {
	t.Helper()
	if err := s.Put(t.Context(), gen, coll, docs); err != nil {
		t.Fatalf("Put(%s, %s, %d docs): %v", gen, coll, len(docs), err)
	}
}

func mustGet(t testing.TB, s store.Store, gen, coll, id string) store.Document {
	t.Helper()
	d, err := s.Get(t.Context(), gen, coll, id)
	if err != nil {
		t.Fatalf("Get(%s, %s, %q): %v", gen, coll, id, err)
	}
	return d
}

func mustCount(t testing.TB, s store.Store, q store.Query) int64 {
	t.Helper()
	n, err := s.Count(t.Context(), q)
	if err != nil {
		t.Fatalf("Count(%s): %v", describe(q), err)
	}
	return n
}

// wantErr fails unless err matches target with errors.Is.
func wantErr(t testing.TB, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want %v", what, err, target)
	}
}

// sameDoc reports how got differs from want (ID, body bytes, keys in order), or "".
func sameDoc(got, want store.Document) string {
	switch {
	case got.ID != want.ID:
		return fmt.Sprintf("id %q, want %q", got.ID, want.ID)
	case !bytes.Equal(got.Body, want.Body):
		return fmt.Sprintf("document %q: body %q, want %q", want.ID, clip(got.Body), clip(want.Body))
	case !slices.Equal(got.Keys, want.Keys):
		return fmt.Sprintf("document %q: keys %v, want %v", want.ID, got.Keys, want.Keys)
	}
	return ""
}

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

func ids(docs []store.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

// describe renders a query for failure messages.
func describe(q store.Query) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s/%s", q.Generation, q.Collection)
	for _, c := range q.Where {
		op := "="
		if c.Match == store.Prefix {
			op = "^="
		}
		fmt.Fprintf(&b, " %s%s%q", c.Param, op, c.Values)
	}
	if q.OrderBy != "" {
		fmt.Fprintf(&b, " order by %s", q.OrderBy)
	}
	if q.Descending {
		b.WriteString(" desc")
	}
	return b.String()
}

// findAll pages through a query with the given page size and returns every document in the order
// served, each page held to the paging contract (findPage).
func findAll(t testing.TB, s store.Store, q store.Query, limit int) []store.Document {
	t.Helper()
	return findPaged(t, s, q, limit, 0)
}

// findPaged is findAll reading the first switchAfter pages at limit and the rest at
// store.MaxLimit from the cursor reached (0: every page at limit). A cursor is a position, not a page
// number (testCursorReuse), so the whole result is still read, in order.
func findPaged(t testing.TB, s store.Store, q store.Query, limit, switchAfter int) []store.Document {
	t.Helper()
	q.Limit, q.After = limit, ""
	var out []store.Document
	for pages := 0; ; pages++ {
		if pages > 100000 {
			t.Fatalf("%s: paging does not end", describe(q))
		}
		p := findPage(t, s, q, pages)
		out = append(out, p.Docs...)
		if p.Next == "" {
			return out
		}
		q.After = p.Next
		if pages+1 == switchAfter {
			q.Limit = store.MaxLimit
		}
	}
}

// findPage reads page number pages (from 0) of q, which carries its limit and the cursor
// reached, and holds it to the paging contract: no page is larger than the limit, a page that
// has a Next cursor is full, and a Next cursor never leads to an empty page.
func findPage(t testing.TB, s store.Store, q store.Query, pages int) store.Page {
	t.Helper()
	p, err := s.Find(t.Context(), q)
	if err != nil {
		t.Fatalf("Find(%s) page %d: %v", describe(q), pages, err)
	}
	if len(p.Docs) > q.Limit {
		t.Fatalf("%s: page of %d documents with limit %d", describe(q), len(p.Docs), q.Limit)
	}
	if p.Next != "" && len(p.Docs) < q.Limit {
		t.Fatalf("%s: page of %d documents (limit %d) has a Next cursor", describe(q), len(p.Docs), q.Limit)
	}
	if pages > 0 && len(p.Docs) == 0 {
		t.Fatalf("%s: a Next cursor led to an empty page", describe(q))
	}
	return p
}

// checkPageVariants pages through q as findAll does, and with BodiesOnly, with KeysOf, and with
// an Arena, side by side: every page must hold the same documents and lead on with the same
// cursor; with BodiesOnly each document has its body and no keys, with KeysOf its body and its
// keys of those params in their order, and with an Arena its body and keys. The arena is never
// reset, so the bodies of earlier pages must outlast the reads of later ones: they are compared
// again once paging ends. It returns the documents served without a variant, in order.
func checkPageVariants(t testing.TB, s store.Store, q store.Query, limit int) []store.Document {
	t.Helper()
	q.Limit, q.After = limit, ""
	bq := q
	bq.BodiesOnly = true
	aq := q
	aq.Arena = new(store.Arena)
	kq := q
	var want, inArena []store.Document
	for pages := 0; pages <= 100000; pages++ {
		p := findPage(t, s, q, pages)
		if kq.KeysOf == nil {
			kq.KeysOf = someParams(p.Docs, q.OrderBy)
		}
		kp, err := s.Find(t.Context(), kq)
		if err != nil {
			t.Fatalf("Find(%s) with KeysOf %q, page %d: %v", describe(q), kq.KeysOf, pages, err)
		}
		if !equalIDs(ids(kp.Docs), ids(p.Docs)) || kp.Next != p.Next {
			t.Fatalf("%s, page %d: with KeysOf %q next %q; without %q next %q", describe(q), pages, ids(kp.Docs), kp.Next, ids(p.Docs), p.Next)
		}
		for i, d := range kp.Docs {
			w := p.Docs[i]
			w.Keys = keysOf(w.Keys, kq.KeysOf)
			if diff := sameDoc(d, w); diff != "" {
				t.Errorf("%s, page %d, with KeysOf %q: %s", describe(q), pages, kq.KeysOf, diff)
			}
		}
		bp, err := s.Find(t.Context(), bq)
		if err != nil {
			t.Fatalf("Find(%s) with BodiesOnly, page %d: %v", describe(q), pages, err)
		}
		ap, err := s.Find(t.Context(), aq)
		if err != nil {
			t.Fatalf("Find(%s) with an arena, page %d: %v", describe(q), pages, err)
		}
		if !equalIDs(ids(bp.Docs), ids(p.Docs)) || bp.Next != p.Next {
			t.Fatalf("%s, page %d: with BodiesOnly %q next %q; without %q next %q", describe(q), pages, ids(bp.Docs), bp.Next, ids(p.Docs), p.Next)
		}
		if !equalIDs(ids(ap.Docs), ids(p.Docs)) || ap.Next != p.Next {
			t.Fatalf("%s, page %d: with an arena %q next %q; without %q next %q", describe(q), pages, ids(ap.Docs), ap.Next, ids(p.Docs), p.Next)
		}
		for i, d := range bp.Docs {
			if d.Keys != nil || !bytes.Equal(d.Body, p.Docs[i].Body) {
				t.Errorf("%s, page %d, %q with BodiesOnly: body %q keys %v; want body %q and no keys", describe(q), pages, d.ID, d.Body, d.Keys, p.Docs[i].Body)
			}
		}
		want, inArena = append(want, p.Docs...), append(inArena, ap.Docs...)
		if p.Next == "" {
			for i, d := range inArena {
				if diff := sameDoc(d, want[i]); diff != "" {
					t.Errorf("%s, read with an arena: %s", describe(q), diff)
				}
			}
			return want
		}
		q.After, bq.After, aq.After, kq.After = p.Next, bp.Next, ap.Next, kp.Next
	}
	t.Fatalf("%s: paging does not end", describe(q))
	return nil
}

// someParams picks the params a KeysOf check asks for: one no document has, and the first and
// last of the first document with keys other than the one the query is ordered by, so that a
// backend must read that one for its order without returning it.
func someParams(docs []store.Document, orderBy string) []string {
	params := []string{"absent-param"}
	for _, d := range docs {
		for _, k := range d.Keys {
			if k.Param != orderBy && !slices.Contains(params, k.Param) {
				params = append(params, k.Param)
				break
			}
		}
		for _, k := range slices.Backward(d.Keys) {
			if k.Param != orderBy && !slices.Contains(params, k.Param) {
				params = append(params, k.Param)
				break
			}
		}
		if len(params) > 1 {
			break
		}
	}
	return params
}

// keysOf is the keys with one of params, in their order; nil when none.
func keysOf(keys []store.Key, params []string) []store.Key {
	var out []store.Key
	for _, k := range keys {
		if slices.Contains(params, k.Param) {
			out = append(out, k)
		}
	}
	return out
}

func equalIDs(got, want []string) bool {
	return len(got) == len(want) && (len(got) == 0 || slices.Equal(got, want))
}
