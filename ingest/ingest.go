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
	"providerdir/source"
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
	// Rejects, when set, is told of every rejected row of every file, where the manifests keep
	// the counts and the first few. Files are read concurrently: it must be safe for that.
	Rejects  func(source.RowError)
	Progress Progress
	Log      *slog.Logger
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
	// Phases are the steps of the run in order (planning, each family loaded, each projection,
	// each commit of bulk loads, recording the change sets) with the time and CPU time each took.
	Phases []PhaseTime
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
//
// The steps are planRun (which families load, which are skipped unchanged), runState.load (the
// families, then the projections derived from them), runState.record (the manifests and change
// sets) and runState.switchServing.
func Run(ctx context.Context, opts Options) (Result, error) {
	start := time.Now()
	if err := opts.complete(); err != nil {
		return Result{}, err
	}
	clock := newPhaseClock(opts.Progress, readClock, "planning")
	opts.Progress = clock
	p, err := planRun(ctx, opts)
	if err != nil {
		return Result{}, err
	}
	idle, err := p.idle(ctx, opts)
	if err != nil {
		return Result{}, err
	}
	if idle {
		return Result{Families: p.results(nil), Elapsed: time.Since(start)}, nil
	}
	run, err := newRunState(ctx, opts, p)
	if err != nil {
		return Result{}, err
	}
	if err := run.load(ctx); err != nil {
		return Result{}, run.abort(ctx, err)
	}
	res := Result{Families: p.results(run.loaded)}
	if !opts.DryRun {
		opts.Progress.Phase("recording the change sets")
		if res.Projections, err = run.record(ctx, res.Families); err == nil {
			err = run.switchServing(ctx)
		}
		if err != nil {
			return Result{}, run.abort(ctx, err)
		}
		res.Generation, res.Switched = run.gen, true
	}
	end := readClock()
	res.Rows, res.Rejected, res.Elapsed, res.Phases = run.rows, run.rejected, end.at.Sub(start), clock.phases(end)
	opts.Progress.Done(run.rows, run.rejected, res.Elapsed)
	return res, nil
}

