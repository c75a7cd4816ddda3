package synth

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"providerdir/ident"
	"providerdir/source/census"
	"providerdir/source/nppes"
	refset "providerdir/source/reference"
)

// The drops most tests read are generated once per test binary: a 2,000-provider base drop (the
// demo scale) and its next snapshot.
const (
	fixtureProviders = 2000
	fixtureSeed      = 20250608
)

var fixtures struct {
	once            sync.Once
	root            string
	base, evolved   string
	mBase, mEvolved *Manifest
	err             error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtures.root != "" {
		os.RemoveAll(fixtures.root)
	}
	os.Exit(code)
}

func drops(t testing.TB) (base, evolved string, mb, me *Manifest) {
	t.Helper()
	ref := refset.Embedded()
	fixtures.once.Do(func() {
		root, err := os.MkdirTemp("", "synth-test-")
		if err != nil {
			fixtures.err = err
			return
		}
		fixtures.root = root
		fixtures.base, fixtures.evolved = filepath.Join(root, "base"), filepath.Join(root, "evolved")
		fixtures.mBase, fixtures.err = Generate(context.Background(), Config{Providers: fixtureProviders, Seed: fixtureSeed,
			Out: fixtures.base, Reference: ref})
		if fixtures.err != nil {
			return
		}
		fixtures.mEvolved, fixtures.err = Generate(context.Background(), Config{EvolveFrom: fixtures.base,
			Out: fixtures.evolved, Reference: ref})
	})
	if fixtures.err != nil {
		t.Fatal(fixtures.err)
	}
	return fixtures.base, fixtures.evolved, fixtures.mBase, fixtures.mEvolved
}

// parsed is a generated file read whole.
type parsed struct {
	header []string
	rows   [][]string
	lines  []int64
}

// readGenerated reads a file of a drop with encoding/csv, leaving out the manifest's bad rows
// unless withBad, and keeping each row's line.
func readGenerated(t testing.TB, dir string, m *Manifest, name string, withBad bool) parsed {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[int64]bool{}
	for _, r := range m.BadRowsOf(name) {
		bad[r.Line] = true
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	var p parsed
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		l, _ := cr.FieldPos(0) // blank lines are skipped, so lines and records may differ
		line := int64(l)
		if line == 1 {
			p.header = rec
			continue
		}
		if bad[line] && !withBad {
			continue
		}
		p.rows = append(p.rows, rec)
		p.lines = append(p.lines, line)
	}
	return p
}

func (p parsed) col(t testing.TB, name string) int {
	t.Helper()
	k := slices.Index(p.header, name)
	if k < 0 {
		t.Fatalf("no column %q", name)
	}
	return k
}

func fileOf(t testing.TB, m *Manifest, family, prefix string) string {
	t.Helper()
	for _, f := range m.FilesOf(family) {
		if strings.HasPrefix(f.Name, prefix) {
			return f.Name
		}
	}
	t.Fatalf("no %s file starting %q", family, prefix)
	return ""
}

func TestDeterministic(t *testing.T) {
	ref := refset.Embedded()
	// Two runs, one with a single worker and one with three: the number of goroutines
	// formatting records must not show in the output.
	dirs := []string{t.TempDir(), t.TempDir()}
	for k, d := range dirs {
		if _, err := Generate(context.Background(), Config{Providers: 6000, Seed: 7, Out: d, Reference: ref, Workers: 1 + 2*k}); err != nil {
			t.Fatal(err)
		}
	}
	names := func(d string) []string {
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	a, b := names(dirs[0]), names(dirs[1])
	if !slices.Equal(a, b) {
		t.Fatalf("file lists differ:\n%v\n%v", a, b)
	}
	for _, n := range a {
		x, _ := os.ReadFile(filepath.Join(dirs[0], n))
		y, _ := os.ReadFile(filepath.Join(dirs[1], n))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs of the same seed", n)
		}
	}
	// Another seed gives other data.
	other := t.TempDir()
	if _, err := Generate(context.Background(), Config{Providers: 6000, Seed: 8, Out: other, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	m0, _ := ReadManifest(dirs[0])
	m1, _ := ReadManifest(other)
	if m0.Files[0].SHA256 == m1.Files[0].SHA256 {
		t.Error("seeds 7 and 8 gave the same NPPES file")
	}
}

func TestNPPESHeaderIsTheReferenceHeader(t *testing.T) {
	base, _, m, _ := drops(t)
	want, err := fs.ReadFile(refset.Embedded(), nppes.HeaderFile)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(base, fileOf(t, m, "nppes", "npidata_pfile_")))
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(want), "\n", 2)[0]
	if !strings.HasPrefix(string(got), first+"\n") {
		t.Fatal("npidata header is not the reference header line")
	}
	if n := strings.Count(first, ",") + 1; n != 330 {
		t.Fatalf("reference header has %d columns", n)
	}
}

