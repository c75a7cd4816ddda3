package ingest

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"providerdir/catalog"
	"providerdir/source"
	"providerdir/store"
	"providerdir/stored"
)

// family is one source family: which files of a drop are its own, which collections it writes,
// and how its records become documents. Families are independent: a drop may hold any subset.
type family struct {
	name    string
	dataset stored.Dataset // the family's main dataset, named in its manifest
	// patterns match the family's file names, case-insensitively, in load order.
	patterns []*regexp.Regexp
	// collections are every collection the family writes; all of them switch with the family,
	// so a collection that came out empty this time is served empty, not stale.
	collections []string
	load        func(ctx context.Context, l *familyLoad, files []sourceFile) error
	// snapshotOf, when set, dates a drop whose file names do not carry its date the usual way.
	snapshotOf func(files []sourceFile) string
}

// families are the source families in the order they load: a family may read what an earlier
// one wrote in the same run (Open Payments matches recipients against the registry). This table
// is the one place a family is added.
var families = []*family{
	{name: "census", dataset: stored.Census, patterns: []*regexp.Regexp{censusStatesFile, censusCountiesFile},
		collections: []string{catalog.CensusStates, catalog.CensusCounties}, load: loadCensus, snapshotOf: censusVintageDate},
	{name: "nucc", dataset: stored.NUCC, patterns: []*regexp.Regexp{nuccFile},
		collections: []string{catalog.NUCCTaxonomy}, load: loadNUCC, snapshotOf: nuccReleaseDate},
	{name: nppesFamily, dataset: stored.NPPES, patterns: []*regexp.Regexp{npidataFile, plFile, othernameFile, endpointFile},
		collections: []string{catalog.RegistryProviders, catalog.RegistryLocations, catalog.RegistryOtherNames, catalog.RegistryEndpoints, catalog.RegistryNameWords}, load: loadNPPES},
	{name: "pecos", dataset: stored.PECOS, patterns: []*regexp.Regexp{ppefEnrollment, hospitalEnrollments, ppefReassignment},
		collections: []string{catalog.Enrollments, catalog.HospitalEnrollments, catalog.Reassignments}, load: loadPECOS},
	{name: "leie", dataset: stored.LEIE, patterns: []*regexp.Regexp{leieUpdated, leieMonthly},
		collections: []string{catalog.Exclusions, catalog.ExclusionActions}, load: loadLEIE},
	{name: "pos", dataset: stored.POS, patterns: []*regexp.Regexp{posFile},
		collections: []string{catalog.Facilities}, load: loadPOS},
	{name: "carecompare", dataset: stored.CareCompareHospital, patterns: careComparePatterns(),
		collections: []string{catalog.Quality, catalog.QualityNational}, load: loadCareCompare},
	{name: "openpayments", dataset: stored.OpenPayments, patterns: []*regexp.Regexp{generalPayments},
		collections: []string{catalog.Payments}, load: loadOpenPayments},
	{name: "sam", dataset: stored.SAMExclusions, patterns: []*regexp.Regexp{samExtract},
		collections: []string{catalog.SAMExclusions}, load: loadSAM, snapshotOf: samExtractDate},
	{name: "qpp", dataset: stored.QPPMIPS, patterns: []*regexp.Regexp{mipsScores},
		collections: []string{catalog.MIPSScores}, load: loadQPP},
}

// pattern compiles a case-insensitive, whole-name file pattern.
func pattern(expr string) *regexp.Regexp { return regexp.MustCompile(`(?i)^` + expr + `$`) }

// sourceFile is one file of the drop or of the reference set: a slash-separated path in the
// file system it was found in (the drop's directory, or the reference files, which may be built
// into the binary).
type sourceFile struct {
	fsys fs.FS
	name string
}

// base is the file's name without its directories: what family patterns and dates are read from.
func (f sourceFile) base() string { return path.Base(f.name) }

