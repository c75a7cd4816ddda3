package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"providerdir/catalog"
	"providerdir/store"
)

// Options configure one ingest.
type Options struct {
	Store store.Store
	// Dir holds the drop: any subset of the families' files, named as their publishers name them.
	Dir string
	// Reference holds the reference files (Census, NUCC): source/reference's built-in set, or a
	// directory of newer releases (os.DirFS). They load as families of their own beside the
	// drop; nil skips them.
	Reference fs.FS
	// DryRun reads and validates every file and reports, but writes nothing.
	DryRun bool
	// Force reloads families whose files are byte-identical to the ones serving.
	Force bool
	// SnapshotDate overrides the snapshot date read from file names (YYYY-MM-DD).
	SnapshotDate string
	Progress     Progress
	Log          *slog.Logger
	// Now is the clock (tests pin it); nil means time.Now.
	Now func() time.Time
}

// Result says what an ingest did.
type Result struct {
	// Generation holds the loaded data; empty on a dry run or when nothing changed.
	Generation string
	Families   []FamilyResult
	// Projections summarises the change of each derived collection rebuilt by the run.
	Projections map[string]ChangeSummary
	// Switched is true when the serving snapshot now serves the new generation.
	Switched bool
	Rows     int64
	Rejected int64
	Elapsed  time.Duration
}

// FamilyResult is one family's part of an ingest.
type FamilyResult struct {
	Manifest catalog.Manifest
	// Unchanged is true when the family's files matched the serving manifest and were skipped.
	Unchanged bool
	// Changes summarises the difference to the previous generation, per collection.
	Changes map[string]ChangeSummary
}

// ErrNoSourceFiles is returned when a drop holds no file of any known family.
var ErrNoSourceFiles = errors.New("ingest: no source files of any known family in the directory")

