package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/match"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/testing/backends"
)

// weekly writes a week of n changes for the shared base drop, and the drop with it applied.
func weekly(t *testing.T, n int) (base, week, merged string, res *synth.WeeklyResult) {
	t.Helper()
	base = drops(t).Base
	dir := t.TempDir()
	week, merged = filepath.Join(dir, "week"), filepath.Join(dir, "merged")
	res, err := synth.GenerateWeekly(context.Background(), synth.WeeklyConfig{From: base, Out: week, Changes: n, Merged: merged})
	if err != nil {
		t.Fatal(err)
	}
	return base, week, merged, res
}

// pinned are ingest options that stamp every record alike, whichever run loads it: the same
// clock and snapshot date.
func pinned(st store.Store, dir, snapshot string) ingest.Options {
	return ingest.Options{Store: st, Dir: dir, Reference: reference.Embedded(), SnapshotDate: snapshot,
		Now: func() time.Time { return time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) }}
}

// A weekly delta on top of a monthly snapshot serves, in every collection, exactly what a full
// ingest of the monthly drop with the week applied serves after the same monthly snapshot: the
// same documents, bodies and keys, the same pages by id and by each key's order, the same
// counts, the same FHIR answers. (The other families' files are the same in both drops, so
// neither run loads them again: Open Payments keep the monthly run's matches in both.)
func TestWeeklyDeltaServesWhatFullIngestServes(t *testing.T) {
	// A week of a few changes, and one that changes most of the registry (the sandbox subset
	// and the organizations its practitioners' roles name move with it).
	for _, n := range []int{60, 300} {
		t.Run(strconv.Itoa(n), func(t *testing.T) { testWeeklyDelta(t, n) })
	}
}

