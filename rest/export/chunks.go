package export

import (
	"fmt"
	"iter"
	"strconv"
	"strings"

	"providerdir/mapping/study"
	"providerdir/rest/dataset"
)

// Chunk types (docs/contracts/supply-api.md §2).
const (
	TypeDatasetMeta = "dataset_meta"
	TypeNational    = "national"
	TypeState       = "state"
	TypeUnderserved = "underserved"
)

// NationalScope is the state part of the id of a chunk that covers the whole 51.
const NationalScope = "US"

// Chunk is one retrievable unit of an export: a paragraph with its provenance written in, the
// figures it states, the method and an APA citation.
type Chunk struct {
	ID          string      `json:"id"`
	Text        string      `json:"text"`
	Data        any         `json:"data"`
	Methodology Methodology `json:"methodology"`
	Citation    string      `json:"citation"`
	ChunkType   string      `json:"chunk_type"`
}

// Methodology is the method and source every chunk of a dataset carries.
type Methodology struct {
	Version     string   `json:"version"`
	Source      string   `json:"source"`
	SourceURL   string   `json:"source_url"`
	LastChecked string   `json:"last_checked"`
	Cadence     string   `json:"cadence"`
	Limitations []string `json:"limitations"`
}

// StateData is the data of a state or underserved chunk: the state's published figures, with
// the count's unit and the underserved threshold, so that a chunk read alone says what its
// numbers measure.
type StateData struct {
	dataset.StateFigures
	CountUnit       string  `json:"count_unit"`
	ThresholdPer100 float64 `json:"underserved_threshold_per_100k"`
}

// NationalData is the data of the national chunk: the published national figures, with the
// chunk's scope as its state code, the count's unit and the number of states they cover.
type NationalData struct {
	StateCode string `json:"state_code"`
	dataset.NationalFigures
	CountUnit string `json:"count_unit"`
	States    int    `json:"states"`
}

// MetaData is the data of the dataset_meta chunk.
type MetaData struct {
	Slug               string   `json:"slug"`
	DisplayName        string   `json:"display_name"`
	MethodologyVersion string   `json:"methodology_version"`
	SnapshotDate       string   `json:"snapshot_date"`
	RefreshCadence     string   `json:"refresh_cadence"`
	SourceFamilies     []string `json:"source_families"`
	States             int      `json:"states"`
}

// ChunkID is a chunk's stable id: <dataset_slug>:<chunk scope>:<state_code>:<methodology_version>.
func ChunkID(slug, scope, state, version string) string {
	return slug + ":" + scope + ":" + state + ":" + version
}

// chunker builds the chunks of one export from its figures.
type chunker struct {
	f        *dataset.Figures
	method   Methodology
	citation string
}

func newChunker(f *dataset.Figures, exportURL string) chunker {
	d := f.Dataset
	return chunker{f: f, citation: dataset.Citation(f, exportURL), method: Methodology{
		Version: d.MethodologyVersion(), Source: f.Primary.Source, SourceURL: f.Primary.SourceURL,
		LastChecked: f.Primary.LastChecked, Cadence: d.Cadence(), Limitations: d.Limitations(),
	}}
}

// total is the number of chunks: the dataset_meta chunk, the national chunk, one per state and
// one per underserved state.
func (c chunker) total() int { return 2 + len(c.f.Rows) + len(c.f.Underserved()) }

// chunks yields the chunks in export order, each built when it is asked for.
func (c chunker) chunks() iter.Seq[Chunk] {
	return func(yield func(Chunk) bool) {
		if !yield(c.meta()) || !yield(c.national()) {
			return
		}
		for _, r := range c.f.Rows {
			if !yield(c.state(r, TypeState)) {
				return
			}
		}
		for _, r := range c.f.Underserved() {
			if !yield(c.state(r, TypeUnderserved)) {
				return
			}
		}
	}
}

func (c chunker) chunk(scope, state, text string, data any) Chunk {
	d := c.f.Dataset
	return Chunk{ID: ChunkID(d.Slug, scope, state, d.MethodologyVersion()), Text: text, Data: data,
		Methodology: c.method, Citation: c.citation, ChunkType: scope}
}

// provenance is the sentence every chunk's text ends with.
func (c chunker) provenance() string {
	f := c.f
	return fmt.Sprintf("Source: %s (%s), snapshot %s, last checked %s; population: %s. Methodology %s.",
		f.Primary.Source, f.Primary.SourceURL, f.SnapshotDate, f.Primary.LastChecked, f.Census.Source, f.Dataset.MethodologyVersion())
}

