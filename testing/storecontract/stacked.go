package storecontract

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"providerdir/store"
)

// The stacked tests write stacks of generations on the backend under test and read them
// through store.Stacked, comparing every answer with a model of the merged view computed from
// the same documents.
var stackedTests = []test{
	{"GetAndGetMany", testStackedGet},
	{"HandCheckedFind", testStackedHandFind},
	{"FindAndCount", testStackedFind},
	{"ThreeLayers", testStackedThreeLayers},
	{"RandomizedModel", testStackedRandom},
	{"CompositeWritesInvalid", testStackedWrites},
	{"BadArguments", testStackedBadArguments},
	{"CollectKeepsLayers", testStackedCollect},
}

// view is a generation as read through store.Stacked, plain or stacked, and the model of what
// it must read as.
type view struct {
	gen  string
	want model
}

// baseView writes docs into a plain generation.
func baseView(t *testing.T, s store.Store, gen, coll string, docs ...store.Document) view {
	t.Helper()
	mustPut(t, s, gen, coll, docs...)
	return view{gen: gen, want: newModel(docs...)}
}

// layer is one top generation's edit of the view below: documents written (new, or replacing
// the document with their id) and ids deleted.
type layer struct {
	put []store.Document
	del []string
}

// layOver writes l as the generation top laid over v, as an update writes a stack: the new and
// changed documents into top's collection, and into its mask one entry per id of v that l
// replaces or deletes, carrying the keys the document has in v. It returns the stacked view.
func layOver(t *testing.T, s store.Store, v view, top, coll string, l layer) view {
	t.Helper()
	next := maps.Clone(v.want)
	var mask []store.Document
	hide := func(id string) {
		if below, ok := v.want[id]; ok {
			mask = append(mask, store.Document{ID: id, Body: []byte(`{}`), Keys: below.Keys})
		}
	}
	for _, d := range l.put {
		hide(d.ID)
		next[d.ID] = d
	}
	for _, id := range l.del {
		hide(id)
		delete(next, id)
	}
	if len(l.put) > 0 {
		mustPut(t, s, top, coll, l.put...)
	}
	if len(mask) > 0 {
		mustPut(t, s, top, store.MaskCollection(coll), mask...)
	}
	return view{gen: store.StackGeneration(top, v.gen), want: next}
}

// stackQueries are the query shapes every view is checked with: id order and key order both
// ways, exact and prefix conditions, alternatives, and conjunctions.
var stackQueries = []store.Query{
	{},
	{Descending: true},
	{OrderBy: "rank"},
	{OrderBy: "rank", Descending: true},
	{Where: []store.Condition{exact("state", "CA")}},
	{Where: []store.Condition{prefix("name", "a", "cb")}, OrderBy: "rank"},
	{Where: []store.Condition{or(exact("state", "NY"), "city", "Boston")}, Descending: true},
	{Where: []store.Condition{exact("state", "CA", "TX"), prefix("name", "b")}, OrderBy: "rank", Descending: true},
	{Where: []store.Condition{or(prefix("city", "Au"), "name", "c")}, OrderBy: "rank"},
}

// checkView reads v through s every way a reader can and compares each answer with the model:
// every query shape paged to its end with each page size (checkShape), then every read by id
// (checkReadsByID).
func checkView(t *testing.T, s store.Store, v view, coll string, absent []string, limits ...int) {
	t.Helper()
	for _, shape := range stackQueries {
		checkShape(t, s, v, coll, shape, limits)
	}
	checkReadsByID(t, s, v, coll, absent)
}

// checkViewInParallel is checkView with each query shape, and the reads by id, a parallel
// subtest. It is for a view no later write changes: the subtests run once the caller returns.
func checkViewInParallel(t *testing.T, s store.Store, v view, coll string, absent []string, limits ...int) {
	t.Helper()
	absent = slices.Clone(absent)
	for i, shape := range stackQueries {
		t.Run(fmt.Sprintf("%s/shape%d", v.gen, i), func(t *testing.T) {
			t.Parallel()
			checkShape(t, s, v, coll, shape, limits)
		})
	}
	t.Run(v.gen+"/by-id", func(t *testing.T) {
		t.Parallel()
		checkReadsByID(t, s, v, coll, absent)
	})
}

