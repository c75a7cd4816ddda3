package storecontract

import (
	"testing"

	"providerdir/store"
)

var generationTests = []test{
	{"Isolated", testGenerationsIsolated},
	{"ListedAscending", testGenerationsListed},
	{"Drop", testDropGeneration},
}

func testGenerationsIsolated(t *testing.T, s store.Store) {
	mustPut(t, s, "g1", "c", doc("a", `{"g":1}`, "k", "one"), doc("b", `{"g":1}`, "k", "one"))
	mustPut(t, s, "g2", "c", doc("a", `{"g":2}`, "k", "two"))
	// A generation whose name extends another's must not see its documents.
	mustPut(t, s, "g1.x", "c", doc("z", `{"g":"1.x"}`, "k", "one"))

	if got := mustGet(t, s, "g1", "c", "a"); string(got.Body) != `{"g":1}` {
		t.Errorf("g1/a body %s", got.Body)
	}
	if got := mustGet(t, s, "g2", "c", "a"); string(got.Body) != `{"g":2}` {
		t.Errorf("g2/a body %s", got.Body)
	}
	_, err := s.Get(t.Context(), "g2", "c", "b")
	wantErr(t, err, store.ErrNotFound, "Get g2/b written only to g1")

	cases := []struct {
		gen   string
		where []store.Condition
		want  []string
	}{
		{"g1", nil, []string{"a", "b"}},
		{"g2", nil, []string{"a"}},
		{"g1.x", nil, []string{"z"}},
		{"g1", []store.Condition{exact("k", "one")}, []string{"a", "b"}},
		{"g1", []store.Condition{exact("k", "two")}, nil},
		{"g2", []store.Condition{exact("k", "one")}, nil},
		{"g2", []store.Condition{prefix("k", "")}, []string{"a"}},
	}
	for _, tc := range cases {
		q := store.Query{Generation: tc.gen, Collection: "c", Where: tc.where}
		if got := ids(findAll(t, s, q, 10)); !equalIDs(got, tc.want) {
			t.Errorf("Find(%s) = %q, want %q", describe(q), got, tc.want)
		}
		q.OrderBy = "k"
		if got := ids(findAll(t, s, q, 10)); !equalIDs(got, tc.want) {
			t.Errorf("Find(%s) = %q, want %q", describe(q), got, tc.want)
		}
		if n := mustCount(t, s, q); n != int64(len(tc.want)) {
			t.Errorf("Count(%s) = %d, want %d", describe(q), n, len(tc.want))
		}
	}
}

func testGenerationsListed(t *testing.T, s store.Store) {
	gens, err := s.Generations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 0 {
		t.Fatalf("Generations of an empty store = %q", gens)
	}
	// Written out of order, over several collections; listed once each, byte-wise ascending.
	for _, g := range []string{"g0000000010", "b", "g0000000002", "B", "a.1", "a", "g0000000010", "a-1"} {
		mustPut(t, s, g, "c1", doc("x", `{}`))
		mustPut(t, s, g, "c2", doc("y", `{}`))
	}
	// Records and counters are not generations.
	if _, err := s.PutRecord(t.Context(), store.Record{Kind: "k", ID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Incr(t.Context(), "n", 1, zeroTime); err != nil {
		t.Fatal(err)
	}
	gens, err = s.Generations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"B", "a", "a-1", "a.1", "b", "g0000000002", "g0000000010"}
	if !equalIDs(gens, want) {
		t.Errorf("Generations() = %q, want %q", gens, want)
	}
}

func testDropGeneration(t *testing.T, s store.Store) {
	ctx := t.Context()
	for _, g := range []string{"g1", "g2", "g10"} {
		mustPut(t, s, g, "c1", doc("a", `{"g":"`+g+`"}`, "k", "v", "o", "1"), doc("b", `{}`, "k", "v"))
		mustPut(t, s, g, "c2", doc("a", `{}`, "k", "v"))
	}
	if err := s.DropGeneration(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"c1", "c2"} {
		_, err := s.Get(ctx, "g1", coll, "a")
		wantErr(t, err, store.ErrNotFound, "Get from a dropped generation")
		for _, q := range []store.Query{
			{Generation: "g1", Collection: coll},
			{Generation: "g1", Collection: coll, Where: []store.Condition{exact("k", "v")}},
			{Generation: "g1", Collection: coll, Where: []store.Condition{prefix("k", "")}},
			{Generation: "g1", Collection: coll, OrderBy: "o"},
		} {
			if got := findAll(t, s, q, 10); len(got) != 0 {
				t.Errorf("Find(%s) after drop = %q", describe(q), ids(got))
			}
			if n := mustCount(t, s, q); n != 0 {
				t.Errorf("Count(%s) after drop = %d", describe(q), n)
			}
		}
	}
	// The generations around it (including one whose name extends it) are untouched.
	for _, g := range []string{"g2", "g10"} {
		if got := mustGet(t, s, g, "c1", "a"); string(got.Body) != `{"g":"`+g+`"}` {
			t.Errorf("%s/c1/a body %s", g, got.Body)
		}
		if n := mustCount(t, s, store.Query{Generation: g, Collection: "c1", Where: []store.Condition{exact("k", "v")}}); n != 2 {
			t.Errorf("Count in %s = %d, want 2", g, n)
		}
	}
	gens, err := s.Generations(ctx)
	if err != nil || !equalIDs(gens, []string{"g10", "g2"}) {
		t.Errorf("Generations() after drop = %q, %v; want [g10 g2]", gens, err)
	}
	// Dropping an absent generation is no error.
	if err := s.DropGeneration(ctx, "g1"); err != nil {
		t.Errorf("dropping a dropped generation: %v", err)
	}
	if err := s.DropGeneration(ctx, "never"); err != nil {
		t.Errorf("dropping an absent generation: %v", err)
	}
	// A dropped generation can be written again and starts empty.
	mustPut(t, s, "g1", "c1", doc("c", `{}`, "k", "v"))
	if n := mustCount(t, s, store.Query{Generation: "g1", Collection: "c1"}); n != 1 {
		t.Errorf("Count after rewriting a dropped generation = %d, want 1", n)
	}
	if got := ids(findAll(t, s, store.Query{Generation: "g1", Collection: "c1", Where: []store.Condition{exact("k", "v")}}, 10)); !equalIDs(got, []string{"c"}) {
		t.Errorf("Find after rewriting a dropped generation = %q, want [c]", got)
	}
}