// TestQuoting checks each family's published quoting and line endings.
func TestQuoting(t *testing.T) {
	base, _, m, _ := drops(t)
	tests := []struct {
		prefix         string
		headerQuoted   bool
		valuesAllQuote bool
		crlf           bool
	}{
		{"npidata_pfile_", true, true, false},
		{"pl_pfile_", true, true, false},
		{"othername_pfile_", true, true, false},
		{"UPDATED.csv", false, true, true},
		{"PPEF_Enrollment_Extract_", false, false, false},
		{"Hospital_and_other.DATA.", false, false, false},
		{"Hospital_General_Information.csv", true, true, false},
		{"OP_DTL_GNRL_PGY", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			var name string
			for _, f := range m.Files {
				if strings.HasPrefix(f.Name, tt.prefix) {
					name = f.Name
				}
			}
			b, err := os.ReadFile(filepath.Join(base, name))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			for k, l := range lines {
				if strings.HasSuffix(l, "\r") != tt.crlf {
					t.Fatalf("line %d: CRLF %v, want %v", k+1, !tt.crlf, tt.crlf)
				}
			}
			if strings.HasPrefix(lines[0], `"`) != tt.headerQuoted {
				t.Errorf("header quoted = %v, want %v", !tt.headerQuoted, tt.headerQuoted)
			}
			second := strings.TrimSuffix(lines[1], "\r")
			if tt.valuesAllQuote && !(strings.HasPrefix(second, `"`) && strings.HasSuffix(second, `"`)) {
				t.Errorf("values not all quoted: %.80s", second)
			}
			if !tt.valuesAllQuote && strings.HasPrefix(second, `"`) {
				t.Errorf("value quoted without need: %.80s", second)
			}
		})
	}
}

// TestStateShares checks that practice states track the Census 2024 populations of the 51. The
// state of the k-th individual comes from a low-discrepancy sequence, so shares are far closer
// to the Census than random draws would be; the tolerance is still that of random draws.
func TestStateShares(t *testing.T) {
	ref := refset.Embedded()
	dir := t.TempDir()
	const n = 20000
	m, err := Generate(context.Background(), Config{Providers: n, Seed: 99, Out: dir, Reference: ref})
	if err != nil {
		t.Fatal(err)
	}
	states, err := census.LoadStates(ref, census.StatesFile)
	if err != nil {
		t.Fatal(err)
	}
	var total, pop int64
	for _, c := range m.Counts.ActiveIndividualsByState {
		total += c
	}
	the51 := census.The51(states)
	for _, s := range the51 {
		pop += s.Population
	}
	if len(m.Counts.ActiveIndividualsByState) != 51 {
		t.Fatalf("%d states counted", len(m.Counts.ActiveIndividualsByState))
	}
	// The file agrees with the manifest.
	p := readGenerated(t, dir, m, fileOf(t, m, "nppes", "npidata_pfile_"), false)
	fromFile := map[string]int64{}
	st, ent := p.col(t, "Provider Business Practice Location Address State Name"), p.col(t, "Entity Type Code")
	for _, r := range p.rows {
		if r[ent] == "1" {
			fromFile[r[st]]++
		}
	}
	for _, s := range the51 {
		got := m.Counts.ActiveIndividualsByState[s.Code]
		if fromFile[s.Code] != got {
			t.Errorf("%s: file has %d active individuals, manifest %d", s.Code, fromFile[s.Code], got)
		}
		want := float64(total) * float64(s.Population) / float64(pop)
		if tol := 4*math.Sqrt(want) + 2; math.Abs(float64(got)-want) > tol {
			t.Errorf("%s: %d individuals, want %.1f ± %.1f", s.Code, got, want, tol)
		}
	}
}

