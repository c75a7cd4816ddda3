package storecontract

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"providerdir/store"
)

var queryTests = []test{
	{"Shapes", testQueryShapes},
	{"Model", testQueryModel},
	{"CursorsAreIndependentOfPageSize", testCursorReuse},
}

// shapeDocs is the fixture of the hand-checked query table. "name" has several keys per
// document, "rank" (the order key) is missing from some documents and repeated on others, and
// values include upper case (which sorts before lower case byte-wise), a value shorter than a
// prefix, punctuation and non-ASCII.
var shapeDocs = []store.Document{
	doc("p01", `{"n":1}`, "state", "CA", "name", "smith", "name", "john", "rank", "b"),
	doc("p02", `{"n":2}`, "state", "CA", "name", "smithers", "rank", "a"),
	doc("p03", `{"n":3}`, "state", "NY", "name", "smith", "name", "anna", "rank", "b"),
	doc("p04", `{"n":4}`, "state", "TX", "name", "jones"),
	doc("p05", `{"n":5}`, "state", "CA", "name", "jones", "name", "smithy", "rank", "c", "rank", "a"),
	doc("p06", `{"n":6}`, "state", "NY", "name", "brown", "rank", "d"),
	doc("p07", `{"n":7}`, "state", "TX", "name", "smith", "rank", "c"),
	doc("p08", `{"n":8}`, "state", "CA", "rank", "e"),
	doc("p09", `{"n":9}`, "state", "WA", "name", "Smith", "rank", "B"),
	doc("p10", `{"n":10}`, "state", "NY", "name", "john", "name", "jones"),
	doc("p11", `{"n":11}`, "state", "CA", "name", "smith", "name", "smith", "rank", "a"),
	doc("p12", `{"n":12}`, "state", "OR", "name", "sm", "rank", "f"),
	doc("p13", `{"n":13}`, "state", "DC", "name", "a.c*("),
	doc("p14", `{"n":14}`, "state", "DC", "name", "abc"),
	doc("p15", `{"n":15}`, "state", "DC", "name", "müller", "rank", "ü"),
}

func exact(param string, values ...string) store.Condition {
	return store.Condition{Param: param, Values: values, Match: store.Exact}
}

func prefix(param string, values ...string) store.Condition {
	return store.Condition{Param: param, Values: values, Match: store.Prefix}
}

// or adds an alternative param and its values to a condition.
func or(c store.Condition, param string, values ...string) store.Condition {
	c.Or = append(c.Or, store.Alternative{Param: param, Values: values})
	return c
}

