package synth

import (
	"fmt"
	"math"
	"strconv"
)

// Care Compare "Clinician Public Reporting: Overall MIPS Performance", ec_score_file.csv: a
// clinician's MIPS final score and category scores, one row per practice (Org_PAC_ID) the score
// was earned with. CMS replaces the file each performance year; a drop keeps the latest year and
// an older one, each named with its year (ec_score_file_PY2023.csv). Values are unquoted unless
// they hold a comma, lines end in LF, and the header has changed with the years: from PY 2022
// the names follow ", " and the name columns are "Provider Last Name"; PY 2019-2021 say lst_nm
// and facility_ccn (final_MIPS_score_without_CPB from PY 2020, a category not scored written
// N/A); PY 2018 is lower case, with cost before improvement activities. The scores are history:
// they follow the base drop, so an evolved drop's files are identical.

// mipsName is the file of a performance year.
func mipsName(year int) string { return fmt.Sprintf("ec_score_file_PY%d.csv", year) }

// mipsYears are the latest performance year published by a drop's base snapshot (scores come out
// in the second year after the one they measure) and the older year kept beside it, four years
// before. Care Compare's file begins with PY 2018, so no year is earlier, and a drop dated before
// PY 2019's scores came out still gets the two first years.
func (w *world) mipsYears() (latest, older int) {
	y, _, _ := w.snaps[0].civil()
	latest = max(2019, y-2)
	return latest, max(2018, min(latest-1, y-6))
}

// The canonical row, in the PY 2022 order.
const (
	mipsNPI = iota
	mipsOrgPAC
	mipsLast
	mipsFirst
	mipsSource
	mipsFacilityCCN
	mipsFacilityName
	mipsQuality
	mipsPI
	mipsIA
	mipsCost
	mipsWithoutCPB
	mipsFinal
	mipsColumns
)

var mipsHeader2022 = []string{"NPI", " Org_PAC_ID", " Provider Last Name", " Provider First Name", " source",
	" Facility-based scoring Certification number", " Facility Name", " Quality_category_score", " PI_category_score",
	" IA_category_score", " Cost_category_score", " final_MIPS_score_without_CPB", " final_MIPS_score"}

var mipsHeader2019 = []string{"NPI", "Org_PAC_ID", "lst_nm", "frst_nm", "source", "facility_ccn", "facility_lbn",
	"Quality_category_score", "PI_category_score", "IA_category_score", "Cost_category_score", "final_MIPS_score_without_CPB",
	"final_MIPS_score"}

// mips2018 lists, for PY 2018, the canonical columns in file order, and mipsHeader2018 their names.
var (
	mips2018       = []int{mipsNPI, mipsOrgPAC, mipsLast, mipsFirst, mipsSource, mipsQuality, mipsPI, mipsCost, mipsIA, mipsFinal}
	mipsHeader2018 = []string{"npi", "org_pac_id", "lst_nm", "frst_nm", "source", "quality_category_score", "pi_category_score",
		"cost_category_score", "ia_category_score", "final_mips_score"}
)

// mipsHeader is the header of a performance year's file.
func mipsHeader(year int) []string {
	switch {
	case year >= 2022:
		return mipsHeader2022
	case year >= 2019:
		return mipsLayout(year, mipsHeader2019)
	}
	return mipsHeader2018
}

// mipsLayout turns a canonical row into a performance year's layout.
func mipsLayout(year int, row []string) []string {
	switch {
	case year >= 2022:
		return row
	case year >= 2019:
		out := make([]string, 0, len(row))
		for k, v := range row {
			if k == mipsWithoutCPB && year < 2020 {
				continue
			}
			if v == "" && k >= mipsQuality && year >= 2020 {
				v = "N/A"
			}
			out = append(out, v)
		}
		return out
	}
	out := make([]string, len(mips2018))
	for k, c := range mips2018 {
		out[k] = row[c]
	}
	return out
}

// mipsEligible lists the professions MIPS scores.
var mipsEligible = map[profession]bool{profMD: true, profNP: true, profPA: true, profChiro: true, profDentist: true,
	profOptometrist: true, profPT: true, profPsychologist: true, profSocialWorker: true, profPodiatrist: true, profCRNA: true}

// Shares of the scores files.
const (
	shareMIPS       = 0.12 // eligible, enrolled clinicians with a score of the latest year (about 8% of NPIs have a row, as in the real file)
	shareMIPSOlder  = 0.6  // of those, with a score of the older year too
	shareMIPSTwoRow = 0.2  // scored both as part of a group and individually
)

// mipsScored reports whether base record i has scores: an enrolled clinician of a scored
// profession, in the base drop.
func (w *world) mipsScored(i int64) bool {
	if isOrg(i) || i >= w.n0 || !w.pecosEnrolled(i) {
		return false
	}
	t, _ := w.indivTaxonState(i)
	return mipsEligible[indivTaxa[t].prof] && w.flag(i, flagMIPS, shareMIPS)
}

// mipsRows returns the canonical score rows of a clinician for a performance year, the older
// year being stream offset 1.
func (w *world) mipsRows(r *rng, p *provider, year int, older bool) [][]string {
	off := int64(0)
	if older {
		off = 1
	}
	r.reset(w.seed, streamMIPS, 2*p.index+off)
	pac := ""
	if pool := w.orgPool[p.enrollState]; len(pool) > 0 {
		pac = w.pacID(int64(pool[r.IntN(len(pool))]))
	}
	sources := []string{"group"}
	switch {
	case pac == "":
		sources = []string{"individual"}
	case r.chance(shareMIPSTwoRow):
		sources = append(sources, "individual")
	}
	rows := make([][]string, 0, len(sources))
	for _, src := range sources {
		row := make([]string, mipsColumns)
		row[mipsNPI], row[mipsOrgPAC], row[mipsLast], row[mipsFirst], row[mipsSource] = p.npi, pac, p.last, p.first, src
		w.mipsScores(r, row, year)
		rows = append(rows, row)
	}
	return rows
}

// mipsScores fills a row's scores: categories not scored are blank and their weight moves to the
// others; the final score adds the complex patient bonus (from PY 2020) and is at most 100.
func (w *world) mipsScores(r *rng, row []string, year int) {
	weights := []float64{0.30, 0.25, 0.15, 0.30} // quality, PI, IA, cost
	scores := []float64{40 + 60*r.Float64(), 100 * r.Float64(), pick(r, []float64{100, 100, 80, 50, 40}), 20 + 80*r.Float64()}
	scored := []bool{true, !r.chance(0.25), true, !r.chance(0.35)}
	var sum, wsum float64
	for k := range scores {
		if !scored[k] {
			continue
		}
		scores[k] = math.Round(scores[k]*100) / 100
		row[mipsQuality+k] = strconv.FormatFloat(scores[k], 'f', -1, 64)
		sum += weights[k] * scores[k]
		wsum += weights[k]
	}
	final := math.Round(sum/wsum*100) / 100
	if year >= 2020 {
		row[mipsWithoutCPB] = strconv.FormatFloat(final, 'f', -1, 64)
		final = min(100, math.Round((final+5*r.Float64())*100)/100)
	}
	row[mipsFinal] = strconv.FormatFloat(final, 'f', -1, 64)
}
