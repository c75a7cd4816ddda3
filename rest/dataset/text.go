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

// Version is one methodology version of a dataset and what it changed.
type Version struct {
	Version string `json:"version"`
	Date    string `json:"date"`
	Changes string `json:"changes"`
}

// specialtyHistory and qualityHistory are the methods' versions, oldest first; the last is the
// version the methodology document's title states.
var (
	specialtyHistory = []Version{
		{"v2026.11.1", "2026-11-22", "First release: active registry NPIs whose taxonomy list holds a registered code, per state of primary practice location, per 100,000 residents (Census Vintage 2024); competition ranking, quartiles and the 3/4 underserved threshold."},
		{"v2026.11.2", "2026-11-25", "Only individuals (NPPES entity type 1) are counted; matching organizations are left out and reported as organizations."},
	}
	qualityHistory = []Version{
		{"v2026.11.1", "2026-11-25", "First release: Care Compare facilities per state (distinct CCN), per 100,000 residents, ranked as the specialty studies; mean overall star rating."},
	}
)

// History returns the versions of the dataset's method, oldest first. The slice is the
// caller's.
func (d Dataset) History() []Version {
	if d.Kind == FacilityQuality {
		return append([]Version(nil), qualityHistory...)
	}
	return append([]Version(nil), specialtyHistory...)
}