// checkShape pages the query shape on v to its end with each page size, plainly and in every
// variant (checkPageVariants), and counts it, against the model.
func checkShape(t *testing.T, s store.Store, v view, coll string, shape store.Query, limits []int) {
	t.Helper()
	q := shape
	q.Generation, q.Collection = v.gen, coll
	want := v.want.query(q)
	for _, limit := range limits {
		got := checkPageVariants(t, s, q, limit)
		if !equalIDs(ids(got), want) {
			t.Errorf("%s, limit %d: got %q, want %q", describe(q), limit, ids(got), want)
			continue
		}
		for _, d := range got {
			if diff := sameDoc(d, v.want[d.ID]); diff != "" {
				t.Errorf("%s, limit %d: %s", describe(q), limit, diff)
			}
		}
	}
	if n := mustCount(t, s, q); n != int64(len(want)) {
		t.Errorf("Count(%s) = %d, want %d", describe(q), n, len(want))
	}
}

// checkReadsByID gets every id of v's model and each id in absent one by one, then all of them
// at once with GetMany and GetBodies.
func checkReadsByID(t *testing.T, s store.Store, v view, coll string, absent []string) {
	t.Helper()
	all := slices.Sorted(maps.Keys(v.want))
	for _, id := range all {
		if diff := sameDoc(mustGet(t, s, v.gen, coll, id), v.want[id]); diff != "" {
			t.Errorf("Get(%s): %s", v.gen, diff)
		}
	}
	for _, id := range absent {
		if _, ok := v.want[id]; ok {
			continue
		}
		_, err := s.Get(t.Context(), v.gen, coll, id)
		wantErr(t, err, store.ErrNotFound, fmt.Sprintf("Get(%s, %q) of an id not in the view", v.gen, id))
	}
	// Descending with repeats and absent ids mixed in: served in the order asked, each once.
	ask := slices.Concat(absent, all, all[:len(all)/2])
	slices.Reverse(ask)
	var want []string
	for _, id := range ask {
		if _, ok := v.want[id]; ok && !slices.Contains(want, id) {
			want = append(want, id)
		}
	}
	docs, err := s.GetMany(t.Context(), v.gen, coll, ask, nil)
	if err != nil || !equalIDs(ids(docs), want) {
		t.Errorf("GetMany(%s) = %q, %v; want %q", v.gen, ids(docs), err, want)
	}
	for _, d := range docs {
		if diff := sameDoc(d, v.want[d.ID]); diff != "" {
			t.Errorf("GetMany(%s): %s", v.gen, diff)
		}
	}
	// GetBodies: the same documents in the same order, each body as the view has it, no keys.
	bodies, err := s.GetBodies(t.Context(), v.gen, coll, ask, nil)
	if err != nil || !equalIDs(ids(bodies), want) {
		t.Errorf("GetBodies(%s) = %q, %v; want %q", v.gen, ids(bodies), err, want)
	}
	for _, d := range bodies {
		if d.Keys != nil || string(d.Body) != string(v.want[d.ID].Body) {
			t.Errorf("GetBodies(%s) %q: body %q keys %v; want body %q and no keys", v.gen, d.ID, d.Body, d.Keys, v.want[d.ID].Body)
		}
	}
}

// testStackedGet reads single documents of a two-layer stack: one left to the view below, one
// the top changed, one it deleted, one it added, and ids that are nowhere.
func testStackedGet(t *testing.T, s store.Store) {
	s = store.Stacked(s)
	base := baseView(t, s, "g1", "c",
		doc("a", `"a1"`, "k", "x"), doc("b", `"b1"`, "k", "x"), doc("c", `"c1"`, "k", "x"))
	v := layOver(t, s, base, "g2", "c", layer{put: []store.Document{doc("b", `"b2"`, "k", "y"), doc("d", `"d2"`, "k", "y")}, del: []string{"c"}})
	tests := []struct {
		id, want string // want "" is ErrNotFound
	}{
		{"a", `"a1"`}, // passed through from below
		{"b", `"b2"`}, // overridden
		{"c", ""},     // deleted
		{"d", `"d2"`}, // added
		{"z", ""},     // nowhere
	}
	for _, tt := range tests {
		d, err := s.Get(t.Context(), v.gen, "c", tt.id)
		switch {
		case tt.want == "":
			wantErr(t, err, store.ErrNotFound, "Get "+tt.id)
		case err != nil || string(d.Body) != tt.want:
			t.Errorf("Get(%q) = %s, %v; want %s", tt.id, d.Body, err, tt.want)
		}
	}
	docs, err := s.GetMany(t.Context(), v.gen, "c", []string{"z", "d", "c", "b", "a", "b"}, nil)
	var got []string
	for _, d := range docs {
		got = append(got, string(d.Body))
	}
	if want := []string{`"d2"`, `"b2"`, `"a1"`}; err != nil || !slices.Equal(got, want) {
		t.Errorf("GetMany = %q, %v; want %q", got, err, want)
	}
	// The generations themselves still read as they were written.
	if d := mustGet(t, s, "g1", "c", "c"); string(d.Body) != `"c1"` {
		t.Errorf("Get of the plain generation below = %s", d.Body)
	}
	checkView(t, s, v, "c", []string{"c", "z"}, 1, 3)
}