func testWeeklyDelta(t *testing.T, n int) {
	base, week, merged, wk := weekly(t, n)
	ctx := context.Background()
	delta, full := store.Stacked(backends.Embedded(t)), store.Stacked(backends.Embedded(t))
	if _, err := ingest.Run(ctx, pinned(delta, base, wk.Last)); err != nil {
		t.Fatal(err)
	}
	steps := &phaseUpdates{}
	opts := pinned(delta, week, wk.Last)
	opts.Progress = steps
	res, err := ingest.Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := steps.last["updating the fhir projection"]; got[0] < int64(n)/2 || got[0] != got[1] {
		t.Errorf("the FHIR update last reported %d of %d providers, want all of at least %d", got[0], got[1], n/2)
	}
	// The full ingest follows the same monthly snapshot, so that both stores have the same
	// previous snapshot (a resource gone since is 410, not 404).
	for _, dir := range []string{base, merged} {
		if _, err := ingest.Run(ctx, pinned(full, dir, wk.Last)); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := store.Serving(ctx, delta)
	b, _ := store.Serving(ctx, full)
	for _, c := range append([]string{catalog.RegistryProviders, catalog.RegistryLocations}, ingest.FHIRCollections...) {
		if len(store.Layers(a.Generation(c))) != 2 {
			t.Errorf("%s is served at %q, not as a stack of two layers", c, a.Generation(c))
		}
	}
	sameSnapshots(t, delta, a, full, b)
	sameFHIR(t, delta, full, wk)
	// The change sets of the registry and the FHIR resources, which the delta finds mostly by
	// comparing documents as it masks the ones below, are the full ingest's, which compares
	// every document with its predecessor.
	for _, c := range append([]string{catalog.RegistryProviders, catalog.RegistryLocations, catalog.RegistryOtherNames, catalog.RegistryEndpoints}, ingest.FHIRCollections...) {
		got := changeSetOf(t, delta, store.Layers(a.Generation(c))[0], c)
		want := changeSetOf(t, full, b.Generation(c), c)
		for _, ids := range [][2][]string{{got.Added, want.Added}, {got.Changed, want.Changed}, {got.Removed, want.Removed}} {
			if !slices.Equal(ids[0], ids[1]) {
				t.Errorf("%s: the delta's change set lists %d ids %v, the full ingest's %d %v", c, len(ids[0]), ids[0], len(ids[1]), ids[1])
			}
		}
		if len(got.Changed) == 0 && (c == catalog.RegistryProviders || slices.Contains(ingest.FHIRCollections, c)) {
			t.Errorf("%s: the delta changed none", c) // a secondary row's id changes with it
		}
	}
	m := family(t, res, "nppes").Manifest
	var names []string
	for _, f := range m.Weekly {
		names = append(names, f.Name)
	}
	want := []string{}
	for _, f := range wk.Files {
		want = append(want, f.Name)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) || len(m.Files) != 4 || !strings.Contains(m.Files[0].Name, "20050523-") {
		t.Errorf("NPPES manifest: files %v, weekly %v; want the monthly files and the weekly %v", m.Files, names, want)
	}
	// The change set lists the changed NPIs alone.
	sum := family(t, res, "nppes").Changes[catalog.RegistryProviders]
	moved := wk.Changes[synth.WeeklyMoved]
	if sum.Added != int64(len(wk.Changes[synth.WeeklyNew])) || sum.Changed == 0 || sum.Changed > int64(n-len(wk.Changes[synth.WeeklyNew])) || sum.Removed != 0 {
		t.Errorf("registry change summary %+v for changes %v", sum, wk.Changes)
	}
	changed := changedIDs(t, delta, store.Layers(a.Generation(catalog.RegistryProviders))[0], catalog.RegistryProviders)
	if len(moved) == 0 || !changed[moved[0]] || int64(len(changed)) != sum.Changed {
		t.Errorf("change set %v lacks moved %v, or is not the %d changes summarised", changed, moved, sum.Changed)
	}
}

// sameSnapshots compares every collection served after weekly deltas (a, in store delta) with
// the same collection after a full ingest of the merged files (b, in store full). The manifests
// differ by the files they list; the name lexicon keeps the words no record holds any more
// (sameLexicon).
func sameSnapshots(t *testing.T, delta store.Store, a store.Snapshot, full store.Store, b store.Snapshot) {
	t.Helper()
	for coll, gen := range b.Collections {
		switch coll {
		case catalog.ManifestCollection:
		case catalog.RegistryNameWords:
			sameLexicon(t, delta, a, full, b)
		default:
			sameView(t, coll, delta, a.Generation(coll), full, gen)
		}
	}
}

// sameLexicon checks the name lexicon after weekly deltas (a) against the one of a full
// ingest (b): every word of b is in a, alike, and a word only a holds is the name word of no
// registry record a serves, so it selects nothing.
func sameLexicon(t *testing.T, delta store.Store, a store.Snapshot, full store.Store, b store.Snapshot) {
	t.Helper()
	ctx := context.Background()
	words := func(s store.Store, snap store.Snapshot) map[string]store.Document {
		out := map[string]store.Document{}
		err := store.EachDocument(ctx, s, store.Query{Collection: catalog.RegistryNameWords, Generation: snap.Generation(catalog.RegistryNameWords)}, func(d *store.Document) error {
			out[d.ID] = store.Document{ID: d.ID, Body: bytes.Clone(d.Body), Keys: slices.Clone(d.Keys)}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	wa, wb := words(delta, a), words(full, b)
	if len(wb) == 0 {
		t.Fatal("the full ingest wrote no name lexicon")
	}
	for w, d := range wb {
		if got, ok := wa[w]; !ok || !bytes.Equal(got.Body, d.Body) || !slices.Equal(got.Keys, d.Keys) {
			t.Fatalf("lexicon word %q after the delta: %+v (found %v), after a full ingest %+v", w, got, ok, d)
		}
	}
	for w := range wa {
		if _, ok := wb[w]; ok {
			continue
		}
		p, err := delta.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: a.Generation(catalog.RegistryProviders), Limit: 1,
			Where: []store.Condition{{Param: match.ParamToken, Values: []string{w}}}})
		if err != nil || len(p.Docs) > 0 {
			t.Fatalf("lexicon word %q, only after the delta, is held by %v (%v)", w, docIDs(p.Docs), err)
		}
	}
}

// sameView compares one collection as served by two stores: every document in id order, and
// for a sample of documents, each search key's matches and the whole collection in that key's
// order, by id and count.
func sameView(t *testing.T, coll string, sa store.Store, ga string, sb store.Store, gb string) {
	t.Helper()
	ctx := context.Background()
	all := func(s store.Store, gen string) []store.Document {
		var out []store.Document
		q := store.Query{Collection: coll, Generation: gen, Limit: 333}
		for {
			p, err := s.Find(ctx, q)
			if err != nil {
				t.Fatalf("%s at %s: %v", coll, gen, err)
			}
			out = append(out, p.Docs...)
			if p.Next == "" {
				return out
			}
			q.After = p.Next
		}
	}
	da, db := all(sa, ga), all(sb, gb)
	if len(da) != len(db) {
		x, y := map[string]bool{}, map[string]bool{}
		for _, d := range da {
			x[d.ID] = true
		}
		for _, d := range db {
			y[d.ID] = true
		}
		for id := range x {
			if !y[id] {
				t.Logf("only after the delta: %s", id)
			}
		}
		for id := range y {
			if !x[id] {
				t.Logf("only after a full ingest: %s", id)
			}
		}
		t.Fatalf("%s: %d documents after the delta, %d after a full ingest", coll, len(da), len(db))
	}
	for i := range da {
		if da[i].ID != db[i].ID || !bytes.Equal(da[i].Body, db[i].Body) || !slices.Equal(da[i].Keys, db[i].Keys) {
			t.Fatalf("%s: document %q after the delta differs from %q after a full ingest:\n%s\n%s", coll, da[i].ID, db[i].ID, da[i].Body, db[i].Body)
		}
	}
	for i := 0; i < len(db); i += max(1, len(db)/7) {
		for _, k := range db[i].Keys {
			for _, q := range []store.Query{
				{Collection: coll, Limit: 40, Where: []store.Condition{{Param: k.Param, Values: []string{k.Value}}}},
				{Collection: coll, Limit: 40, Where: []store.Condition{{Param: k.Param, Values: []string{k.Value[:max(1, len(k.Value)/2)]}, Match: store.Prefix}}},
				{Collection: coll, Limit: 40, OrderBy: k.Param},
				{Collection: coll, Limit: 40, OrderBy: k.Param, Descending: true},
			} {
				qa, qb := q, q
				qa.Generation, qb.Generation = ga, gb
				pa, errA := sa.Find(ctx, qa)
				pb, errB := sb.Find(ctx, qb)
				if errA != nil || errB != nil {
					t.Fatal(errA, errB)
				}
				if !slices.Equal(docIDs(pa.Docs), docIDs(pb.Docs)) {
					t.Fatalf("%s: %+v finds %v after the delta, %v after a full ingest", coll, q, docIDs(pa.Docs), docIDs(pb.Docs))
				}
				na, errA := sa.Count(ctx, qa)
				nb, errB := sb.Count(ctx, qb)
				if errA != nil || errB != nil || na != nb {
					t.Fatalf("%s: %+v counts %d after the delta, %d after a full ingest (%v %v)", coll, q, na, nb, errA, errB)
				}
			}
		}
	}
}

// A weekly delta interrupted halfway switches nothing: the monthly snapshot keeps serving and
// the partial generation is dropped.
func TestInterruptedWeeklyDeltaLeavesServingSnapshot(t *testing.T) {
	base, week, _, _ := weekly(t, 60)
	s := store.Stacked(backends.Embedded(t))
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	before, _ := store.Serving(ctx, s)
	gensBefore, _ := s.Generations(ctx)
	for _, phase := range []string{"updating the fhir projection", "updating the supply projection"} {
		cctx, cancel := context.WithCancel(ctx)
		_, err := ingest.Run(cctx, ingest.Options{Store: s, Dir: week, Reference: reference.Embedded(), Progress: &cancelAtPhase{phase: phase, cancel: cancel}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("delta interrupted at %q returned %v, want context.Canceled", phase, err)
		}
		after, _ := store.Serving(ctx, s)
		if after.Version != before.Version || !mapsEqual(after.Collections, before.Collections) {
			t.Errorf("interrupted at %q: serving snapshot changed: %+v -> %+v", phase, before, after)
		}
		gensAfter, _ := s.Generations(ctx)
		if !slices.Equal(gensBefore, gensAfter) {
			t.Errorf("interrupted at %q: generations %v -> %v: the partial one was not dropped", phase, gensBefore, gensAfter)
		}
	}
}

// cancelAtPhase cancels the ingest when it starts the named phase.
type cancelAtPhase struct {
	phase  string
	cancel context.CancelFunc
}

func (c *cancelAtPhase) Update(string, int64, int64, int64, int64) {}
func (c *cancelAtPhase) Phase(p string) {
	if p == c.phase {
		c.cancel()
	}
}
func (c *cancelAtPhase) PhaseUpdate(string, int64, int64, string) {}
func (c *cancelAtPhase) Done(int64, int64, time.Duration)         {}

// A drop mixing monthly and weekly NPPES files is refused with a clear error and changes
// nothing; so are weekly files with no monthly snapshot serving, and a week older than the
// registry serving. A week applied twice is skipped the second time.
func TestWeeklyDeltaRefusals(t *testing.T) {
	base, week, _, _ := weekly(t, 20)
	ctx := context.Background()
	mixed := t.TempDir()
	for _, dir := range []string{base, week} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.Contains(e.Name(), "_pfile_") {
				if err := os.Link(filepath.Join(dir, e.Name()), filepath.Join(mixed, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	s := store.Stacked(backends.Embedded(t))
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: week}); !errors.Is(err, ingest.ErrNoMonthlyNPPES) {
		t.Errorf("weekly files on an empty store: %v, want ErrNoMonthlyNPPES", err)
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base}); err != nil {
		t.Fatal(err)
	}
	before, _ := store.Serving(ctx, s)
	// A registry ingested without a name lexicon takes a monthly ingest before weekly files.
	words := before.Generation(catalog.RegistryNameWords)
	unworded, err := store.Switch(ctx, s, before, map[string]string{catalog.RegistryNameWords: ""}, "test: a registry without a lexicon")
	if err != nil || words == "" {
		t.Fatalf("lexicon at %q: %v", words, err)
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: week}); !errors.Is(err, ingest.ErrNoNameWords) {
		t.Errorf("weekly files on a registry without a lexicon: %v, want ErrNoNameWords", err)
	}
	if now, _ := store.Serving(ctx, s); now.Version != unworded.Version {
		t.Errorf("a refused week switched the snapshot")
	}
	if before, err = store.Switch(ctx, s, unworded, map[string]string{catalog.RegistryNameWords: words}, "test: the lexicon back"); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: mixed}); !errors.Is(err, ingest.ErrMixedNPPES) {
		t.Errorf("a drop of monthly and weekly files: %v, want ErrMixedNPPES", err)
	}
	after, _ := store.Serving(ctx, s)
	if after.Version != before.Version {
		t.Errorf("a refused drop switched the snapshot")
	}
	// A week before the monthly snapshot would bring back replaced records.
	stale := t.TempDir()
	entries, _ := os.ReadDir(week)
	for _, e := range entries {
		old := strings.Replace(e.Name(), "20250609-20250615", "20250526-20250601", 1)
		if err := os.Link(filepath.Join(week, e.Name()), filepath.Join(stale, old)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: stale}); !errors.Is(err, ingest.ErrStaleWeekly) {
		t.Errorf("a week before the monthly snapshot: %v, want ErrStaleWeekly", err)
	}
	// The same week twice: the second run finds it applied and does nothing.
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: week}); err != nil {
		t.Fatal(err)
	}
	applied, _ := store.Serving(ctx, s)
	res, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: week})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := store.Serving(ctx, s)
	if res.Switched || again.Version != applied.Version {
		t.Errorf("the week applied twice switched the snapshot again")
	}
}

