package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"providerdir/catalog"
	"providerdir/mapping/study"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
)

// ErrNotLoaded: the serving snapshot lacks a source the dataset is computed from (the registry
// and the Census figures for every dataset, the Care Compare files for a facility study).
var ErrNotLoaded = errors.New("dataset: a source of the dataset is not loaded")

// Figures are one dataset's numbers in the serving snapshot.
type Figures struct {
	Dataset Dataset
	// Key names the generations the figures were computed from: equal keys, equal figures.
	Key string
	// SnapshotDate is the snapshot date of the primary source (YYYY-MM-DD).
	SnapshotDate string
	// LastRefreshed is when the most recent of the dataset's source families was ingested.
	LastRefreshed time.Time
	National      study.National
	// Rows are the 51 states in state code order.
	Rows []Row
	// OutsideThe51, Deactivated and Organizations count matching records left out.
	OutsideThe51  int64
	Deactivated   int64
	Organizations int64
	// Primary and Census are the provenance of the two sources' snapshots.
	Primary stored.Provenance
	Census  stored.Provenance
	// MeanStar is the national mean star rating of a facility study over its rated facilities.
	MeanStar *float64
	Rated    int64
}

// Row is one state's figures: the study row, and for a facility study its star ratings.
type Row struct {
	study.Row
	// Rated counts the facilities with a published overall star rating; MeanStar is their mean,
	// rounded to 2 decimals, nil when none is rated. Both are zero for supply studies.
	Rated    int64
	MeanStar *float64
}

// Underserved returns the rows flagged underserved, in state code order.
func (f *Figures) Underserved() []Row {
	var out []Row
	for _, r := range f.Rows {
		if r.Underserved {
			out = append(out, r)
		}
	}
	return out
}

// Source reads datasets' figures from one store, caching them per serving generation (the
// generations never change once served).
type Source struct {
	reader *records.Reader
	cache  records.Cache[*Figures]
}

// NewSource returns a Source over s.
func NewSource(s store.Store) *Source { return &Source{reader: records.New(s)} }

// Freshness returns the serving manifests of the dataset's source families (those loaded).
func (s *Source) Freshness(ctx context.Context, d Dataset) ([]catalog.Manifest, error) {
	v, err := s.reader.Serving(ctx)
	if err != nil {
		return nil, err
	}
	return manifestsOf(ctx, v, d)
}

func manifestsOf(ctx context.Context, v records.View, d Dataset) ([]catalog.Manifest, error) {
	var out []catalog.Manifest
	for _, fam := range d.Families {
		m, ok, err := v.Manifest(ctx, fam)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// Load returns the figures of a registered dataset in the serving snapshot, or ErrNotLoaded.
func (s *Source) Load(ctx context.Context, d Dataset) (*Figures, error) {
	v, err := s.reader.Serving(ctx)
	if err != nil {
		return nil, err
	}
	studies := v.Snap.Generation(catalog.SupplyStudies)
	if studies == "" {
		return nil, ErrNotLoaded
	}
	key := d.Slug + "@" + studies
	if d.Kind == FacilityQuality {
		key += "/" + v.Snap.Generation(catalog.Quality)
	}
	if f, ok := s.cache.Get(key); ok {
		return f, nil
	}
	// Every study carries the 51 with their populations and the Census provenance: the base
	// study gives them to the datasets the ingest does not compute.
	base, err := s.study(ctx, studies, specialtyOf(d))
	if err != nil {
		return nil, err
	}
	var f *Figures
	switch {
	case d.Kind == FacilityQuality:
		f, err = s.quality(ctx, v, d, base)
	case isStudy(d):
		f = fromStudy(d, base)
	default:
		f, err = s.registryCount(ctx, v, d, base)
	}
	if err != nil {
		return nil, err
	}
	f.Key = key
	ms, err := manifestsOf(ctx, v, d)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.FinishedAt.After(f.LastRefreshed) {
			f.LastRefreshed = m.FinishedAt
		}
	}
	s.cache.Put(key, f)
	return f, nil
}

// specialtyOf is the study a dataset reads: its own, or the first registered one for the
// populations of the others.
func specialtyOf(d Dataset) string {
	if isStudy(d) {
		return d.Specialty.Slug
	}
	return study.Specialties()[0].Slug
}

func isStudy(d Dataset) bool {
	_, ok := study.Lookup(d.Specialty.Slug)
	return d.Kind == SpecialtySupply && ok
}

func (s *Source) study(ctx context.Context, gen, slug string) (*study.Study, error) {
	doc, err := s.reader.Store().Get(ctx, gen, catalog.SupplyStudies, study.ID(slug, ""))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNotLoaded
	}
	if err != nil {
		return nil, err
	}
	st := new(study.Study)
	if err := json.Unmarshal(doc.Body, st); err != nil {
		return nil, fmt.Errorf("dataset: decode study %s: %w", slug, err)
	}
	return st, nil
}

