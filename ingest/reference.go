package ingest

import (
	"context"
	"regexp"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/census"
	"providerdir/source/nucc"
	"providerdir/store"
	"providerdir/stored"
)

var (
	censusStatesFile   = pattern(`NST-EST\d{4}-ALLDATA\.csv`)
	censusCountiesFile = pattern(`co-est\d{4}-alldata\.csv`)
	nuccFile           = pattern(`nucc_taxonomy_\d+\.csv`)
)

// loadCensus stores the state and county population estimates. Every state and county of the
// files is stored (Puerto Rico included); which 51 make the national study is the supply
// computation's business, not the loader's.
func loadCensus(ctx context.Context, l *familyLoad, files []sourceFile) error {
	prov := l.snapshot(stored.Census).Provenance(1)
	err := loadInto(ctx, l, files, censusStatesFile, census.NewStateReader, catalog.CensusStates, func(s *census.State) (store.Document, bool, error) {
		rec, k := mapping.CensusState(s)
		doc, err := stored.NewDocument(s.Code, rec, prov, k)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	return loadInto(ctx, l, files, censusCountiesFile, census.NewCountyReader, catalog.CensusCounties, func(c *census.County) (store.Document, bool, error) {
		rec, k := mapping.CensusCounty(c)
		doc, err := stored.NewDocument(c.FIPS, rec, prov, k)
		return doc, true, err
	})
}

// loadNUCC stores the taxonomy code set, so display names are served as published.
func loadNUCC(ctx context.Context, l *familyLoad, files []sourceFile) error {
	prov := l.snapshot(stored.NUCC).Provenance(1)
	return loadInto(ctx, l, files, nuccFile, nucc.NewReader, catalog.NUCCTaxonomy, func(t *nucc.Taxonomy) (store.Document, bool, error) {
		doc, err := stored.NewDocument(t.Code, *t, prov, nil) // read by code (its id), never searched
		return doc, true, err
	})
}

var (
	censusVintage = regexp.MustCompile(`(?i)EST(\d{4})`)
	nuccVersion   = regexp.MustCompile(`(?i)nucc_taxonomy_(\d\d)([01])\.csv`)
)

// censusVintageDate dates Vintage YYYY estimates at their reference date, July 1 of YYYY: the
// built-in NST-EST2024-ALLDATA.csv and co-est2024-alldata.csv are dated 2024-07-01.
func censusVintageDate(files []sourceFile) string {
	for _, f := range files {
		if m := censusVintage.FindStringSubmatch(f.base()); m != nil {
			return m[1] + "-07-01"
		}
	}
	return ""
}

// nuccReleaseDate dates a NUCC code set version at its release: version YY.0 is released on
// January 1 of 20YY and version YY.1 on July 1 (the built-in nucc_taxonomy_251.csv is 25.1,
// dated 2025-07-01).
func nuccReleaseDate(files []sourceFile) string {
	for _, f := range files {
		if m := nuccVersion.FindStringSubmatch(f.base()); m != nil {
			if m[2] == "0" {
				return "20" + m[1] + "-01-01"
			}
			return "20" + m[1] + "-07-01"
		}
	}
	return ""
}