// shapeCases are the query shapes with their expected results, worked out by hand.
var shapeCases = []struct {
	name    string
	where   []store.Condition
	orderBy string
	desc    bool
	want    []string
}{
	{"no conditions", nil, "", false,
		[]string{"p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11", "p12", "p13", "p14", "p15"}},
	{"exact", []store.Condition{exact("state", "CA")}, "", false, []string{"p01", "p02", "p05", "p08", "p11"}},
	{"exact is case-sensitive", []store.Condition{exact("name", "Smith")}, "", false, []string{"p09"}},
	{"exact, several values (OR)", []store.Condition{exact("state", "NY", "TX")}, "", false, []string{"p03", "p04", "p06", "p07", "p10"}},
	{"exact, repeated value", []store.Condition{exact("state", "CA", "CA")}, "", false, []string{"p01", "p02", "p05", "p08", "p11"}},
	{"exact on a multi-key param", []store.Condition{exact("name", "smith")}, "", false, []string{"p01", "p03", "p07", "p11"}},
	{"exact, no match", []store.Condition{exact("state", "ZZ")}, "", false, nil},
	{"exact on an unknown param", []store.Condition{exact("nope", "CA")}, "", false, nil},
	{"prefix", []store.Condition{prefix("name", "smi")}, "", false, []string{"p01", "p02", "p03", "p05", "p07", "p11"}},
	{"prefix equal to a whole value", []store.Condition{prefix("name", "sm")}, "", false,
		[]string{"p01", "p02", "p03", "p05", "p07", "p11", "p12"}},
	{"prefix, several values (OR)", []store.Condition{prefix("name", "smi", "jo")}, "", false,
		[]string{"p01", "p02", "p03", "p04", "p05", "p07", "p10", "p11"}},
	{"prefix, overlapping values", []store.Condition{prefix("name", "smith", "smi", "smithe")}, "", false,
		[]string{"p01", "p02", "p03", "p05", "p07", "p11"}},
	{"prefix, empty value matches every key of the param", []store.Condition{prefix("name", "")}, "", false,
		[]string{"p01", "p02", "p03", "p04", "p05", "p06", "p07", "p09", "p10", "p11", "p12", "p13", "p14", "p15"}},
	{"prefix with punctuation is literal", []store.Condition{prefix("name", "a.")}, "", false, []string{"p13"}},
	{"prefix, non-ASCII", []store.Condition{prefix("name", "mü")}, "", false, []string{"p15"}},
	{"prefix, no match", []store.Condition{prefix("name", "zz")}, "", false, nil},
	{"AND exact, prefix", []store.Condition{exact("state", "CA"), prefix("name", "smi")}, "", false,
		[]string{"p01", "p02", "p05", "p11"}},
	{"AND exact, exact", []store.Condition{exact("state", "CA"), exact("name", "jones")}, "", false, []string{"p05"}},
	{"AND on one multi-key param", []store.Condition{exact("name", "smith"), exact("name", "john")}, "", false, []string{"p01"}},
	{"AND exact, prefix on one param", []store.Condition{exact("name", "smith"), prefix("name", "jo")}, "", false, []string{"p01"}},
	{"AND three conditions", []store.Condition{exact("state", "TX", "NY"), prefix("name", "s", "j"), exact("rank", "b", "c")}, "", false,
		[]string{"p03", "p07"}},
	{"AND, disjoint", []store.Condition{exact("state", "CA"), exact("state", "NY")}, "", false, nil},
	{"descending ids", []store.Condition{exact("state", "NY")}, "", true, []string{"p10", "p06", "p03"}},
	{"order by", nil, "rank", false,
		[]string{"p09", "p02", "p05", "p11", "p01", "p03", "p07", "p06", "p08", "p12", "p15"}},
	{"order by, descending", nil, "rank", true,
		[]string{"p15", "p12", "p08", "p06", "p07", "p03", "p01", "p11", "p05", "p02", "p09"}},
	{"order by with exact", []store.Condition{exact("state", "CA")}, "rank", false, []string{"p02", "p05", "p11", "p01", "p08"}},
	{"order by with prefix, descending", []store.Condition{prefix("name", "smi")}, "rank", true,
		[]string{"p07", "p03", "p01", "p11", "p05", "p02"}},
	{"order by a param no document has", nil, "nope", false, nil},
	{"order by the condition's own param", []store.Condition{prefix("name", "j")}, "name", false,
		[]string{"p01", "p10", "p04", "p05"}},
	{"order by excludes documents without the key", []store.Condition{exact("state", "DC", "TX")}, "rank", false,
		[]string{"p07", "p15"}},
}

func testQueryShapes(t *testing.T, s store.Store) {
	mustPut(t, s, "g1", "practitioner", shapeDocs...)
	// A second generation and collection with the same ids must not leak into the results.
	mustPut(t, s, "g2", "practitioner", shapeDocs[:5]...)
	mustPut(t, s, "g1", "organization", shapeDocs[5:]...)
	m := newModel(shapeDocs...)
	for _, tc := range shapeCases {
		t.Run(tc.name, func(t *testing.T) {
			q := store.Query{Generation: "g1", Collection: "practitioner", Where: tc.where, OrderBy: tc.orderBy, Descending: tc.desc}
			if model := m.query(q); !equalIDs(model, tc.want) {
				t.Fatalf("the suite's model disagrees with the table: model %q, table %q", model, tc.want)
			}
			got := findAll(t, s, q, store.MaxLimit)
			if !equalIDs(ids(got), tc.want) {
				t.Errorf("Find(%s) = %q, want %q", describe(q), ids(got), tc.want)
			}
			for _, d := range got {
				if diff := sameDoc(d, m[d.ID]); diff != "" {
					t.Errorf("Find returned a document that differs from the stored one: %s", diff)
				}
			}
			if n := mustCount(t, s, q); n != int64(len(tc.want)) {
				t.Errorf("Count(%s) = %d, want %d", describe(q), n, len(tc.want))
			}
			checkPageVariants(t, s, q, 2)
		})
	}
}

