package ingest

import (
	"context"
	"io/fs"
	"maps"
	"slices"
	"testing"
	"testing/fstest"

	"providerdir/catalog"
	"providerdir/source/reference"
	"providerdir/store"
	"providerdir/testing/backends"
)

// TestTables holds the family and projection tables to what the run relies on: a name per
// family, a collection written by one family or projection only, and projections ordered so
// that each reads only the families' collections and earlier projections' outputs.
func TestTables(t *testing.T) {
	writer := map[string]string{} // collection -> the family or projection that writes it
	claim := func(who string, collections []string) {
		for _, c := range collections {
			if prev, ok := writer[c]; ok {
				t.Errorf("%s and %s both write %s", prev, who, c)
			}
			writer[c] = who
		}
	}
	names := map[string]bool{}
	for _, f := range families {
		if names[f.name] {
			t.Errorf("family %s is in the table twice", f.name)
		}
		names[f.name] = true
		if len(f.patterns) == 0 || len(f.collections) == 0 || f.load == nil || f.dataset.ID == "" {
			t.Errorf("family %s lacks patterns, collections, a loader or a dataset", f.name)
		}
		claim("family "+f.name, f.collections)
	}
	for _, p := range projections {
		for _, c := range p.inputs {
			if _, ok := writer[c]; !ok {
				t.Errorf("projection %s reads %s, which no family and no earlier projection writes", p.name, c)
			}
		}
		if len(p.outputs) == 0 || p.run == nil {
			t.Errorf("projection %s lacks outputs or a builder", p.name)
		}
		claim("projection "+p.name, p.outputs)
	}
}

// TestFindFamiliesInTableOrder: whatever order a drop's files list in, the families found come
// in the table's order, which is the order they load in.
func TestFindFamiliesInTableOrder(t *testing.T) {
	drop := fstest.MapFS{
		"OP_DTL_GNRL_PGY2024_P01302025.csv":     {Data: []byte("x")},
		"UPDATED.csv":                           {Data: []byte("x")},
		"a/npidata_pfile_20050523-20250608.csv": {Data: []byte("x")},
		"nucc_taxonomy_251.csv":                 {Data: []byte("x")},
		"unrelated.txt":                         {Data: []byte("x")},
	}
	found, err := findFamilies(fileRoot{drop, "drop"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.family.name)
	}
	if want := []string{"nucc", "nppes", "leie", "openpayments"}; !slices.Equal(got, want) {
		t.Errorf("families found %v, want %v", got, want)
	}
}

