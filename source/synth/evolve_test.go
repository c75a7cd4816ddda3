package synth

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	refset "providerdir/source/reference"
)

// keyed indexes a file's good rows by one column.
func keyed(t *testing.T, dir string, m *Manifest, name, column string) (parsed, map[string][]string) {
	t.Helper()
	p := readGenerated(t, dir, m, name, false)
	k := p.col(t, column)
	out := map[string][]string{}
	for _, r := range p.rows {
		if _, dup := out[r[k]]; dup && r[k] != "0000000000" {
			t.Fatalf("%s: key %s twice", name, r[k])
		}
		out[r[k]] = r
	}
	return p, out
}

func keysOf(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Key)
	}
	sort.Strings(out)
	return out
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestEvolveChangesMatchDiff diffs the base drop and its next snapshot file by file and checks
// that what differs is exactly what the new manifest lists, kind by kind.
func TestEvolveChangesMatchDiff(t *testing.T) {
	base, evolved, mb, me := drops(t)
	ch := me.Changes
	if ch == nil || me.Generation != 1 || me.PreviousSnapshot != mb.Snapshot {
		t.Fatalf("evolved manifest: generation %d, previous %q, changes %v", me.Generation, me.PreviousSnapshot, ch)
	}
	for kind, l := range map[string][]Change{ChangeMoved: ch.Moved, ChangeTaxonomyAdded: ch.TaxonomyAdded,
		ChangeNewlyExcluded: ch.NewlyExcluded, ChangeDeactivated: ch.Deactivated, ChangeNewProvider: ch.NewProviders,
		ChangeFacilityRating: ch.FacilityRating, ChangeFacilityTerminated: ch.FacilityTerminated} {
		if len(l) < 2 {
			t.Errorf("%s: only %d changes", kind, len(l))
		}
	}

	// NPPES: changed rows are the moved, re-taxonomied and deactivated NPIs; new rows the new
	// providers; nothing disappears.
	pa, a := keyed(t, base, mb, fileOf(t, mb, "nppes", "npidata_pfile_"), "NPI")
	_, b := keyed(t, evolved, me, fileOf(t, me, "nppes", "npidata_pfile_"), "NPI")
	changed, added := map[string]bool{}, map[string]bool{}
	for k, row := range b {
		old, ok := a[k]
		switch {
		case !ok:
			added[k] = true
		case !slices.Equal(old, row):
			changed[k] = true
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			t.Errorf("NPI %s vanished", k)
		}
	}
	want := keysOf(slices.Concat(ch.Moved, ch.TaxonomyAdded, ch.Deactivated))
	if got := sorted(changed); !slices.Equal(got, want) {
		t.Errorf("changed NPPES rows %v, manifest lists %v", got, want)
	}
	if got, want := sorted(added), keysOf(ch.NewProviders); !slices.Equal(got, want) {
		t.Errorf("new NPPES rows %v, manifest lists %v", got, want)
	}
	st := pa.col(t, "Provider Business Practice Location Address State Name")
	for _, c := range ch.Moved {
		if a[c.Key][st] != c.From || b[c.Key][st] != c.To {
			t.Errorf("move of %s: %s -> %s in the files, %s -> %s listed", c.Key, a[c.Key][st], b[c.Key][st], c.From, c.To)
		}
	}
	for _, c := range ch.TaxonomyAdded {
		if slices.Contains(a[c.Key], c.To) || !slices.Contains(b[c.Key], c.To) {
			t.Errorf("taxonomy %s of %s not added", c.To, c.Key)
		}
	}
	ent := pa.col(t, "Entity Type Code")
	for _, c := range ch.Deactivated {
		if a[c.Key][ent] == "" || b[c.Key][ent] != "" {
			t.Errorf("%s not newly deactivated", c.Key)
		}
	}

	// LEIE: the new NPIs are the newly excluded; other rows are unchanged.
	_, la := keyed(t, base, mb, LEIEName, "NPI")
	_, lb := keyed(t, evolved, me, LEIEName, "NPI")
	newly := map[string]bool{}
	for k, row := range lb {
		if old, ok := la[k]; !ok {
			newly[k] = true
		} else if !slices.Equal(old, row) {
			t.Errorf("LEIE row of %s changed", k)
		}
	}
	if got, want := sorted(newly), keysOf(ch.NewlyExcluded); !slices.Equal(got, want) {
		t.Errorf("newly excluded in LEIE %v, manifest lists %v", got, want)
	}

	// POS: only terminated facilities change, and they are marked terminated.
	pp, pa2 := keyed(t, base, mb, fileOf(t, mb, "pos", "Hospital_and_other"), "PRVDR_NUM")
	_, pb2 := keyed(t, evolved, me, fileOf(t, me, "pos", "Hospital_and_other"), "PRVDR_NUM")
	term := map[string]bool{}
	for k, row := range pb2 {
		if !slices.Equal(pa2[k], row) {
			term[k] = true
			if row[pp.col(t, "PGM_TRMNTN_CD")] == "00" {
				t.Errorf("POS row of %s changed but is active", k)
			}
		}
	}
	if got, want := sorted(term), keysOf(ch.FacilityTerminated); !slices.Equal(got, want) {
		t.Errorf("POS changes %v, manifest lists terminations %v", got, want)
	}

	// Care Compare: stars differ exactly for the listed facilities; terminated ones are gone.
	starCols := map[string]string{"Hospital_General_Information.csv": "Hospital overall rating", "NH_ProviderInfo_": "Overall Rating",
		"HH_Provider_": "Quality of patient care star rating", "DFC_FACILITY.csv": "Five Star"}
	idCols := map[string]string{"Hospital_General_Information.csv": "Facility ID"}
	rated := map[string]bool{}
	for prefix, col := range starCols {
		id := idCols[prefix]
		if id == "" {
			id = "CMS Certification Number (CCN)"
		}
		p1, r1 := keyed(t, base, mb, fileOf(t, mb, "carecompare", prefix), id)
		_, r2 := keyed(t, evolved, me, fileOf(t, me, "carecompare", prefix), id)
		k := p1.col(t, col)
		for ccn, row := range r2 {
			if old, ok := r1[ccn]; ok && old[k] != row[k] {
				rated[ccn] = true
			}
		}
		for ccn := range r1 {
			if _, ok := r2[ccn]; !ok && !slices.Contains(keysOf(ch.FacilityTerminated), ccn) {
				t.Errorf("%s: %s vanished without termination", prefix, ccn)
			}
		}
	}
	cahps := func(dir string, m *Manifest) map[string]string {
		p := readGenerated(t, dir, m, fileOf(t, m, "carecompare", "Provider_CAHPS_Hospice_Survey_Data_"), false)
		out := map[string]string{}
		for _, r := range p.rows {
			if r[p.col(t, "Measure Code")] == "SUMMARY_STAR_RATING" {
				out[r[0]] = r[p.col(t, "Star Rating")]
			}
		}
		return out
	}
	h1, h2 := cahps(base, mb), cahps(evolved, me)
	for ccn, s := range h2 {
		if old, ok := h1[ccn]; ok && old != s {
			rated[ccn] = true
		}
	}
	if got, want := sorted(rated), keysOf(ch.FacilityRating); !slices.Equal(got, want) {
		t.Errorf("star changes %v, manifest lists %v", got, want)
	}

	// PECOS: enrollments only disappear for deactivated NPIs and only appear for new ones.
	_, ea := keyed(t, base, mb, fileOf(t, mb, "pecos", "PPEF_Enrollment_Extract_"), "ENRLMT_ID")
	_, eb := keyed(t, evolved, me, fileOf(t, me, "pecos", "PPEF_Enrollment_Extract_"), "ENRLMT_ID")
	for id, row := range ea {
		if _, ok := eb[id]; !ok && !slices.Contains(keysOf(ch.Deactivated), row[0]) {
			t.Errorf("enrollment %s of %s removed without deactivation", id, row[0])
		}
	}
	for id, row := range eb {
		if old, ok := ea[id]; !ok && !slices.Contains(keysOf(ch.NewProviders), row[0]) {
			t.Errorf("enrollment %s of %s appeared for an old provider", id, row[0])
		} else if ok && !slices.Equal(old, row) {
			t.Errorf("enrollment %s changed", id)
		}
	}

	// Open Payments is history: the program-year files are identical.
	for _, f := range mb.FilesOf("openpayments") {
		g, ok := me.File(f.Name)
		if !ok || g.SHA256 != f.SHA256 {
			t.Errorf("%s differs between snapshots", f.Name)
		}
	}
}

