package mapping

import (
	"math"
	"slices"
)

// NationalRecord holds the national averages of one facility type's Care Compare measures,
// computed at ingest from the type's file: for each measure, the mean of the facilities' published
// values, suppressed (null) values left out of both the sum and the count. The document's id is
// the type slug.
type NationalRecord struct {
	Type     string            `json:"type"`
	Measures []NationalMeasure `json:"measures"`
}

// NationalMeasure is one measure's national average and how many facilities published a value.
type NationalMeasure struct {
	ID         string  `json:"id"`
	Average    float64 `json:"national_avg"`
	Facilities int     `json:"facilities"`
}

// NationalTally accumulates a type's measures as its rows are read.
type NationalTally struct {
	sums   map[string]float64
	counts map[string]int
}

// Add counts one facility's published measure values.
func (t *NationalTally) Add(rec QualityRecord) {
	if t.sums == nil {
		t.sums, t.counts = map[string]float64{}, map[string]int{}
	}
	for _, m := range rec.Measures {
		if m.Value == nil || math.IsNaN(*m.Value) || math.IsInf(*m.Value, 0) {
			continue
		}
		t.sums[m.ID] += *m.Value
		t.counts[m.ID]++
	}
}

// Record returns the averages, by measure id, each rounded to 4 decimals. A measure no facility
// published a value for has no average and is left out.
func (t *NationalTally) Record(typeSlug string) NationalRecord {
	rec := NationalRecord{Type: typeSlug, Measures: []NationalMeasure{}}
	for id, n := range t.counts {
		rec.Measures = append(rec.Measures, NationalMeasure{ID: id, Average: math.Round(t.sums[id]/float64(n)*1e4) / 1e4, Facilities: n})
	}
	slices.SortFunc(rec.Measures, func(a, b NationalMeasure) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return rec
}
