package ingest

import (
	"context"
	"strconv"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/qpp"
	"providerdir/store"
	"providerdir/stored"
)

// mipsScores matches the Care Compare scores file, ec_score_file.csv as downloaded. CMS replaces
// it each performance year and the file does not say which year it measures, so a drop names the
// year in the file name to keep it (ec_score_file_PY2023.csv), and may keep older years beside.
var mipsScores = pattern(`ec_score_file(?:_PY\d{4})?\.csv`)

// loadQPP stores the MIPS final scores, each file stamped with its own performance year. Scores
// are published by NPI, a direct field, so confidence is 1.
func loadQPP(ctx context.Context, l *familyLoad, files []sourceFile) error {
	for _, f := range filesMatching(files, mipsScores) {
		year := 0
		if y := latestYear([]sourceFile{f}); y != "" {
			year, _ = strconv.Atoi(y)
		}
		prov := l.snapshotOfFiles(stored.QPPMIPS, []sourceFile{f}).Provenance(1)
		err := loadInto(ctx, l, []sourceFile{f}, mipsScores, qpp.NewReader, catalog.MIPSScores, func(s *qpp.Score) (store.Document, bool, error) {
			id, rec, keys := mapping.MIPSScore(s, year)
			doc, err := stored.NewDocument(id, rec, prov, keys)
			return doc, true, err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