// TestRegisteredSpecialties checks that every registered specialty and subspecialty code has
// real counts at demo scale, and that the counts the manifest promises are those in the file.
func TestRegisteredSpecialties(t *testing.T) {
	base, _, m, _ := drops(t)
	p := readGenerated(t, base, m, fileOf(t, m, "nppes", "npidata_pfile_"), false)
	ent, st := p.col(t, "Entity Type Code"), p.col(t, "Provider Business Practice Location Address State Name")
	anySlot, states := map[string]int64{}, map[string]map[string]bool{}
	for _, r := range p.rows {
		if r[ent] != "1" {
			continue
		}
		seen := map[string]bool{}
		for k := 1; k <= 15; k++ {
			c := r[p.col(t, "Healthcare Provider Taxonomy Code_"+strconv.Itoa(k))]
			if c == "" || seen[c] {
				continue
			}
			seen[c] = true
			anySlot[c]++
			if states[c] == nil {
				states[c] = map[string]bool{}
			}
			states[c][r[st]] = true
		}
	}
	for _, s := range Specialties {
		for k, code := range s.Codes {
			t.Run(s.Slug+"/"+code, func(t *testing.T) {
				if got, want := anySlot[code], m.Counts.Taxonomies[code].AnySlot; got != want {
					t.Errorf("file has %d providers with %s, manifest %d", got, code, want)
				}
				minCount, minStates := int64(4), 3
				if k == 0 {
					minCount, minStates = 30, 20 // a parent (or only) code: tens of providers, many states
				}
				if anySlot[code] < minCount || len(states[code]) < minStates {
					t.Errorf("%s: %d providers in %d states, want at least %d in %d", code, anySlot[code], len(states[code]), minCount, minStates)
				}
			})
		}
	}
	// A realistic tail: family medicine, internal medicine and nurse practitioners are common.
	for _, code := range []string{"207Q00000X", "207R00000X", "363LF0000X"} {
		if anySlot[code] < 50 {
			t.Errorf("%s: only %d providers", code, anySlot[code])
		}
	}
}

// TestTaxonomySlots checks the slot rules: 1 to 4 taxonomies per individual, exactly one
// primary switch "Y", licenses with a valid state, codes from the NUCC set.
func TestTaxonomySlots(t *testing.T) {
	base, _, m, _ := drops(t)
	w := worldForTest(t)
	p := readGenerated(t, base, m, fileOf(t, m, "nppes", "npidata_pfile_"), false)
	ent := p.col(t, "Entity Type Code")
	counts := map[int]int{}
	for _, r := range p.rows {
		if r[ent] == "" {
			continue
		}
		n, primaries := 0, 0
		for k := 1; k <= 15; k++ {
			code := r[p.col(t, "Healthcare Provider Taxonomy Code_"+strconv.Itoa(k))]
			sw := r[p.col(t, "Healthcare Provider Primary Taxonomy Switch_"+strconv.Itoa(k))]
			if code == "" {
				if sw != "" {
					t.Fatalf("NPI %s: switch without code in slot %d", r[0], k)
				}
				continue
			}
			n++
			if _, ok := w.ref.nucc[code]; !ok {
				t.Errorf("NPI %s: %s is not a NUCC 25.1 code", r[0], code)
			}
			if sw == "Y" {
				primaries++
			}
			if ls := r[p.col(t, "Provider License Number State Code_"+strconv.Itoa(k))]; ls != "" {
				if err := ident.ValidateState(ls); err != nil {
					t.Errorf("NPI %s: %v", r[0], err)
				}
			}
		}
		if primaries != 1 {
			t.Errorf("NPI %s: %d primary switches", r[0], primaries)
		}
		if r[ent] == "1" {
			counts[n]++
			if n < 1 || n > 4 {
				t.Errorf("NPI %s: %d taxonomies", r[0], n)
			}
		}
	}
	if counts[1] == 0 || counts[2] == 0 || counts[3] == 0 || counts[4] == 0 {
		t.Errorf("taxonomy counts per individual: %v, want each of 1-4", counts)
	}
}