// everything is a FHIR grant of every read and search.
type everything struct{}

func (everything) Allows(string, catalog.Interaction) bool { return true }
func (everything) Sandboxed() bool                         { return false }

// sameFHIR asks the FHIR API served from each store for the changed providers' resources, by
// read and by searches with includes and paging, and compares the answers: the resources, the
// totals and the entries of every page (the Bundles' own ids differ, and so do their page links,
// which name each store's generation).
func sameFHIR(t *testing.T, sa, sb store.Store, wk *synth.WeeklyResult) {
	t.Helper()
	serve := func(st store.Store) string {
		r := mux.NewRouter()
		fhir.New(fhir.Config{Store: st, BaseURL: "http://directory.example/fhir", GrantFrom: func(context.Context) (fhir.Grant, bool) { return everything{}, true },
			Log: slog.New(slog.DiscardHandler)}).Routes(r.PathPrefix("/fhir").Subrouter())
		srv := httptest.NewServer(r)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	ua, ub := serve(sa), serve(sb)
	get := func(url string) (int, map[string]any) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v: %.200s", url, err, b)
		}
		return resp.StatusCode, v
	}
	var paths []string
	for _, kind := range []string{synth.WeeklyMoved, synth.WeeklyTaxonomy, synth.WeeklyRenamed, synth.WeeklyDeactivated, synth.WeeklyNew} {
		for _, npi := range wk.Changes[kind][:min(2, len(wk.Changes[kind]))] {
			paths = append(paths, "/fhir/Practitioner/"+npi, "/fhir/Organization/"+npi, "/fhir/Location/"+npi,
				"/fhir/PractitionerRole?practitioner=Practitioner/"+npi+"&_include=PractitionerRole:organization&_include=PractitionerRole:location",
				"/fhir/Organization?identifier="+npi+"&_revinclude=PractitionerRole:organization")
		}
	}
	paths = append(paths, "/fhir/Practitioner?address-state=CA&_count=7", "/fhir/Organization?_count=9&_sort=name",
		"/fhir/Location?address-state=NY&_count=11", "/fhir/PractitionerRole?specialty=207RC0000X&_count=5&_include=PractitionerRole:practitioner")
	next := func(bundle map[string]any) string {
		for _, l := range asList(bundle["link"]) {
			if m, _ := l.(map[string]any); m["relation"] == "next" {
				u, _ := m["url"].(string)
				return strings.TrimPrefix(u, "http://directory.example")
			}
		}
		return ""
	}
	for _, p := range paths {
		// Each store's next page is asked for with its own link, which names its generation.
		pa, pb := p, p
		for page := 0; pa != "" && page < 4; page++ {
			ca, a := get(ua + pa)
			cb, b := get(ub + pb)
			pa, pb = next(a), next(b)
			if a["resourceType"] == "Bundle" {
				for _, v := range []map[string]any{a, b} {
					delete(v, "link")
					delete(v, "id") // each Bundle's own
					delete(v, "meta")
				}
			}
			if ca != cb || !equalJSON(a, b) || (pa == "") != (pb == "") {
				t.Fatalf("%s (page %d): %d after the delta, %d after a full ingest:\n%v\n%v", p, page+1, ca, cb, a, b)
			}
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// A weekly drop that also changes a family the FHIR resources are built from (here the PECOS
// reassignments) loads the registry as a delta and rebuilds the resources in full over it:
// what it serves is what a full ingest of the monthly drop with the week and the new PECOS
// file applied serves.
func TestWeeklyDeltaWithAnotherFamily(t *testing.T) {
	base, week, merged, wk := weekly(t, 60)
	ctx := context.Background()
	name := ""
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "PPEF_Reassignment"):
			name = e.Name()
		case strings.HasPrefix(e.Name(), "PPEF_Enrollment"), strings.HasPrefix(e.Name(), "Hospital_Enrollments"):
			// The family's other files, as they are: a family loads whole.
			if err := os.Link(filepath.Join(base, e.Name()), filepath.Join(week, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A new file, not a link to the shared drop's: every tenth reassignment ended.
	b, err := os.ReadFile(filepath.Join(base, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(week, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	rewriteCSV(t, week, "PPEF_Reassignment", func(_ []string, rows [][]string) [][]string {
		var kept [][]string
		for i, r := range rows {
			if i%10 != 3 {
				kept = append(kept, r)
			}
		}
		return kept
	})
	if b, err = os.ReadFile(filepath.Join(week, name)); err == nil {
		os.Remove(filepath.Join(merged, name))
		err = os.WriteFile(filepath.Join(merged, name), b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	delta, full := store.Stacked(backends.Embedded(t)), store.Stacked(backends.Embedded(t))
	for _, run := range []struct {
		st   store.Store
		dirs []string
	}{{delta, []string{base, week}}, {full, []string{base, merged}}} {
		for _, dir := range run.dirs {
			if _, err := ingest.Run(ctx, pinned(run.st, dir, wk.Last)); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, _ := store.Serving(ctx, delta)
	bs, _ := store.Serving(ctx, full)
	if len(store.Layers(a.Generation(catalog.RegistryProviders))) != 2 || len(store.Layers(a.Generation(catalog.FHIRCollection("Practitioner")))) != 1 {
		t.Fatalf("registry at %s, resources at %s: want a stacked registry and resources built in full",
			a.Generation(catalog.RegistryProviders), a.Generation(catalog.FHIRCollection("Practitioner")))
	}
	sameSnapshots(t, delta, a, full, bs)
}

// Two weeks in a row make a stack of three layers, each week masking what it replaces in the
// view below it, stacked or not: served, it is the monthly drop with both weeks applied.
func TestTwoWeeklyDeltas(t *testing.T) {
	base, week1, merged1, _ := weekly(t, 60)
	dir := t.TempDir()
	week2, merged2 := filepath.Join(dir, "week2"), filepath.Join(dir, "merged2")
	wk2, err := synth.GenerateWeekly(context.Background(), synth.WeeklyConfig{From: merged1, Out: week2, Changes: 60, Merged: merged2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	delta, full := store.Stacked(backends.Embedded(t)), store.Stacked(backends.Embedded(t))
	for _, run := range []struct {
		st   store.Store
		dirs []string
	}{{delta, []string{base, week1, week2}}, {full, []string{base, merged2}}} {
		for _, d := range run.dirs {
			if _, err := ingest.Run(ctx, pinned(run.st, d, wk2.Last)); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, _ := store.Serving(ctx, delta)
	b, _ := store.Serving(ctx, full)
	if len(store.Layers(a.Generation(catalog.RegistryProviders))) != 3 {
		t.Fatalf("the registry is served at %s, not as three layers", a.Generation(catalog.RegistryProviders))
	}
	sameSnapshots(t, delta, a, full, b)
	sameFHIR(t, delta, full, wk2)
}
