package storecontract

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"providerdir/store"
)

var snapshotTests = []test{
	{"SwitchAndRollback", testSwitchRollback},
	{"StaleSwitchConflicts", testStaleSwitch},
	{"PerCollection", testPerCollectionSwitch},
	{"InterruptedIngestKeepsServing", testInterruptedIngest},
	{"CollectGenerations", testCollectGenerations},
	{"ReleasePrevious", testReleasePrevious},
}

// servedBody reads a document through the serving pointer, as the surfaces do.
func servedBody(t *testing.T, s store.Store, coll, id string) string {
	t.Helper()
	snap, err := store.Serving(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	gen := snap.Generation(coll)
	if gen == "" {
		t.Fatalf("no generation serves %s", coll)
	}
	return string(mustGet(t, s, gen, coll, id).Body)
}

func wantServing(t *testing.T, s store.Store, want map[string]string) store.Snapshot {
	t.Helper()
	snap, err := store.Serving(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(snap.Collections, want) {
		t.Fatalf("serving %v, want %v", snap.Collections, want)
	}
	return snap
}

func newGen(t *testing.T, s store.Store) string {
	t.Helper()
	g, err := store.NewGeneration(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func testSwitchRollback(t *testing.T, s store.Store) {
	ctx := t.Context()
	snap := wantServing(t, s, map[string]string{})
	if snap.Version != 0 {
		t.Errorf("fresh store: serving version %d, want 0", snap.Version)
	}
	_, err := store.Rollback(ctx, s)
	wantErr(t, err, store.ErrNotFound, "Rollback with nothing to roll back to")

	g1, g2 := newGen(t, s), newGen(t, s)
	if !(g1 < g2) {
		t.Fatalf("NewGeneration gave %q then %q: not ascending", g1, g2)
	}
	mustPut(t, s, g1, "practitioner", doc("p", `"one"`))
	mustPut(t, s, g2, "practitioner", doc("p", `"two"`))

	snap, err = store.Switch(ctx, s, snap, map[string]string{"practitioner": g1}, "first")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version == 0 {
		t.Errorf("Switch returned version 0")
	}
	read := wantServing(t, s, map[string]string{"practitioner": g1})
	if read.Version != snap.Version || read.Label != "first" {
		t.Errorf("Serving = v%d %q, want v%d \"first\"", read.Version, read.Label, snap.Version)
	}
	if got := servedBody(t, s, "practitioner", "p"); got != `"one"` {
		t.Errorf("served %s, want \"one\"", got)
	}

	if _, err = store.Switch(ctx, s, snap, map[string]string{"practitioner": g2}, "second"); err != nil {
		t.Fatal(err)
	}
	wantServing(t, s, map[string]string{"practitioner": g2})
	if got := servedBody(t, s, "practitioner", "p"); got != `"two"` {
		t.Errorf("served %s, want \"two\"", got)
	}

	if _, err := store.Rollback(ctx, s); err != nil {
		t.Fatal(err)
	}
	wantServing(t, s, map[string]string{"practitioner": g1})
	if got := servedBody(t, s, "practitioner", "p"); got != `"one"` {
		t.Errorf("after rollback served %s, want \"one\"", got)
	}
	// Rolling back twice returns to where it started.
	if _, err := store.Rollback(ctx, s); err != nil {
		t.Fatal(err)
	}
	wantServing(t, s, map[string]string{"practitioner": g2})
	if got := servedBody(t, s, "practitioner", "p"); got != `"two"` {
		t.Errorf("after the second rollback served %s, want \"two\"", got)
	}
}

func testStaleSwitch(t *testing.T, s store.Store) {
	ctx := t.Context()
	g1, g2, g3 := newGen(t, s), newGen(t, s), newGen(t, s)
	base := wantServing(t, s, map[string]string{})
	first, err := store.Switch(ctx, s, base, map[string]string{"c": g1}, "first")
	if err != nil {
		t.Fatal(err)
	}
	// Two ingests read the same pointer; the second to switch loses.
	if _, err := store.Switch(ctx, s, first, map[string]string{"c": g2}, "a"); err != nil {
		t.Fatal(err)
	}
	_, err = store.Switch(ctx, s, first, map[string]string{"c": g3}, "b")
	wantErr(t, err, store.ErrConflict, "Switch from a stale snapshot")
	// The empty snapshot of before the first switch is stale too.
	_, err = store.Switch(ctx, s, base, map[string]string{"c": g3}, "c")
	wantErr(t, err, store.ErrConflict, "Switch from the initial snapshot after a switch")
	wantServing(t, s, map[string]string{"c": g2})
	// A rollback in between makes an earlier read stale as well.
	cur := wantServing(t, s, map[string]string{"c": g2})
	if _, err := store.Rollback(ctx, s); err != nil {
		t.Fatal(err)
	}
	_, err = store.Switch(ctx, s, cur, map[string]string{"c": g3}, "d")
	wantErr(t, err, store.ErrConflict, "Switch from a snapshot read before a rollback")
	wantServing(t, s, map[string]string{"c": g1})
}

func testPerCollectionSwitch(t *testing.T, s store.Store) {
	ctx := t.Context()
	g1 := newGen(t, s)
	for _, c := range []string{"practitioner", "organization", "exclusion"} {
		mustPut(t, s, g1, c, doc("x", fmt.Sprintf(`"%s 1"`, c)))
	}
	snap, err := store.Switch(ctx, s, wantServing(t, s, map[string]string{}),
		map[string]string{"practitioner": g1, "organization": g1, "exclusion": g1}, "all")
	if err != nil {
		t.Fatal(err)
	}
	// A later ingest of one family writes and switches only its collection.
	g2 := newGen(t, s)
	mustPut(t, s, g2, "exclusion", doc("x", `"exclusion 2"`))
	if _, err := store.Switch(ctx, s, snap, map[string]string{"exclusion": g2}, "exclusions only"); err != nil {
		t.Fatal(err)
	}
	wantServing(t, s, map[string]string{"practitioner": g1, "organization": g1, "exclusion": g2})
	for c, want := range map[string]string{"practitioner": `"practitioner 1"`, "organization": `"organization 1"`, "exclusion": `"exclusion 2"`} {
		if got := servedBody(t, s, c, "x"); got != want {
			t.Errorf("%s served %s, want %s", c, got, want)
		}
	}
	// Rolling back restores the whole previous mapping.
	if _, err := store.Rollback(ctx, s); err != nil {
		t.Fatal(err)
	}
	wantServing(t, s, map[string]string{"practitioner": g1, "organization": g1, "exclusion": g1})
}

// testInterruptedIngest writes part of a new generation and never switches to it (as an ingest
// that crashed would): readers keep seeing the serving generation, whole.
func testInterruptedIngest(t *testing.T, s store.Store) {
	ctx := t.Context()
	g1 := newGen(t, s)
	var docs []store.Document
	for i := range 40 {
		docs = append(docs, doc(fmt.Sprintf("p%03d", i), fmt.Sprintf(`{"gen":1,"i":%d}`, i), "state", "CA", "n", fmt.Sprint(i)))
	}
	mustPut(t, s, g1, "practitioner", docs...)
	if _, err := store.Switch(ctx, s, wantServing(t, s, map[string]string{}), map[string]string{"practitioner": g1}, "load"); err != nil {
		t.Fatal(err)
	}

	g2 := newGen(t, s)
	var partial []store.Document
	for i := range 15 {
		partial = append(partial, doc(fmt.Sprintf("p%03d", i*3), `{"gen":2}`, "state", "NY"))
	}
	partial = append(partial, doc("only-in-g2", `{"gen":2}`, "state", "CA"))
	mustPut(t, s, g2, "practitioner", partial...)
	// ... and the ingest dies here.

	snap := wantServing(t, s, map[string]string{"practitioner": g1})
	gen := snap.Generation("practitioner")
	q := store.Query{Generation: gen, Collection: "practitioner", Where: []store.Condition{exact("state", "CA")}}
	got := findAll(t, s, q, 7)
	if len(got) != len(docs) {
		t.Fatalf("served generation returns %d documents, want %d", len(got), len(docs))
	}
	for i, d := range got {
		if diff := sameDoc(d, docs[i]); diff != "" {
			t.Errorf("served: %s", diff)
		}
	}
	if n := mustCount(t, s, q); n != int64(len(docs)) {
		t.Errorf("served Count = %d, want %d", n, len(docs))
	}
	_, err := s.Get(ctx, gen, "practitioner", "only-in-g2")
	wantErr(t, err, store.ErrNotFound, "Get of a document of the unswitched generation")
	// The leftover is newer than anything referenced, so it is not collected (an ingest may
	// still be writing it) ...
	dropped, err := store.CollectGenerations(ctx, s)
	if err != nil || len(dropped) != 0 {
		t.Errorf("CollectGenerations = %q, %v; want nothing dropped", dropped, err)
	}
	// ... until a later ingest switches past it.
	g3 := newGen(t, s)
	mustPut(t, s, g3, "practitioner", doc("p000", `{"gen":3}`, "state", "CA"))
	if _, err := store.Switch(ctx, s, snap, map[string]string{"practitioner": g3}, "reload"); err != nil {
		t.Fatal(err)
	}
	dropped, err = store.CollectGenerations(ctx, s)
	if err != nil || !equalIDs(dropped, []string{g2}) {
		t.Errorf("CollectGenerations = %q, %v; want [%s]", dropped, err, g2)
	}
}

func testCollectGenerations(t *testing.T, s store.Store) {
	ctx := t.Context()
	gA, gB, gC, gD := newGen(t, s), newGen(t, s), newGen(t, s), newGen(t, s)
	for _, g := range []string{gA, gB, gC, gD} {
		mustPut(t, s, g, "p", doc("x", `"`+g+`"`))
	}
	mustPut(t, s, gB, "o", doc("x", `"o"`))

	snap := wantServing(t, s, map[string]string{})
	var err error
	for _, change := range []map[string]string{{"p": gA, "o": gB}, {"p": gB}, {"p": gC}} {
		if snap, err = store.Switch(ctx, s, snap, change, "step"); err != nil {
			t.Fatal(err)
		}
	}
	// Serving {p: gC, o: gB}, previous {p: gB, o: gB}: gA is older and unreferenced; gD is
	// newer and unreferenced (possibly an ingest in progress).
	dropped, err := store.CollectGenerations(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if !equalIDs(dropped, []string{gA}) {
		t.Errorf("CollectGenerations dropped %q, want [%s]", dropped, gA)
	}
	gens, err := s.Generations(ctx)
	if err != nil || !equalIDs(gens, []string{gB, gC, gD}) {
		t.Errorf("Generations() = %q, %v; want %q", gens, err, []string{gB, gC, gD})
	}
	_, err = s.Get(ctx, gA, "p", "x")
	wantErr(t, err, store.ErrNotFound, "Get from a collected generation")
	for c, want := range map[string]string{"p": `"` + gC + `"`, "o": `"o"`} {
		if got := servedBody(t, s, c, "x"); got != want {
			t.Errorf("%s served %s, want %s", c, got, want)
		}
	}
	// The previous mapping stays whole, so a rollback still works.
	if _, err := store.Rollback(ctx, s); err != nil {
		t.Fatal(err)
	}
	if got := servedBody(t, s, "p", "x"); got != `"`+gB+`"` {
		t.Errorf("after rollback served %s, want %q", got, gB)
	}
	// Nothing more to collect.
	if dropped, err = store.CollectGenerations(ctx, s); err != nil || len(dropped) != 0 {
		t.Errorf("second CollectGenerations = %q, %v; want nothing", dropped, err)
	}
}

// The previous mapping is kept for the window after a switch, then released, and the generation
// only it referenced is collected; a rollback is then refused, not half done.
func testReleasePrevious(t *testing.T, s store.Store) {
	ctx := t.Context()
	gA, gB := newGen(t, s), newGen(t, s)
	for _, g := range []string{gA, gB} {
		mustPut(t, s, g, "p", doc("x", `"`+g+`"`))
	}
	snap := wantServing(t, s, map[string]string{})
	var err error
	for _, change := range []map[string]string{{"p": gA}, {"p": gB}} {
		if snap, err = store.Switch(ctx, s, snap, change, "step"); err != nil {
			t.Fatal(err)
		}
	}
	// Within the window nothing is released or dropped.
	dropped, err := store.Reclaim(ctx, s, time.Hour, snap.SwitchedAt.Add(59*time.Minute))
	if err != nil || len(dropped) != 0 {
		t.Fatalf("Reclaim within the window = %q, %v; want nothing", dropped, err)
	}
	if cur := wantServing(t, s, map[string]string{"p": gB}); cur.Generation("p") != gB || cur.Previous["p"] != gA {
		t.Fatalf("previous mapping %v, want p: %s", cur.Previous, gA)
	}
	// Past it, the previous mapping goes and its generation with it.
	dropped, err = store.Reclaim(ctx, s, time.Hour, snap.SwitchedAt.Add(time.Hour))
	if err != nil || !equalIDs(dropped, []string{gA}) {
		t.Fatalf("Reclaim past the window = %q, %v; want [%s]", dropped, err, gA)
	}
	if got := servedBody(t, s, "p", "x"); got != `"`+gB+`"` {
		t.Errorf("served %s after the release, want %q", got, gB)
	}
	_, err = store.Rollback(ctx, s)
	wantErr(t, err, store.ErrNotFound, "Rollback after the previous mapping was released")
	if released, err := store.ReleasePrevious(ctx, s, 0, time.Now()); err != nil || released {
		t.Errorf("second ReleasePrevious = %v, %v; want nothing to release", released, err)
	}
}