func fromStudy(d Dataset, st *study.Study) *Figures {
	f := &Figures{Dataset: d, SnapshotDate: st.ReleaseDate, National: st.National, Primary: st.Registry, Census: st.Census,
		OutsideThe51: st.OutsideThe51, Deactivated: st.Deactivated, Organizations: st.Organizations}
	for _, r := range st.Rows {
		f.Rows = append(f.Rows, Row{Row: r})
	}
	return f
}

// scan calls fn with every document of a collection matching one search key, a page at a time,
// so memory holds one page whatever the collection's size.
func (s *Source) scan(ctx context.Context, gen, collection, param, value string, fn func(store.Document) error) error {
	q := store.Query{Collection: collection, Generation: gen, Limit: store.MaxLimit,
		Where: []store.Condition{{Param: param, Values: []string{value}}}}
	for {
		page, err := s.reader.Store().Find(ctx, q)
		if err != nil {
			return err
		}
		for _, d := range page.Docs {
			if err := fn(d); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		q.After = page.Next
	}
}

// registryCount counts a specialty the ingest computes no study of (chiropractor) from the
// registry, by the studies' rules, against the populations of the serving studies.
func (s *Source) registryCount(ctx context.Context, v records.View, d Dataset, base *study.Study) (*Figures, error) {
	gen := v.Snap.Generation(catalog.RegistryProviders)
	if gen == "" {
		return nil, ErrNotLoaded
	}
	counts := study.NewCounts()
	seen := map[string]bool{}
	for _, code := range d.Specialty.Codes {
		err := s.scan(ctx, gen, catalog.RegistryProviders, stored.KeyTaxonomy, code, func(doc store.Document) error {
			if seen[doc.ID] {
				return nil
			}
			seen[doc.ID] = true
			b, err := stored.DecodeBody[stored.RegistryRecord](doc)
			if err != nil {
				return fmt.Errorf("dataset: decode registry record %s: %w", doc.ID, err)
			}
			counts.Add(study.FromRecord(b.Record))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	rows, nat := study.Rank(counts.States, base.Rows, false)
	f := &Figures{Dataset: d, SnapshotDate: base.ReleaseDate, National: nat, Primary: base.Registry, Census: base.Census,
		OutsideThe51: counts.OutsideThe51, Deactivated: counts.Deactivated, Organizations: counts.Organizations}
	for _, r := range rows {
		f.Rows = append(f.Rows, Row{Row: r})
	}
	return f, nil
}

// starSum accumulates star ratings.
type starSum struct {
	n   int64
	sum float64
}

func (s *starSum) add(v *float64) {
	if v != nil {
		s.n++
		s.sum += *v
	}
}

func (s starSum) mean() *float64 {
	if s.n == 0 {
		return nil
	}
	m := math.Round(s.sum/float64(s.n)*100) / 100
	return &m
}

// quality counts a facility type's Care Compare facilities per state.
func (s *Source) quality(ctx context.Context, v records.View, d Dataset, base *study.Study) (*Figures, error) {
	gen := v.Snap.Generation(catalog.Quality)
	if gen == "" {
		return nil, ErrNotLoaded
	}
	in51 := map[string]bool{}
	for _, r := range base.Rows {
		in51[r.StateCode] = true
	}
	counts := map[string]int64{}
	stars := map[string]*starSum{}
	var national starSum
	var outside int64
	var prov *stored.Provenance
	err := s.scan(ctx, gen, catalog.Quality, stored.KeyType, d.Quality.Slug, func(doc store.Document) error {
		b, err := stored.DecodeBody[stored.QualityRecord](doc)
		if err != nil {
			return fmt.Errorf("dataset: decode facility %s: %w", doc.ID, err)
		}
		if prov == nil {
			prov = &b.Provenance
		}
		st := b.Record.Address.State
		if !in51[st] {
			outside++
			return nil
		}
		counts[st]++
		if stars[st] == nil {
			stars[st] = &starSum{}
		}
		stars[st].add(b.Record.OverallStar)
		national.add(b.Record.OverallStar)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if prov == nil {
		return nil, ErrNotLoaded // the files of this facility type were not in the drop
	}
	rows, nat := study.Rank(counts, base.Rows, false)
	f := &Figures{Dataset: d, SnapshotDate: prov.Snapshot, National: nat, Primary: *prov, Census: base.Census,
		OutsideThe51: outside, MeanStar: national.mean(), Rated: national.n}
	for _, r := range rows {
		row := Row{Row: r}
		if s := stars[r.StateCode]; s != nil {
			row.Rated, row.MeanStar = s.n, s.mean()
		}
		f.Rows = append(f.Rows, row)
	}
	return f, nil
}