// fileRoot is a file system families are looked for in, with the name messages give it.
type fileRoot struct {
	fsys  fs.FS
	label string
}

type foundFamily struct {
	family *family
	files  []sourceFile
	bytes  int64
	// described lists the files with their sizes, and their checksums if they were computed
	// before the load.
	described []catalog.File
	// base is set for NPPES weekly update files: the serving manifest they apply on top of.
	base *catalog.Manifest
}

// findFamilies lists the families present in roots (and their immediate subdirectories, where
// the reference set keeps census/, nucc/ and cms/) with their files, in registry order.
func findFamilies(roots ...fileRoot) ([]foundFamily, error) {
	var files []sourceFile
	for _, root := range roots {
		entries, err := fs.ReadDir(root.fsys, ".")
		if err != nil {
			return nil, fmt.Errorf("ingest: %s: %w", root.label, err)
		}
		for _, e := range entries {
			switch {
			case e.Type().IsRegular():
				files = append(files, sourceFile{root.fsys, e.Name()})
			case e.IsDir():
				sub, err := fs.ReadDir(root.fsys, e.Name())
				if err != nil {
					return nil, fmt.Errorf("ingest: %s: %w", root.label, err)
				}
				for _, se := range sub {
					if se.Type().IsRegular() {
						files = append(files, sourceFile{root.fsys, path.Join(e.Name(), se.Name())})
					}
				}
			}
		}
	}
	var out []foundFamily
	for _, f := range families {
		ff := foundFamily{family: f}
		taken := make([]bool, len(files)) // a file two patterns of the family match is read once
		for _, p := range f.patterns {
			for i, file := range files {
				if taken[i] || !p.MatchString(file.base()) {
					continue
				}
				info, err := fs.Stat(file.fsys, file.name)
				if err != nil {
					return nil, fmt.Errorf("ingest: %w", err)
				}
				taken[i] = true
				ff.files = append(ff.files, file)
				ff.bytes += info.Size()
			}
		}
		if len(ff.files) > 0 {
			out = append(out, ff)
		}
	}
	if len(out) == 0 {
		labels := make([]string, len(roots))
		for i, r := range roots {
			labels[i] = r.label
		}
		return nil, fmt.Errorf("%w %s", ErrNoSourceFiles, strings.Join(labels, ", "))
	}
	return out, nil
}

// filesMatching returns the files whose base name matches p, keeping their order.
func filesMatching(files []sourceFile, p *regexp.Regexp) []sourceFile {
	var out []sourceFile
	for _, f := range files {
		if p.MatchString(f.base()) {
			out = append(out, f)
		}
	}
	return out
}

var (
	dateYMD   = regexp.MustCompile(`(19|20)\d\d(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])`)
	dateDots  = regexp.MustCompile(`(19|20)\d\d[.-](0[1-9]|1[0-2])[.-](0[1-9]|[12]\d|3[01])`)
	dateMDY   = regexp.MustCompile(`_P(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])((19|20)\d\d)`)
	dateQtr   = regexp.MustCompile(`(?i)Q([1-4])_((19|20)\d\d)`)
	dateMonYr = regexp.MustCompile(`(?i)_(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)((19|20)\d\d)`)
)

// snapshotDate derives a drop's snapshot date from its file names, the way publishers date them:
// NPPES npidata_pfile_20050523-20250608 (the last date), PECOS ..._2025.01.01, Open Payments
// ..._P01302025, Care Compare ..._Oct2024 (the first of the month). Files without a date in the
// name fall back to their modification date; files built into the binary have none, and are
// dated by their names (see source/reference). The latest date found wins.
func snapshotDate(files []sourceFile) string {
	best := ""
	for _, f := range files {
		d := dateInName(f.base())
		if d == "" {
			if info, err := fs.Stat(f.fsys, f.name); err == nil && !info.ModTime().IsZero() {
				d = info.ModTime().UTC().Format(time.DateOnly)
			}
		}
		best = max(best, d)
	}
	return best
}

