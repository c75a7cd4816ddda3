package ingest

import (
	"context"
	"io"
	"regexp"
	"slices"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source"
	"providerdir/source/carecompare"
	"providerdir/source/pos"
	"providerdir/store"
	"providerdir/stored"
)

var (
	posFile = pattern(`(POS_File|Hospital_and_other)[A-Za-z0-9_.-]*\.csv`)
	// Care Compare files by facility kind, as CMS names them.
	careCompareFiles = map[carecompare.Kind]*regexp.Regexp{
		carecompare.Hospital:    pattern(`Hospital_General_Information[_A-Za-z0-9-]*\.csv`),
		carecompare.NursingHome: pattern(`NH_ProviderInfo_[A-Za-z0-9_-]*\.csv`),
		carecompare.Dialysis:    pattern(`DFC_FACILITY[_A-Za-z0-9-]*\.csv`),
		carecompare.HomeHealth:  pattern(`HH_Provider_[A-Za-z0-9_-]*\.csv`),
		carecompare.Hospice:     pattern(`Hospice_General-Information[_A-Za-z0-9-]*\.csv`),
		carecompare.ASC:         pattern(`ASC_Facility[_A-Za-z0-9-]*\.csv`),
	}
	hospiceCAHPS = pattern(`Provider_CAHPS_Hospice_Survey_Data[_A-Za-z0-9-]*\.csv`)
)

// careComparePatterns are the Care Compare family's file patterns: the hospice survey file, then
// one per facility kind in the order the quality types are loaded.
func careComparePatterns() []*regexp.Regexp {
	patterns := []*regexp.Regexp{hospiceCAHPS}
	for _, t := range stored.QualityTypes {
		patterns = append(patterns, careCompareFiles[mapping.QualityKind(t)])
	}
	return patterns
}

// loadPOS stores the certification file, one facility per CCN.
func loadPOS(ctx context.Context, l *familyLoad, files []sourceFile) error {
	prov := l.snapshot(stored.POS).Provenance(1)
	return loadInto(ctx, l, files, posFile, pos.NewReader, catalog.Facilities, func(f *pos.Facility) (store.Document, bool, error) {
		rec, keys := mapping.Facility(f)
		doc, err := stored.NewDocument(f.CCN, rec, prov, keys)
		return doc, true, err
	})
}

// loadCareCompare stores one quality record per facility and type. Hospices publish their
// overall star and their measures only in the long CAHPS survey file, read first, gathered by
// CCN and joined to the general-information rows (a few thousand hospices: the map stays small
// at national scale).
func loadCareCompare(ctx context.Context, l *familyLoad, files []sourceFile) error {
	hospiceSurveys := map[string]*carecompare.Survey{}
	for _, f := range filesMatching(files, hospiceCAHPS) {
		r, err := source.OpenFS(f.fsys, f.name, carecompare.NewMeasureReader)
		if err != nil {
			return err
		}
		err = readFile(ctx, l, r, func(m carecompare.MeasureRow) error {
			s := hospiceSurveys[m.CCN]
			if s == nil {
				s = &carecompare.Survey{}
				hospiceSurveys[m.CCN] = s
			}
			s.Add(m)
			return nil
		})
		if err != nil {
			return err
		}
	}
	all := files
	for _, t := range stored.QualityTypes {
		kind := mapping.QualityKind(t)
		files := filesMatching(all, careCompareFiles[kind])
		if len(files) == 0 {
			continue
		}
		read := files
		if kind == carecompare.Hospice {
			read = append(slices.Clone(files), filesMatching(all, hospiceCAHPS)...)
		}
		prov, err := l.datasetSnapshot(ctx, t.Dataset, files, read)
		if err != nil {
			return err
		}
		newReader := func(r io.Reader, name string, opts ...source.Option) (*source.Reader[carecompare.Facility], error) {
			return carecompare.NewReader(kind, r, name, opts...)
		}
		var national mapping.NationalTally
		err = loadInto(ctx, l, files, careCompareFiles[kind], newReader, catalog.Quality, func(f *carecompare.Facility) (store.Document, bool, error) {
			if s := hospiceSurveys[f.CCN]; s != nil && kind == carecompare.Hospice {
				f.Join(s)
			}
			id, rec, keys := mapping.Quality(f)
			national.Add(rec)
			availability := []string{stored.AvailabilityPresent}
			if rec.OverallStar == nil || hasSuppressed(rec.Measures) {
				availability = append(availability, stored.AvailabilitySuppressed)
			}
			doc, err := stored.NewDocument(id, rec, prov.Provenance(1, availability...), keys)
			return doc, true, err
		})
		if err != nil {
			return err
		}
		// The type's national averages, from the rows just read, with the file's provenance.
		var keys stored.Keys
		keys.Add(stored.KeyType, t.Slug)
		doc, err := stored.NewDocument(t.Slug, national.Record(t.Slug), prov.Provenance(1), keys)
		if err != nil {
			return err
		}
		if err := l.emit(ctx, catalog.QualityNational, doc); err != nil {
			return err
		}
	}
	return nil
}

func hasSuppressed(ms []stored.QualityItem) bool {
	for _, m := range ms {
		if m.Value == nil {
			return true
		}
	}
	return false
}