// TestIdentifiersAndJoins checks every NPI and CCN of every file and that the files join up:
// the references from LEIE, PECOS, Open Payments and the facility files resolve in NPPES and POS,
// and each CCN's state code belongs to the facility's state.
func TestIdentifiersAndJoins(t *testing.T) {
	base, _, m, _ := drops(t)
	npidata := readGenerated(t, base, m, fileOf(t, m, "nppes", "npidata_pfile_"), false)
	ent := npidata.col(t, "Entity Type Code")
	entity := map[string]string{}
	for _, r := range npidata.rows {
		if err := ident.ValidateNPI(r[0]); err != nil {
			t.Fatal(err)
		}
		if _, dup := entity[r[0]]; dup {
			t.Fatalf("NPI %s twice", r[0])
		}
		entity[r[0]] = r[ent]
	}
	if int64(len(entity)) != m.ProviderRecords {
		t.Fatalf("%d NPIs, manifest says %d records", len(entity), m.ProviderRecords)
	}
	refs := []struct {
		prefix, column, entity string
	}{
		{"pl_pfile_", "NPI", ""},
		{"othername_pfile_", "NPI", "2"},
		{"UPDATED.csv", "NPI", ""},
		{"PPEF_Enrollment_Extract_", "NPI", ""},
		{"Hospital_Enrollments_", "NPI", "2"},
		{"OP_DTL_GNRL_PGY" + strconv.Itoa(fixtureOPYear(m)), "Covered_Recipient_NPI", "1"},
		{"ASC_Facility.csv", "NPI", "2"},
	}
	for _, rf := range refs {
		var name string
		for _, f := range m.Files {
			if strings.HasPrefix(f.Name, rf.prefix) {
				name = f.Name
			}
		}
		p := readGenerated(t, base, m, name, false)
		k := p.col(t, rf.column)
		for _, r := range p.rows {
			npi := r[k]
			if npi == "0000000000" && name == LEIEName {
				continue
			}
			e, ok := entity[npi]
			switch {
			case !ok:
				t.Errorf("%s: NPI %s not in NPPES", name, npi)
			case rf.entity != "" && e != rf.entity:
				t.Errorf("%s: NPI %s has entity type %q, want %s", name, npi, e, rf.entity)
			}
		}
	}

	// CCNs: valid, unique, prefixed by a code of the facility's state; Care Compare and hospital
	// enrollments reference active POS facilities.
	pos := readGenerated(t, base, m, fileOf(t, m, "pos", "Hospital_and_other"), false)
	ccnCol, stCol, termCol, catCol := pos.col(t, "PRVDR_NUM"), pos.col(t, "STATE_CD"), pos.col(t, "PGM_TRMNTN_CD"), pos.col(t, "PRVDR_CTGRY_CD")
	active, kinds := map[string]bool{}, map[string]int{}
	for _, r := range pos.rows {
		c := r[ccnCol]
		if err := ident.ValidateCCN(c); err != nil {
			t.Fatal(err)
		}
		if st, _ := ident.CCNState(c[:2]); st != r[stCol] {
			t.Errorf("CCN %s: state code %s is %s, facility is in %s", c, c[:2], st, r[stCol])
		}
		if _, dup := active[c]; dup {
			t.Errorf("CCN %s twice", c)
		}
		active[c] = r[termCol] == "00"
		kinds[r[catCol]]++
	}
	for _, cat := range []string{"01", "02", "05", "09", "15", "16"} {
		if kinds[cat] == 0 {
			t.Errorf("no POS facility of category %s", cat)
		}
	}
	ccRefs := map[string]string{"Hospital_General_Information.csv": "Facility ID", "ASC_Facility.csv": "Facility ID",
		"DFC_FACILITY.csv": "CMS Certification Number (CCN)"}
	for _, f := range m.FilesOf("carecompare") {
		col := ccRefs[f.Name]
		if col == "" {
			col = "CMS Certification Number (CCN)"
		}
		p := readGenerated(t, base, m, f.Name, false)
		k := p.col(t, col)
		if len(p.rows) == 0 {
			t.Errorf("%s is empty", f.Name)
		}
		for _, r := range p.rows {
			if !active[r[k]] {
				t.Errorf("%s: CCN %s is not an active POS facility", f.Name, r[k])
			}
		}
	}
	he := readGenerated(t, base, m, fileOf(t, m, "pecos", "Hospital_Enrollments_"), false)
	for _, r := range he.rows {
		if !active[r[he.col(t, "CCN")]] {
			t.Errorf("hospital enrollment CCN %s is not an active POS facility", r[he.col(t, "CCN")])
		}
	}

	// Reassignments join individual enrollments to organization enrollments.
	enr := readGenerated(t, base, m, fileOf(t, m, "pecos", "PPEF_Enrollment_Extract_"), false)
	ids := map[string]string{}
	for _, r := range enr.rows {
		if _, dup := ids[r[2]]; dup {
			t.Errorf("enrollment id %s twice", r[2])
		}
		ids[r[2]] = entity[r[0]]
	}
	rea := readGenerated(t, base, m, fileOf(t, m, "pecos", "PPEF_Reassignment_Extract_"), false)
	for _, r := range rea.rows {
		if ids[r[0]] != "1" || ids[r[1]] != "2" {
			t.Errorf("reassignment %s -> %s does not join an individual to an organization", r[0], r[1])
		}
	}
}

