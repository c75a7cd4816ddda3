package dataset_test

import (
	"encoding/json"
	"testing"

	"providerdir/mapping/study"
	"providerdir/rest/dataset"
)

// A state's and the nation's figures are published under the keys the audit packs and the
// exports document: the count as "count", a facility study's ratings only for a facility study.
func TestPublished(t *testing.T) {
	mean := 3.25
	row := dataset.Row{Row: study.Row{StateCode: "VT", StateName: "Vermont", ActiveProviders: 120, Population: 648493,
		Per100k: 18.5044, Rank: 7, Quartile: 1, Underserved: false}, Rated: 30, MeanStar: &mean}
	national := study.National{ActiveProviders: 1000, Population: 4000000, Per100k: 25}
	tests := []struct {
		slug          string
		state, nation string
	}{
		{"cardiology-supply",
			`{"state_code":"VT","state_name":"Vermont","count":120,"population_2024":648493,"per_100k":18.5044,"rank_density":7,"quartile":1,"underserved":false}`,
			`{"count":1000,"population_2024":4000000,"per_100k":25,"underserved_threshold_per_100k":18.75,"underserved_states":1,"outside_the_51":2,"deactivated":3,"organizations":4}`},
		{"dialysis-quality",
			`{"state_code":"VT","state_name":"Vermont","count":120,"population_2024":648493,"per_100k":18.5044,"rank_density":7,"quartile":1,"underserved":false,"rated_facilities":30,"mean_star_rating":3.25}`,
			`{"count":1000,"population_2024":4000000,"per_100k":25,"underserved_threshold_per_100k":18.75,"underserved_states":1,"outside_the_51":2,"deactivated":3,"organizations":4,"rated_facilities":900}`},
	}
	for _, tt := range tests {
		d, ok := dataset.Lookup(tt.slug)
		if !ok {
			t.Fatalf("no dataset %s", tt.slug)
		}
		under := row
		under.StateCode, under.Underserved = "MS", true
		f := &dataset.Figures{Dataset: d, National: national, Rows: []dataset.Row{row, under}, OutsideThe51: 2,
			Deactivated: 3, Organizations: 4, Rated: 900}
		for _, c := range []struct {
			what string
			v    any
			want string
		}{{"state", f.Published(row), tt.state}, {"national", f.PublishedNational(), tt.nation}} {
			got, err := json.Marshal(c.v)
			if err != nil || string(got) != c.want {
				t.Errorf("%s %s: %s, %v\nwant %s", tt.slug, c.what, got, err, c.want)
			}
		}
	}
}
