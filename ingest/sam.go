package ingest

import (
	"context"
	"regexp"
	"strconv"
	"time"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/sam"
	"providerdir/store"
	"providerdir/stored"
)

// samExtract matches the extract's CSV in either layout's name: SAM_Exclusions_Public_Extract_
// V2_25159.CSV, and SAM_Exclusions_Public_Extract_19106.CSV before V2; the digits are the
// two-digit year and the day of the year the extract was made.
var samExtract = pattern(`SAM_Exclusions_Public_Extract_(?:V2_)?\d{5}\.csv`)

var samJulian = regexp.MustCompile(`_(\d{2})(\d{3})\.`)

// samExtractDate dates the extract by the Julian date in its name, the latest when a drop holds
// several; a name without one falls back to the file's date.
func samExtractDate(files []sourceFile) string {
	best := ""
	for _, f := range files {
		if d := julianDate(f.base()); d != "" {
			best = max(best, d)
		}
	}
	if best == "" {
		return snapshotDate(files)
	}
	return best
}

// julianDate reads the YYDDD of an extract's name as YYYY-MM-DD (years 2000-2099), or "".
func julianDate(name string) string {
	m := samJulian.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	y, _ := strconv.Atoi(m[1])
	day, _ := strconv.Atoi(m[2])
	first := time.Date(2000+y, time.January, 1, 0, 0, 0, 0, time.UTC)
	d := first.AddDate(0, 0, day-1)
	if day < 1 || d.Year() != first.Year() {
		return ""
	}
	return d.Format(time.DateOnly)
}

// loadSAM stores the exclusions extract. Records are tied to a provider by the NPI the extract
// publishes, a direct field, so confidence is 1; a record without one is stored, searchable by
// name, but answers no NPI lookup.
func loadSAM(ctx context.Context, l *familyLoad, files []sourceFile) error {
	prov := l.snapshot(stored.SAMExclusions).Provenance(1)
	return loadInto(ctx, l, files, samExtract, sam.NewReader, catalog.SAMExclusions, func(e *sam.Exclusion) (store.Document, bool, error) {
		id, rec, keys := mapping.SAMExclusion(e)
		doc, err := stored.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
}