func dateInName(name string) string {
	if m := dateMDY.FindStringSubmatch(name); m != nil {
		return m[3] + "-" + m[1] + "-" + m[2]
	}
	if all := dateYMD.FindAllString(name, -1); len(all) > 0 {
		s := all[len(all)-1]
		return s[:4] + "-" + s[4:6] + "-" + s[6:]
	}
	if m := dateDots.FindString(name); m != "" {
		return strings.NewReplacer(".", "-").Replace(m)
	}
	if m := dateQtr.FindStringSubmatch(name); m != nil {
		// A quarterly release (POS Q2_2025) is dated at the first day of its quarter.
		return fmt.Sprintf("%s-%02d-01", m[2], 3*(int(m[1][0]-'0')-1)+1)
	}
	if m := dateMonYr.FindStringSubmatch(name); m != nil {
		t, err := time.Parse("Jan 2006", strings.ToUpper(m[1][:1])+strings.ToLower(m[1][1:])+" "+m[2])
		if err == nil {
			return t.Format(time.DateOnly)
		}
	}
	return ""
}

// familyLoad is the state of one family's load: the manifest being filled, the datasets seen,
// and the run it belongs to.
type familyLoad struct {
	run      *runState
	manifest *catalog.Manifest
	datasets map[string]bool
	// own are the snapshots of the datasets read from files of their own (datasetSnapshot).
	own []catalog.DatasetSnapshot
}

// snapshot returns the provenance stamp of a dataset loaded by this family.
func (l *familyLoad) snapshot(d stored.Dataset) stored.SnapshotInfo {
	l.datasets[d.ID] = true
	return stored.SnapshotInfo{Dataset: d, Snapshot: l.manifest.Snapshot, CheckedAt: l.run.checkedAt,
		CoverageStart: l.manifest.Coverage.Start, CoverageEnd: l.manifest.Coverage.End}
}

// snapshotOfFiles is snapshot for a dataset that is one file among several of its family (Care
// Compare publishes each facility type on its own schedule): its date is its own files' date.
func (l *familyLoad) snapshotOfFiles(d stored.Dataset, files []sourceFile) stored.SnapshotInfo {
	info := l.snapshot(d)
	if l.run.opts.SnapshotDate == "" && len(files) > 0 {
		info.Snapshot = snapshotDate(files)
		c := coverageOf(files, info.Snapshot)
		info.CoverageStart, info.CoverageEnd = c.Start, c.End
	}
	return info
}

// datasetSnapshot is snapshotOfFiles for a dataset read from files of its own alone (read, of
// which dated date it), recorded in the manifest's DatasetSnapshots: when the files read are
// byte for byte those it was last loaded from, it keeps that load's snapshot (a publisher
// re-dating a file it did not change publishes no new snapshot of the dataset).
func (l *familyLoad) datasetSnapshot(ctx context.Context, d stored.Dataset, dated, read []sourceFile) (stored.SnapshotInfo, error) {
	info := l.snapshotOfFiles(d, dated)
	described, err := describeFiles(read)
	if err == nil {
		err = hashFiles(ctx, read, described)
	}
	if err != nil {
		return info, err
	}
	own := catalog.DatasetSnapshot{DatasetID: d.ID}
	for _, f := range described {
		own.SHA256 = append(own.SHA256, f.SHA256)
	}
	if prev, ok := l.previousSnapshot(d.ID); ok && l.run.opts.SnapshotDate == "" && slices.Equal(prev.SHA256, own.SHA256) {
		c := coverageOf(dated, prev.Snapshot)
		info.Snapshot, info.CoverageStart, info.CoverageEnd = prev.Snapshot, c.Start, c.End
	}
	own.Snapshot = info.Snapshot
	l.own = append(l.own, own)
	return info, nil
}

