package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"providerdir/catalog"
	"providerdir/mapping/study"
	"providerdir/store"
	"providerdir/stored"
)

// Weekly NPPES deltas.
//
// NPPES publishes, besides the monthly full files, weekly files of the records that changed in
// the week, in the monthly layout and named by the week's first and last day
// (npidata_pfile_20241104-20241110.csv; a monthly file's range starts at the first day of
// enumeration, 20050523). A weekly file carries each changed NPI's whole current record, and its
// secondary practice location, other name and endpoint rows replace all those the NPI had; a
// deactivated NPI comes with its NPI and deactivation date only.
//
// A drop whose NPPES files are all weekly loads as a delta on top of the serving snapshot: each
// registry collection gets a small top generation (the changed NPIs' documents) and a mask (the
// documents of the view below that the top replaces or deletes), served as
// store.StackGeneration(top, serving); the name lexicon's top holds only the week's words the
// serving lexicon lacks, and needs no mask. The projections derived from the registry follow
// in the same way when nothing else they read was loaded in the run: the FHIR resources of the
// changed providers and of those whose resources name them are rebuilt by the full
// projection's own code, the supply studies are recomputed from the serving studies' counts
// adjusted by each changed record's old and new contribution, and the sandbox subset is picked
// again (it is a small query). Everything lands in the run's one generation and switches in
// one step, so a delta is atomic like a full ingest, and its change set lists the changed
// documents alone. Open Payments recipients are not matched again: a payment keeps the match
// of the full ingest that loaded it until the next one.
//
// A drop mixing monthly and weekly NPPES files is refused: the monthly files replace the whole
// registry, so the weekly ones belong in a later run of their own. A weekly drop needs a
// monthly snapshot serving. The NPPES manifest keeps the monthly files and lists the weekly ones
// applied since (catalog.Manifest.Weekly); the next monthly full ingest replaces every stack
// with one plain generation again.

// nppesFamily names the NPPES family, whose files may be weekly.
const nppesFamily = "nppes"

// planWeekly sets f.base when f's files are weekly update files: to the serving manifest of
// the family (current[i]), which must exist.
func (f *foundFamily) planWeekly(current []catalog.Manifest, i int) error {
	weekly, err := weeklyFiles(f.files)
	if err != nil || !weekly {
		return err
	}
	if i < 0 {
		return ErrNoMonthlyNPPES
	}
	// The week's days are compared as the file names give them, whatever --snapshot-date says.
	applied, week := lastDay(current[i].Files), ""
	for _, w := range current[i].Weekly {
		applied = max(applied, lastDay([]catalog.File{w}))
	}
	for _, sf := range f.files {
		week = max(week, lastDay([]catalog.File{{Name: sf.base()}}))
	}
	if week < applied {
		return fmt.Errorf("%w: the week ends %s, the registry serving is as of %s", ErrStaleWeekly, week, applied)
	}
	f.base = &current[i]
	return nil
}

// ErrStaleWeekly is returned for weekly NPPES files older than the registry serving: applied,
// they would bring back records later files replaced.
var ErrStaleWeekly = errors.New("ingest: the NPPES weekly files are older than the registry serving")

// lastDay is the latest last day (YYYYMMDD) of the NPPES file names' ranges, "" for none.
func lastDay(files []catalog.File) string {
	last := ""
	for _, f := range files {
		if m := nppesSpan.FindStringSubmatch(f.Name); m != nil {
			last = max(last, m[2])
		}
	}
	return last
}

// nppesSpan reads the first and last day of an NPPES file's name.
var nppesSpan = regexp.MustCompile(`_pfile_((?:19|20)\d{6})-((?:19|20)\d{6})`)

// nppesFirstDay starts the name of every monthly full file.
const nppesFirstDay = "20050523"

// ErrMixedNPPES is returned for a drop holding both monthly and weekly NPPES files.
var ErrMixedNPPES = errors.New("ingest: the drop mixes NPPES monthly full files and weekly update files; ingest the monthly files first and the weekly ones in a later run")

