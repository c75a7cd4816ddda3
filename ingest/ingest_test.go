package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/mapping/fhirmap"
	"providerdir/source/nppes"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/backends"
	"providerdir/testing/synthdrops"
)

// drops are one small base drop and its evolved successor, shared by the tests.
func drops(t *testing.T) synthdrops.Drops { return synthdrops.Generate(t, 400, 7) }

func TestMain(m *testing.M) { synthdrops.Main(m) }

func count(t *testing.T, s store.Store, collection string, where ...store.Condition) int64 {
	t.Helper()
	snap, err := store.Serving(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	gen := snap.Generation(collection)
	if gen == "" {
		return 0
	}
	n, err := s.Count(context.Background(), store.Query{Collection: collection, Generation: gen, Where: where})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func family(t *testing.T, res ingest.Result, name string) ingest.FamilyResult {
	t.Helper()
	for _, f := range res.Families {
		if f.Manifest.Family == name {
			return f
		}
	}
	t.Fatalf("family %s not in result", name)
	return ingest.FamilyResult{}
}

// badRows counts the rows the generator deliberately broke in the files of a family.
func badRows(m *synth.Manifest, family string) int64 {
	var n int64
	for _, f := range m.Files {
		if f.Family == family {
			n += f.BadRows
		}
	}
	return n
}

func TestIngestDemoDrop(t *testing.T) {
	drop := drops(t)
	base, man := drop.Base, drop.BaseManifest
	s := backends.Embedded(t)
	ctx := context.Background()
	updates := &phaseUpdates{}
	res, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded(), Progress: updates})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Switched || res.Generation == "" {
		t.Fatalf("not switched: %+v", res)
	}

	nppes := family(t, res, "nppes")
	if got, want := nppes.Manifest.Rejected, badRows(man, "nppes"); got != want {
		t.Errorf("nppes rejected %d rows, the drop has %d bad rows", got, want)
	}
	if nppes.Manifest.Snapshot != man.SnapshotDates["nppes"] {
		t.Errorf("nppes snapshot %q, drop says %q", nppes.Manifest.Snapshot, man.SnapshotDates["nppes"])
	}
	if c := nppes.Manifest.Coverage; c.Start != "2005-05-23" || c.End != nppes.Manifest.Snapshot {
		t.Errorf("nppes coverage %+v", c)
	}
	providers := man.Counts.Individuals + man.Counts.Organizations
	if got := count(t, s, catalog.RegistryProviders); got != providers {
		t.Errorf("stored %d registry providers, drop has %d", got, providers)
	}
	// The FHIR projection reported its way through every registry provider.
	if got := updates.last["building the fhir projection"]; got != [2]int64{providers, providers} {
		t.Errorf("the FHIR projection last reported %d of %d providers, want all %d", got[0], got[1], providers)
	}
	if got := count(t, s, catalog.RegistryLocations); got != man.Counts.SecondaryLocations {
		t.Errorf("stored %d secondary locations, drop has %d", got, man.Counts.SecondaryLocations)
	}
	if got := count(t, s, catalog.RegistryOtherNames); got != man.Counts.OtherNames {
		t.Errorf("stored %d other names, drop has %d", got, man.Counts.OtherNames)
	}
	if got := count(t, s, catalog.RegistryEndpoints); got != man.Counts.Endpoints || got == 0 {
		t.Errorf("stored %d endpoints, drop has %d", got, man.Counts.Endpoints)
	}
	active := count(t, s, catalog.RegistryProviders, store.Condition{Param: stored.KeyActive, Values: []string{"false"}})
	if active != man.Counts.Deactivated {
		t.Errorf("%d inactive providers stored, drop has %d deactivated", active, man.Counts.Deactivated)
	}
	for code, tc := range man.Counts.Taxonomies {
		got := count(t, s, catalog.RegistryProviders,
			store.Condition{Param: stored.KeyTaxonomy, Values: []string{code}},
			store.Condition{Param: stored.KeyActive, Values: []string{"true"}},
			store.Condition{Param: stored.KeyEntity, Values: []string{"individual"}})
		if got != tc.AnySlot {
			t.Errorf("taxonomy %s: %d active individuals stored, drop has %d", code, got, tc.AnySlot)
		}
	}
	if got := count(t, s, catalog.CensusStates); got != 52 {
		t.Errorf("%d census states stored, want 52 (the 51 and Puerto Rico)", got)
	}
	if got := count(t, s, catalog.CensusCounties); got != 3144 {
		t.Errorf("%d counties stored, want 3144", got)
	}
	if got := count(t, s, catalog.NUCCTaxonomy); got != 883 {
		t.Errorf("%d taxonomy codes stored, want 883", got)
	}

	if got := count(t, s, catalog.SandboxNPIs); got != catalog.SandboxSize {
		t.Errorf("sandbox subset holds %d providers, want %d", got, catalog.SandboxSize)
	}
	// Every other family: what was stored is what the drop holds, less its bad rows.
	var facilities, rated int64
	for _, fc := range man.Counts.Facilities {
		facilities += fc.Total
		rated += fc.Total - fc.Terminated
	}
	for _, c := range []struct {
		collection string
		want       int64
	}{
		{catalog.Exclusions, man.Counts.ExcludedWithNPI + man.Counts.ExcludedWithoutNPI},
		{catalog.Enrollments, man.Counts.PECOSEnrollments},
		{catalog.HospitalEnrollments, man.Counts.HospitalEnrollments},
		{catalog.Facilities, facilities},
		{catalog.Quality, rated},
		{catalog.Payments, man.Counts.PaymentRows + man.Counts.LegacyPaymentRows},
	} {
		if got := count(t, s, c.collection); got != c.want {
			t.Errorf("%s: stored %d, drop has %d", c.collection, got, c.want)
		}
	}
	// Each file's rejected rows are exactly the rows the generator broke in it.
	for _, fr := range res.Families {
		for _, f := range fr.Manifest.Files {
			for _, g := range man.Files {
				if g.Name == f.Name && g.BadRows != f.Rejected {
					t.Errorf("%s: rejected %d rows, the generator broke %d", f.Name, f.Rejected, g.BadRows)
				}
			}
		}
	}
	for _, qt := range stored.QualityTypes {
		want := man.Counts.Facilities[qt.Slug].Total - man.Counts.Facilities[qt.Slug].Terminated
		if got := count(t, s, catalog.Quality, store.Condition{Param: stored.KeyType, Values: []string{qt.Slug}}); got != want {
			t.Errorf("quality %s: stored %d, drop has %d", qt.Slug, got, want)
		}
	}
	// Payments with a published NPI agree with the registry's last name; legacy rows without an
	// NPI are matched by name and address where one registry individual fits.
	snapNow, _ := store.Serving(ctx, s)
	methods, years := map[string]int{}, map[int]int{}
	q := store.Query{Collection: catalog.Payments, Generation: snapNow.Generation(catalog.Payments), Limit: 1000}
	for {
		page, err := s.Find(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Docs {
			b, err := stored.DecodeBody[stored.PaymentRecord](d)
			if err != nil {
				t.Fatal(err)
			}
			methods[b.Record.Match.Method]++
			years[b.Record.ProgramYear]++
			if b.Provenance.Confidence != b.Record.Match.Confidence {
				t.Errorf("payment %s: _confidence %v, match confidence %v", d.ID, b.Provenance.Confidence, b.Record.Match.Confidence)
			}
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	t.Logf("payment match methods: %v", methods)
	if years[2023] == 0 {
		t.Errorf("payments by program year %v: none of 2023 stored", years)
	}
	if methods[stored.MatchNPIAndName] == 0 || methods[stored.MatchNameAddress]+methods[stored.MatchNameState] == 0 {
		t.Errorf("payment match methods %v: want both NPI and name matches", methods)
	}

	// A stored registry document carries the full provenance record.
	snap, _ := store.Serving(ctx, s)
	page, err := s.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders), Limit: 1})
	if err != nil || len(page.Docs) != 1 {
		t.Fatalf("find one provider: %v", err)
	}
	body, err := stored.DecodeBody[stored.RegistryRecord](page.Docs[0])
	if err != nil {
		t.Fatal(err)
	}
	p := body.Provenance
	if p.DatasetID != "nppes" || p.Snapshot != nppes.Manifest.Snapshot || p.Confidence != 1 || p.DOI != nil ||
		p.SLSAProvenanceURL != nil || p.License == "" || p.Methodology == "" || len(p.DataAvailability) == 0 {
		t.Errorf("provenance of %s: %+v", page.Docs[0].ID, p)
	}

	// The manifests served describe what was loaded.
	ms, err := catalog.Manifests(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Family)
		if len(m.Files) == 0 || m.Files[0].SHA256 == "" {
			t.Errorf("manifest %s lacks file checksums", m.Family)
		}
	}
	for _, want := range []string{"census", "nppes", "nucc"} {
		if !slices.Contains(names, want) {
			t.Errorf("no manifest for %s in %v", want, names)
		}
	}

	// The phase table names each commit apart, in a line an operator can read, and the FHIR
	// projection's commit by its first collection (scripts/bench.sh sums the FHIR phases by it).
	var steps []string
	for _, ph := range res.Phases {
		steps = append(steps, ph.Step)
		if len(ph.Step) > 60 {
			t.Errorf("phase %q: longer than 60 characters", ph.Step)
		}
	}
	if !slices.Contains(steps, "committing fhir_Endpoint and 7 more collections") {
		t.Errorf("phases %q: no commit of the FHIR projection's collections", steps)
	}
}