// referenceWith is the built-in reference set with the file at name replaced by data.
func referenceWith(t *testing.T, name string, data []byte) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(reference.Embedded(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(reference.Embedded(), p)
		out[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out[name]; !ok {
		t.Fatalf("the reference set has no %s", name)
	}
	out[name] = &fstest.MapFile{Data: data}
	return out
}

// planned lists the families of a plan that load and those skipped as unchanged.
func planned(p plan) (load, skip []string) {
	for _, f := range p.families {
		if f.unchanged != nil {
			skip = append(skip, f.found.family.name)
		} else {
			load = append(load, f.found.family.name)
		}
	}
	return load, skip
}

// TestPlanRun: the plan loads a family whose files differ from the serving ones, skips one whose
// files are byte-identical, and loads everything on a dry run or with Force, before anything
// is written.
func TestPlanRun(t *testing.T) {
	ctx := context.Background()
	st := backends.Embedded(t)
	none := Options{Store: st, Reference: reference.Embedded()}
	if err := none.complete(); err != nil {
		t.Fatal(err)
	}
	first, err := planRun(ctx, none)
	if err != nil {
		t.Fatal(err)
	}
	if load, skip := planned(first); !slices.Equal(load, []string{"census", "nucc"}) || skip != nil {
		t.Fatalf("a first plan loads %v and skips %v, want census and nucc loaded", load, skip)
	}
	if _, err := Run(ctx, none); err != nil {
		t.Fatal(err)
	}
	nucc, err := fs.ReadFile(reference.Embedded(), "nucc/nucc_taxonomy_251.csv")
	if err != nil {
		t.Fatal(err)
	}
	edited := append([]byte(nil), nucc...)
	edited[len(edited)-2] ^= 1 // same size, other bytes: only a checksum tells
	cases := []struct {
		name       string
		opts       Options
		load, skip []string
		idle       bool
	}{
		{"same files", Options{Reference: reference.Embedded()}, nil, []string{"census", "nucc"}, true},
		{"one file edited", Options{Reference: referenceWith(t, "nucc/nucc_taxonomy_251.csv", edited)}, []string{"nucc"}, []string{"census"}, false},
		{"one file grown", Options{Reference: referenceWith(t, "nucc/nucc_taxonomy_251.csv", append(nucc, '\n'))}, []string{"nucc"}, []string{"census"}, false},
		{"forced", Options{Reference: reference.Embedded(), Force: true}, []string{"census", "nucc"}, nil, false},
		{"dry run", Options{Reference: reference.Embedded(), DryRun: true}, []string{"census", "nucc"}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Store = st
			if err := c.opts.complete(); err != nil {
				t.Fatal(err)
			}
			p, err := planRun(ctx, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			load, skip := planned(p)
			if !slices.Equal(load, c.load) || !slices.Equal(skip, c.skip) {
				t.Errorf("plan loads %v and skips %v, want %v and %v", load, skip, c.load, c.skip)
			}
			idle, err := p.idle(ctx, c.opts)
			if err != nil || idle != c.idle {
				t.Errorf("idle = %v, %v; want %v", idle, err, c.idle)
			}
		})
	}
}

// TestRunSteps walks one ingest step by step: loading and recording change nothing that is
// served; the recorded generation holds the new manifest of the family loaded and the serving
// one of the family skipped; only the switch makes the run's generation serve.
func TestRunSteps(t *testing.T) {
	ctx := context.Background()
	st := backends.Embedded(t)
	if _, err := Run(ctx, Options{Store: st, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	before, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	oldManifests, err := catalog.ManifestsAt(ctx, st, before.Generation(catalog.ManifestCollection))
	if err != nil {
		t.Fatal(err)
	}
	nucc, err := fs.ReadFile(reference.Embedded(), "nucc/nucc_taxonomy_251.csv")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Store: st, Reference: referenceWith(t, "nucc/nucc_taxonomy_251.csv", append(nucc, '\n'))}
	if err := opts.complete(); err != nil {
		t.Fatal(err)
	}
	p, err := planRun(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	run, err := newRunState(ctx, opts, p)
	if err != nil {
		t.Fatal(err)
	}
	servesAsBefore := func(step string) {
		t.Helper()
		now, err := store.Serving(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{catalog.ManifestCollection, catalog.NUCCTaxonomy, catalog.CensusStates, catalog.SupplyStudies} {
			if now.Generation(c) != before.Generation(c) {
				t.Errorf("after %s, %s serves generation %q, not %q", step, c, now.Generation(c), before.Generation(c))
			}
		}
	}

	if err := run.load(ctx); err != nil {
		t.Fatal(err)
	}
	servesAsBefore("load")
	for _, c := range []string{catalog.NUCCTaxonomy, catalog.SupplyStudies} {
		if run.changes[c] != run.gen {
			t.Errorf("after load, %s is not to switch to the run's generation", c)
		}
	}
	if _, ok := run.changes[catalog.CensusStates]; ok {
		t.Errorf("after load, the unchanged census is to switch")
	}

	families := p.results(run.loaded)
	projected, err := run.record(ctx, families)
	if err != nil {
		t.Fatal(err)
	}
	servesAsBefore("record")
	if _, ok := projected[catalog.SupplyStudies]; !ok {
		t.Errorf("record summarised the projections %v, want %s among them", projected, catalog.SupplyStudies)
	}
	if families[1].Manifest.Family != "nucc" || families[1].Changes[catalog.NUCCTaxonomy].Previous != before.Generation(catalog.NUCCTaxonomy) {
		t.Errorf("nucc's change set is %+v, want one against the serving generation", families[1].Changes)
	}
	recorded, err := catalog.ManifestsAt(ctx, st, run.gen)
	if err != nil {
		t.Fatal(err)
	}
	byFamily := map[string]catalog.Manifest{}
	for _, m := range recorded {
		byFamily[m.Family] = m
	}
	if byFamily["census"].Generation != oldManifests[0].Generation || byFamily["census"].Family != oldManifests[0].Family {
		t.Errorf("the skipped census's manifest is %+v, want the serving one carried over", byFamily["census"])
	}
	if byFamily["nucc"].Generation != run.gen {
		t.Errorf("nucc's manifest names generation %q, want the run's %q", byFamily["nucc"].Generation, run.gen)
	}

	if err := run.switchServing(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range map[string]string{catalog.ManifestCollection: run.gen, catalog.NUCCTaxonomy: run.gen, catalog.CensusStates: before.Generation(catalog.CensusStates)} {
		if after.Generation(c) != want {
			t.Errorf("after the switch, %s serves %q, want %q", c, after.Generation(c), want)
		}
	}
}

// Only a run that loads Open Payments asks the registry's load to stay cached: its matching
// reads the registry at random, and nothing else does.
func TestReadBackOf(t *testing.T) {
	named := func(name string) *family {
		i := slices.IndexFunc(families, func(f *family) bool { return f.name == name })
		return families[i]
	}
	loads := func(names ...string) plan {
		var p plan
		for _, n := range names {
			p.families = append(p.families, plannedFamily{found: foundFamily{family: named(n)}})
		}
		return p
	}
	unchangedPayments := loads("nppes", "openpayments")
	unchangedPayments.families[1].unchanged = &catalog.Manifest{}
	tests := []struct {
		name string
		p    plan
		want map[string]bool
	}{
		{"registry and payments", loads("nppes", "pecos", "openpayments"), map[string]bool{catalog.RegistryProviders: true}},
		{"payments alone", loads("openpayments"), map[string]bool{catalog.RegistryProviders: true}},
		{"registry alone", loads("nppes", "pecos"), nil},
		{"payments unchanged", unchangedPayments, nil},
	}
	for _, tt := range tests {
		if got := readBackOf(tt.p); !maps.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
