package storecontract

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"providerdir/store"
)

var documentTests = []test{
	{"RoundTrip", testRoundTrip},
	{"ReturnedDocumentsAreCopies", testNoAliasing},
	{"Replace", testReplace},
	{"ReplaceKeepsOtherDocuments", testReplaceAmongOthers},
	{"NotFound", testNotFound},
	{"LargeBatch", testLargeBatch},
	{"EmptyBatch", testEmptyBatch},
	{"CollectionsAreSeparate", testCollectionsSeparate},
	{"GetMany", testGetMany},
	{"GetBodies", testGetBodies},
	{"GetManyArguments", testGetManyArguments},
}

// roundTripDocs are documents whose bodies and keys must come back byte for byte: the body is
// opaque to the store (not necessarily JSON), and keys keep their order and duplicates.
func roundTripDocs() []store.Document {
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	large := bytes.Repeat([]byte(`{"k":"0123456789abcdef"},`), 3000) // ~75 KB
	return []store.Document{
		doc("plain", `{"resourceType":"Practitioner","id":"plain"}`, "name", "smith"),
		// Whitespace and member order of JSON are not normalized.
		doc("spacing", "{ \"b\" : 1,\n\t\"a\":[ 2 ,3 ] }  ", "name", "jones", "state", "CA"),
		{ID: "binary", Body: binary, Keys: []store.Key{{Param: "kind", Value: "bin"}}},
		{ID: "large", Body: large, Keys: []store.Key{{Param: "size", Value: "large"}}},
		{ID: "nokeys", Body: []byte(`{}`)},
		{ID: "emptybody", Body: []byte{}, Keys: []store.Key{{Param: "p", Value: "v"}}},
		// Key order and duplicate keys are kept; an empty value is a value.
		doc("dupkeys", `{}`, "name", "b", "name", "a", "name", "b", "given", "", "name", "a"),
		doc("unicode ünï/çødé id", `{"name":"Müller"}`, "name", "müller", "city", "são paulo", "x", "日本"),
		doc("punct!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", `{}`, "p.q-r_s", "a.b*c(d)[e]^$|?+\\"),
		doc(strings.Repeat("x", store.MaxIDLen), `{"long":true}`, "len", "max"),
	}
}