func TestReingestIsIdempotent(t *testing.T) {
	base := drops(t).Base
	s := backends.Embedded(t)
	ctx := context.Background()
	first, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := store.Serving(ctx, s)

	again, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base})
	if err != nil {
		t.Fatal(err)
	}
	if again.Switched {
		t.Error("identical files switched the snapshot")
	}
	for _, f := range again.Families {
		if !f.Unchanged {
			t.Errorf("family %s reloaded although its files are identical", f.Manifest.Family)
		}
	}
	after, _ := store.Serving(ctx, s)
	if after.Version != before.Version {
		t.Error("serving pointer moved")
	}

	forced, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forced.Families {
		for c, sum := range f.Changes {
			if sum.Added != 0 || sum.Changed != 0 || sum.Removed != 0 {
				t.Errorf("forced reload of identical files changed %s: %+v", c, sum)
			}
		}
	}
	if first.Rows != forced.Rows {
		t.Errorf("rows %d then %d", first.Rows, forced.Rows)
	}
}

// TestReingestRebuildsIncompleteProjection: a snapshot written by an earlier version whose FHIR
// projection wrote no tag sets (its resources carried them) is rebuilt by the next ingest of the
// same files, which reloads no family; the resources' records are unchanged.
func TestReingestRebuildsIncompleteProjection(t *testing.T) {
	base := drops(t).Base
	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base}); err != nil {
		t.Fatal(err)
	}
	serving, _ := store.Serving(ctx, s)
	older, err := store.Switch(ctx, s, serving, map[string]string{catalog.FHIRTags: ""}, "as an earlier version left it")
	if err != nil {
		t.Fatal(err)
	}

	res, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Switched {
		t.Fatal("the incomplete FHIR projection was not rebuilt")
	}
	for _, f := range res.Families {
		if !f.Unchanged {
			t.Errorf("family %s reloaded although its files are identical", f.Manifest.Family)
		}
	}
	after, _ := store.Serving(ctx, s)
	if after.Generation(catalog.FHIRTags) == "" || after.Generation(catalog.FHIRTags) != after.Generation(catalog.FHIRCollection(fhirmap.TypePractitioner)) {
		t.Errorf("tag sets at %q, practitioners at %q", after.Generation(catalog.FHIRTags), after.Generation(catalog.FHIRCollection(fhirmap.TypePractitioner)))
	}
	if after.Generation(catalog.RegistryProviders) != older.Generation(catalog.RegistryProviders) {
		t.Error("the registry moved to a new generation")
	}
	for _, c := range ingest.FHIRCollections {
		if sum := res.Projections[c]; sum.Added != 0 || sum.Changed != 0 || sum.Removed != 0 {
			t.Errorf("rebuilding %s changed records: %+v", c, sum)
		}
	}
	if sum := res.Projections[catalog.FHIRTags]; sum.Added == 0 {
		t.Errorf("no tag sets added: %+v", sum)
	}

	again, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base})
	if err != nil || again.Switched {
		t.Errorf("a complete snapshot was rebuilt again: switched %v, %v", again.Switched, err)
	}
}

