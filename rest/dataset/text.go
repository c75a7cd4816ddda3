package dataset

import (
	"strconv"
	"strings"

	"providerdir/mapping/study"
)

// qualityLimitations are the facility studies' caveats, as their methodology document lists
// them.
var qualityLimitations = []string{
	"Care Compare lists Medicare-certified facilities only; facilities without certification are not counted.",
	"Density per resident ignores the population a facility type serves (older adults for nursing homes and hospices, people with kidney failure for dialysis).",
	"Star ratings are CMS composites with their own methods and suppression rules; a mean over few rated facilities is volatile.",
	"A facility counts in the state of its listed address, whatever the area it serves.",
}

// Limitations are the dataset's caveats. The slice is the caller's.
func (d Dataset) Limitations() []string {
	if d.Kind == FacilityQuality {
		return append([]string(nil), qualityLimitations...)
	}
	return append([]string(nil), study.Limitations...)
}

// Authors is the group authorship of every dataset's citation: the publishers of the counted
// files and of the population figures.
const Authors = "Centers for Medicare & Medicaid Services, & U.S. Census Bureau"

// Citation is the APA-style reference of a dataset's figures as published at url: the
// publishers, the year of the primary snapshot, the title with the methodology version, and
// the source snapshot the figures were computed from.
func Citation(f *Figures, url string) string {
	year := f.SnapshotDate
	if len(year) >= 4 {
		year = year[:4]
	} else {
		year = "n.d."
	}
	return Authors + ". (" + year + "). " + f.Dataset.DisplayName + " (Version " + f.Dataset.MethodologyVersion() +
		") [Data set]. " + f.Primary.Source + ", snapshot " + f.SnapshotDate + "; " + f.Census.Source + ". " + url
}

// Grouped writes an integer with thousands separators ("5,157,699").
func Grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Decimal writes a figure as the JSON carries it: the shortest exact decimal ("2.3848").
func Decimal(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Threshold is the underserved threshold of the figures in density per 100,000, rounded as
// densities are.
func (f *Figures) Threshold() float64 {
	return study.Per100k(f.National.ActiveProviders*study.UnderservedNumerator,
		f.National.Population*study.UnderservedDenominator)
}
