package dataset

// StateFigures is one state's figures as the audit packs and the exports publish them (their
// schemas in rest/supply/openapi.json: AuditPack's figures.states, ExportChunk's data). It
// wraps Row rather than being it because those documents name the count "count", not
// "active_providers": a facility dataset counts facilities. A facility study adds its ratings.
type StateFigures struct {
	StateCode      string   `json:"state_code"`
	StateName      string   `json:"state_name"`
	Count          int64    `json:"count"`
	Population     int64    `json:"population_2024"`
	Per100k        float64  `json:"per_100k"`
	Rank           int      `json:"rank_density"`
	Quartile       int      `json:"quartile"`
	Underserved    bool     `json:"underserved"`
	Rated          *int64   `json:"rated_facilities,omitempty"`
	MeanStarRating *float64 `json:"mean_star_rating,omitempty"`
}

// Published returns row r of f as the audit packs and the exports publish it: with the
// ratings of a facility study, without them for a supply study.
func (f *Figures) Published(r Row) StateFigures {
	out := StateFigures{StateCode: r.StateCode, StateName: r.StateName, Count: r.ActiveProviders, Population: r.Population,
		Per100k: r.Per100k, Rank: r.Rank, Quartile: r.Quartile, Underserved: r.Underserved}
	if f.Dataset.Kind == FacilityQuality {
		rated := r.Rated
		out.Rated, out.MeanStarRating = &rated, r.MeanStar
	}
	return out
}

// NationalFigures are the figures over the 51 and the records left out, as the audit packs and
// the exports publish them, under the same keys as StateFigures.
type NationalFigures struct {
	Count          int64    `json:"count"`
	Population     int64    `json:"population_2024"`
	Per100k        float64  `json:"per_100k"`
	Threshold      float64  `json:"underserved_threshold_per_100k"`
	Underserved    int      `json:"underserved_states"`
	OutsideThe51   int64    `json:"outside_the_51"`
	Deactivated    int64    `json:"deactivated"`
	Organizations  int64    `json:"organizations"`
	Rated          *int64   `json:"rated_facilities,omitempty"`
	MeanStarRating *float64 `json:"mean_star_rating,omitempty"`
}

// PublishedNational returns f's national figures as the audit packs and the exports publish
// them: with the ratings of a facility study, without them for a supply study.
func (f *Figures) PublishedNational() NationalFigures {
	out := NationalFigures{Count: f.National.ActiveProviders, Population: f.National.Population, Per100k: f.National.Per100k,
		Threshold: f.Threshold(), Underserved: len(f.Underserved()), OutsideThe51: f.OutsideThe51,
		Deactivated: f.Deactivated, Organizations: f.Organizations}
	if f.Dataset.Kind == FacilityQuality {
		rated := f.Rated
		out.Rated, out.MeanStarRating = &rated, f.MeanStar
	}
	return out
}