func fixtureOPYear(m *Manifest) int {
	y, _ := programYear(dateOfISO(m.BaseSnapshot))
	return y
}

// TestFacilities checks the six quality types, stars and suppression.
func TestFacilities(t *testing.T) {
	base, _, m, _ := drops(t)
	for _, k := range facilityKinds {
		if c := m.Counts.Facilities[k.slug]; c.Total-c.Terminated < 5 {
			t.Errorf("%s: %d active facilities", k.slug, c.Total-c.Terminated)
		}
	}
	hgi := readGenerated(t, base, m, "Hospital_General_Information.csv", false)
	if len(hgi.header) != 38+2 { // the published 38 columns and the period's two
		t.Fatalf("Hospital_General_Information has %d columns", len(hgi.header))
	}
	stars := map[string]int{}
	for _, r := range hgi.rows {
		stars[r[hgi.col(t, "Hospital overall rating")]]++
	}
	for s := range stars {
		if s != "Not Available" && (len(s) != 1 || s < "1" || s > "5") {
			t.Errorf("hospital rating %q", s)
		}
	}
	if m.Counts.RatingsNotAvailable == 0 || m.Counts.SuppressedMeasureRows == 0 {
		t.Errorf("no unavailable ratings (%d) or suppressed measures (%d)", m.Counts.RatingsNotAvailable, m.Counts.SuppressedMeasureRows)
	}
	cahps := readGenerated(t, base, m, fileOf(t, m, "carecompare", "Provider_CAHPS_Hospice_Survey_Data_"), false)
	var starRows int64
	for _, r := range cahps.rows {
		if r[cahps.col(t, "Measure Code")] == "SUMMARY_STAR_RATING" {
			starRows++
		}
	}
	if starRows != m.Counts.HospiceCAHPSStarRows || starRows == 0 {
		t.Errorf("%d hospice star rows, manifest %d", starRows, m.Counts.HospiceCAHPSStarRows)
	}
}

