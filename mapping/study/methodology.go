package study

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"providerdir/docs"
)

// MethodologyDocument is the path, in the repository and in docs.Files, of the study method
// written out in prose.
var MethodologyDocument = "docs/" + docs.Methodology("specialty-supply")

// MethodologyVersion is the version of the study method, shape v<YYYY>.<MM>.<n>
// (docs/contracts/supply-api.md §9 rule 2): the year and month the method took effect and a
// counter within the month. It is read from the title of the methodology document, so that one
// edit there changes the version of every answer, row attribution and header together. It changes
// when a rule of this file or of rank.go and tally.go changes meaning (what is counted, how ties
// rank, where quartiles cut, the underserved threshold), never with the data.
var MethodologyVersion = DocumentVersion(docs.Methodology("specialty-supply"))

// versionTitle is the methodology document's first line: "# <title>: methodology v<YYYY>.<MM>.<n>".
var versionTitle = regexp.MustCompile(`\A# [^\n]*: methodology (v[0-9]{4}\.(?:0[1-9]|1[0-2])\.[1-9][0-9]*)\n`)

// DocumentVersion reads the version from the title of an embedded methodology document (a path
// in docs.Files). A document without one is a build that cannot state its method: it stops at
// start-up.
func DocumentVersion(path string) string {
	b, err := fs.ReadFile(docs.Files, path)
	if err == nil {
		var v string
		if v, err = titleVersion(b); err == nil {
			return v
		}
	}
	panic("methodology document " + path + ": " + err.Error())
}

// titleVersion reads v<YYYY>.<MM>.<n> from a document's first line.
func titleVersion(doc []byte) (string, error) {
	m := versionTitle.FindSubmatch(doc)
	if m == nil {
		return "", errors.New(`the first line is not "# <title>: methodology v<YYYY>.<MM>.<n>"`)
	}
	return string(m[1]), nil
}

// Field names of a state row (SpecialtyStateRow), in contract order.
const (
	FieldStateCode       = "state_code"
	FieldStateName       = "state_name"
	FieldActiveProviders = "active_providers"
	FieldPopulation      = "population_2024"
	FieldPer100k         = "per_100k"
	FieldRank            = "rank_density"
	FieldQuartile        = "quartile"
	FieldUnderserved     = "underserved"
)

// RowFields lists the row fields in contract order.
var RowFields = []string{FieldStateCode, FieldStateName, FieldActiveProviders, FieldPopulation,
	FieldPer100k, FieldRank, FieldQuartile, FieldUnderserved}