// previousSnapshot is a dataset's snapshot in the family's serving manifest, when it was read
// from files of its own.
func (l *familyLoad) previousSnapshot(datasetID string) (catalog.DatasetSnapshot, bool) {
	for _, m := range l.run.plan.current {
		if m.Family != l.manifest.Family {
			continue
		}
		for _, d := range m.DatasetSnapshots {
			if d.DatasetID == datasetID {
				return d, true
			}
		}
	}
	return catalog.DatasetSnapshot{}, false
}

// programYear finds the year a file measures: an Open Payments program year (PGYR2023) or a
// QPP performance year (ec_score_file_PY2023).
var programYear = regexp.MustCompile(`(?i)(?:PGYR?|_PY)((19|20)\d\d)`)

// coverageOf derives the period a drop covers from what its publishers put in the file names, so
// that it is known before the first record is stamped: Open Payments and QPP files cover their
// program or performance year (the latest, when a drop keeps an older year beside it); NPPES
// names its full file by the first and last enumeration dates it spans
// (npidata_pfile_20050523-20250608); a file dated once covers the state of things on that date.
func coverageOf(files []sourceFile, snapshot string) catalog.Coverage {
	if y := latestYear(files); y != "" {
		return catalog.Coverage{Start: y + "-01-01", End: y + "-12-31"}
	}
	c := catalog.Coverage{Start: snapshot, End: snapshot}
	for _, f := range files {
		name := f.base()
		for _, d := range dateYMD.FindAllString(name, -1) {
			c.Start = min(c.Start, d[:4]+"-"+d[4:6]+"-"+d[6:])
		}
	}
	return c
}

// latestYear is the latest program or performance year the files' names carry, or "".
func latestYear(files []sourceFile) string {
	y := ""
	for _, f := range files {
		if m := programYear.FindStringSubmatch(f.base()); m != nil {
			y = max(y, m[1])
		}
	}
	return y
}

// emit writes one document (a no-op on a dry run).
func (l *familyLoad) emit(ctx context.Context, collection string, d store.Document) error {
	if l.run.writer == nil {
		return nil
	}
	return l.run.writer.add(ctx, collection, d)
}

// progressEvery is how many rows pass between progress updates and cancellation checks.
const progressEvery = 4096

