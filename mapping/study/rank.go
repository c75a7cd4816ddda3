package study

import (
	"cmp"
	"math"
	"slices"
)

// Row is one state's figures in a study, before they are wrapped with provenance: the one
// shape of a state's figures, which the JSON APIs wrap where their documents publish other
// keys or provenance per field.
type Row struct {
	StateCode       string  `json:"state_code"`
	StateName       string  `json:"state_name"` // as the Census file publishes it
	ActiveProviders int64   `json:"active_providers"`
	Population      int64   `json:"population_2024"`
	Per100k         float64 `json:"per_100k"`
	Rank            int     `json:"rank_density"`
	Quartile        int     `json:"quartile"`
	Underserved     bool    `json:"underserved"`
}

// National is a study's figures over the 51 taken together.
type National struct {
	ActiveProviders int64   `json:"active_providers"`
	Population      int64   `json:"population_2024"`
	Per100k         float64 `json:"per_100k"`
}

// Per100kDecimals is how many decimal places per_100k is published with. Ranks, quartiles and
// the underserved flag compare exact ratios, never the rounded figure.
const Per100kDecimals = 4

// Per100k is count per 100,000 of population, rounded half away from zero to Per100kDecimals
// places; 0 when the population is not positive.
func Per100k(count, population int64) float64 {
	if population <= 0 {
		return 0
	}
	scale := math.Pow10(Per100kDecimals)
	return math.Round(float64(count)*100000/float64(population)*scale) / scale
}

// Underserved threshold: a state is underserved when its density is below
// UnderservedNumerator/UnderservedDenominator of the national density of the 51.
const (
	UnderservedNumerator   = 3
	UnderservedDenominator = 4
)

// Rank computes a study's rows, in state code order, from the providers counted per state and
// the 51 states: of each, Rank reads the code, name and Census population and computes the
// rest. filtered marks a subspecialty-filtered study, whose rows are never
// underserved (docs/contracts/supply-api.md §4 rule 2).
//
//   - rank_density: 1 + the number of states with a strictly higher density (standard
//     competition ranking, 1-2-2-4): equal densities share the better rank.
//   - quartile: ceil(4 * n / N), where n is the number of states whose density is at least
//     this state's (itself included) and N the number of states (51): quartile 1 holds the
//     highest densities; equal densities share a quartile, the one of the last position their
//     group occupies, so that a block of states with no providers is never placed in quartile 1.
//   - underserved: density below 3/4 of the national density, compared exactly in integers.
//
// Densities compare as exact fractions (a/p > b/q iff a*q > b*p), so rounding never decides
// a rank or a flag.
func Rank(counts map[string]int64, states []Row, filtered bool) ([]Row, National) {
	var nat National
	for _, s := range states {
		nat.ActiveProviders += counts[s.StateCode]
		nat.Population += s.Population
	}
	nat.Per100k = Per100k(nat.ActiveProviders, nat.Population)

	n := len(states)
	rows := make([]Row, n)
	for i, s := range states {
		a, p := counts[s.StateCode], s.Population
		higher, atLeast := 0, 0
		for _, o := range states {
			b, q := counts[o.StateCode], o.Population
			switch d := b*p - a*q; {
			case d > 0:
				higher++
				atLeast++
			case d == 0:
				atLeast++
			}
		}
		rows[i] = Row{
			StateCode:       s.StateCode,
			StateName:       s.StateName,
			ActiveProviders: a,
			Population:      p,
			Per100k:         Per100k(a, p),
			Rank:            higher + 1,
			Quartile:        (4*atLeast + n - 1) / n,
			Underserved: !filtered &&
				a*nat.Population*UnderservedDenominator < UnderservedNumerator*nat.ActiveProviders*p,
		}
	}
	slices.SortFunc(rows, func(x, y Row) int { return cmp.Compare(x.StateCode, y.StateCode) })
	return rows, nat
}
