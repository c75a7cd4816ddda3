package mapping

import (
	"math"
	"providerdir/stored"
	"slices"
)

// NationalTally accumulates a type's measures as its rows are read.
type NationalTally struct {
	sums   map[string]float64
	counts map[string]int
}

// Add counts one facility's published measure values.
func (t *NationalTally) Add(rec stored.QualityRecord) {
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
func (t *NationalTally) Record(typeSlug string) stored.NationalRecord {
	rec := stored.NationalRecord{Type: typeSlug, Measures: []stored.NationalMeasure{}}
	for id, n := range t.counts {
		rec.Measures = append(rec.Measures, stored.NationalMeasure{ID: id, Average: math.Round(t.sums[id]/float64(n)*1e4) / 1e4, Facilities: n})
	}
	slices.SortFunc(rec.Measures, func(a, b stored.NationalMeasure) int {
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
