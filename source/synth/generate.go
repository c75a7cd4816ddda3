package synth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"
)

// Config says what to generate.
type Config struct {
	// Providers is the number of NPPES records of the base drop: 2,000 for the demo, about
	// 9 million for a national-size drop. With EvolveFrom it must be zero or the earlier drop's.
	Providers int64
	// Seed makes the drop: the same seed, scale and snapshot give byte-identical files.
	Seed uint64
	// Out is the directory the drop is written to; it is created if missing.
	Out string
	// Reference holds the public reference files: source/reference's built-in set, or a
	// directory of the same layout (os.DirFS).
	Reference fs.FS
	// EvolveFrom, if set, is an earlier drop whose manifest gives seed, scale and snapshot; the
	// new drop is its next snapshot, with a listed set of changed records.
	EvolveFrom string
	// Snapshot is the base drop's date; zero means 2025-06-08. Ignored with EvolveFrom.
	Snapshot time.Time
	// Progress, if set, is called from the writing goroutine about four times a second and
	// once at the end of each phase.
	Progress func(Progress)
	// Workers is how many goroutines derive and format provider records; zero means
	// GOMAXPROCS. The files are the same whatever the number.
	Workers int
}

// Progress reports a phase of generation: "providers" (NPPES, PECOS, LEIE and Open Payments
// rows, one provider record at a time) or "facilities" (POS, hospital enrollments, Care Compare).
type Progress struct {
	Phase         string
	Done, Total   int64         // records of the phase
	Rows          int64         // lines written so far, all files and phases
	Elapsed       time.Duration // since the phase began
	RowsPerSecond float64       // lines written in this phase per second of it
	Finished      bool          // the phase is complete
}

// Generate writes a drop and returns its manifest. Files are written under a temporary
// directory inside cfg.Out and renamed into place only when all are complete, the manifest
// last; a failed or cancelled run leaves no partial file under a final name.
func Generate(ctx context.Context, cfg Config) (*Manifest, error) {
	if cfg.Out == "" {
		return nil, errors.New("synth: no output directory")
	}
	if cfg.Reference == nil {
		return nil, errors.New("synth: no reference files")
	}
	ref, err := loadReference(cfg.Reference)
	if err != nil {
		return nil, err
	}
	layout, err := readNPPESHeader(cfg.Reference)
	if err != nil {
		return nil, err
	}
	w, err := worldFor(cfg, ref)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	tmp, err := os.MkdirTemp(cfg.Out, ".synth-tmp-")
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	defer os.RemoveAll(tmp)

	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g := &generation{w: w, layout: layout, tmp: tmp, progress: cfg.Progress, workers: workers}
	m, err := g.run(ctx)
	if err != nil {
		g.abort()
		return nil, err
	}
	if err := install(cfg.Out, tmp, m); err != nil {
		return nil, err
	}
	return m, nil
}

// worldFor builds the world of a base drop or of the next snapshot of an earlier drop.
func worldFor(cfg Config, ref *reference) (*world, error) {
	if cfg.EvolveFrom == "" {
		snap := baseSnapshot
		if !cfg.Snapshot.IsZero() {
			snap = dateOf(cfg.Snapshot)
		}
		return newWorld(cfg.Seed, cfg.Providers, ref, snap)
	}
	from, _ := filepath.Abs(cfg.EvolveFrom)
	out, _ := filepath.Abs(cfg.Out)
	if from == out {
		return nil, errors.New("synth: --evolve-from and --out must be different directories")
	}
	prev, err := ReadManifest(cfg.EvolveFrom)
	if err != nil {
		return nil, err
	}
	if cfg.Providers != 0 && cfg.Providers != prev.Providers {
		return nil, fmt.Errorf("synth: %s was generated with %d providers, not %d", cfg.EvolveFrom, prev.Providers, cfg.Providers)
	}
	base, err := time.Parse("2006-01-02", prev.BaseSnapshot)
	if err != nil {
		return nil, fmt.Errorf("synth: %s: base snapshot: %w", cfg.EvolveFrom, err)
	}
	w, err := newWorld(prev.Seed, prev.Providers, ref, dateOf(base))
	if err != nil {
		return nil, err
	}
	for g := 0; g <= prev.Generation; g++ {
		if err := w.addGeneration(); err != nil {
			return nil, err
		}
	}
	if w.snaps[w.gen-1].iso() != prev.Snapshot {
		return nil, fmt.Errorf("synth: %s: snapshot %s does not follow from base %s and generation %d", cfg.EvolveFrom, prev.Snapshot, prev.BaseSnapshot, prev.Generation)
	}
	return w, nil
}