// TestEvolveChain checks that evolution continues from an evolved drop, that it is
// deterministic, and that generation two's changes are its own.
func TestEvolveChain(t *testing.T) {
	ref := refset.Embedded()
	_, evolved, _, me := drops(t)
	var ms []*Manifest
	var dirs []string
	for k := 0; k < 2; k++ {
		d := filepath.Join(t.TempDir(), "gen2")
		m, err := Generate(context.Background(), Config{EvolveFrom: evolved, Out: d, Reference: ref, Providers: fixtureProviders})
		if err != nil {
			t.Fatal(err)
		}
		ms, dirs = append(ms, m), append(dirs, d)
	}
	m := ms[0]
	if m.Generation != 2 || m.PreviousSnapshot != me.Snapshot || m.Snapshot != "2025-08-08" || m.BaseSnapshot != me.BaseSnapshot {
		t.Fatalf("generation %d, previous %s, snapshot %s", m.Generation, m.PreviousSnapshot, m.Snapshot)
	}
	if m.ProviderRecords != me.ProviderRecords+newProvidersPerGeneration(fixtureProviders) {
		t.Errorf("%d records after %d", m.ProviderRecords, me.ProviderRecords)
	}
	for _, f := range m.Files {
		x, _ := os.ReadFile(filepath.Join(dirs[0], f.Name))
		y, _ := os.ReadFile(filepath.Join(dirs[1], f.Name))
		if string(x) != string(y) {
			t.Errorf("%s differs between two evolutions of the same drop", f.Name)
		}
	}
	if slices.Equal(keysOf(m.Changes.Moved), keysOf(me.Changes.Moved)) {
		t.Error("generation 2 moved the same providers as generation 1")
	}
	// A provider moved in generation 1 keeps its new state in generation 2 unless moved again.
	_, g1 := keyed(t, evolved, me, fileOf(t, me, "nppes", "npidata_pfile_"), "NPI")
	p2, g2 := keyed(t, dirs[0], m, fileOf(t, m, "nppes", "npidata_pfile_"), "NPI")
	st := p2.col(t, "Provider Business Practice Location Address State Name")
	again := keysOf(m.Changes.Moved)
	for _, c := range me.Changes.Moved {
		if !slices.Contains(again, c.Key) && g2[c.Key][st] != g1[c.Key][st] {
			t.Errorf("%s: state %s in generation 2, %s in generation 1", c.Key, g2[c.Key][st], g1[c.Key][st])
		}
	}
	if !strings.HasSuffix(fileOf(t, m, "nppes", "npidata_pfile_"), "-20250808.csv") {
		t.Error("generation 2 NPPES file is not dated 2025-08-08")
	}
}