// testStackedHandFind checks one stacked page sequence by hand, independently of the model: the
// top moves a document to the end of the order, deletes one, and adds one in the middle.
func testStackedHandFind(t *testing.T, s store.Store) {
	s = store.Stacked(s)
	base := baseView(t, s, "g1", "c",
		doc("a", `"a1"`, "rank", "5"), doc("b", `"b1"`, "rank", "3"), doc("c", `"c1"`, "rank", "1"), doc("e", `"e1"`))
	v := layOver(t, s, base, "g2", "c", layer{
		put: []store.Document{doc("b", `"b2"`, "rank", "9"), doc("d", `"d2"`, "rank", "2")},
		del: []string{"c"},
	})
	tests := []struct {
		q    store.Query
		want []string
	}{
		{store.Query{}, []string{"a", "b", "d", "e"}},
		{store.Query{Descending: true}, []string{"e", "d", "b", "a"}},
		{store.Query{OrderBy: "rank"}, []string{"d", "a", "b"}},
		{store.Query{OrderBy: "rank", Descending: true}, []string{"b", "a", "d"}},
		{store.Query{Where: []store.Condition{prefix("rank", "")}}, []string{"a", "b", "d"}},
	}
	for _, tt := range tests {
		q := tt.q
		q.Generation, q.Collection = v.gen, "c"
		for _, limit := range []int{1, 2, 3, 10} {
			if got := ids(findAll(t, s, q, limit)); !slices.Equal(got, tt.want) {
				t.Errorf("%s, limit %d: %q, want %q", describe(q), limit, got, tt.want)
			}
		}
		if n := mustCount(t, s, q); n != int64(len(tt.want)) {
			t.Errorf("Count(%s) = %d, want %d", describe(q), n, len(tt.want))
		}
	}
}

// stackDocs writes n documents for the stacked tests: a state each, one or two names, a city
// for some, and zero to two ranks drawn from few values, so that orders tie and some documents
// have no rank at all.
type stackDocs struct {
	r       *rand.Rand
	version int
}

func (g *stackDocs) doc(id string) store.Document {
	g.version++
	pick := func(from ...string) string { return from[g.r.IntN(len(from))] }
	kv := []string{"state", pick("CA", "NY", "TX", "WA")}
	for range 1 + g.r.IntN(2) {
		kv = append(kv, "name", pick("a", "b", "c")+pick("a", "b", "c")+pick("x", "y"))
	}
	if g.r.IntN(3) > 0 {
		kv = append(kv, "city", pick("Boston", "Austin", "Auburn", "Salem"))
	}
	for range g.r.IntN(3) {
		kv = append(kv, "rank", fmt.Sprintf("r%d", g.r.IntN(8)))
	}
	return doc(id, fmt.Sprintf(`{"id":%q,"v":%d}`, id, g.version), kv...)
}

// edit draws a layer over the view below: n changes, each replacing, deleting or adding a
// document (or bringing back one deleted earlier), at most one per id.
func (g *stackDocs) edit(below model, n int, fresh *int, gone *[]string) layer {
	existing := slices.Sorted(maps.Keys(below))
	touched := map[string]bool{}
	var l layer
	for range n {
		switch op := g.r.IntN(4); {
		case op == 3 && len(*gone) > 0:
			id := (*gone)[g.r.IntN(len(*gone))]
			if _, there := below[id]; !there && !touched[id] {
				touched[id] = true
				l.put = append(l.put, g.doc(id))
			}
		case op >= 2:
			*fresh++
			id := fmt.Sprintf("n%04d", *fresh)
			touched[id] = true
			l.put = append(l.put, g.doc(id))
		default:
			id := existing[g.r.IntN(len(existing))]
			if touched[id] {
				continue
			}
			touched[id] = true
			if op == 0 {
				l.put = append(l.put, g.doc(id))
			} else {
				l.del = append(l.del, id)
				*gone = append(*gone, id)
			}
		}
	}
	return l
}

// testStackedFind pages a two-layer stack with many overrides and deletes through every query
// shape with pages of 1, 2, 3 and all.
func testStackedFind(t *testing.T, s store.Store) {
	checkRandomStack(t, s, 1, 60, 1, 40, 1, 2, 3, 1000)
}

