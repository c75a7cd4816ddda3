package supply

import (
	"fmt"

	"providerdir/mapping/study"
)

// StateRow is the contract's SpecialtyStateRow: a study.Row whose every field the contract
// publishes as a ProvenanceField (the value with its source, link and limitation), so it wraps
// the row field by field rather than embedding it.
type StateRow struct {
	StateCode       Field `json:"state_code"`
	StateName       Field `json:"state_name"`
	ActiveProviders Field `json:"active_providers"`
	Population      Field `json:"population_2024"`
	Per100k         Field `json:"per_100k"`
	RankDensity     Field `json:"rank_density"`
	Quartile        Field `json:"quartile"`
	Underserved     Field `json:"underserved"`
}

// rowWrapper wraps the rows of one study: state identity and population come from the Census
// rows, counts from the registry, and the figures computed from both name the study itself as
// their source, with its methodology as the URL.
type rowWrapper struct {
	st       *study.Study
	sp       study.Specialty
	filter   string
	census   origin
	registry origin
	derived  origin
}

func (a *API) rowWrapper(st *study.Study) rowWrapper {
	sp, _ := study.Lookup(st.Specialty)
	w := rowWrapper{st: st, sp: sp, census: recordOrigin(st.Census), registry: recordOrigin(st.Registry)}
	if st.Filter != nil {
		w.filter = st.Filter.Code
	}
	w.registry.attribution = "Counted from the " + w.registry.attribution
	// The computed figures name the study as their source and cite the two snapshots by dataset
	// id; the full citations are on the values read from each source, in the same row.
	w.derived = origin{
		source: fmt.Sprintf("Specialty supply study %s %s, computed from %s (snapshot %s) and %s (snapshot %s)",
			st.Dataset, st.MethodologyVersion, st.Registry.DatasetID, st.Registry.Snapshot, st.Census.DatasetID, st.Census.Snapshot),
		url:         a.MethodologyURL(st.Dataset),
		checked:     latest(st.Registry.LastChecked, st.Census.LastChecked),
		attribution: "Computed with methodology " + st.MethodologyVersion + " from the sources cited on active_providers and population_2024.",
	}
	return w
}

func (w rowWrapper) limit(field string) string {
	return study.FieldLimitation(field, w.sp, w.filter, w.st.National.Per100k)
}

func (w rowWrapper) wrap(r study.Row) StateRow {
	return StateRow{
		StateCode:       w.census.field(r.StateCode, w.limit(study.FieldStateCode)),
		StateName:       w.census.field(r.StateName, w.limit(study.FieldStateName)),
		ActiveProviders: w.registry.field(r.ActiveProviders, w.limit(study.FieldActiveProviders)),
		Population:      w.census.field(r.Population, w.limit(study.FieldPopulation)),
		Per100k:         w.derived.field(r.Per100k, w.limit(study.FieldPer100k)),
		RankDensity:     w.derived.field(r.Rank, w.limit(study.FieldRank)),
		Quartile:        w.derived.field(r.Quartile, w.limit(study.FieldQuartile)),
		Underserved:     w.derived.field(r.Underserved, w.limit(study.FieldUnderserved)),
	}
}