// Run loads the drop in opts.Dir. It writes every family found into one new generation, records
// a manifest per family and the change set against the serving generation, then switches the
// serving snapshot in one step. On error or cancellation nothing is switched and the partial
// generation is dropped: the serving snapshot stays whole.
func Run(ctx context.Context, opts Options) (Result, error) {
	start := time.Now()
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Progress == nil {
		opts.Progress = discardProgress{}
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.SnapshotDate != "" {
		if _, err := time.Parse(time.DateOnly, opts.SnapshotDate); err != nil {
			return Result{}, fmt.Errorf("ingest: snapshot date %q is not YYYY-MM-DD", opts.SnapshotDate)
		}
	}
	var roots []fileRoot
	if opts.Dir != "" {
		roots = append(roots, fileRoot{os.DirFS(opts.Dir), opts.Dir})
	}
	if opts.Reference != nil {
		roots = append(roots, fileRoot{opts.Reference, "the reference files"})
	}
	found, err := findFamilies(roots...)
	if err != nil {
		return Result{}, err
	}
	if opts.Dir != "" && opts.Reference != nil {
		// The reference files are always found; a drop of none of the families is most likely
		// the wrong directory, which the operator should hear of.
		if _, err := findFamilies(roots[0]); errors.Is(err, ErrNoSourceFiles) {
			opts.Log.Warn("no source files of any known family in the drop; only the reference files are read", "dir", opts.Dir)
		}
	}
	serving, err := store.Serving(ctx, opts.Store)
	if err != nil {
		return Result{}, err
	}
	current, err := catalog.ManifestsAt(ctx, opts.Store, serving.Generation(catalog.ManifestCollection))
	if err != nil {
		return Result{}, err
	}
	currentByFamily := map[string]catalog.Manifest{}
	for _, m := range current {
		currentByFamily[m.Family] = m
	}

	run := &runState{opts: opts, checkedAt: opts.Now().UTC(), serving: serving, written: map[string]bool{}}
	for _, f := range found {
		run.bytesTotal += f.bytes
	}
	var todo []foundFamily
	var res Result
	for _, f := range found {
		files, err := describeFiles(f.files)
		if err != nil {
			return Result{}, err
		}
		// Files can only be unchanged if their names and sizes are: only then are they
		// checksummed before loading. Otherwise (a first ingest, a new release) the checksums
		// are computed while the family loads, rather than in a pass of their own on one core
		// before it (some 10 seconds for a national registry).
		if old, ok := currentByFamily[f.family.name]; ok && !opts.Force && !opts.DryRun && sameSizes(old.Files, files) {
			if err := hashFiles(ctx, f.files, files); err != nil {
				return Result{}, err
			}
			if sameFiles(old.Files, files) {
				opts.Log.Info("family unchanged, skipped", "family", f.family.name, "snapshot", old.Snapshot)
				res.Families = append(res.Families, FamilyResult{Manifest: old, Unchanged: true})
				run.bytesDone += f.bytes
				continue
			}
		}
		f.described = files
		todo = append(todo, f)
	}
	if len(todo) == 0 && (opts.DryRun || !incompleteProjection(serving)) {
		outdated, err := outdatedProjection(ctx, opts.Store, serving)
		if err != nil {
			return Result{}, err
		}
		if opts.DryRun || !outdated {
			res.Elapsed = time.Since(start)
			return res, nil
		}
	}

	if !opts.DryRun {
		if run.gen, err = store.NewGeneration(ctx, opts.Store); err != nil {
			return Result{}, err
		}
		run.writer = newBatchWriter(opts.Store, run.gen, opts.Log, opts.Progress.Phase)
	}
	abort := func(cause error) (Result, error) {
		if run.writer != nil {
			run.writer.close()
			// The context may be the cancelled one; the cleanup must still run.
			dropCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			if err := opts.Store.DropGeneration(dropCtx, run.gen); err != nil {
				opts.Log.Warn("could not drop the partial generation; it is collected after the next switch", "generation", run.gen, "err", err)
			}
		}
		return Result{}, cause
	}

	changes := map[string]string{}
	var manifests []catalog.Manifest
	for _, f := range todo {
		began := time.Now()
		m, err := run.loadFamily(ctx, f)
		opts.Log.Info("family loaded", "family", f.family.name, "rows", m.Rows, "rejected", m.Rejected, "elapsed", time.Since(began).Round(time.Millisecond))
		if err != nil {
			return abort(fmt.Errorf("ingest %s: %w", f.family.name, err))
		}
		manifests = append(manifests, m)
		res.Families = append(res.Families, FamilyResult{Manifest: m})
		for _, c := range f.family.collections {
			changes[c] = run.gen
			run.written[c] = !opts.DryRun
		}
	}
	var projected []string
	if !opts.DryRun {
		if projected, err = run.runProjections(ctx); err != nil {
			return abort(fmt.Errorf("ingest: %w", err))
		}
		for _, c := range projected {
			changes[c] = run.gen
		}
	}
	if opts.DryRun {
		res.Rows, res.Rejected, res.Elapsed = run.rows, run.rejected, time.Since(start)
		opts.Progress.Done(run.rows, run.rejected, res.Elapsed)
		return res, nil
	}

	// Manifests of the families not loaded now are carried into the new generation unchanged.
	loaded := map[string]bool{}
	for _, m := range manifests {
		loaded[m.Family] = true
	}
	for _, m := range current {
		if !loaded[m.Family] {
			manifests = append(manifests, m)
		}
	}
	for _, m := range manifests {
		doc, err := manifestDocument(m)
		if err != nil {
			return abort(err)
		}
		if err := run.writer.add(ctx, catalog.ManifestCollection, doc); err != nil {
			return abort(err)
		}
	}
	changes[catalog.ManifestCollection] = run.gen
	if err := run.writer.finish(ctx); err != nil {
		return abort(err)
	}

	for i := range res.Families {
		fr := &res.Families[i]
		if fr.Unchanged {
			continue
		}
		fam := familyByName(fr.Manifest.Family)
		fr.Changes = map[string]ChangeSummary{}
		for _, c := range fam.collections {
			sum, err := recordChanges(ctx, opts.Store, c, serving.Generation(c), run.gen)
			if err != nil {
				return abort(err)
			}
			fr.Changes[c] = sum
		}
	}
	began := time.Now()
	res.Projections = map[string]ChangeSummary{}
	for _, c := range projected {
		sum, err := recordChanges(ctx, opts.Store, c, serving.Generation(c), run.gen)
		if err != nil {
			return abort(err)
		}
		res.Projections[c] = sum
	}
	opts.Log.Info("change sets recorded", "elapsed", time.Since(began).Round(time.Millisecond))
	if err := ctx.Err(); err != nil {
		return abort(err)
	}
	slices.SortFunc(res.Families, func(a, b FamilyResult) int {
		return slices.Index(loadOrder, a.Manifest.Family) - slices.Index(loadOrder, b.Manifest.Family)
	})
	label := "ingest " + strings.Join(slices.Sorted(maps.Keys(loaded)), ",")
	if len(loaded) == 0 {
		label = "ingest: projections rebuilt"
	}
	if _, err := store.Switch(ctx, opts.Store, serving, changes, label); err != nil {
		return abort(fmt.Errorf("ingest: switch the serving snapshot: %w", err))
	}
	if dropped, err := store.CollectGenerations(ctx, opts.Store); err != nil {
		opts.Log.Warn("collecting old generations failed", "err", err)
	} else if len(dropped) > 0 {
		opts.Log.Info("collected old generations", "generations", dropped)
	}
	res.Generation, res.Switched = run.gen, true
	res.Rows, res.Rejected, res.Elapsed = run.rows, run.rejected, time.Since(start)
	opts.Progress.Done(run.rows, run.rejected, res.Elapsed)
	return res, nil
}

// runState is what one ingest carries from file to file.
type runState struct {
	opts       Options
	gen        string
	writer     *batchWriter
	checkedAt  time.Time
	rows       int64
	rejected   int64
	bytesDone  int64
	bytesTotal int64
	serving    store.Snapshot
	written    map[string]bool // collections an earlier family of this run wrote
}

// readGeneration is the generation a family reads another family's collection from: this run's
// when an earlier family of the run wrote it (flushed first), else the serving one.
func (r *runState) readGeneration(ctx context.Context, collection string) (string, error) {
	if r.written[collection] {
		if err := r.writer.sync(ctx); err != nil {
			return "", err
		}
		return r.gen, nil
	}
	return r.serving.Generation(collection), nil
}

func (r *runState) loadFamily(ctx context.Context, f foundFamily) (catalog.Manifest, error) {
	m := catalog.Manifest{
		Family:      f.family.name,
		DatasetID:   f.family.dataset.ID,
		Source:      f.family.dataset.Source,
		SourceURL:   f.family.dataset.SourceURL,
		Methodology: f.family.dataset.Methodology,
		Cadence:     f.family.dataset.Cadence,
		License:     f.family.dataset.License,
		Generation:  r.gen,
		Files:       f.described,
		StartedAt:   r.opts.Now().UTC(),
	}
	m.Snapshot = r.opts.SnapshotDate
	if m.Snapshot == "" && f.family.snapshotOf != nil {
		m.Snapshot = f.family.snapshotOf(f.files)
	}
	if m.Snapshot == "" {
		m.Snapshot = snapshotDate(f.files)
	}
	m.Coverage = coverageOf(f.files, m.Snapshot)
	// The load fills in the files' row counts while their checksums are computed beside it,
	// if they were not before.
	// A load that fails stops the checksums too, rather than waiting for them to read the rest
	// of a file of gigabytes.
	sums := make(chan error, 1)
	hashCtx, stopHashing := context.WithCancel(ctx)
	defer stopHashing()
	checked := slices.Clone(m.Files)
	if slices.ContainsFunc(checked, func(f catalog.File) bool { return f.SHA256 == "" }) {
		go func() { sums <- hashFiles(hashCtx, f.files, checked) }()
	} else {
		sums <- nil
	}
	l := &familyLoad{run: r, manifest: &m, datasets: map[string]bool{}}
	err := f.family.load(ctx, l, f.files)
	if err != nil {
		stopHashing()
	}
	if sumErr := <-sums; err == nil {
		err = sumErr
	}
	if err != nil {
		return catalog.Manifest{}, err
	}
	for i := range checked {
		m.Files[i].SHA256, m.Files[i].Bytes = checked[i].SHA256, checked[i].Bytes
	}
	m.Datasets = slices.Sorted(maps.Keys(l.datasets))
	m.FinishedAt = r.opts.Now().UTC()
	return m, nil
}

// describeFiles lists the files of a family with their sizes; hashFiles adds their checksums.
func describeFiles(files []sourceFile) ([]catalog.File, error) {
	out := make([]catalog.File, 0, len(files))
	for _, f := range files {
		info, err := fs.Stat(f.fsys, f.name)
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		out = append(out, catalog.File{Name: f.base(), Bytes: info.Size()})
	}
	return out, nil
}

// hashFiles sets the SHA-256 checksum of each file (files[i] describes sources[i]), and its
// size as read.
func hashFiles(ctx context.Context, sources []sourceFile, files []catalog.File) error {
	for i, src := range sources {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := src.fsys.Open(src.name)
		if err != nil {
			return err
		}
		h := sha256.New()
		n, err := io.Copy(h, contextReader{ctx, f})
		f.Close()
		if err != nil {
			return fmt.Errorf("ingest: read %s: %w", src.name, err)
		}
		files[i].SHA256, files[i].Bytes = hex.EncodeToString(h.Sum(nil)), n
	}
	return nil
}

// contextReader stops reading once its context is done, so that a checksum of a large file
// does not hold up a cancelled ingest.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// sameSizes reports whether two lists of files have the same names and sizes.
func sameSizes(a, b []catalog.File) bool {
	return slices.EqualFunc(a, b, func(x, y catalog.File) bool { return x.Name == y.Name && x.Bytes == y.Bytes })
}

func sameFiles(a, b []catalog.File) bool {
	return slices.EqualFunc(a, b, func(x, y catalog.File) bool { return x.Name == y.Name && x.SHA256 == y.SHA256 })
}