// install moves the finished files into out: first removing the files an earlier drop in out
// listed (so the directory never mixes two drops), then the new data files, the manifest last.
func install(out, tmp string, m *Manifest) error {
	if old, err := ReadManifest(out); err == nil {
		for _, f := range old.Files {
			if err := os.Remove(filepath.Join(out, filepath.Base(f.Name))); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("synth: %w", err)
			}
		}
		if err := os.Remove(filepath.Join(out, ManifestName)); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	for _, f := range m.Files {
		// Files are dated by their family's snapshot, so a reader that dates an undated file
		// name (UPDATED.csv, Hospital_General_Information.csv) by its modification time gets
		// the drop's date, not the day it was generated.
		t := snapshotTime(m.SnapshotDates[f.Family])
		if err := os.Chtimes(filepath.Join(tmp, f.Name), t, t); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
		if err := os.Rename(filepath.Join(tmp, f.Name), filepath.Join(out, f.Name)); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	mt := filepath.Join(tmp, ManifestName)
	if err := os.WriteFile(mt, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	t := snapshotTime(m.Snapshot)
	if err := os.Chtimes(mt, t, t); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if err := os.Rename(mt, filepath.Join(out, ManifestName)); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

// snapshotTime is noon UTC of an ISO date (noon, so that no time zone moves it to another day).
func snapshotTime(iso string) time.Time {
	t, err := time.Parse("2006-01-02", iso)
	if err != nil {
		return time.Now()
	}
	return t.Add(12 * time.Hour)
}

// generation is one run writing one drop.
type generation struct {
	w        *world
	layout   *nppesLayout
	tmp      string
	progress func(Progress)
	workers  int

	files      []*csvFile
	pf         [numProviderFiles]*csvFile // provider-keyed files
	hospEnroll *csvFile
	pos        *csvFile
	cc         [numFacilityKinds]*csvFile
	cahps      *csvFile

	tally              tally
	excludedWithoutNPI int64
	facilityCounts     Counts // the facility part of the counts
	changes            changeSet

	started, lastReport            time.Time
	phaseRows                      int64 // rows written before the phase began
	phase                          string
	phaseTotal                     int64
	opYear, opLegacyYear           int
	opPublished, opLegacyPublished date
	mipsLatest, mipsOlder          int            // performance years of the MIPS score files
	samOthers                      int64          // SAM records of other agencies
	codes                          []string       // registered codes (and chiropractor), in Specialties order
	codeIndex                      map[string]int // code -> index in codes
	badProviders, badFacilities    []plannedBad
	nextBadFacility                int
}

// plannedBad is a bad row to write after the record at (a provider or facility index): into
// provider file file, or into facility file cf. q numbers the plan, giving each bad row its own
// phantom record.
type plannedBad struct {
	at     int64
	file   int
	cf     *csvFile
	reason string
	q      int
}

func (g *generation) open(name, family string, q quoting, crlf bool) (*csvFile, error) {
	c, err := createCSV(g.tmp, name, family, q, crlf)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	g.files = append(g.files, c)
	return c, nil
}

func (g *generation) abort() {
	for _, f := range g.files {
		f.abort()
	}
}

func (g *generation) openAll() error {
	w := g.w
	snap := w.snapshot()
	npiName, plName, otherName := nppesNames(snap)
	var err error
	mk := func(dst **csvFile, name, family string, q quoting, crlf bool) {
		if err == nil {
			*dst, err = g.open(name, family, q, crlf)
		}
	}
	mk(&g.pf[pfNPPES], npiName, "nppes", quoteAll, false)
	mk(&g.pf[pfLocations], plName, "nppes", quoteAll, false)
	mk(&g.pf[pfOtherNames], otherName, "nppes", quoteAll, false)
	mk(&g.pf[pfEndpoints], endpointName(snap), "nppes", quoteAll, false)
	mk(&g.pf[pfLEIE], LEIEName, "leie", quoteAll, true)
	e, ra, h := pecosNames(snap)
	mk(&g.pf[pfEnrollments], e, "pecos", quoteMinimal, false)
	mk(&g.pf[pfReassignments], ra, "pecos", quoteMinimal, false)
	mk(&g.hospEnroll, h, "pecos", quoteMinimal, false)
	mk(&g.pos, posName(snap), "pos", quoteMinimal, false)
	names := careCompareNames(snap)
	for k := facilityKind(0); k < numFacilityKinds; k++ {
		mk(&g.cc[k], names[k], "carecompare", quoteAll, false)
	}
	mk(&g.cahps, hospiceCAHPSName(snap), "carecompare", quoteAll, false)
	g.opYear, g.opPublished = programYear(w.snaps[0])
	g.opLegacyYear = g.opYear - 4
	g.opLegacyPublished = ymd(g.opLegacyYear+1, time.June, 30)
	mk(&g.pf[pfPayments], opName(g.opYear, g.opPublished), "openpayments", quoteAll, false)
	mk(&g.pf[pfLegacyPayments], opName(g.opLegacyYear, g.opLegacyPublished), "openpayments", quoteAll, false)
	mk(&g.pf[pfSAM], samName(snap), "sam", quoteAll, true)
	g.mipsLatest, g.mipsOlder = w.mipsYears()
	mk(&g.pf[pfMIPS], mipsName(g.mipsLatest), "qpp", quoteMinimal, false)
	mk(&g.pf[pfMIPSOlder], mipsName(g.mipsOlder), "qpp", quoteMinimal, false)
	if err != nil {
		return err
	}
	headers := []struct {
		f      *csvFile
		cols   []string
		quoted bool
	}{
		{g.pf[pfLocations], plHeader, true}, {g.pf[pfOtherNames], othernameHeader, true}, {g.pf[pfEndpoints], endpointHeader, true},
		{g.pf[pfLEIE], leieHeader, false},
		{g.pf[pfEnrollments], pecosEnrollmentHeader, false}, {g.pf[pfReassignments], pecosReassignmentHeader, false},
		{g.hospEnroll, hospitalEnrollmentHeader, false}, {g.pos, posHeader, false},
		{g.cc[kindHospital], hospitalGeneralHeader, true}, {g.cc[kindNursingHome], nursingHomeHeader, true},
		{g.cc[kindHomeHealth], homeHealthHeader, true}, {g.cc[kindHospice], hospiceHeader, true},
		{g.cc[kindDialysis], dialysisHeader, true}, {g.cc[kindASC], ascHeader, true},
		{g.cahps, hospiceCAHPSHeader, true}, {g.pf[pfPayments], opHeader(), true}, {g.pf[pfLegacyPayments], opLegacyHeader(), true},
		{g.pf[pfSAM], samHeader(snap), true}, {g.pf[pfMIPS], mipsHeader(g.mipsLatest), false},
		{g.pf[pfMIPSOlder], mipsHeader(g.mipsOlder), false},
	}
	if err := g.pf[pfNPPES].writeRaw(g.layout.line, len(g.layout.names)); err != nil {
		return err
	}
	for _, h := range headers {
		if err := h.f.writeHeader(h.cols, h.quoted); err != nil {
			return err
		}
	}
	return nil
}

// planBadRows spreads each file's bad rows evenly over its records.
func (g *generation) planBadRows() {
	q := 0
	plan := func(n int64, f int, cf *csvFile, reasons ...string) []plannedBad {
		var out []plannedBad
		for b, r := range reasons {
			out = append(out, plannedBad{at: int64(b+1) * n / int64(len(reasons)+1), file: f, cf: cf, reason: r, q: q})
			q++
		}
		return out
	}
	// Positions depend on the base scale only, so that an evolved drop places its bad rows where
	// the base drop did and files that do not change between snapshots stay byte-identical.
	n, nf := g.w.n0, int64(len(g.w.facilities))
	var pb, fb []plannedBad
	pb = append(pb, plan(n, pfNPPES, nil, BadNPICheckDigit, BadDate, BadColumnCount)...)
	pb = append(pb, plan(n, pfLocations, nil, BadNPICheckDigit, BadColumnCount)...)
	pb = append(pb, plan(n, pfOtherNames, nil, BadNPICheckDigit, BadColumnCount)...)
	pb = append(pb, plan(n, pfEndpoints, nil, BadNPICheckDigit, BadColumnCount)...)
	pb = append(pb, plan(n, pfLEIE, nil, BadNPICheckDigit, BadDate, BadColumnCount)...)
	pb = append(pb, plan(n, pfEnrollments, nil, BadNPICheckDigit, BadColumnCount)...)
	pb = append(pb, plan(n, pfReassignments, nil, BadColumnCount)...)
	pb = append(pb, plan(n, pfPayments, nil, BadNPICheckDigit, BadDate, BadColumnCount)...)
	pb = append(pb, plan(n, pfSAM, nil, BadNPICheckDigit, BadDate)...)
	pb = append(pb, plan(n, pfMIPS, nil, BadNPICheckDigit)...)
	fb = append(fb, plan(nf, -1, g.hospEnroll, BadCCN, BadNPICheckDigit)...)
	fb = append(fb, plan(nf, -1, g.pos, BadCCN, BadDate, BadColumnCount)...)
	fb = append(fb, plan(nf, -1, g.cc[kindHospital], BadCCN, BadColumnCount)...)
	fb = append(fb, plan(nf, -1, g.cc[kindNursingHome], BadCCN, BadColumnCount)...)
	fb = append(fb, plan(nf, -1, g.cc[kindHomeHealth], BadCCN, BadDate)...)
	fb = append(fb, plan(nf, -1, g.cc[kindHospice], BadCCN)...)
	fb = append(fb, plan(nf, -1, g.cc[kindDialysis], BadCCN)...)
	fb = append(fb, plan(nf, -1, g.cc[kindASC], BadCCN)...)
	fb = append(fb, plan(nf, -1, g.cahps, BadCCN)...)
	sort.SliceStable(pb, func(a, b int) bool { return pb[a].at < pb[b].at })
	sort.SliceStable(fb, func(a, b int) bool { return fb[a].at < fb[b].at })
	g.badProviders, g.badFacilities = pb, fb
}

func (g *generation) run(ctx context.Context) (*Manifest, error) {
	g.codeIndex = map[string]int{}
	for _, s := range Specialties {
		for _, c := range s.Codes {
			g.codeIndex[c] = len(g.codes)
			g.codes = append(g.codes, c)
		}
	}
	g.tally.init(len(g.codes))
	g.facilityCounts = Counts{Facilities: map[string]FacilityCount{}}
	if err := g.openAll(); err != nil {
		return nil, err
	}
	g.planBadRows()
	g.started = time.Now()
	if err := g.providerPass(ctx); err != nil {
		return nil, err
	}
	if err := g.facilityPass(ctx); err != nil {
		return nil, err
	}
	return g.finish()
}

// tick reports progress at most every quarter second and notices cancellation.
func (g *generation) tick(ctx context.Context, done int64) error {
	if done&255 != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if g.progress != nil && time.Since(g.lastReport) >= 250*time.Millisecond {
		g.report(done, false)
	}
	return nil
}

func (g *generation) report(done int64, finished bool) {
	if g.progress == nil {
		return
	}
	rows := g.rowsWritten()
	el := time.Since(g.started)
	g.lastReport = time.Now()
	g.progress(Progress{Phase: g.phase, Done: done, Total: g.phaseTotal, Rows: rows, Elapsed: el,
		RowsPerSecond: float64(rows-g.phaseRows) / max(el.Seconds(), 1e-9), Finished: finished})
}

// rowsWritten counts the lines written so far, headers included.
func (g *generation) rowsWritten() int64 {
	var rows int64
	for _, f := range g.files {
		rows += f.lines
	}
	return rows
}

func (g *generation) facilityPass(ctx context.Context) error {
	w := g.w
	r, rb := newRNG(), newRNG()
	g.phase, g.phaseTotal = "facilities", int64(len(w.facilities))
	g.started, g.phaseRows = time.Now(), g.rowsWritten()
	for j := range w.facilities {
		if err := g.tick(ctx, int64(j)); err != nil {
			return err
		}
		f := &w.facilities[j]
		if err := g.writeFacility(r, f); err != nil {
			return err
		}
		for g.nextBadFacility < len(g.badFacilities) && g.badFacilities[g.nextBadFacility].at == int64(j) {
			if err := g.writeBadFacilityRow(rb, f, g.badFacilities[g.nextBadFacility]); err != nil {
				return err
			}
			g.nextBadFacility++
		}
	}
	g.report(int64(len(w.facilities)), true)
	return nil
}

func (g *generation) writeFacility(r *rng, f *facility) error {
	w := g.w
	gen := w.gen
	info := &facilityKinds[f.kind]
	fc := g.facilityCounts.Facilities[info.slug]
	fc.Total++
	term := w.facilityTerminatedAt(f, gen)
	if term >= 0 {
		fc.Terminated++
	}
	g.facilityCounts.Facilities[info.slug] = fc
	if err := g.pos.writeRow(w.posRow(r, f, gen)); err != nil {
		return err
	}
	if term >= 0 {
		if term == gen && gen > 0 {
			g.changes.add(ChangeFacilityTerminated, Change{Key: f.ccn, To: w.terminationDate(f, term).iso()})
		}
		return nil
	}
	star := w.rating(f, gen)
	if gen > 0 && w.hasStar(f) {
		if prev := w.rating(f, gen-1); prev != star {
			g.changes.add(ChangeFacilityRating, Change{Key: f.ccn, From: starText(prev), To: starText(star)})
		}
	}
	if w.hasStar(f) && star == 0 {
		g.facilityCounts.RatingsNotAvailable++
	}
	c := w.ccStart(r, f)
	var err error
	switch f.kind {
	case kindHospital:
		err = g.cc[f.kind].writeRow(w.hospitalRow(c, star))
		if err == nil {
			err = g.hospEnroll.writeRow(w.hospitalEnrollmentRow(r, f))
			g.facilityCounts.HospitalEnrollments++
		}
	case kindNursingHome:
		err = g.cc[f.kind].writeRow(w.nursingHomeRow(c, star, w.snapshot()))
	case kindHomeHealth:
		err = g.cc[f.kind].writeRow(w.homeHealthRow(c, star))
	case kindHospice:
		err = g.cc[f.kind].writeRow(w.hospiceRow(c))
		for _, row := range w.hospiceCAHPSRows(c, star) {
			if err == nil {
				err = g.cahps.writeRow(row)
			}
		}
		g.facilityCounts.HospiceCAHPSStarRows++
	case kindDialysis:
		err = g.cc[f.kind].writeRow(w.dialysisRow(c, star))
	case kindASC:
		y, _, _ := w.snapshot().civil()
		err = g.cc[f.kind].writeRow(w.ascRow(c, w.npi(f.org), y-1))
	}
	g.facilityCounts.SuppressedMeasureRows += c.suppressed
	return err
}

// hospitalEnrollmentRow bridges a hospital's organization NPI to its CCN.
func (w *world) hospitalEnrollmentRow(r *rng, f *facility) []string {
	r.reset(w.seed, streamPECOS, -1-int64(f.j))
	st := w.ref.states[f.state].Code
	h := hospitalSubtypes[f.hospSub]
	multi := "N"
	if r.chance(0.1) {
		multi = "Y"
	}
	inc := ""
	if r.chance(0.7) {
		inc = r.between(ymd(1950, 1, 1), f.certified).mdy()
	}
	structure := pick(r, []string{"CORPORATION", "CORPORATION", "LLC", "OTHER"})
	other := ""
	if structure == "OTHER" {
		other = pick(r, []string{"NON-PROFIT HOSPITAL DISTRICT", "COUNTY GOVERNMENT", "TRUST"})
	}
	pn := "P"
	if lbl := ownershipLabels[kindHospital][f.ownership].label; lbl != "Proprietary" && lbl != "Physician" {
		pn = "N"
	}
	flags := make([]string, 13)
	for k := range flags {
		flags[k] = "N"
	}
	switch h.posSubtype {
	case "01":
		flags[0], flags[1], flags[7] = "Y", "Y", "Y" // general, acute care, short-term
	case "11":
		flags[0], flags[8] = "Y", "Y" // general, swing-bed approved
	case "04":
		flags[5] = "Y" // psychiatric
	}
	row := []string{w.enrollmentID(f.org, 0, true, w.orgEnumeratedLowerBound()), st, facilityKinds[kindHospital].pecosCode,
		facilityKinds[kindHospital].pecosDesc, w.npi(f.org), multi, f.ccn, w.pacID(f.org), f.legalName, f.dba, inc, st,
		structure, other, pn, f.addr.line1, f.addr.line2, f.addr.city, st, f.addr.zip, "HOSPITAL", ""}
	row = append(row, flags...)
	return append(row, "", "N", "", "")
}

// unusedCCN is a valid CCN of state s that no facility has: 4900-4999 is reserved in SOM 2779.
func unusedCCN(code string, k int) string { return fmt.Sprintf("%s49%02d", code, k%100) }

// invalidCCN returns a malformed CCN derived from a real one, cycling through the kinds of error.
func invalidCCN(ccn string, k int) string {
	switch k % 3 {
	case 0:
		return ccn[:5] // wrong length
	case 1:
		return "62" + ccn[2:] // 62 is not a CCN state code
	default:
		return ccn[:2] + "-" + ccn[3:] // a character not allowed
	}
}

func (g *generation) writeBadFacilityRow(r *rng, f *facility, b plannedBad) error {
	w := g.w
	k := len(b.cf.bad) + 7*int(b.at%13)
	// The template is the facility's own row, rebuilt under another kind if need be.
	tf := *f
	tf.terminated = -1
	switch b.cf {
	case g.cc[kindHospital], g.hospEnroll:
		tf.kind, tf.hospSub = kindHospital, 0
	case g.cc[kindNursingHome]:
		tf.kind = kindNursingHome
	case g.cc[kindHomeHealth]:
		tf.kind = kindHomeHealth
	case g.cc[kindHospice], g.cahps:
		tf.kind = kindHospice
	case g.cc[kindDialysis]:
		tf.kind = kindDialysis
	case g.cc[kindASC]:
		tf.kind = kindASC
	}
	tf.ownership %= len(ownershipLabels[tf.kind])
	st := w.ref.states[tf.state]
	tf.ccn = unusedCCN(st.CCNCodes[0], k)
	if tf.kind == kindASC {
		tf.ccn = fmt.Sprintf("%sC%07d", st.CCNCodes[0], 9_990_000+k)
	}
	key := tf.ccn
	if b.reason == BadCCN {
		key = invalidCCN(f.ccn, k)
		tf.ccn = key
	}
	c := w.ccStart(r, &tf)
	var row []string
	dateCol := -1
	switch b.cf {
	case g.pos:
		row, dateCol = w.posRow(r, &tf, w.gen), 9
	case g.hospEnroll:
		row = w.hospitalEnrollmentRow(r, &tf)
	case g.cc[kindHospital]:
		row = w.hospitalRow(c, 3)
	case g.cc[kindNursingHome]:
		row = w.nursingHomeRow(c, 3, w.snapshot())
	case g.cc[kindHomeHealth]:
		row, dateCol = w.homeHealthRow(c, 3), 14
	case g.cc[kindHospice]:
		row = w.hospiceRow(c)
	case g.cahps:
		row = w.hospiceCAHPSRows(c, 3)[0]
	case g.cc[kindDialysis]:
		row = w.dialysisRow(c, 3)
	case g.cc[kindASC]:
		row = w.ascRow(c, w.npi(tf.org), 2024)
	}
	switch b.reason {
	case BadNPICheckDigit: // hospital enrollments: the NPI column
		key = badNPI(row[4])
		row[4] = key
	case BadDate:
		y, _, _ := tf.certified.civil()
		if b.cf == g.pos {
			row[dateCol] = badDateCompact(y)
		} else {
			row[dateCol] = badDateMDY(y)
		}
	case BadColumnCount:
		row = row[:len(row)-1]
	}
	return b.cf.writeBad(row, b.reason, key)
}

func (g *generation) finish() (*Manifest, error) {
	w := g.w
	m := &Manifest{Format: ManifestFormat, Seed: w.seed, Providers: w.n0, Generation: w.gen,
		ProviderRecords: w.total(), Facilities: len(w.facilities), Snapshot: w.snapshot().iso(),
		BaseSnapshot: w.snaps[0].iso(), Counts: g.counts(), BadRows: []BadRow{}}
	if w.gen > 0 {
		m.PreviousSnapshot = w.snaps[w.gen-1].iso()
		ch := g.changes.c
		for _, l := range []*[]Change{&ch.Moved, &ch.TaxonomyAdded, &ch.NewlyExcluded, &ch.Deactivated, &ch.NewProviders, &ch.FacilityRating, &ch.FacilityTerminated} {
			if *l == nil {
				*l = []Change{}
			}
			sort.Slice(*l, func(a, b int) bool { return (*l)[a].Key < (*l)[b].Key })
		}
		m.Changes = &ch
	}
	snap := w.snapshot()
	m.SnapshotDates = map[string]string{"nppes": snap.iso(), "leie": snap.iso(), "pecos": pecosDate(snap).iso(),
		"pos": pecosDate(snap).iso(), "carecompare": snap.iso(), "openpayments": g.opPublished.iso(),
		"sam": snap.iso(), "qpp": snap.iso()}
	for _, f := range g.files {
		info, err := f.close()
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, info)
		m.BadRows = append(m.BadRows, f.bad...)
	}
	return m, nil
}

// counts assembles the manifest counts from the provider tally and the facility counts.
func (g *generation) counts() Counts {
	w, t := g.w, &g.tally
	c := g.facilityCounts
	c.Individuals, c.Organizations, c.Deactivated, c.Reactivated = t.individuals, t.organizations, t.deactivated, t.reactivated
	c.SecondaryLocations, c.OtherNames, c.Endpoints = t.secondary, t.otherNames, t.endpoints
	c.ExcludedWithNPI, c.ExcludedWithoutNPI = t.excludedWithNPI, g.excludedWithoutNPI
	c.PECOSEnrollments, c.PECOSReassignments = t.enrollments, t.reassignments
	c.PaymentRows, c.PaymentRecipients, c.LegacyPaymentRows = t.paymentRows, t.paymentRecipients, t.legacyPaymentRows
	c.SAMMirrored, c.SAMWithNPI, c.SAMOther = t.samRows, t.samWithNPI, g.samOthers
	c.MIPSRows, c.MIPSOlderRows, c.MIPSClinicians = t.mipsRows, t.mipsOlderRows, t.mipsClinicians
	c.ActiveIndividualsByState = map[string]int64{}
	for s, st := range w.ref.states {
		c.ActiveIndividualsByState[st.Code] = t.byState[s]
	}
	c.Taxonomies = map[string]TaxonomyCount{}
	slug := map[string]string{}
	for _, s := range Specialties {
		for _, code := range s.Codes {
			slug[code] = s.Slug
		}
	}
	for k, code := range g.codes {
		tc := TaxonomyCount{Specialty: slug[code], AnySlot: t.taxAny[k], Primary: t.taxPrimary[k], States: map[string]int64{}}
		for s, st := range w.ref.states {
			if n := t.taxStates[k][s]; n > 0 {
				tc.States[st.Code] = n
			}
		}
		c.Taxonomies[code] = tc
	}
	return c
}