// TestReingestChecksumsDecide reloads a family whose file changed but kept its name and size,
// and no other.
func TestReingestChecksumsDecide(t *testing.T) {
	base := drops(t).Base
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
		t.Fatal(err)
	}
	s := backends.Embedded(t)
	ctx := context.Background()
	first, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var leieFile string
	for _, f := range first.Families {
		for _, file := range f.Manifest.Files {
			if len(file.SHA256) != 64 || file.Bytes == 0 {
				t.Errorf("family %s, file %s: checksum %q, %d bytes", f.Manifest.Family, file.Name, file.SHA256, file.Bytes)
			}
			if f.Manifest.Family == "leie" {
				leieFile = file.Name
			}
		}
	}
	var leiePath string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == leieFile {
			leiePath = p
		}
		return err
	})
	if err != nil || leiePath == "" {
		t.Fatalf("LEIE file %q not found in %s: %v", leieFile, dir, err)
	}
	b, err := os.ReadFile(leiePath)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.LastIndexByte(b, 'A') // a letter of some name or address
	if at < 0 {
		t.Fatal("no letter A in the LEIE file")
	}
	b[at] = 'B'
	if err := os.WriteFile(leiePath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again.Families {
		if f.Unchanged == (f.Manifest.Family == "leie") {
			t.Errorf("family %s: unchanged %t", f.Manifest.Family, f.Unchanged)
		}
	}
}