func testRoundTrip(t *testing.T, s store.Store) {
	docs := roundTripDocs()
	mustPut(t, s, "g1", "practitioner", docs...)
	for _, want := range docs {
		got := mustGet(t, s, "g1", "practitioner", want.ID)
		if diff := sameDoc(got, want); diff != "" {
			t.Errorf("Get: %s", diff)
		}
	}
	// Find returns the same documents, whole.
	got := findAll(t, s, store.Query{Generation: "g1", Collection: "practitioner"}, store.MaxLimit)
	if len(got) != len(docs) {
		t.Fatalf("Find returned %d documents, want %d", len(got), len(docs))
	}
	byID := map[string]store.Document{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	for _, d := range got {
		if diff := sameDoc(d, byID[d.ID]); diff != "" {
			t.Errorf("Find: %s", diff)
		}
	}
	// Values with characters that are operators in some query languages are matched literally.
	q := store.Query{Generation: "g1", Collection: "practitioner", Where: []store.Condition{
		{Param: "p.q-r_s", Values: []string{"a.b*c(d)[e]^$|?+\\"}},
	}}
	if got := ids(findAll(t, s, q, 10)); !equalIDs(got, []string{"punct!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"}) {
		t.Errorf("exact match on a value with punctuation: got %q", got)
	}
	q.Where[0] = store.Condition{Param: "p.q-r_s", Values: []string{"a.b*c("}, Match: store.Prefix}
	if got := ids(findAll(t, s, q, 10)); len(got) != 1 {
		t.Errorf("prefix match on a value with punctuation: got %q", got)
	}
	q.Where[0] = store.Condition{Param: "p.q-r_s", Values: []string{"a.b.*"}, Match: store.Prefix}
	if got := ids(findAll(t, s, q, 10)); len(got) != 0 {
		t.Errorf("prefix %q must not act as a pattern: got %q", "a.b.*", got)
	}
}

// testNoAliasing checks that the store neither keeps the caller's slices nor hands out its own
// buffers: changing a document after Put, or a returned document, changes nothing stored.
func testNoAliasing(t *testing.T, s store.Store) {
	d := doc("a", `{"v":1}`, "name", "smith")
	mustPut(t, s, "g1", "c", d)
	d.Body[6] = '9'
	d.Keys[0].Value = "jones"

	got := mustGet(t, s, "g1", "c", "a")
	if string(got.Body) != `{"v":1}` || got.Keys[0].Value != "smith" {
		t.Fatalf("stored document changed with the caller's slices: %q %v", got.Body, got.Keys)
	}
	got.Body[0] = 'X'
	got.Keys[0] = store.Key{Param: "zz", Value: "zz"}
	again := mustGet(t, s, "g1", "c", "a")
	if string(again.Body) != `{"v":1}` || again.Keys[0].Value != "smith" {
		t.Fatalf("stored document changed through a returned document: %q %v", again.Body, again.Keys)
	}
	p, err := s.Find(t.Context(), store.Query{Generation: "g1", Collection: "c"})
	if err != nil || len(p.Docs) != 1 {
		t.Fatalf("Find: %v, %d docs", err, len(p.Docs))
	}
	p.Docs[0].Body[0] = 'Y'
	if again := mustGet(t, s, "g1", "c", "a"); string(again.Body) != `{"v":1}` {
		t.Fatalf("stored document changed through a document returned by Find: %q", again.Body)
	}
}

func testReplace(t *testing.T, s store.Store) {
	mustPut(t, s, "g1", "c", doc("a", `{"v":1}`, "name", "smith", "name", "john", "state", "CA", "rank", "1"))
	mustPut(t, s, "g1", "c", doc("a", `{"v":2}`, "name", "jones", "state", "CA", "rank", "5"))

	got := mustGet(t, s, "g1", "c", "a")
	if diff := sameDoc(got, doc("a", `{"v":2}`, "name", "jones", "state", "CA", "rank", "5")); diff != "" {
		t.Fatalf("after replace: %s", diff)
	}
	base := store.Query{Generation: "g1", Collection: "c"}
	cases := []struct {
		name  string
		where []store.Condition
		want  int
	}{
		{"old key gone", []store.Condition{{Param: "name", Values: []string{"smith"}}}, 0},
		{"old second key gone", []store.Condition{{Param: "name", Values: []string{"john"}}}, 0},
		{"prefix finds the new keys once", []store.Condition{{Param: "name", Values: []string{"sm", "jo"}, Match: store.Prefix}}, 1},
		{"new key found", []store.Condition{{Param: "name", Values: []string{"jones"}}}, 1},
		{"kept key found once", []store.Condition{{Param: "state", Values: []string{"CA"}}}, 1},
		{"old order key gone", []store.Condition{{Param: "rank", Values: []string{"1"}}}, 0},
		{"all", nil, 1},
	}
	for _, tc := range cases {
		q := base
		q.Where = tc.where
		if got := findAll(t, s, q, 10); len(got) != tc.want {
			t.Errorf("%s: Find returned %q, want %d documents", tc.name, ids(got), tc.want)
		}
		if n := mustCount(t, s, q); n != int64(tc.want) {
			t.Errorf("%s: Count = %d, want %d", tc.name, n, tc.want)
		}
	}
	// Ordering uses the new keys only: the document appears once, under its new rank.
	q := base
	q.OrderBy = "rank"
	if got := ids(findAll(t, s, q, 1)); !equalIDs(got, []string{"a"}) {
		t.Errorf("order by a replaced key: got %q, want [a]", got)
	}
	q.Where = []store.Condition{{Param: "rank", Values: []string{"1"}, Match: store.Prefix}}
	if got := findAll(t, s, q, 10); len(got) != 0 {
		t.Errorf("order by a replaced key, old value: got %q", ids(got))
	}
	// Replacing with no keys leaves the document findable only without conditions.
	mustPut(t, s, "g1", "c", store.Document{ID: "a", Body: []byte(`{"v":3}`)})
	q = base
	q.Where = []store.Condition{{Param: "state", Values: []string{"CA"}}}
	if n := mustCount(t, s, q); n != 0 {
		t.Errorf("after replacing with no keys, Count(state=CA) = %d", n)
	}
	if n := mustCount(t, s, base); n != 1 {
		t.Errorf("after replacing with no keys, Count() = %d, want 1", n)
	}
}

// testReplaceAmongOthers replaces a few documents of a batch inside a later batch and checks
// the untouched ones and the counts.
func testReplaceAmongOthers(t *testing.T, s store.Store) {
	var first, second []store.Document
	for i := range 20 {
		first = append(first, doc(fmt.Sprintf("d%02d", i), fmt.Sprintf(`{"v":1,"i":%d}`, i), "gen", "one", "n", fmt.Sprint(i)))
	}
	mustPut(t, s, "g1", "c", first...)
	for i := 0; i < 20; i += 4 {
		second = append(second, doc(fmt.Sprintf("d%02d", i), fmt.Sprintf(`{"v":2,"i":%d}`, i), "gen", "two", "n", fmt.Sprint(i)))
	}
	second = append(second, doc("new", `{"v":2}`, "gen", "two"))
	mustPut(t, s, "g1", "c", second...)

	for i := range 20 {
		want := fmt.Sprintf(`{"v":1,"i":%d}`, i)
		if i%4 == 0 {
			want = fmt.Sprintf(`{"v":2,"i":%d}`, i)
		}
		if got := mustGet(t, s, "g1", "c", fmt.Sprintf("d%02d", i)); string(got.Body) != want {
			t.Errorf("d%02d: body %s, want %s", i, got.Body, want)
		}
	}
	count := func(where ...store.Condition) int64 {
		return mustCount(t, s, store.Query{Generation: "g1", Collection: "c", Where: where})
	}
	if n := count(); n != 21 {
		t.Errorf("Count() = %d, want 21", n)
	}
	if n := count(store.Condition{Param: "gen", Values: []string{"one"}}); n != 15 {
		t.Errorf("Count(gen=one) = %d, want 15", n)
	}
	if n := count(store.Condition{Param: "gen", Values: []string{"two"}}); n != 6 {
		t.Errorf("Count(gen=two) = %d, want 6", n)
	}
}

func testNotFound(t *testing.T, s store.Store) {
	mustPut(t, s, "g1", "c", doc("a", `{}`, "k", "v"))
	cases := []struct{ gen, coll, id string }{
		{"g1", "c", "b"},       // missing document
		{"g1", "c", "A"},       // ids are case-sensitive
		{"g1", "other", "a"},   // missing collection
		{"g2", "c", "a"},       // missing generation
		{"g1", "c", "a\u00a0"}, // near miss
	}
	for _, tc := range cases {
		_, err := s.Get(t.Context(), tc.gen, tc.coll, tc.id)
		wantErr(t, err, store.ErrNotFound, fmt.Sprintf("Get(%s, %s, %q)", tc.gen, tc.coll, tc.id))
	}
	// A query over a generation or collection that holds nothing is an empty result, not an
	// error: a generation is only a label until documents are written into it.
	for _, q := range []store.Query{
		{Generation: "g2", Collection: "c"},
		{Generation: "g1", Collection: "other"},
		{Generation: "g2", Collection: "c", OrderBy: "k", Where: []store.Condition{{Param: "k", Values: []string{"v"}}}},
	} {
		p, err := s.Find(t.Context(), q)
		if err != nil || len(p.Docs) != 0 || p.Next != "" {
			t.Errorf("Find(%s) = %d docs, next %q, err %v; want an empty last page", describe(q), len(p.Docs), p.Next, err)
		}
		if n, err := s.Count(t.Context(), q); err != nil || n != 0 {
			t.Errorf("Count(%s) = %d, %v; want 0", describe(q), n, err)
		}
	}
}

func testLargeBatch(t *testing.T, s store.Store) {
	const n = 2500
	docs := make([]store.Document, n)
	for i := range docs {
		docs[i] = doc(fmt.Sprintf("p%06d", i), fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("x", 200)),
			"mod7", fmt.Sprint(i%7), "name", fmt.Sprintf("n%04d", i%1000), "name", fmt.Sprintf("m%04d", i))
	}
	mustPut(t, s, "g1", "c", docs...)
	if got := mustCount(t, s, store.Query{Generation: "g1", Collection: "c"}); got != n {
		t.Errorf("Count() = %d, want %d", got, n)
	}
	q := store.Query{Generation: "g1", Collection: "c", Where: []store.Condition{{Param: "mod7", Values: []string{"3"}}}}
	if got, want := mustCount(t, s, q), int64((n+3)/7); got != want {
		t.Errorf("Count(mod7=3) = %d, want %d", got, want)
	}
	all := findAll(t, s, store.Query{Generation: "g1", Collection: "c"}, store.MaxLimit)
	if len(all) != n {
		t.Fatalf("Find returned %d documents, want %d", len(all), n)
	}
	for i, d := range all {
		if d.ID != docs[i].ID || !bytes.Equal(d.Body, docs[i].Body) {
			t.Fatalf("document %d: got %q, want %q", i, d.ID, docs[i].ID)
		}
	}
}