// ErrNoMonthlyNPPES is returned for weekly NPPES files when no monthly snapshot serves.
var ErrNoMonthlyNPPES = errors.New("ingest: NPPES weekly update files apply on top of a monthly snapshot, and none is serving; ingest a monthly full drop first")

// weeklyFiles reports whether the NPPES files found are weekly update files: every file dated
// by a range that does not start at the first day of enumeration. A mix is ErrMixedNPPES.
func weeklyFiles(files []sourceFile) (bool, error) {
	weekly, monthly := 0, 0
	for _, f := range files {
		if m := nppesSpan.FindStringSubmatch(f.base()); m != nil && m[1] != nppesFirstDay {
			weekly++
		} else {
			monthly++
		}
	}
	if weekly > 0 && monthly > 0 {
		return false, ErrMixedNPPES
	}
	return weekly > 0, nil
}

// onTopOf is the manifest of a family after weekly files (loaded, their own load's manifest)
// are applied on top of base: base's files with the weekly ones added, and the weekly
// snapshot, load time, generation and row counts.
func onTopOf(base, loaded catalog.Manifest) catalog.Manifest {
	m := base
	m.Weekly = append(slices.Clip(base.Weekly), loaded.Files...)
	m.Snapshot, m.Generation = loaded.Snapshot, loaded.Generation
	m.Coverage = loaded.Coverage
	m.Rows, m.Rejected = base.Rows+loaded.Rows, base.Rejected+loaded.Rejected
	m.Datasets = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(base.Datasets), loaded.Datasets...))))
	m.StartedAt, m.FinishedAt = loaded.StartedAt, loaded.FinishedAt
	return m
}

// registryDelta is what the projections read of a weekly delta: the NPIs it covers, and for
// each registry record it changed what the supply studies counted before and count now.
type registryDelta struct {
	npis     []string // every NPI of the weekly files, ascending
	old, new map[string]study.Provider
	prov     stored.Provenance
	// records holds the digest of each new registry document's record (recordDigest), by NPI,
	// to compare the document below with while it is read to be masked; nil for an NPI whose
	// files gave it more than one record, or a body the digest does not read.
	records map[string]*[sha256.Size]byte
}

// maskBatch is how many NPIs the look-ups of the view below ask for at a time.
const maskBatch = 500

