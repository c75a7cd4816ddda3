package mapping

import (
	"providerdir/stored"
	"reflect"
	"testing"
)

func TestNationalTally(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	var tally NationalTally
	tally.Add(stored.QualityRecord{Measures: []stored.QualityItem{{ID: "b", Value: v(2)}, {ID: "a", Value: v(1)}}})
	tally.Add(stored.QualityRecord{Measures: []stored.QualityItem{{ID: "b", Value: v(3)}, {ID: "a", Value: nil}, {ID: "c", Value: nil}}})
	tally.Add(stored.QualityRecord{Measures: []stored.QualityItem{{ID: "b", Value: v(2)}}})
	got := tally.Record("hospital")
	want := stored.NationalRecord{Type: "hospital", Measures: []stored.NationalMeasure{
		{ID: "a", Average: 1, Facilities: 1},      // the suppressed value counts for nothing
		{ID: "b", Average: 2.3333, Facilities: 3}, // rounded to 4 decimals
	}} // c: no published value, no average
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	var empty NationalTally
	if r := empty.Record("asc"); r.Measures == nil || len(r.Measures) != 0 {
		t.Errorf("empty tally %+v", r)
	}
}