func TestChangeSetOfEvolvedDrop(t *testing.T) {
	drop := drops(t)
	base, evolved, man := drop.Base, drop.Next, drop.NextManifest
	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base}); err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: evolved})
	if err != nil {
		t.Fatal(err)
	}
	sum := family(t, res, "nppes").Changes[catalog.RegistryProviders]
	if sum.Added != int64(len(man.Changes.NewProviders)) {
		t.Errorf("added %d providers, drop lists %d new", sum.Added, len(man.Changes.NewProviders))
	}
	// Every provider the drop says moved, gained a taxonomy or was deactivated is in the change
	// set, and nothing else changed.
	want := map[string]bool{}
	for _, list := range [][]synth.Change{man.Changes.Moved, man.Changes.TaxonomyAdded, man.Changes.Deactivated} {
		for _, c := range list {
			want[c.Key] = true
		}
	}
	got := changedIDs(t, s, res.Generation, catalog.RegistryProviders)
	for id := range want {
		if !got[id] {
			t.Errorf("NPI %s changed in the drop but is not in the change set", id)
		}
	}
	for id := range got {
		if !want[id] {
			t.Errorf("NPI %s is in the change set but the drop did not change it", id)
		}
	}
}

func changedIDs(t *testing.T, s store.Store, gen, collection string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	recs, err := s.ListRecords(context.Background(), catalog.ChangeKind, gen+"."+collection+".", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		cs, err := decodeChangeSet(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		if cs.Collection != collection {
			continue
		}
		for _, id := range cs.Changed {
			out[id] = true
		}
	}
	return out
}

// changeSetOf returns a collection's change set in a generation, its chunks joined.
func changeSetOf(t *testing.T, s store.Store, gen, collection string) catalog.ChangeSet {
	t.Helper()
	prefix := gen + "." + collection + "."
	recs, err := s.ListRecords(context.Background(), catalog.ChangeKind, gen+"."+collection, store.MaxLimit)
	if err != nil {
		t.Fatal(err)
	}
	var out catalog.ChangeSet
	for _, r := range recs {
		if !strings.HasPrefix(r.ID, prefix) {
			break
		}
		cs, err := decodeChangeSet(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		out.Added = append(out.Added, cs.Added...)
		out.Changed = append(out.Changed, cs.Changed...)
		out.Removed = append(out.Removed, cs.Removed...)
	}
	return out
}

func decodeChangeSet(b []byte) (catalog.ChangeSet, error) {
	var cs catalog.ChangeSet
	err := json.Unmarshal(b, &cs)
	return cs, err
}

func TestDryRunWritesNothing(t *testing.T) {
	drop := drops(t)
	base, man := drop.Base, drop.BaseManifest
	s := backends.Embedded(t)
	res, err := ingest.Run(context.Background(), ingest.Options{Store: s, Dir: base, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Switched || res.Generation != "" {
		t.Errorf("dry run switched: %+v", res)
	}
	if got, want := family(t, res, "nppes").Manifest.Rejected, badRows(man, "nppes"); got != want {
		t.Errorf("dry run rejected %d, want %d", got, want)
	}
	gens, err := s.Generations(context.Background())
	if err != nil || len(gens) != 0 {
		t.Errorf("dry run left generations %v (%v)", gens, err)
	}
}

// An interrupted ingest switches nothing and leaves no partial generation behind, whether it is
// stopped while it reads the files or in the middle of the FHIR projection.
func TestInterruptedIngestLeavesServingSnapshot(t *testing.T) {
	drop := drops(t)
	base, evolved := drop.Base, drop.Next
	s := backends.Embedded(t)
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: s, Dir: base}); err != nil {
		t.Fatal(err)
	}
	before, _ := store.Serving(context.Background(), s)
	gensBefore, _ := s.Generations(context.Background())

	for _, tc := range []struct {
		name string
		prog func(cancel context.CancelFunc) ingest.Progress
	}{
		{"reading the files", func(cancel context.CancelFunc) ingest.Progress { return &cancelAfter{calls: 3, cancel: cancel} }},
		{"building the fhir projection", func(cancel context.CancelFunc) ingest.Progress {
			return &cancelInPhase{phase: "building the fhir projection", cancel: cancel}
		}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: evolved, Progress: tc.prog(cancel)})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: interrupted ingest returned %v, want context.Canceled", tc.name, err)
		}
		after, _ := store.Serving(context.Background(), s)
		if after.Version != before.Version || !mapsEqual(after.Collections, before.Collections) {
			t.Errorf("%s: serving snapshot changed: %+v -> %+v", tc.name, before, after)
		}
		gensAfter, _ := s.Generations(context.Background())
		if !slices.Equal(gensBefore, gensAfter) {
			t.Errorf("%s: generations %v -> %v: the partial one was not dropped", tc.name, gensBefore, gensAfter)
		}
	}
}