func testEmptyBatch(t *testing.T, s store.Store) {
	if err := s.Put(t.Context(), "g1", "c", nil); err != nil {
		t.Fatalf("Put of no documents: %v", err)
	}
	gens, err := s.Generations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 0 {
		t.Errorf("Generations after an empty Put = %q, want none", gens)
	}
}

func testCollectionsSeparate(t *testing.T, s store.Store) {
	mustPut(t, s, "g1", "practitioner", doc("x", `{"c":"practitioner"}`, "k", "v"))
	mustPut(t, s, "g1", "organization", doc("x", `{"c":"organization"}`, "k", "v"), doc("y", `{}`, "k", "v"))
	// A collection whose name extends another's must not see its documents.
	mustPut(t, s, "g1", "practitioner.role", doc("z", `{}`, "k", "v"))
	if got := mustGet(t, s, "g1", "practitioner", "x"); string(got.Body) != `{"c":"practitioner"}` {
		t.Errorf("practitioner/x body %s", got.Body)
	}
	if got := mustGet(t, s, "g1", "organization", "x"); string(got.Body) != `{"c":"organization"}` {
		t.Errorf("organization/x body %s", got.Body)
	}
	for coll, want := range map[string][]string{
		"practitioner": {"x"}, "organization": {"x", "y"}, "practitioner.role": {"z"},
	} {
		for _, where := range [][]store.Condition{nil, {{Param: "k", Values: []string{"v"}}}} {
			q := store.Query{Generation: "g1", Collection: coll, Where: where}
			if got := ids(findAll(t, s, q, 10)); !equalIDs(got, want) {
				t.Errorf("Find(%s) = %q, want %q", describe(q), got, want)
			}
			if n := mustCount(t, s, q); n != int64(len(want)) {
				t.Errorf("Count(%s) = %d, want %d", describe(q), n, len(want))
			}
		}
	}
}
