package synth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	// Reference is the directory of the public reference files (../shared/data/reference).
	Reference string
	// EvolveFrom, if set, is an earlier drop whose manifest gives seed, scale and snapshot; the
	// new drop is its next snapshot, with a listed set of changed records.
	EvolveFrom string
	// Snapshot is the base drop's date; zero means 2025-06-08. Ignored with EvolveFrom.
	Snapshot time.Time
	// Progress, if set, is called from the generating goroutine about four times a second
	// and once at the end of each phase.
	Progress func(Progress)
}

// Progress reports a phase of generation: "providers" (NPPES, PECOS, LEIE and Open Payments
// rows, one provider record at a time) or "facilities" (POS, hospital enrollments, Care Compare).
type Progress struct {
	Phase         string
	Done, Total   int64 // records of the phase
	Rows          int64 // rows written so far, all files
	Elapsed       time.Duration
	RowsPerSecond float64
	Finished      bool
}

// Generate writes a drop and returns its manifest. Files are written under a temporary
// directory inside cfg.Out and renamed into place only when all are complete, the manifest
// last; a failed or cancelled run leaves no partial file under a final name.
func Generate(ctx context.Context, cfg Config) (*Manifest, error) {
	if cfg.Out == "" {
		return nil, errors.New("synth: no output directory")
	}
	if cfg.Reference == "" {
		return nil, errors.New("synth: no reference directory")
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

	g := &generation{w: w, layout: layout, tmp: tmp, progress: cfg.Progress}
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
		w.addGeneration()
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

	files                                  []*csvFile
	npidata, pl, othername                 *csvFile
	leie                                   *csvFile
	pecosEnroll, pecosReassign, hospEnroll *csvFile
	pos                                    *csvFile
	cc                                     [numFacilityKinds]*csvFile
	cahps                                  *csvFile
	op, opLegacy                           *csvFile
	counts                                 Counts
	changes                                changeSet
	rowsTotal                              int64
	started, lastReport                    time.Time
	phase                                  string
	phaseTotal                             int64
	opYear, opLegacyYear                   int
	opPublished, opLegacyPublished         date
	registered                             map[string]string
	badProviders, badFacilities            []plannedBad
	nextBadProvider, nextBadFacility       int
	nppesRow                               []string
	phantomNext                            int64
}

// plannedBad is a bad row to write into file after record at (a provider or facility index).
type plannedBad struct {
	at     int64
	file   *csvFile
	reason string
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
	mk(&g.npidata, npiName, "nppes", quoteAll, false)
	mk(&g.pl, plName, "nppes", quoteAll, false)
	mk(&g.othername, otherName, "nppes", quoteAll, false)
	mk(&g.leie, LEIEName, "leie", quoteAll, true)
	e, ra, h := pecosNames(snap)
	mk(&g.pecosEnroll, e, "pecos", quoteMinimal, false)
	mk(&g.pecosReassign, ra, "pecos", quoteMinimal, false)
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
	mk(&g.op, opName(g.opYear, g.opPublished), "openpayments", quoteAll, false)
	mk(&g.opLegacy, opName(g.opLegacyYear, g.opLegacyPublished), "openpayments", quoteAll, false)
	if err != nil {
		return err
	}
	headers := []struct {
		f      *csvFile
		cols   []string
		quoted bool
	}{
		{g.pl, plHeader, true}, {g.othername, othernameHeader, true}, {g.leie, leieHeader, false},
		{g.pecosEnroll, pecosEnrollmentHeader, false}, {g.pecosReassign, pecosReassignmentHeader, false},
		{g.hospEnroll, hospitalEnrollmentHeader, false}, {g.pos, posHeader, false},
		{g.cc[kindHospital], hospitalGeneralHeader, true}, {g.cc[kindNursingHome], nursingHomeHeader, true},
		{g.cc[kindHomeHealth], homeHealthHeader, true}, {g.cc[kindHospice], hospiceHeader, true},
		{g.cc[kindDialysis], dialysisHeader, true}, {g.cc[kindASC], ascHeader, true},
		{g.cahps, hospiceCAHPSHeader, true}, {g.op, opHeader(), true}, {g.opLegacy, opLegacyHeader(), true},
	}
	if err := g.npidata.writeRaw(g.layout.line, len(g.layout.names)); err != nil {
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
	plan := func(n int64, f *csvFile, reasons ...string) []plannedBad {
		var out []plannedBad
		for b, r := range reasons {
			out = append(out, plannedBad{at: int64(b+1) * n / int64(len(reasons)+1), file: f, reason: r})
		}
		return out
	}
	// Positions depend on the base scale only, so that an evolved drop places its bad rows where
	// the base drop did and files that do not change between snapshots stay byte-identical.
	n, nf := g.w.n0, int64(len(g.w.facilities))
	var pb, fb []plannedBad
	pb = append(pb, plan(n, g.npidata, BadNPICheckDigit, BadDate, BadColumnCount)...)
	pb = append(pb, plan(n, g.pl, BadNPICheckDigit, BadColumnCount)...)
	pb = append(pb, plan(n, g.othername, BadNPICheckDigit, BadColumnCount)...)
	pb = append(pb, plan(n, g.leie, BadNPICheckDigit, BadDate, BadColumnCount)...)
	pb = append(pb, plan(n, g.pecosEnroll, BadNPICheckDigit, BadColumnCount)...)
	pb = append(pb, plan(n, g.pecosReassign, BadColumnCount)...)
	pb = append(pb, plan(n, g.op, BadNPICheckDigit, BadDate, BadColumnCount)...)
	fb = append(fb, plan(nf, g.hospEnroll, BadCCN, BadNPICheckDigit)...)
	fb = append(fb, plan(nf, g.pos, BadCCN, BadDate, BadColumnCount)...)
	fb = append(fb, plan(nf, g.cc[kindHospital], BadCCN, BadColumnCount)...)
	fb = append(fb, plan(nf, g.cc[kindNursingHome], BadCCN, BadColumnCount)...)
	fb = append(fb, plan(nf, g.cc[kindHomeHealth], BadCCN, BadDate)...)
	fb = append(fb, plan(nf, g.cc[kindHospice], BadCCN)...)
	fb = append(fb, plan(nf, g.cc[kindDialysis], BadCCN)...)
	fb = append(fb, plan(nf, g.cc[kindASC], BadCCN)...)
	fb = append(fb, plan(nf, g.cahps, BadCCN)...)
	sort.SliceStable(pb, func(a, b int) bool { return pb[a].at < pb[b].at })
	sort.SliceStable(fb, func(a, b int) bool { return fb[a].at < fb[b].at })
	g.badProviders, g.badFacilities = pb, fb
}

func (g *generation) run(ctx context.Context) (*Manifest, error) {
	w := g.w
	w.changes = &g.changes
	g.registered = map[string]string{}
	for _, s := range Specialties {
		for _, c := range s.Codes {
			g.registered[c] = s.Slug
		}
	}
	g.counts = Counts{ActiveIndividualsByState: map[string]int64{}, Taxonomies: map[string]TaxonomyCount{},
		Facilities: map[string]FacilityCount{}}
	for c, slug := range g.registered {
		g.counts.Taxonomies[c] = TaxonomyCount{Specialty: slug, States: map[string]int64{}}
	}
	for _, s := range w.ref.states {
		g.counts.ActiveIndividualsByState[s.Code] = 0
	}
	if err := g.openAll(); err != nil {
		return nil, err
	}
	g.planBadRows()
	g.nppesRow = make([]string, len(g.layout.names))
	g.started = time.Now()
	if err := g.providerPass(ctx); err != nil {
		return nil, err
	}
	if err := g.facilityPass(ctx); err != nil {
		return nil, err
	}
	return g.finish()
}

// tick counts written rows and reports progress at most every quarter second; it also notices
// cancellation.
func (g *generation) tick(ctx context.Context, done int64) error {
	if done&1023 != 0 {
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
	var rows int64
	for _, f := range g.files {
		rows += f.lines
	}
	el := time.Since(g.started)
	g.lastReport = time.Now()
	g.progress(Progress{Phase: g.phase, Done: done, Total: g.phaseTotal, Rows: rows, Elapsed: el,
		RowsPerSecond: float64(rows) / max(el.Seconds(), 1e-9), Finished: finished})
}

func (g *generation) providerPass(ctx context.Context) error {
	w := g.w
	r, rb := newRNG(), newRNG()
	n := w.total()
	g.phase, g.phaseTotal = "providers", n
	for i := int64(0); i < n; i++ {
		if err := g.tick(ctx, i); err != nil {
			return err
		}
		p := w.provider(r, i)
		if err := g.writeProvider(r, rb, p); err != nil {
			return err
		}
		for g.nextBadProvider < len(g.badProviders) && g.badProviders[g.nextBadProvider].at == i {
			if err := g.writeBadProviderRow(rb, g.badProviders[g.nextBadProvider]); err != nil {
				return err
			}
			g.nextBadProvider++
		}
	}
	for k := int64(0); k < w.leieNoNPICount(); k++ {
		if err := g.leie.writeRow(w.leieNoNPIRow(r, k)); err != nil {
			return err
		}
		g.counts.ExcludedWithoutNPI++
	}
	g.report(n, true)
	return nil
}

func (g *generation) writeProvider(r, rb *rng, p *provider) error {
	w := g.w
	c := &g.counts
	if p.gen == w.gen && w.gen > 0 {
		g.changes.add(ChangeNewProvider, Change{Key: p.npi, To: w.ref.states[p.state].Code})
	}
	g.layout.fill(g.nppesRow, p)
	if err := g.npidata.writeRow(g.nppesRow); err != nil {
		return err
	}
	if p.org {
		c.Organizations++
	} else {
		c.Individuals++
	}
	switch {
	case !p.active():
		c.Deactivated++
	case p.reactivated != 0:
		c.Reactivated++
	}
	if p.active() {
		if !p.org {
			st := w.ref.states[p.state].Code
			c.ActiveIndividualsByState[st]++
			for _, t := range p.taxonomies {
				tc, ok := c.Taxonomies[t.code]
				if !ok {
					continue
				}
				tc.AnySlot++
				if t.primary {
					tc.Primary++
				}
				tc.States[st]++
				c.Taxonomies[t.code] = tc
			}
		}
		for _, a := range p.secondary {
			if err := g.pl.writeRow(plRow(p.npi, a)); err != nil {
				return err
			}
			c.SecondaryLocations++
		}
		for _, o := range p.otherNames {
			if err := g.othername.writeRow([]string{p.npi, o.name, o.typeCode}); err != nil {
				return err
			}
			c.OtherNames++
		}
		if w.pecosEnrolled(p.index) {
			enr, rea := w.pecosRows(rb, p)
			for _, row := range enr {
				if err := g.pecosEnroll.writeRow(row); err != nil {
					return err
				}
				c.PECOSEnrollments++
			}
			for _, row := range rea {
				if err := g.pecosReassign.writeRow(row); err != nil {
					return err
				}
				c.PECOSReassignments++
			}
		}
	}
	if p.excluded {
		if err := g.leie.writeRow(w.leieRow(rb, p)); err != nil {
			return err
		}
		c.ExcludedWithNPI++
	}
	// Payments of the program year, as of the base drop: a later move does not rewrite history.
	if n := w.paymentRows(p.index); n > 0 {
		base := p
		if w.gen > 0 {
			base = w.baseProvider(rb, p.index)
		}
		if base.active() {
			rows := w.paymentRowsFor(rb, base, 0, n, g.opYear, g.opPublished)
			for _, row := range rows {
				if err := g.op.writeRow(row); err != nil {
					return err
				}
			}
			c.PaymentRows += int64(len(rows))
			if len(rows) > 0 {
				c.PaymentRecipients++
			}
			// An older program year, in the older layout, for about a third of physicians.
			if base.prof == profMD && w.flag(p.index, flagPayments+100, 0.33) {
				hdr := opLegacyHeader()
				for _, row := range w.paymentRowsFor(rb, base, 31, 1, g.opLegacyYear, g.opLegacyPublished) {
					if err := g.opLegacy.writeRow(legacyRow(row, hdr)); err != nil {
						return err
					}
					c.LegacyPaymentRows++
				}
			}
		}
	}
	return nil
}

// phantom returns a complete, valid provider record that appears in no file: bad rows are built
// from phantoms, so the NPI or CCN a bad row carries is not also carried by a good row.
func (g *generation) phantom(r *rng, org bool) *provider {
	for {
		i := int64(maxProviders) + 1000 + g.phantomNext
		g.phantomNext++
		if isOrg(i) == org {
			p := g.w.baseProvider(r, i)
			p.deactivated, p.reactivated, p.excluded = 0, 0, false
			return p
		}
	}
}

// badNPI is a valid NPI with its check digit changed.
func badNPI(npi string) string {
	return npi[:9] + string(byte('0'+(npi[9]-'0'+1)%10))
}

// badDateMDY and badDateCompact are dates that do not exist.
func badDateMDY(y int) string     { return fmt.Sprintf("02/30/%d", y) }
func badDateCompact(y int) string { return fmt.Sprintf("%d1345", y) }

func (g *generation) writeBadProviderRow(r *rng, b plannedBad) error {
	w := g.w
	org := b.file == g.othername
	p := g.phantom(r, org)
	if b.file == g.leie {
		p.excluded, p.excludedOn, p.leieAddr = true, w.snaps[0]-100, p.practice
	}
	var row []string
	key := p.npi
	switch b.file {
	case g.npidata:
		g.layout.fill(g.nppesRow, p)
		row = append([]string(nil), g.nppesRow...)
	case g.pl:
		row = plRow(p.npi, p.practice)
	case g.othername:
		row = []string{p.npi, p.orgName, "3"}
	case g.leie:
		row = w.leieRow(r, p)
	case g.pecosEnroll:
		t := &indivTaxa[p.taxon]
		row = []string{p.npi, w.pacID(p.index), w.enrollmentID(p.index, 0, false, p.enumerated), t.pecosCode,
			"PRACTITIONER - " + t.pecosDesc, w.ref.states[p.state].Code, p.first, p.middle, p.last, ""}
	case g.pecosReassign:
		row = []string{w.enrollmentID(p.index, 0, false, p.enumerated), w.enrollmentID(p.index+1, 0, true, nppesEpoch)}
		key = row[0]
	case g.op:
		p.taxon, p.prof = 0, profMD // a cardiologist: always a covered recipient
		row = w.paymentRowsFor(r, p, 0, 1, g.opYear, g.opPublished)[0]
	}
	npiCol := map[*csvFile]int{g.npidata: 0, g.pl: 0, g.othername: 0, g.leie: 7, g.pecosEnroll: 0, g.op: 6}
	switch b.reason {
	case BadNPICheckDigit:
		key = badNPI(key)
		row[npiCol[b.file]] = key
	case BadDate:
		y, _, _ := p.enumerated.civil()
		switch b.file {
		case g.npidata:
			row[g.layout.col["Provider Enumeration Date"]] = badDateMDY(y)
		case g.leie:
			row[14] = badDateCompact(y)
		case g.op:
			row[42] = badDateMDY(g.opYear)
		}
	case BadColumnCount:
		row = row[:len(row)-1]
	}
	return b.file.writeBad(row, b.reason, key)
}

func (g *generation) facilityPass(ctx context.Context) error {
	w := g.w
	r, rb := newRNG(), newRNG()
	g.phase, g.phaseTotal = "facilities", int64(len(w.facilities))
	g.started = time.Now()
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
	fc := g.counts.Facilities[info.slug]
	fc.Total++
	term := w.facilityTerminatedAt(f, gen)
	if term >= 0 {
		fc.Terminated++
	}
	g.counts.Facilities[info.slug] = fc
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
		g.counts.RatingsNotAvailable++
	}
	c := w.ccStart(r, f)
	var err error
	switch f.kind {
	case kindHospital:
		err = g.cc[f.kind].writeRow(w.hospitalRow(c, star))
		if err == nil {
			err = g.hospEnroll.writeRow(w.hospitalEnrollmentRow(r, f))
			g.counts.HospitalEnrollments++
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
		g.counts.HospiceCAHPSStarRows++
	case kindDialysis:
		err = g.cc[f.kind].writeRow(w.dialysisRow(c, star))
	case kindASC:
		y, _, _ := w.snapshot().civil()
		err = g.cc[f.kind].writeRow(w.ascRow(c, w.npi(f.org), y-1))
	}
	g.counts.SuppressedMeasureRows += c.suppressed
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
	k := len(b.file.bad) + 7*int(b.at%13)
	// The template is the facility's own row, rebuilt under another kind if need be.
	tf := *f
	tf.terminated = -1
	switch b.file {
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
	switch b.file {
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
		if b.file == g.pos {
			row[dateCol] = badDateCompact(y)
		} else {
			row[dateCol] = badDateMDY(y)
		}
	case BadColumnCount:
		row = row[:len(row)-1]
	}
	return b.file.writeBad(row, b.reason, key)
}

func (g *generation) finish() (*Manifest, error) {
	w := g.w
	m := &Manifest{Format: ManifestFormat, Seed: w.seed, Providers: w.n0, Generation: w.gen,
		ProviderRecords: w.total(), Facilities: len(w.facilities), Snapshot: w.snapshot().iso(),
		BaseSnapshot: w.snaps[0].iso(), Counts: g.counts, BadRows: []BadRow{}}
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
		"pos": pecosDate(snap).iso(), "carecompare": snap.iso(), "openpayments": g.opPublished.iso()}
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