// TestManifestFileCounts checks each file's row count, size and hash against the manifest.
func TestManifestFileCounts(t *testing.T) {
	base, _, m, _ := drops(t)
	for _, f := range m.Files {
		p := readGenerated(t, base, m, f.Name, true)
		if int64(len(p.rows)) != f.Rows {
			t.Errorf("%s: %d rows, manifest %d", f.Name, len(p.rows), f.Rows)
		}
		if len(p.header) != f.Columns {
			t.Errorf("%s: %d columns, manifest %d", f.Name, len(p.header), f.Columns)
		}
		info, err := os.Stat(filepath.Join(base, f.Name))
		if err != nil || info.Size() != f.Bytes {
			t.Errorf("%s: size %v, manifest %d", f.Name, info, f.Bytes)
		}
		if int64(len(m.BadRowsOf(f.Name))) != f.BadRows {
			t.Errorf("%s: %d bad rows listed, file entry says %d", f.Name, len(m.BadRowsOf(f.Name)), f.BadRows)
		}
	}
	if len(m.BadRows) < 20 {
		t.Errorf("only %d bad rows", len(m.BadRows))
	}
	for _, fam := range []string{"nppes", "leie", "pecos", "pos", "carecompare", "openpayments", "sam", "qpp"} {
		n := 0
		for _, f := range m.FilesOf(fam) {
			n += int(f.BadRows)
		}
		if n == 0 {
			t.Errorf("family %s has no bad rows", fam)
		}
	}
}

func TestCancelledRunLeavesNoFiles(t *testing.T) {
	ref := refset.Embedded()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := Generate(ctx, Config{Providers: 50000, Seed: 1, Out: dir, Reference: ref, Progress: func(p Progress) {
		calls++
		cancel()
	}})
	if err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	if calls == 0 {
		t.Fatal("progress was never reported")
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 0 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Fatalf("cancelled run left %v", names)
	}
}

func TestConfigErrors(t *testing.T) {
	ref := refset.Embedded()
	base, _, _, _ := drops(t)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no out", Config{Providers: 100, Reference: ref}, "no output directory"},
		{"no reference", Config{Providers: 100, Out: t.TempDir()}, "no reference files"},
		{"too few", Config{Providers: 5, Out: t.TempDir(), Reference: ref}, "between 20 and"},
		{"bad reference", Config{Providers: 100, Out: t.TempDir(), Reference: os.DirFS(t.TempDir())}, "census"},
		{"evolve into itself", Config{EvolveFrom: base, Out: base, Reference: ref}, "different directories"},
		{"evolve other scale", Config{Providers: 99, EvolveFrom: base, Out: t.TempDir(), Reference: ref}, "generated with 2000 providers"},
		{"evolve from nothing", Config{EvolveFrom: t.TempDir(), Out: t.TempDir(), Reference: ref}, "manifest.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Generate(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestRegenerateReplacesDrop checks that writing a drop over an earlier one removes the earlier
// drop's files, so a directory never mixes two snapshots.
func TestRegenerateReplacesDrop(t *testing.T) {
	ref := refset.Embedded()
	dir := t.TempDir()
	if _, err := Generate(context.Background(), Config{Providers: 100, Seed: 3, Out: dir, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	m, err := Generate(context.Background(), Config{Providers: 100, Seed: 3, Out: dir, Reference: ref,
		Snapshot: dateOfISO("2025-09-10").time()})
	if err != nil {
		t.Fatal(err)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != len(m.Files)+1 {
		t.Fatalf("%d entries, want %d files and the manifest", len(es), len(m.Files))
	}
	if _, ok := m.File("npidata_pfile_20050523-20250910.csv"); !ok {
		t.Fatal("snapshot date not in the NPPES file name")
	}
}

func dateOfISO(s string) date {
	d, err := parseISO(s)
	if err != nil {
		panic(err)
	}
	return d
}

func worldForTest(t testing.TB) *world {
	t.Helper()
	ref, err := loadReference(refset.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	w, err := newWorld(fixtureSeed, fixtureProviders, ref, baseSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