// modelDocs builds n documents with random keys from small value sets, so that conditions
// overlap, order values tie, and some documents lack a param.
func modelDocs(seed uint64, n int) []store.Document {
	rng := rand.New(rand.NewPCG(seed, 1))
	states := []string{"CA", "NY", "TX", "WA", "OR"}
	names := []string{"smith", "smithers", "smythe", "jones", "johnson", "john", "brown", "browning", "lee", "le"}
	docs := make([]store.Document, n)
	for i := range docs {
		// Unique ids whose order differs from the write order.
		d := store.Document{ID: fmt.Sprintf("m%05d", i*7919%100000), Body: fmt.Appendf(nil, `{"i":%d}`, i)}
		for range rng.IntN(2) + 1 {
			d.Keys = append(d.Keys, store.Key{Param: "state", Value: states[rng.IntN(len(states))]})
		}
		for range rng.IntN(4) {
			d.Keys = append(d.Keys, store.Key{Param: "name", Value: names[rng.IntN(len(names))]})
		}
		for range rng.IntN(3) {
			d.Keys = append(d.Keys, store.Key{Param: "rank", Value: fmt.Sprint(rng.IntN(8))})
		}
		// Values that follow the id, as an identifier or a reference to a parent does: in id
		// order, "ref" values always come in order, and "half" values until the id m50000.
		num := i * 7919 % 100000
		if i%3 != 0 {
			d.Keys = append(d.Keys, store.Key{Param: "ref", Value: "r" + d.ID})
		}
		if num < 50000 {
			d.Keys = append(d.Keys, store.Key{Param: "half", Value: "h" + d.ID})
		} else {
			d.Keys = append(d.Keys, store.Key{Param: "half", Value: fmt.Sprintf("g%05d", 100000-num)})
		}
		docs[i] = d
	}
	return docs
}

// modelQueries are the query shapes checked against the model on random data.
var modelQueries = []store.Query{
	{},
	{Descending: true},
	{Where: []store.Condition{exact("state", "CA")}},
	{Where: []store.Condition{exact("state", "CA", "WA")}},
	{Where: []store.Condition{exact("name", "smith")}},
	{Where: []store.Condition{prefix("name", "smi")}},
	{Where: []store.Condition{prefix("name", "smi", "jo", "le")}, Descending: true},
	{Where: []store.Condition{exact("state", "NY"), prefix("name", "jo")}},
	{Where: []store.Condition{exact("state", "NY"), exact("name", "jones")}},
	{Where: []store.Condition{exact("state", "NY"), exact("name", "jones")}, Descending: true},
	{Where: []store.Condition{exact("state", "NY"), exact("name", "jones"), exact("rank", "3")}},
	{Where: []store.Condition{exact("state", "NY", "TX"), prefix("name", "b", "s")}},
	{Where: []store.Condition{exact("name", "smith"), exact("name", "lee")}},
	{Where: []store.Condition{exact("ref", "rm00000", "rm07919", "rm15838", "rm49997")}},
	{Where: []store.Condition{prefix("half", "hm0", "g9")}},
	{Where: []store.Condition{prefix("ref", "rm1"), exact("state", "CA")}},
	{OrderBy: "half", Where: []store.Condition{prefix("name", "jo")}},
	{Where: []store.Condition{or(prefix("name", "smi"), "state", "C")}},
	{Where: []store.Condition{or(exact("state", "CA"), "rank", "3", "5"), prefix("name", "jo")}, Descending: true},
	{Where: []store.Condition{or(exact("name", "lee"), "half", "hm00000"), or(prefix("state", "N"), "name", "br")}},
	{OrderBy: "rank", Where: []store.Condition{or(prefix("half", "g9"), "ref", "rm0")}},
	{OrderBy: "rank"},
	{OrderBy: "rank", Descending: true},
	{OrderBy: "name", Where: []store.Condition{exact("state", "TX")}},
	{OrderBy: "rank", Where: []store.Condition{prefix("name", "smi", "br")}, Descending: true},
	{OrderBy: "rank", Where: []store.Condition{exact("state", "CA"), exact("name", "john")}},
	{OrderBy: "state", Where: []store.Condition{exact("rank", "1", "2")}, Descending: true},
}