// loadNPPESWeekly loads weekly update files as the top of a stack over the serving registry: the
// rows of the files into the registry collections of the run's generation, and into each
// collection's mask every document of the serving view that belongs to an NPI of the files, with
// the keys it has there. It notes what the projections need in the run's registryDelta.
func loadNPPESWeekly(ctx context.Context, l *familyLoad, files []sourceFile) error {
	wordsBelow := l.run.serving.Generation(catalog.RegistryNameWords)
	if wordsBelow == "" {
		return ErrNoNameWords
	}
	d := &registryDelta{old: map[string]study.Provider{}, new: map[string]study.Provider{}, records: map[string]*[sha256.Size]byte{}}
	d.prov = l.snapshot(stored.NPPES).Provenance(1)
	l.run.delta = d
	covered := map[string]bool{}
	words, err := loadNPPESRows(ctx, l, files, d.prov, func(rec *stored.RegistryRecord, doc store.Document) {
		npi := strings.Clone(rec.NPI)
		d.new[npi] = ownedProvider(study.FromRecord(*rec))
		sum, ok := recordDigest(doc.Body)
		if _, twice := d.records[npi]; twice || !ok {
			d.records[npi] = nil
		} else {
			d.records[npi] = &sum
		}
	}, func(npi string) {
		if !covered[npi] {
			covered[strings.Clone(npi)] = true
		}
	})
	if err != nil {
		return err
	}
	d.npis = slices.Sorted(maps.Keys(covered))
	if l.run.writer == nil {
		return nil
	}
	st, serving := l.run.opts.Store, l.run.serving
	added, err := wordsMissing(ctx, st, wordsBelow, words)
	if err != nil {
		return err
	}
	if err := writeNameWords(ctx, l, d.prov, added); err != nil {
		return err
	}
	secondary := []string{catalog.RegistryLocations, catalog.RegistryOtherNames, catalog.RegistryEndpoints}
	batches := slices.Collect(slices.Chunk(d.npis, maskBatch))
	// Each batch's documents below, by collection: looked up in parallel, masked in order.
	return inOrder(ctx, len(batches), func(ctx context.Context, k int) (map[string][]store.Document, error) {
		below := map[string][]store.Document{}
		var err error
		below[catalog.RegistryProviders], err = st.GetMany(ctx, serving.Generation(catalog.RegistryProviders), catalog.RegistryProviders, batches[k], nil)
		for _, c := range secondary {
			if err != nil {
				break
			}
			q := store.Query{Collection: c, Generation: serving.Generation(c), Where: []store.Condition{{Param: stored.KeyNPI, Values: batches[k]}}}
			err = eachDoc(ctx, st, q, func(doc *store.Document) error {
				below[c] = append(below[c], store.Document{ID: doc.ID, Keys: doc.Keys})
				return nil
			})
		}
		return below, err
	}, func(below map[string][]store.Document) error {
		for _, doc := range below[catalog.RegistryProviders] {
			var v registryView
			if err := json.Unmarshal(doc.Body, &v); err != nil {
				return fmt.Errorf("ingest: registry record %s: %w", doc.ID, err)
			}
			d.old[doc.ID] = v.provider()
			if now := d.records[doc.ID]; now != nil {
				if was, ok := recordDigest(doc.Body); ok {
					l.run.compare(catalog.RegistryProviders, doc.ID, was == *now)
				}
			}
		}
		for _, c := range append([]string{catalog.RegistryProviders}, secondary...) {
			for _, doc := range below[c] {
				if err := l.run.writer.add(ctx, store.MaskCollection(c), maskOf(doc)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// ErrNoNameWords is returned for weekly NPPES files when the registry serving has no name
// lexicon (it was ingested by a version that did not write one): the lexicon must hold every
// word of the registry, which only a monthly full ingest writes.
var ErrNoNameWords = errors.New("ingest: the registry serving has no name lexicon; ingest a monthly full drop before weekly files")

// wordsMissing returns the words of a weekly delta that the lexicon serving (generation below)
// lacks, ascending: the top of the lexicon's stack adds only those. Words are never removed, so
// the lexicon needs no mask; a word no record holds any more selects nothing.
func wordsMissing(ctx context.Context, st store.Store, below string, words nameWords) ([]string, error) {
	var out []string
	for chunk := range slices.Chunk(slices.Sorted(maps.Keys(words)), maskBatch) {
		docs, err := st.GetMany(ctx, below, catalog.RegistryNameWords, chunk, nil)
		if err != nil {
			return nil, err
		}
		have := make(map[string]bool, len(docs))
		for _, doc := range docs {
			have[doc.ID] = true
		}
		for _, w := range chunk {
			if !have[w] {
				out = append(out, w)
			}
		}
	}
	return out, nil
}

// ownedProvider copies the strings of p, which may point into a reader's buffers.
func ownedProvider(p study.Provider) study.Provider {
	p.NPI, p.State = strings.Clone(p.NPI), strings.Clone(p.State)
	for i := range p.Codes {
		p.Codes[i] = strings.Clone(p.Codes[i])
	}
	return p
}

// maskOf is the mask entry of a document of the view below: its id and its keys there.
func maskOf(d store.Document) store.Document {
	return store.Document{ID: d.ID, Body: []byte(`{}`), Keys: d.Keys}
}

// eachDoc calls fn for every document a query finds (store.EachDocument); a query of a
// collection never loaded (no generation) finds nothing.
func eachDoc(ctx context.Context, st store.Store, q store.Query, fn func(*store.Document) error) error {
	if q.Generation == "" {
		return nil
	}
	return store.EachDocument(ctx, st, q, fn)
}

// recordStackChanges records the change set of a collection served as a stack: the top layer
// top (the run's generation) over prevGen, read as newGen. Only the top and its mask are walked,
// both in id order: an id in the top alone was added, one in the mask alone removed, and one in
// both changed when its record differs from the one below. known holds what the code that
// wrote the top found comparing a document with the one below while it had both at hand
// (runState.compare); only the others are read below again.
func recordStackChanges(ctx context.Context, st store.Store, collection, prevGen, newGen, top string, known verdicts) (ChangeSummary, error) {
	cw := &changeWriter{st: st, collection: collection, id: top, cur: catalog.ChangeSet{Generation: newGen, Previous: prevGen, Collection: collection},
		sum: ChangeSummary{Previous: prevGen}}
	topIt, maskIt := newScan(st, collection, top), newScan(st, store.MaskCollection(collection), top)
	// Top documents that replace one below, with what is known of them, taken a batch at a time
	// so that those compared here are read below together and every change is noted in id order.
	type replacing struct {
		doc     store.Document
		verdict verdict
	}
	var both []replacing
	compare := func() error {
		var ids []string
		for i := range both {
			if both[i].verdict != verdictSame && both[i].verdict != verdictChanged {
				ids = append(ids, both[i].doc.ID)
			}
		}
		bodies := make(map[string][]byte, len(ids))
		if len(ids) > 0 {
			below, err := st.GetMany(ctx, prevGen, collection, ids, nil)
			if err != nil {
				return err
			}
			for _, d := range below {
				bodies[d.ID] = d.Body
			}
		}
		for _, r := range both {
			switch r.verdict {
			case verdictSame:
			case verdictChanged:
				cw.changed(r.doc.ID)
			default:
				if !sameRecord(bodies[r.doc.ID], r.doc.Body) {
					cw.changed(r.doc.ID)
				}
			}
		}
		both = both[:0]
		return cw.flush(ctx, false)
	}
	t, terr := topIt.next(ctx)
	m, merr := maskIt.next(ctx)
	for terr == nil && merr == nil && (t != nil || m != nil) {
		switch {
		case m == nil || (t != nil && t.ID < m.ID):
			cw.added(t.ID)
			t, terr = topIt.next(ctx)
		case t == nil || m.ID < t.ID:
			cw.removed(m.ID)
			m, merr = maskIt.next(ctx)
		default:
			both = append(both, replacing{store.Document{ID: t.ID, Body: t.Body}, known[t.ID]})
			t, terr = topIt.next(ctx)
			m, merr = maskIt.next(ctx)
		}
		if len(both) == maskBatch*2 {
			if err := compare(); err != nil {
				return cw.sum, err
			}
		}
		if err := cw.flush(ctx, false); err != nil {
			return cw.sum, err
		}
	}
	if err := errors.Join(terr, merr); err != nil {
		return cw.sum, err
	}
	if err := compare(); err != nil {
		return cw.sum, err
	}
	return cw.sum, cw.flush(ctx, true)
}

// verdicts are what the code writing a stacked collection found comparing the documents it
// wrote with the ones below them that they replace, by id (runState.compare).
type verdicts map[string]verdict

// verdict is one document's: unknown (the zero value) until compared.
type verdict uint8

const (
	verdictSame    verdict = iota + 1 // its record is the one below's
	verdictChanged                    // its record differs from the one below's
	verdictUnsure                     // compared more than once with different results
)

// note records a comparison of id, keeping it unsure when two comparisons disagree.
func (v verdicts) note(id string, same bool) {
	now := verdictChanged
	if same {
		now = verdictSame
	}
	if was, ok := v[id]; ok && was != now {
		now = verdictUnsure
	}
	v[id] = now
}