// Rules are the study's rules in words, as /v1/methodology/{dataset} serves them.
var Rules = map[string]string{
	"counted": "An active provider is a registry NPI that is not deactivated (or was reactivated " +
		"after its deactivation) whose taxonomy list, in any of its 15 slots, contains one of the " +
		"specialty's registered codes. It is counted once, in the state of its primary practice " +
		"location, whatever the number of matching slots. Only individuals (NPPES entity type 1) " +
		"are counted: supply per 100,000 measures clinicians, and an organization's taxonomy " +
		"describes its services, not a clinician. Matching organizations are left out and " +
		"counted in organizations.",
	"states": "The 50 states and the District of Columbia. Records practising in territories, " +
		"at military or foreign addresses, or with no practice state are left out and counted " +
		"in outside_the_51.",
	"population": "Census Bureau Vintage 2024 resident population estimate for July 1, 2024 " +
		"(NST-EST2024-ALLDATA, POPESTIMATE2024), by state.",
	"per_100k": "active_providers / population_2024 * 100,000, rounded half away from zero to 4 " +
		"decimal places. The national figure divides the sums over the 51.",
	"rank_density": "1 + the number of states with a strictly higher density (standard " +
		"competition ranking, 1-2-2-4): states with equal densities share the better rank and " +
		"the next rank is skipped. Densities compare as exact fractions, never as rounded figures.",
	"quartile": "ceil(4 * n / 51), where n is the number of states whose density is at least " +
		"the state's own (itself included). Quartile 1 holds the highest densities (ranks 1-12 " +
		"when there are no ties), 2 ranks 13-25, 3 ranks 26-38, 4 ranks 39-51. States with " +
		"equal densities share the quartile of the last position their group occupies, so a " +
		"block of states without providers falls in quartile 4.",
	"underserved": fmt.Sprintf("true when the state's density is below %d/%d of the national "+
		"density of the 51 (compared exactly: count * national population * %d < %d * national "+
		"count * population). Under a subspecialty filter every row is false: the threshold is "+
		"the whole specialty's.", UnderservedNumerator, UnderservedDenominator,
		UnderservedDenominator, UnderservedNumerator),
	"subspecialty_filter": "With ?subspecialty=<code>, counts, per_100k, rank_density and " +
		"quartile are recomputed over the registry providers whose taxonomy list contains that " +
		"code; underserved is false in every row; meta.subspecialty_filter gives the applied " +
		"code, its NUCC display name and the number of records matched over the 51 (by-state) " +
		"or in the requested state (by-county). The code must be registered for the specialty " +
		"(a single-code specialty accepts its one code); any other value is 400 " +
		"invalid_subspecialty with the supported codes. A registered code no provider holds " +
		"gives 51 rows with zero counts. Only dermatology, obgyn and pediatrics have several " +
		"codes, so only their filters differ from the whole study.",
	"county": "The registry has no county of practice. By-county answers carry the state's row " +
		"(state_level_supply) and name the county in meta.geo_scope_note.",
	"provider_specialty": "A provider looked up by NPI is reported under the specialty of its " +
		"primary taxonomy when that code is registered, else under the first matching " +
		"specialty in slug order.",
	"confidence_score": "Given for values read from one source record (state code, state name, " +
		"population, provider fields) and for registry counts, which match published codes " +
		"exactly (1.0). Figures computed from other figures (per_100k, rank_density, quartile, " +
		"underserved) have none: their caveats are in limitations.",
}

// Limitations are the caveats of every study, as the methodology lists them.
var Limitations = []string{
	"Counts are individual NPIs, not people or full-time equivalents. Organizations (entity type 2) are not counted, even when their taxonomy list carries a specialty code: their clinicians hold individual NPIs of their own.",
	"Taxonomy codes are self-reported by providers and imply no board certification.",
	"Each provider counts once, in the state of its primary practice location as last reported to the registry; secondary practice locations are not counted, and the registry may lag moves.",
	"Population figures are Census Bureau estimates for July 1, 2024, not counts, and do not follow later changes.",
	"In states with few providers one provider more or less moves per_100k, rank and quartile markedly.",
	"There is no county-level practice field in the registry; county requests are answered with the state's figures.",
}

// FieldLimitation is the per-field caveat of a row value. filter is the applied subspecialty
// code, "" for the whole specialty; national is the study's national density.
func FieldLimitation(field string, sp Specialty, filter string, national float64) string {
	switch field {
	case FieldStateCode:
		return "USPS code of the Census state row; the study covers the 50 states and DC only."
	case FieldStateName:
		return "As published by the Census Bureau."
	case FieldActiveProviders:
		codes := strings.Join(sp.Codes, ", ")
		if filter != "" {
			codes = filter
		}
		return "Registry NPIs not deactivated whose taxonomy list contains " + codes +
			", counted once each in the state of their primary practice location; secondary practice locations are not counted."
	case FieldPopulation:
		return "Census Bureau Vintage 2024 resident population estimate for July 1, 2024."
	case FieldPer100k:
		return "active_providers / population_2024 * 100,000, rounded to 4 decimal places; small counts make it volatile."
	case FieldRank:
		return "1 is the highest density of the 51; equal densities share the better rank (1-2-2-4); exact ratios are compared, not the rounded per_100k."
	case FieldQuartile:
		return "1 is the highest-density quarter, 4 the lowest: ceil(4 * n / 51), n the states with a density at least this one's; equal densities share a quartile."
	case FieldUnderserved:
		if filter != "" {
			return "Always false under a subspecialty filter: the underserved threshold applies to the whole specialty only."
		}
		return fmt.Sprintf("True when the density is below %d/%d of the national density of the 51 (%s per 100,000 in this study).",
			UnderservedNumerator, UnderservedDenominator, formatFloat(national))
	}
	return ""
}

func formatFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", f), "0"), ".")
}