// testStackedThreeLayers stacks two layers over a base, the second re-adding an id the first
// deleted, changing one the first added, deleting one the first changed and changing one the
// first left alone; each level of the stack reads as its model.
func testStackedThreeLayers(t *testing.T, s store.Store) {
	s = store.Stacked(s)
	mk := func(id, v, state, rank string) store.Document {
		return doc(id, fmt.Sprintf(`{"id":%q,"v":%q}`, id, v), "state", state, "name", "a"+id, "rank", rank)
	}
	base := baseView(t, s, "g1", "c",
		mk("p1", "1", "CA", "r3"), mk("p2", "1", "NY", "r1"), mk("p3", "1", "CA", "r2"),
		mk("p4", "1", "TX", "r5"), mk("p5", "1", "CA", "r4"))
	mid := layOver(t, s, base, "g2", "c", layer{
		put: []store.Document{mk("p2", "2", "CA", "r9"), mk("p6", "2", "CA", "r0")},
		del: []string{"p3"},
	})
	top := layOver(t, s, mid, "g3", "c", layer{
		put: []store.Document{mk("p3", "3", "NY", "r1"), mk("p6", "3", "TX", "r7"), mk("p4", "3", "CA", "r5")},
		del: []string{"p2"},
	})
	absent := []string{"p2", "p3", "p9"}
	for _, v := range []view{base, mid, top} {
		checkViewInParallel(t, s, v, "c", absent, 1, 2, 3, 1000)
	}
}

// testStackedRandom stacks three random layers, each with many overrides, deletes, additions
// and revivals, over a random base, and checks each level of the stack against its model. The
// base of 80 documents gives every query shape pages of 2 and 7 on every level; more documents
// add more of the same pages.
func testStackedRandom(t *testing.T, s store.Store) {
	checkRandomStack(t, s, 2, 80, 3, 35, 2, 7, 1000)
}

// checkRandomStack writes n random documents as a base and layers random layers of edits
// changes each over it, and pages every level of the stack through every query shape with the
// given page sizes, against its model. seed picks the documents and the edits. Each level is a
// generation the layers laid over it later leave as it is, so all are checked in parallel.
func checkRandomStack(t *testing.T, s store.Store, seed uint64, n, layers, edits int, pages ...int) {
	s = store.Stacked(s)
	g := &stackDocs{r: rand.New(rand.NewPCG(26, seed))}
	var docs []store.Document
	for i := range n {
		docs = append(docs, g.doc(fmt.Sprintf("b%04d", i)))
	}
	v := baseView(t, s, "g1", "c", docs...)
	fresh, gone := 0, []string{}
	for i := 2; i < 2+layers; i++ {
		v = layOver(t, s, v, fmt.Sprintf("g%d", i), "c", g.edit(v.want, edits, &fresh, &gone))
		checkViewInParallel(t, s, v, "c", gone, pages...)
	}
}

// testStackedWrites: a write to a composite generation is ErrInvalid and changes nothing.
func testStackedWrites(t *testing.T, s store.Store) {
	s = store.Stacked(s)
	ctx := t.Context()
	base := baseView(t, s, "g1", "c", doc("a", `"a1"`, "k", "x"))
	v := layOver(t, s, base, "g2", "c", layer{put: []store.Document{doc("a", `"a2"`, "k", "y")}})
	gensBefore, err := s.Generations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	writes := []struct {
		name string
		do   func() error
	}{
		{"Put", func() error { return s.Put(ctx, v.gen, "c", []store.Document{doc("a", `"x"`)}) }},
		{"Put into a new collection", func() error { return s.Put(ctx, v.gen, "n", []store.Document{doc("a", `"x"`)}) }},
		{"DropGeneration", func() error { return s.DropGeneration(ctx, v.gen) }},
		{"Load", func() error {
			l, ok := s.(store.Loader)
			if !ok {
				return fmt.Errorf("store.Stacked is no Loader: %w", store.ErrInvalid)
			}
			ld, err := l.Load(ctx, v.gen, "n")
			if err == nil {
				ld.Abort()
			}
			return err
		}},
	}
	for _, w := range writes {
		wantErr(t, w.do(), store.ErrInvalid, w.name+" on "+v.gen)
	}
	gensAfter, err := s.Generations(ctx)
	if err != nil || !slices.Equal(gensAfter, gensBefore) {
		t.Errorf("Generations after refused writes = %q, %v; want %q", gensAfter, err, gensBefore)
	}
	checkView(t, s, v, "c", nil, 1)
	checkView(t, s, base, "c", nil, 1)
}

