package storecontract

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"providerdir/store"
)

// readMany is a read by ids: store.Store.GetMany or store.Store.GetBodies.
type readMany func(s store.Store, ctx context.Context, gen, coll string, ids []string, arena *store.Arena) ([]store.Document, error)

// testGetMany reads documents by id together: in the order asked, each once, absent ids left
// out, whole and as copies, from the generation and collection asked only.
func testGetMany(t *testing.T, s store.Store) { testReadMany(t, s, store.Store.GetMany, true) }

// testGetBodies reads as GetMany does, each document with its body and without its keys.
func testGetBodies(t *testing.T, s store.Store) { testReadMany(t, s, store.Store.GetBodies, false) }

// testReadMany checks a read by ids; whole says whether it returns the documents' keys. Each
// check reads into the arena lent at the time: none at first, then one.
func testReadMany(t *testing.T, s store.Store, read readMany, whole bool) {
	var arena *store.Arena
	get := func(ctx context.Context, gen, coll string, ids []string) ([]store.Document, error) {
		return read(s, ctx, gen, coll, ids, arena)
	}
	// as is what the read returns of a stored document.
	as := func(d store.Document) store.Document {
		if !whole {
			d.Keys = nil
		}
		return d
	}
	docs := roundTripDocs()
	mustPut(t, s, "g1", "practitioner", docs...)
	mustPut(t, s, "g2", "practitioner", doc("only-g2", `{}`))
	mustPut(t, s, "g1", "other", doc("only-other", `{}`))
	byID := map[string]store.Document{}
	all := make([]string, len(docs))
	for i, d := range docs {
		byID[d.ID] = d
		all[i] = d.ID
	}
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	cases := []struct {
		name string
		ids  []string
		want []string
	}{
		{"none", nil, nil},
		{"one", []string{"plain"}, []string{"plain"}},
		{"all, in the order given", reversed, reversed},
		{"repeats once, at the first place", []string{"nokeys", "plain", "nokeys", "plain"}, []string{"nokeys", "plain"}},
		{"absent ids left out", []string{"nope", "plain", "only-g2", "only-other", "zzz"}, []string{"plain"}},
		{"nothing there", []string{"nope", "only-g2"}, nil},
	}
	for _, lent := range []*store.Arena{nil, new(store.Arena)} {
		arena = lent
		for _, tc := range cases {
			got, err := get(t.Context(), "g1", "practitioner", tc.ids)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !equalIDs(ids(got), tc.want) {
				t.Errorf("%s (arena %t): got %q, want %q", tc.name, lent != nil, ids(got), tc.want)
				continue
			}
			for _, d := range got {
				if diff := sameDoc(d, as(byID[d.ID])); diff != "" {
					t.Errorf("%s (arena %t): %s", tc.name, lent != nil, diff)
				}
			}
		}
	}
	got, err := get(t.Context(), "absent", "practitioner", []string{"plain"})
	if err != nil || len(got) != 0 {
		t.Errorf("a generation that does not exist: %d documents, %v; want none, no error", len(got), err)
	}

	// The documents returned are the caller's: changing them changes nothing stored.
	got, err = get(t.Context(), "g1", "practitioner", []string{"plain"})
	if err != nil || len(got) != 1 {
		t.Fatalf("GetMany: %d documents, %v", len(got), err)
	}
	got[0].Body[0] = 'X'
	if whole {
		got[0].Keys[0].Value = "changed"
	}
	if again := mustGet(t, s, "g1", "practitioner", "plain"); sameDoc(again, byID["plain"]) != "" {
		t.Fatalf("stored document changed through a document GetMany returned: %q %v", again.Body, again.Keys)
	}

	// Bodies read into an arena are each the caller's: appending to one does not write over the
	// next, and reading more into the same arena leaves them as they were.
	arena = new(store.Arena)
	held, err := get(t.Context(), "g1", "practitioner", all)
	if err != nil || len(held) != len(all) {
		t.Fatalf("into an arena: %d documents, %v", len(held), err)
	}
	for i := range held[:len(held)-1] {
		_ = append(held[i].Body, "overwritten"...)
	}
	for range 3 {
		if _, err := get(t.Context(), "g1", "practitioner", reversed); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range held {
		if diff := sameDoc(d, as(byID[d.ID])); diff != "" {
			t.Errorf("read into an arena, then appended to and read over: %s", diff)
		}
	}

	// As many ids as a page may hold.
	many := make([]store.Document, 0, 600)
	manyIDs := make([]string, 0, 1200)
	for i := range 600 {
		id := strings.Repeat("m", 1+i%7) + string(rune('a'+i%26)) + strconv.Itoa(i)
		many = append(many, doc(id, `{"i":`+strconv.Itoa(i)+`}`))
		manyIDs = append(manyIDs, id, "absent-"+strconv.Itoa(i))
	}
	mustPut(t, s, "g3", "c", many...)
	got, err = get(t.Context(), "g3", "c", manyIDs)
	if err != nil {
		t.Fatal(err)
	}
	if want := ids(many); !equalIDs(ids(got), want) {
		t.Fatalf("600 of 1200 ids: got %d documents, want %d in the order asked", len(got), len(want))
	}
}

// testGetManyArguments: malformed calls are ErrInvalid, as they are for Get, for GetMany and
// GetBodies alike.
func testGetManyArguments(t *testing.T, s store.Store) {
	for _, read := range []readMany{store.Store.GetMany, store.Store.GetBodies} {
		testReadManyArguments(t, s, read)
	}
}

func testReadManyArguments(t *testing.T, s store.Store, read readMany) {
	mustPut(t, s, "g1", "c", doc("a", `{}`))
	tooMany := make([]string, store.MaxLimit+1)
	for i := range tooMany {
		tooMany[i] = strconv.Itoa(i)
	}
	for name, call := range map[string][]string{
		"empty id":            {"a", ""},
		"NUL in an id":        {"a\x00b"},
		"over-long id":        {strings.Repeat("x", store.MaxIDLen+1)},
		"more than MaxLimit":  tooMany,
		"bad generation name": nil,
	} {
		gen := "g1"
		if name == "bad generation name" {
			gen, call = "g/1", []string{"a"}
		}
		_, err := read(s, t.Context(), gen, "c", call, nil)
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}