func (c chunker) meta() Chunk {
	f, d := c.f, c.f.Dataset
	text := fmt.Sprintf("Dataset %s (%s): %s Methodology %s, refreshed %s; the figures cover the 50 states and DC. %s",
		d.DisplayName, d.Slug, d.OneLiner, d.MethodologyVersion(), d.Cadence(), c.provenance())
	return c.chunk(TypeDatasetMeta, NationalScope, text, MetaData{Slug: d.Slug, DisplayName: d.DisplayName,
		MethodologyVersion: d.MethodologyVersion(), SnapshotDate: f.SnapshotDate, RefreshCadence: d.Cadence(),
		SourceFamilies: d.Families, States: len(f.Rows)})
}

func (c chunker) national() Chunk {
	f, d := c.f, c.f.Dataset
	data := NationalData{StateCode: NationalScope, NationalFigures: f.PublishedNational(), CountUnit: d.Unit, States: len(f.Rows)}
	var b strings.Builder
	fmt.Fprintf(&b, "Across the 50 states and DC, %s counts %s %s for a population of %s: %s per 100,000 residents. %d of the 51 are underserved (below %s per 100,000, 3/4 of the national density).",
		d.DisplayName, dataset.Grouped(data.Count), d.Unit, dataset.Grouped(data.Population), dataset.Decimal(data.Per100k),
		data.Underserved, dataset.Decimal(data.Threshold))
	if d.Kind == dataset.FacilityQuality {
		fmt.Fprintf(&b, " %s of the facilities have a published overall star rating%s.", dataset.Grouped(f.Rated), meanStar(f.MeanStar))
	}
	fmt.Fprintf(&b, " %s", c.provenance())
	return c.chunk(TypeNational, NationalScope, b.String(), data)
}

func (c chunker) state(r dataset.Row, scope string) Chunk {
	f, d := c.f, c.f.Dataset
	data := StateData{StateFigures: f.Published(r), CountUnit: d.Unit, ThresholdPer100: f.Threshold()}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s %s for a population of %s, %s per 100,000 residents; rank %d of 51 by density, quartile %d.",
		r.StateName, r.StateCode, dataset.Grouped(r.ActiveProviders), d.Unit, dataset.Grouped(r.Population),
		dataset.Decimal(r.Per100k), r.Rank, r.Quartile)
	if r.Underserved {
		fmt.Fprintf(&b, " Underserved: below %s per 100,000 (3/4 of the national %s).", dataset.Decimal(data.ThresholdPer100), dataset.Decimal(f.National.Per100k))
	} else {
		fmt.Fprintf(&b, " Not underserved (threshold %s per 100,000).", dataset.Decimal(data.ThresholdPer100))
	}
	if d.Kind == dataset.FacilityQuality {
		fmt.Fprintf(&b, " %s rated%s.", dataset.Grouped(r.Rated), meanStar(r.MeanStar))
	}
	fmt.Fprintf(&b, " %s", c.provenance())
	return c.chunk(scope, r.StateCode, b.String(), data)
}

func meanStar(m *float64) string {
	if m == nil {
		return ", none rated"
	}
	return ", mean overall star rating " + strconv.FormatFloat(*m, 'f', 2, 64)
}

// methodologyText is the METHODOLOGY block of the text-blocks format; methodologyURL is where
// the method is published.
func methodologyText(f *dataset.Figures, methodologyURL string) string {
	d := f.Dataset
	var b strings.Builder
	fmt.Fprintf(&b, "Dataset: %s (%s)\nMethodology version: %s\nMethod: %s\nSnapshot: %s\nRefresh cadence: %s\n",
		d.DisplayName, d.Slug, d.MethodologyVersion(), methodologyURL, f.SnapshotDate, d.Cadence())
	fmt.Fprintf(&b, "Counted: %s\nDensity: count / population_2024 * 100,000, rounded to %d decimals.\nUnderserved: density below %d/%d of the national density.\n",
		d.OneLiner, study.Per100kDecimals, study.UnderservedNumerator, study.UnderservedDenominator)
	fmt.Fprintf(&b, "Sources: %s (%s); %s (%s)\nLimitations:\n", f.Primary.Source, f.Primary.SourceURL, f.Census.Source, f.Census.SourceURL)
	for _, l := range d.Limitations() {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	return b.String()
}