// smallPageSteps is how many pages of one and two documents testQueryModel reads of each
// result before reading on at store.MaxLimit: each such page crosses a cursor boundary at a
// document, and pages of seven cross the boundaries of the whole result.
const smallPageSteps = 40

// modelSeed and modelSize pick testQueryModel's documents. 200 of them give every query shape
// at least two matches (pages of one and two then cross a cursor), the broad shapes more than
// smallPageSteps pages of each and dozens of pages of seven; more documents add more of the
// same pages, and a backend that filters in memory reads every one on every page.
const (
	modelSeed = 2
	modelSize = 200
)

// testQueryModel runs every query shape on random data and compares results, order and
// counts with the model, paging with several page sizes.
func testQueryModel(t *testing.T, s store.Store) {
	docs := modelDocs(modelSeed, modelSize)
	mustPut(t, s, "g1", "c", docs...)
	m := newModel(docs...)
	for _, q := range modelQueries {
		q.Generation, q.Collection = "g1", "c"
		want := m.query(q)
		if len(want) < 2 {
			t.Fatalf("the fixture gives %s %d matches; a shape needs two or more for its pages to cross a cursor", describe(q), len(want))
		}
		for _, limit := range []int{1, 2, 7, store.MaxLimit} {
			steps := 0
			if limit < 7 {
				steps = smallPageSteps
			}
			if got := ids(findPaged(t, s, q, limit, steps)); !equalIDs(got, want) {
				t.Errorf("Find(%s) with limit %d:\n got %q\nwant %q", describe(q), limit, got, want)
			}
		}
		if n := mustCount(t, s, q); n != int64(len(want)) {
			t.Errorf("Count(%s) = %d, want %d", describe(q), n, len(want))
		}
	}
}

// testCursorReuse checks that a cursor is a position, not a page number: continuing from one
// with a different page size serves the rest of the same order.
func testCursorReuse(t *testing.T, s store.Store) {
	docs := modelDocs(11, 60)
	mustPut(t, s, "g1", "c", docs...)
	m := newModel(docs...)
	for _, q := range []store.Query{{}, {OrderBy: "rank"}, {OrderBy: "rank", Descending: true}, {Where: []store.Condition{prefix("name", "s", "j")}}} {
		q.Generation, q.Collection, q.Limit = "g1", "c", 5
		want := m.query(q)
		p, err := s.Find(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if p.Next == "" {
			t.Fatalf("%s: first page has no cursor", describe(q))
		}
		got := ids(p.Docs)
		// Reading the same cursor twice gives the same page.
		q.After, q.Limit = p.Next, 3
		p1, err1 := s.Find(t.Context(), q)
		p2, err2 := s.Find(t.Context(), q)
		if err1 != nil || err2 != nil || !equalIDs(ids(p1.Docs), ids(p2.Docs)) {
			t.Fatalf("%s: the same cursor served %q then %q (%v, %v)", describe(q), ids(p1.Docs), ids(p2.Docs), err1, err2)
		}
		got = append(got, ids(p1.Docs)...)
		q.After, q.Limit = p1.Next, 11
		for q.After != "" {
			p, err := s.Find(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids(p.Docs)...)
			q.After = p.Next
		}
		if !equalIDs(got, want) {
			t.Errorf("%s: paging 5, 3, 11...: got %q, want %q", describe(q), got, want)
		}
	}
}