// cancelAfter cancels the ingest at its n-th progress report, once some files are written.
type cancelAfter struct {
	calls  int
	cancel context.CancelFunc
}

func (c *cancelAfter) Update(string, int64, int64, int64, int64) {
	if c.calls--; c.calls == 0 {
		c.cancel()
	}
}
func (c *cancelAfter) Phase(string)                             {}
func (c *cancelAfter) PhaseUpdate(string, int64, int64, string) {}
func (c *cancelAfter) Done(int64, int64, time.Duration)         {}

// phaseUpdates keeps each phase's last report of progress: done and total.
type phaseUpdates struct {
	mu   sync.Mutex
	last map[string][2]int64
}

func (p *phaseUpdates) Update(string, int64, int64, int64, int64) {}
func (p *phaseUpdates) Phase(string)                              {}
func (p *phaseUpdates) PhaseUpdate(step string, done, total int64, _ string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[string][2]int64{}
	}
	p.last[step] = [2]int64{done, total}
}
func (p *phaseUpdates) Done(int64, int64, time.Duration) {}

// cancelInPhase cancels the ingest at the first report of progress within the named phase,
// once part of its work is done.
type cancelInPhase struct {
	phase  string
	cancel context.CancelFunc
}

func (c *cancelInPhase) Update(string, int64, int64, int64, int64) {}
func (c *cancelInPhase) Phase(string)                              {}
func (c *cancelInPhase) PhaseUpdate(step string, done, total int64, _ string) {
	if step == c.phase && done > 0 && done < total {
		c.cancel()
	}
}
func (c *cancelInPhase) Done(int64, int64, time.Duration) {}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// putOnly hides the embedded store's bulk loads, so that an ingest writes through Put.
type putOnly struct{ store.Store }