// complete fills in the defaults of unset options and checks the snapshot date.
func (o *Options) complete() error {
	if o.Now == nil {
		o.Now = time.Now
	}
	// A weekly delta is read and written through stacked generations; a store already stacked
	// (every store internal/storeopen opens) is used as it is.
	o.Store = store.Stacked(o.Store)
	if o.Progress == nil {
		o.Progress = discardProgress{}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.SnapshotDate != "" {
		if _, err := time.Parse(time.DateOnly, o.SnapshotDate); err != nil {
			return fmt.Errorf("ingest: snapshot date %q is not YYYY-MM-DD", o.SnapshotDate)
		}
	}
	return nil
}

// plan is what an ingest is to do, decided before anything is written: the families found, in
// load order, each either to load or skipped because its files are the serving ones.
type plan struct {
	serving store.Snapshot
	// current are the serving manifests; those of families not loaded are carried into the new
	// generation unchanged.
	current  []catalog.Manifest
	families []plannedFamily
	// bytesTotal is the size of every file found; bytesSkipped of the skipped families' files.
	bytesTotal, bytesSkipped int64
}

// plannedFamily is one family found in the drop: to load, or skipped with its serving manifest.
type plannedFamily struct {
	found foundFamily
	// unchanged is set when the family's files match the serving manifest; it is that manifest.
	unchanged *catalog.Manifest
}

// planRun finds the families of the drop and the reference files, and decides which of them
// load: all of them on a dry run or with Force, else those whose files differ from the ones
// serving.
func planRun(ctx context.Context, opts Options) (plan, error) {
	found, err := findDrop(opts)
	if err != nil {
		return plan{}, err
	}
	p := plan{}
	if p.serving, err = store.Serving(ctx, opts.Store); err != nil {
		return plan{}, err
	}
	if p.current, err = catalog.ManifestsAt(ctx, opts.Store, p.serving.Generation(catalog.ManifestCollection)); err != nil {
		return plan{}, err
	}
	for _, f := range found {
		p.bytesTotal += f.bytes
		if f.described, err = describeFiles(f.files); err != nil {
			return plan{}, err
		}
		i := slices.IndexFunc(p.current, func(m catalog.Manifest) bool { return m.Family == f.family.name })
		if f.family.name == nppesFamily {
			if err := f.planWeekly(p.current, i); err != nil {
				return plan{}, err
			}
		}
		var old *catalog.Manifest
		if i >= 0 && !opts.Force && !opts.DryRun {
			old = &p.current[i]
		}
		unchanged, err := sameAsServing(ctx, f, old)
		if err != nil {
			return plan{}, err
		}
		if !unchanged {
			p.families = append(p.families, plannedFamily{found: f})
			continue
		}
		opts.Log.Info("family unchanged, skipped", "family", f.family.name, "snapshot", old.Snapshot)
		p.bytesSkipped += f.bytes
		p.families = append(p.families, plannedFamily{found: f, unchanged: old})
	}
	return p, nil
}

// findDrop lists the families of the drop and the reference files, warning when the drop
// itself holds none.
func findDrop(opts Options) ([]foundFamily, error) {
	var roots []fileRoot
	if opts.Dir != "" {
		roots = append(roots, fileRoot{os.DirFS(opts.Dir), opts.Dir})
	}
	if opts.Reference != nil {
		roots = append(roots, fileRoot{opts.Reference, "the reference files"})
	}
	found, err := findFamilies(roots...)
	if err != nil {
		return nil, err
	}
	if opts.Dir != "" && opts.Reference != nil {
		// The reference files are always found; a drop of none of the families is most likely
		// the wrong directory, which the operator should hear of.
		if _, err := findFamilies(roots[0]); errors.Is(err, ErrNoSourceFiles) {
			opts.Log.Warn("no source files of any known family in the drop; only the reference files are read", "dir", opts.Dir)
		}
	}
	return found, nil
}

// sameAsServing reports whether a family's files are byte for byte those of its serving
// manifest old (nil when there is none to compare with). Files can only be unchanged if their
// names and sizes are: only then are they checksummed before loading, and the checksums are
// kept in f.described. Otherwise (a first ingest, a new release) the checksums are computed
// while the family loads, rather than in a pass of their own on one core before it.
func sameAsServing(ctx context.Context, f foundFamily, old *catalog.Manifest) (bool, error) {
	if old != nil && f.base != nil {
		// Weekly files are unchanged when they are the last ones applied.
		m := *old
		m.Files = old.Weekly[max(0, len(old.Weekly)-len(f.described)):]
		old = &m
	}
	if old == nil || !sameSizes(old.Files, f.described) {
		return false, nil
	}
	if err := hashFiles(ctx, f.files, f.described); err != nil {
		return false, err
	}
	return sameFiles(old.Files, f.described), nil
}

// idle reports whether the run has nothing to do: no family to load, and no projection whose
// serving outputs are incomplete or outdated (a dry run only reads the families).
func (p plan) idle(ctx context.Context, opts Options) (bool, error) {
	if slices.ContainsFunc(p.families, func(f plannedFamily) bool { return f.unchanged == nil }) {
		return false, nil
	}
	if !opts.DryRun && incompleteProjection(p.serving) {
		return false, nil
	}
	outdated, err := outdatedProjection(ctx, opts.Store, p.serving)
	if err != nil {
		return false, err
	}
	return opts.DryRun || !outdated, nil
}

// results are the families' parts of the result in load order: the skipped ones with their
// serving manifests, the others with the manifests loaded now, by family.
func (p plan) results(loaded map[string]FamilyResult) []FamilyResult {
	var out []FamilyResult
	for _, f := range p.families {
		if f.unchanged != nil {
			out = append(out, FamilyResult{Manifest: *f.unchanged, Unchanged: true})
		} else if r, ok := loaded[f.found.family.name]; ok {
			out = append(out, r)
		}
	}
	return out
}

// runState is what one ingest carries from step to step.
type runState struct {
	opts       Options
	plan       plan
	gen        string
	writer     *batchWriter
	checkedAt  time.Time
	rows       int64
	rejected   int64
	bytesDone  int64
	bytesTotal int64
	serving    store.Snapshot
	written    map[string]bool // collections an earlier family of this run wrote
	// loaded are the families loaded in this run, by name; projected the collections the
	// projections wrote; changes the collections to switch to the run's generation.
	loaded    map[string]FamilyResult
	projected []string
	changes   map[string]string
	// registry is what the supply studies read of the registry this run loaded; nil when the
	// run loaded none.
	registry *heldRegistry
	// stacked are the collections the run writes as the top of a stack over the serving
	// generation; delta is what a weekly NPPES delta changed (nil without one).
	stacked map[string]bool
	delta   *registryDelta
	// compared holds, by stacked collection, what its writer found comparing the documents it
	// wrote with the ones below (compare: the weekly registry load, Projection.Compared).
	compared map[string]verdicts
}

// newRunState starts the run of a plan: a new generation and its batch writer, unless the run
// is dry.
func newRunState(ctx context.Context, opts Options, p plan) (*runState, error) {
	r := &runState{opts: opts, plan: p, checkedAt: opts.Now().UTC(), serving: p.serving, written: map[string]bool{},
		bytesDone: p.bytesSkipped, bytesTotal: p.bytesTotal, loaded: map[string]FamilyResult{}, changes: map[string]string{}, stacked: map[string]bool{}, compared: map[string]verdicts{}}
	if opts.DryRun {
		return r, nil
	}
	var err error
	if r.gen, err = store.NewGeneration(ctx, opts.Store); err != nil {
		return nil, err
	}
	r.writer = newBatchWriter(opts.Store, r.gen, opts.Log, interruptions(opts.Progress))
	r.writer.readBack = readBackOf(p)
	return r, nil
}

// readBackOf are the collections a run reads back at random after loading them: the registry,
// when the run also loads Open Payments, whose matching looks each recipient up in it. Their
// loads are asked to keep them where reading them is cheap (store.ReadBack). What the
// projections read they scan in order, which needs no such help, and writing it through the
// cache costs more than it saves (docs/BENCHMARKS.md).
func readBackOf(p plan) map[string]bool {
	for _, pf := range p.families {
		if pf.unchanged == nil && pf.found.family.name == "openpayments" {
			return map[string]bool{catalog.RegistryProviders: true}
		}
	}
	return nil
}

// load loads the planned families in order, then runs the projections whose inputs changed.
func (r *runState) load(ctx context.Context) error {
	for _, pf := range r.plan.families {
		if pf.unchanged != nil {
			continue
		}
		f := pf.found
		r.opts.Progress.Phase("loading the " + f.family.name + " family")
		began := time.Now()
		m, err := r.loadFamily(ctx, f)
		r.opts.Log.Info("family loaded", "family", f.family.name, "rows", m.Rows, "rejected", m.Rejected, "elapsed", time.Since(began).Round(time.Millisecond))
		if err != nil {
			return fmt.Errorf("ingest %s: %w", f.family.name, err)
		}
		r.loaded[f.family.name] = FamilyResult{Manifest: m}
		for _, c := range f.family.collections {
			r.stacked[c] = f.base != nil
			r.changes[c] = r.outputGeneration(c)
			r.written[c] = !r.opts.DryRun
		}
	}
	if r.opts.DryRun {
		return nil
	}
	var err error
	if r.projected, err = r.runProjections(ctx); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	for _, c := range r.projected {
		r.changes[c] = r.outputGeneration(c)
	}
	return nil
}

// record writes the manifests into the run's generation (the loaded families' new ones, the
// others' carried over), commits every write, and records the change set of each collection
// written against the serving generation: into families' Changes, and per projected
// collection in the map it returns.
func (r *runState) record(ctx context.Context, families []FamilyResult) (map[string]ChangeSummary, error) {
	for _, m := range r.manifests() {
		doc, err := manifestDocument(m)
		if err != nil {
			return nil, err
		}
		if err := r.writer.add(ctx, catalog.ManifestCollection, doc); err != nil {
			return nil, err
		}
	}
	r.changes[catalog.ManifestCollection] = r.gen
	if err := r.writer.finish(ctx); err != nil {
		return nil, err
	}
	for i := range families {
		fr := &families[i]
		if fr.Unchanged {
			continue
		}
		var err error
		if fr.Changes, err = r.changeSets(ctx, r.familyCollections(fr.Manifest.Family)); err != nil {
			return nil, err
		}
	}
	// The manifests' change set names the families whose snapshot changed (source.refreshed)
	// and the generations before and after the switch (provider.changed compares a watched
	// NPI's records through them).
	if _, err := recordChanges(ctx, r.opts.Store, catalog.ManifestCollection, r.serving.Generation(catalog.ManifestCollection), r.gen, r.generationPairs()); err != nil {
		return nil, err
	}
	began := time.Now()
	projections, err := r.changeSets(ctx, r.projected)
	if err != nil {
		return nil, err
	}
	r.opts.Log.Info("change sets recorded", "elapsed", time.Since(began).Round(time.Millisecond))
	return projections, ctx.Err()
}

// generationPairs are the generations of every collection of the serving snapshot before and
// after the run's switch.
func (r *runState) generationPairs() map[string]catalog.GenerationPair {
	out := map[string]catalog.GenerationPair{}
	for c, g := range r.serving.Collections {
		out[c] = catalog.GenerationPair{Previous: g, Generation: g}
	}
	for c, g := range r.changes {
		out[c] = catalog.GenerationPair{Previous: r.serving.Generation(c), Generation: g}
	}
	return out
}

// manifests are the manifests of the run's generation: those of the families loaded now, in load
// order, then the serving ones of every other family.
func (r *runState) manifests() []catalog.Manifest {
	var out []catalog.Manifest
	for _, pf := range r.plan.families {
		if fr, ok := r.loaded[pf.found.family.name]; ok {
			out = append(out, fr.Manifest)
		}
	}
	for _, m := range r.plan.current {
		if _, ok := r.loaded[m.Family]; !ok {
			out = append(out, m)
		}
	}
	return out
}

// familyCollections are the collections of a planned family.
func (r *runState) familyCollections(name string) []string {
	for _, pf := range r.plan.families {
		if pf.found.family.name == name {
			return pf.found.family.collections
		}
	}
	return nil
}

// compare notes what the writer of a stacked collection found comparing a document it wrote
// with the one below it replaces (see verdicts).
func (r *runState) compare(collection, id string, same bool) {
	v := r.compared[collection]
	if v == nil {
		v = verdicts{}
		r.compared[collection] = v
	}
	v.note(id, same)
}

// changeSets records the change set of each collection between the serving generation and the
// run's, several collections at once. Those of stacks read only their top layers and the
// documents those replace; the others walk whole generations.
func (r *runState) changeSets(ctx context.Context, collections []string) (map[string]ChangeSummary, error) {
	out := map[string]ChangeSummary{}
	type recorded struct {
		collection string
		sum        ChangeSummary
	}
	err := inOrder(ctx, len(collections), func(ctx context.Context, k int) (recorded, error) {
		c := collections[k]
		var sum ChangeSummary
		var err error
		if r.stacked[c] {
			sum, err = recordStackChanges(ctx, r.opts.Store, c, r.serving.Generation(c), r.outputGeneration(c), r.gen, r.compared[c])
		} else {
			sum, err = recordChanges(ctx, r.opts.Store, c, r.serving.Generation(c), r.gen, nil)
		}
		return recorded{c, sum}, err
	}, func(rc recorded) error {
		out[rc.collection] = rc.sum
		return nil
	})
	return out, err
}

// switchServing switches the serving snapshot to the run's generation for every collection it
// wrote, in one step, then collects the generations nothing serves any more.
func (r *runState) switchServing(ctx context.Context) error {
	label := "ingest " + strings.Join(slices.Sorted(maps.Keys(r.loaded)), ",")
	if len(r.loaded) == 0 {
		label = "ingest: projections rebuilt"
	}
	if _, err := store.Switch(ctx, r.opts.Store, r.serving, r.changes, label); err != nil {
		return fmt.Errorf("ingest: switch the serving snapshot: %w", err)
	}
	if dropped, err := store.CollectGenerations(ctx, r.opts.Store); err != nil {
		r.opts.Log.Warn("collecting old generations failed", "err", err)
	} else if len(dropped) > 0 {
		r.opts.Log.Info("collected old generations", "generations", dropped)
	}
	return nil
}

// abort ends a failed run: it stops the writer and drops the partial generation, so that the
// serving snapshot stays whole, and returns cause.
func (r *runState) abort(ctx context.Context, cause error) error {
	if r.writer == nil {
		return cause
	}
	r.writer.close()
	// The context may be the cancelled one; the cleanup must still run.
	dropCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := r.opts.Store.DropGeneration(dropCtx, r.gen); err != nil {
		r.opts.Log.Warn("could not drop the partial generation; it is collected after the next switch", "generation", r.gen, "err", err)
	}
	return cause
}

// readGeneration is the generation a family reads another family's collection from: this run's
// when an earlier family of the run wrote it (flushed first), else the serving one.
func (r *runState) readGeneration(ctx context.Context, collection string) (string, error) {
	if r.written[collection] {
		if err := r.writer.sync(ctx); err != nil {
			return "", err
		}
		return r.outputGeneration(collection), nil
	}
	return r.serving.Generation(collection), nil
}

// outputGeneration is the generation a collection the run writes is served at: the run's own,
// or the run's laid over the serving one when the run writes the top of a stack.
func (r *runState) outputGeneration(collection string) string {
	if r.stacked[collection] {
		return store.StackGeneration(r.gen, r.serving.Generation(collection))
	}
	return r.gen
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
	load := f.family.load
	if f.base != nil {
		// Weekly files: the registry as a whole still covers every day since enumeration began.
		m.Coverage.Start = min(m.Coverage.Start, f.base.Coverage.Start)
		load = loadNPPESWeekly
	}
	l := &familyLoad{run: r, manifest: &m, datasets: map[string]bool{}}
	err := load(ctx, l, f.files)
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
	m.DatasetSnapshots = l.own
	m.FinishedAt = r.opts.Now().UTC()
	if f.base != nil {
		return onTopOf(*f.base, m), nil
	}
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