// testStackedBadArguments: a malformed composite generation, a bad collection, id, cursor or
// limit on a stack is ErrInvalid, as on a plain generation.
func testStackedBadArguments(t *testing.T, s store.Store) {
	s = store.Stacked(s)
	ctx := t.Context()
	good := layOver(t, s, baseView(t, s, "g1", "c", doc("a", `"a1"`)), "g2", "c", layer{put: []store.Document{doc("b", `"b2"`)}}).gen
	tooMany := make([]string, store.MaxLimit+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprint(i)
	}
	reads := func(gen, coll string) []struct {
		name string
		do   func() error
	} {
		q := store.Query{Generation: gen, Collection: coll}
		return []struct {
			name string
			do   func() error
		}{
			{"Get", func() error { _, err := s.Get(ctx, gen, coll, "a"); return err }},
			{"GetMany", func() error { _, err := s.GetMany(ctx, gen, coll, []string{"a"}, nil); return err }},
			{"Find", func() error { _, err := s.Find(ctx, q); return err }},
			{"Count", func() error { _, err := s.Count(ctx, q); return err }},
		}
	}
	for _, gen := range []string{"+g1", "g2+", "g3++g1", "g2+g 1", good + "+"} {
		for _, r := range reads(gen, "c") {
			wantErr(t, r.do(), store.ErrInvalid, fmt.Sprintf("%s on %q", r.name, gen))
		}
	}
	for _, r := range reads(good, "a/b") {
		wantErr(t, r.do(), store.ErrInvalid, r.name+" of a bad collection on a stack")
	}
	calls := []struct {
		name string
		do   func() error
	}{
		{"Get of an empty id", func() error { _, err := s.Get(ctx, good, "c", ""); return err }},
		{"GetMany of an empty id", func() error { _, err := s.GetMany(ctx, good, "c", []string{"a", ""}, nil); return err }},
		{"GetMany of too many ids", func() error { _, err := s.GetMany(ctx, good, "c", tooMany, nil); return err }},
		{"Find after a bad cursor", func() error {
			_, err := s.Find(ctx, store.Query{Generation: good, Collection: "c", After: "!!"})
			return err
		}},
		{"Find with too large a limit", func() error {
			_, err := s.Find(ctx, store.Query{Generation: good, Collection: "c", Limit: store.MaxLimit + 1})
			return err
		}},
		{"Find with an unknown match", func() error {
			_, err := s.Find(ctx, store.Query{Generation: good, Collection: "c", Where: []store.Condition{{Param: "k", Values: []string{"v"}, Match: 9}}})
			return err
		}},
	}
	for _, c := range calls {
		wantErr(t, c.do(), store.ErrInvalid, c.name+" on a stack")
	}
}

// testStackedCollect: CollectGenerations keeps every layer of a served stack (and of the
// previous mapping's) and still drops an older generation nothing references.
func testStackedCollect(t *testing.T, s store.Store) {
	s = store.Stacked(s)
	ctx := t.Context()
	gBase, gOld, gPrev, gTop, gNew := newGen(t, s), newGen(t, s), newGen(t, s), newGen(t, s), newGen(t, s)
	for _, g := range []string{gBase, gOld, gPrev, gNew} {
		mustPut(t, s, g, "p", doc("x", `"`+g+`"`))
	}
	v := layOver(t, s, view{gen: gBase, want: newModel(doc("x", `"`+gBase+`"`))}, gTop, "p", layer{put: []store.Document{doc("y", `"`+gTop+`"`)}})
	snap := wantServing(t, s, map[string]string{})
	var err error
	for _, change := range []map[string]string{{"p": gPrev}, {"p": v.gen}} {
		if snap, err = store.Switch(ctx, s, snap, change, "step"); err != nil {
			t.Fatal(err)
		}
	}
	dropped, err := store.CollectGenerations(ctx, s)
	if err != nil || !equalIDs(dropped, []string{gOld}) {
		t.Errorf("CollectGenerations = %q, %v; want [%s]", dropped, err, gOld)
	}
	gens, err := s.Generations(ctx)
	if want := []string{gBase, gPrev, gTop, gNew}; err != nil || !equalIDs(gens, want) {
		t.Errorf("Generations() = %q, %v; want %q", gens, err, want)
	}
	checkView(t, s, v, "p", nil, 1)
	// After a rollback the stack is the previous mapping: its layers are still kept.
	if _, err := store.Rollback(ctx, s); err != nil {
		t.Fatal(err)
	}
	if dropped, err = store.CollectGenerations(ctx, s); err != nil || len(dropped) != 0 {
		t.Errorf("CollectGenerations after rollback = %q, %v; want nothing", dropped, err)
	}
	checkView(t, s, v, "p", nil, 1)
}