// An ingest through bulk loads stores exactly what one through Put stores: every collection,
// document, body and search key.
func TestBulkLoadsStoreWhatPutsStore(t *testing.T) {
	base := drops(t).Base
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) }
	loaded, put := backends.Embedded(t), backends.Embedded(t)
	if _, err := ingest.Run(ctx, ingest.Options{Store: loaded, Dir: base, Now: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: putOnly{put}, Dir: base, Now: now}); err != nil {
		t.Fatal(err)
	}
	a, _ := store.Serving(ctx, loaded)
	b, _ := store.Serving(ctx, put)
	if !mapsEqual(a.Collections, b.Collections) {
		t.Fatalf("serving snapshots differ:\n%v\n%v", a.Collections, b.Collections)
	}
	for coll, gen := range a.Collections {
		q := store.Query{Collection: coll, Generation: gen, Limit: store.MaxLimit}
		for {
			pa, err := loaded.Find(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := put.Find(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(pa.Docs) != len(pb.Docs) {
				t.Fatalf("%s: a page of %d documents loaded, %d put", coll, len(pa.Docs), len(pb.Docs))
			}
			for i := range pa.Docs {
				da, db := pa.Docs[i], pb.Docs[i]
				if da.ID != db.ID || !bytes.Equal(da.Body, db.Body) || !slices.Equal(da.Keys, db.Keys) {
					t.Fatalf("%s: document %q loaded differs from %q put", coll, da.ID, db.ID)
				}
			}
			// The index too: every search key of a sample of documents finds the same
			// documents in the same order, by id and ordered by the key's param, and the whole
			// collection ordered by each param comes in the same order.
			for _, d := range pa.Docs[:min(len(pa.Docs), 20)] {
				for _, k := range d.Keys {
					for _, kq := range []store.Query{
						{Collection: coll, Generation: gen, Limit: 50, Where: []store.Condition{{Param: k.Param, Values: []string{k.Value}}}},
						{Collection: coll, Generation: gen, Limit: 50, Where: []store.Condition{{Param: k.Param, Values: []string{k.Value}}}, OrderBy: k.Param},
						{Collection: coll, Generation: gen, Limit: 50, OrderBy: k.Param},
					} {
						ka, errA := loaded.Find(ctx, kq)
						kb, errB := put.Find(ctx, kq)
						if errA != nil || errB != nil {
							t.Fatal(errA, errB)
						}
						if !slices.Equal(docIDs(ka.Docs), docIDs(kb.Docs)) {
							t.Fatalf("%s: %+v finds %v loaded, %v put", coll, kq, docIDs(ka.Docs), docIDs(kb.Docs))
						}
					}
				}
			}
			if pa.Next == "" || pa.Next != pb.Next {
				break
			}
			q.After = pa.Next
		}
	}
}

func docIDs(docs []store.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

// NPPES writes <UNAVAIL> where it withholds a value (an EIN, another organization name), and the
// generator writes it where the real file does: no stored document, source record or FHIR
// resource, may carry it as data.
func TestNoPlaceholderServedAsData(t *testing.T) {
	base := drops(t).Base
	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(base, nppesFile(t, base)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(nppes.Unavailable)) {
		t.Fatal("the drop has no placeholder: nothing is tested")
	}
	serving, _ := store.Serving(ctx, s)
	docs := 0
	for coll, gen := range serving.Collections {
		q := store.Query{Collection: coll, Generation: gen, Limit: 1000}
		for {
			page, err := s.Find(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", coll, err)
			}
			for _, d := range page.Docs {
				docs++
				if bytes.Contains(bytes.ToUpper(d.Body), []byte("UNAVAIL")) {
					t.Fatalf("%s/%s carries a placeholder: %.300s", coll, d.ID, d.Body)
				}
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	if docs == 0 {
		t.Fatal("no documents read")
	}
}

// nppesFile is the name of the drop's npidata file.
func nppesFile(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "npidata_pfile_*.csv"))
	for _, f := range files {
		if !strings.HasSuffix(f, "_fileheader.csv") {
			return filepath.Base(f)
		}
	}
	t.Fatal("no npidata file in the drop")
	return ""
}