// readFile streams every record of one open reader into each, as readBatches does.
func readFile[T any](ctx context.Context, l *familyLoad, r *source.Reader[T], each func(T) error) error {
	return readBatches(ctx, l, r, func(batch []T) error {
		for i := range batch {
			if err := each(batch[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// readBatches streams every record of one open reader into each, a batch at a time, reporting
// progress, honouring cancellation, and adding the file's row counts and first errors to the
// manifest. A batch is reused once each returns.
//
// The reader parses on a goroutine of its own, handing records over in batches, while this one
// maps them: parsing is about half the work of reading the registry, and with the two on one
// goroutine the read would leave a core idle. Only the reader's goroutine touches
// the reader until it is done.
func readBatches[T any](ctx context.Context, l *familyLoad, r *source.Reader[T], each func([]T) error) error {
	defer r.Close()
	if l.run.opts.Rejects != nil {
		r.OnReject(l.run.opts.Rejects)
	}
	base := l.run.bytesDone
	// A report at each file's start keeps a drop of many small files visibly moving, and gives
	// cancellation a chance between files.
	l.run.opts.Progress.Update(r.Report().File, l.run.rows, l.run.rejected, base, l.run.bytesTotal)
	if err := ctx.Err(); err != nil {
		return err
	}
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	// Batches go back to the parser once their records are handed on, so that reading a
	// file allocates a few batches, not one per 256 rows: a registry record is over a kilobyte,
	// and a batch per 256 rows would be gigabytes of allocation at national scale.
	batches, free := make(chan []T, 2), make(chan []T, 4)
	var readErr error
	go func() {
		defer close(batches)
		readErr = parseFile(readCtx, l, r, base, batches, free)
	}()
	var err error
	for batch := range batches {
		err = each(batch)
		select {
		case free <- batch:
		default:
		}
		if err != nil {
			stop()
			for range batches { // until the reader's goroutine is done with the reader
			}
			return err
		}
	}
	if readErr != nil {
		return readErr
	}
	rep := r.Report()
	l.run.rows += rep.Rows
	l.run.rejected += rep.Rejected
	l.run.bytesDone = base + rep.Bytes
	l.manifest.Rows += rep.Rows
	l.manifest.Rejected += rep.Rejected
	i := slices.IndexFunc(l.manifest.Files, func(f catalog.File) bool { return f.Name == rep.File })
	if i >= 0 {
		f := &l.manifest.Files[i]
		f.Rows, f.Rejected = rep.Rows, rep.Rejected
		for _, e := range rep.Errors[:min(len(rep.Errors), maxManifestErrors)] {
			f.Errors = append(f.Errors, catalog.RowError{Line: e.Line, Column: e.Column, Reason: e.Reason, Value: e.Value})
		}
	}
	if rep.Rejected > 0 {
		l.run.opts.Log.Warn("rows rejected", "report", rep.String()) // the report names its file
	}
	return nil
}

// readBatch is how many records the reader's goroutine hands over at a time.
const readBatch = 256

// parseFile reads the records of r into batches, reporting progress and checking for
// cancellation every progressEvery rows. It is readFile's reading goroutine.
func parseFile[T any](ctx context.Context, l *familyLoad, r *source.Reader[T], base int64, batches chan<- []T, free <-chan []T) error {
	batch := make([]T, 0, readBatch)
	send := func() error {
		select {
		case batches <- batch:
			select {
			case b := <-free:
				batch = b[:0]
			default:
				batch = make([]T, 0, readBatch)
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for n := int64(1); ; n++ {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if batch = append(batch, rec); len(batch) == readBatch {
			if err := send(); err != nil {
				return err
			}
		}
		if n%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			rep := r.Report()
			l.run.opts.Progress.Update(rep.File, l.run.rows+rep.Rows, l.run.rejected+rep.Rejected, base+rep.Bytes, l.run.bytesTotal)
		}
	}
	if len(batch) > 0 {
		return send()
	}
	return nil
}

// maxManifestErrors bounds the row errors a manifest keeps per file; the counts are complete.
const maxManifestErrors = 20

// loadInto reads every file of files that p matches with newReader (a source package's
// NewReader) and writes one document per record into collection. toDoc returns ok false for a
// record that has no document of its own; it must not keep its argument, which is reused for the
// next record.
func loadInto[T any](ctx context.Context, l *familyLoad, files []sourceFile, p *regexp.Regexp, newReader source.NewFunc[T],
	collection string, toDoc func(*T) (doc store.Document, ok bool, err error)) error {
	return loadPrepared(ctx, l, files, p, newReader, collection, nil, toDoc)
}

// loadPrepared is loadInto with prepare called on each batch of records before toDoc is called
// on them one by one. A mapper that looks its records up in the store does a whole batch's
// look-ups there, at once, rather than one record's at a time; prepare must not keep the batch.
func loadPrepared[T any](ctx context.Context, l *familyLoad, files []sourceFile, p *regexp.Regexp, newReader source.NewFunc[T],
	collection string, prepare func([]T) error, toDoc func(*T) (doc store.Document, ok bool, err error)) error {
	if l.run.writer != nil {
		l.run.writer.recycle(collection, stored.Recycle) // bodies come from stored.NewDocument
	}
	for _, f := range filesMatching(files, p) {
		r, err := source.OpenFS(f.fsys, f.name, newReader)
		if err != nil {
			return err
		}
		err = readBatches(ctx, l, r, func(batch []T) error {
			if prepare != nil {
				if err := prepare(batch); err != nil {
					return err
				}
			}
			for i := range batch {
				doc, ok, err := toDoc(&batch[i])
				if err != nil {
					return err
				}
				if ok {
					if err := l.emit(ctx, collection, doc); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
