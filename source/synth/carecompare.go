package synth

import (
	"fmt"
	"strconv"
	"time"
)

// Care Compare provider files, one per quality type, with the published file names and their
// key columns in published order. Every field is quoted. A suppressed value is "Not Available"
// with a footnote code, never zero; nursing homes leave a missing star blank and explain it in
// the footnote column, as their file does. The hospital, nursing-home and home-health files also
// carry a measurement period per row, in the column styles Care Compare's measure files use
// ("Start Date"/"End Date", "Measure Start Date"/"Measure End Date", "Measure Date Range"); a
// few rows leave it blank or "Not Available" (periodStated).

// careCompareNames are the file names of a monthly refresh dated snap. Hospital and ASC files
// carry no date in their names.
func careCompareNames(snap date) map[facilityKind]string {
	m := snap.monYYYY()
	return map[facilityKind]string{
		kindHospital:    "Hospital_General_Information.csv",
		kindNursingHome: "NH_ProviderInfo_" + m + ".csv",
		kindHomeHealth:  "HH_Provider_" + m + ".csv",
		kindHospice:     "Hospice_General-Information_" + m + ".csv",
		kindDialysis:    "DFC_FACILITY.csv",
		kindASC:         "ASC_Facility.csv",
	}
}

func hospiceCAHPSName(snap date) string {
	return "Provider_CAHPS_Hospice_Survey_Data_" + snap.monYYYY() + ".csv"
}

var hospitalGeneralHeader = []string{
	"Facility ID", "Facility Name", "Address", "City/Town", "State", "ZIP Code", "County/Parish", "Telephone Number",
	"Hospital Type", "Hospital Ownership", "Emergency Services", "Meets criteria for birthing friendly designation",
	"Hospital overall rating", "Hospital overall rating footnote",
	"MORT Group Measure Count", "Count of Facility MORT Measures", "Count of MORT Measures Better",
	"Count of MORT Measures No Different", "Count of MORT Measures Worse", "MORT Group Footnote",
	"Safety Group Measure Count", "Count of Facility Safety Measures", "Count of Safety Measures Better",
	"Count of Safety Measures No Different", "Count of Safety Measures Worse", "Safety Group Footnote",
	"READM Group Measure Count", "Count of Facility READM Measures", "Count of READM Measures Better",
	"Count of READM Measures No Different", "Count of READM Measures Worse", "READM Group Footnote",
	"Pt Exp Group Measure Count", "Count of Facility Pt Exp Measures", "Pt Exp Group Footnote",
	"TE Group Measure Count", "Count of Facility TE Measures", "TE Group Footnote",
	"Start Date", "End Date",
}

var nursingHomeHeader = []string{
	"CMS Certification Number (CCN)", "Provider Name", "Provider Address", "City/Town", "State", "ZIP Code",
	"Telephone Number", "Provider SSA County Code", "County/Parish", "Ownership Type", "Number of Certified Beds",
	"Average Number of Residents per Day", "Average Number of Residents per Day Footnote", "Provider Type",
	"Provider Resides in Hospital", "Legal Business Name", "Date First Approved to Provide Medicare and Medicaid Services",
	"Chain Name", "Chain ID", "Number of Facilities in Chain", "Continuing Care Retirement Community",
	"Special Focus Status", "Abuse Icon", "Provider Changed Ownership in Last 12 Months",
	"Overall Rating", "Overall Rating Footnote", "Health Inspection Rating", "Health Inspection Rating Footnote",
	"QM Rating", "QM Rating Footnote", "Long-Stay QM Rating", "Long-Stay QM Rating Footnote",
	"Short-Stay QM Rating", "Short-Stay QM Rating Footnote", "Staffing Rating", "Staffing Rating Footnote",
	"Reported Total Nurse Staffing Hours per Resident per Day", "Total nursing staff turnover",
	"Total Weighted Health Survey Score", "Number of Fines", "Total Amount of Fines in Dollars",
	"Location", "Latitude", "Longitude", "Geocoding Footnote", "Processing Date",
	"Measure Start Date", "Measure End Date",
}

var dialysisHeader = []string{
	"CMS Certification Number (CCN)", "Network", "Facility Name", "Five Star Date", "Five Star",
	"Five Star Data Availability Code", "Address Line 1", "Address Line 2", "City/Town", "State", "ZIP Code",
	"County/Parish", "Telephone Number", "Profit or Non-Profit", "Chain Owned", "Chain Organization", "Late Shift",
	"# of Dialysis Stations", "Offers in-center hemodialysis", "Offers peritoneal dialysis",
	"Offers home hemodialysis training", "Patient Survival Category Text", "Patient Hospitalization Category Text",
	"Patient Hospital Readmission Category", "Patient Infection category text", "Fistula Category Text",
	"Mortality Rate (Facility)", "Readmission Rate (Facility)",
}

var homeHealthHeader = []string{
	"State", "CMS Certification Number (CCN)", "Provider Name", "Address", "City/Town", "ZIP Code", "Telephone Number",
	"Type of Ownership", "Offers Nursing Care Services", "Offers Physical Therapy Services",
	"Offers Occupational Therapy Services", "Offers Speech Pathology Services", "Offers Medical Social Services",
	"Offers Home Health Aide Services", "Certification Date", "Quality of patient care star rating",
	"Footnote for quality of patient care star rating",
	"How often the home health team began their patients' care in a timely manner",
	"Footnote for how often the home health team began their patients' care in a timely manner",
	"How often patients got better at walking or moving around",
	"Footnote for how often patients got better at walking or moving around",
	"Measure Date Range",
}

var hospiceHeader = []string{
	"CMS Certification Number (CCN)", "Facility Name", "Address Line 1", "Address Line 2", "City/Town", "State",
	"ZIP Code", "County/Parish", "Telephone Number", "CMS Region", "Ownership Type", "Certification Date",
}

// The hospice CAHPS file is long: one row per facility and measure, the summary star in the
// Star Rating column of the SUMMARY_STAR_RATING row.
var hospiceCAHPSHeader = []string{
	"CMS Certification Number (CCN)", "Facility Name", "Address Line 1", "Address Line 2", "City/Town", "State",
	"ZIP Code", "County/Parish", "Telephone Number", "CMS Region", "Measure Code", "Measure Name", "Score",
	"Star Rating", "Footnote", "Date",
}

var hospiceCAHPSMeasures = [][2]string{
	{"SUMMARY_STAR_RATING", "Family caregiver survey rating"},
	{"RATING_TBV", "Caregivers rated the hospice agency a 9 or 10, top box"},
	{"RECOMMEND_TBV", "YES, they would definitely recommend the hospice"},
	{"EMO_REL_TBV", "The hospice team provided the right amount of emotional and religious support, top box"},
}

// The ambulatory surgical center file (ASC_Facility.csv of the ASC Quality Reporting Program):
// identity columns, the reporting year, then measure rates with footnotes. ASCs have no star.
var ascHeader = []string{
	"Facility Name", "Facility ID", "NPI", "City/Town", "State", "ZIP Code", "Year",
	"ASC-1 Rate*", "ASC-1 Footnote", "ASC-2 Rate*", "ASC-2 Footnote", "ASC-3 Rate*", "ASC-3 Footnote",
	"ASC-4 Rate*", "ASC-4 Footnote", "ASC-9 Rate*", "ASC-9 Footnote", "ASC-11 Rate*", "ASC-11 Footnote",
	"ASC-12 Total Cases", "ASC-12 Performance Category", "ASC-12 RSHV Rate", "ASC-12 Interval Lower Limit",
	"ASC-12 Interval Upper Limit", "ASC-12 Footnote", "ASC-13 Rate*", "ASC-13 Footnote", "ASC-14 Rate*",
	"ASC-14 Footnote",
}

// ccRow builds Care Compare rows for one facility; suppressed counts suppressed measure values.
type ccRow struct {
	w          *world
	r          *rng
	f          *facility
	suppressed int64
}

// measure returns a rate with one decimal in [lo, hi), or "Not Available" and footnote fn for
// a share of facilities (small samples are suppressed, never zero).
func (c *ccRow) measure(lo, hi float64, decimals int, fn string) (string, string) {
	if c.r.chance(0.12) {
		c.suppressed++
		return "Not Available", fn
	}
	return strconv.FormatFloat(lo+c.r.Float64()*(hi-lo), 'f', decimals, 64), ""
}

// Measurement periods the files state, fixed across generations so that a period never reads
// as a change of the facility.
var (
	hospitalPeriod    = [2]date{ymd(2021, time.July, 1), ymd(2024, time.June, 30)}
	nursingHomePeriod = [2]date{ymd(2024, time.January, 1), ymd(2024, time.December, 31)}
	homeHealthPeriod  = [2]date{ymd(2023, time.April, 1), ymd(2024, time.March, 31)}
	dialysisPeriod    = [2]date{ymd(2021, time.January, 1), ymd(2024, time.December, 31)}
)

// periodStated returns how facility f's row states its measurement period: "" when it does,
// else the blank or marker the row prints instead (about one row in twenty each).
func (w *world) periodStated(f *facility) (string, bool) {
	switch hash(w.seed, streamFacility, uint64(f.j), 91) % 20 {
	case 0:
		return "", false
	case 1:
		return "Not Available", false
	}
	return "", true
}

// periodColumns prints a period as a start and an end column, each in format.
func (w *world) periodColumns(f *facility, p [2]date, format func(date) string) []string {
	if v, ok := w.periodStated(f); !ok {
		return []string{v, v}
	}
	return []string{format(p[0]), format(p[1])}
}

// periodRange prints a period as one range column, "<start><sep><end>" in MM/DD/YYYY.
func (w *world) periodRange(f *facility, p [2]date, sep string) string {
	if v, ok := w.periodStated(f); !ok {
		return v
	}
	return p[0].mdy() + sep + p[1].mdy()
}

func phoneDisplay(p string) string {
	if len(p) != 10 {
		return p
	}
	return "(" + p[:3] + ") " + p[3:6] + "-" + p[6:]
}

func (w *world) ccStart(r *rng, f *facility) *ccRow {
	r.reset(w.seed, streamFacility, int64(f.j)+4<<40)
	return &ccRow{w: w, r: r, f: f}
}

func (w *world) hospitalRow(c *ccRow, star int) []string {
	f, r := c.f, c.r
	h := hospitalSubtypes[f.hospSub]
	rating, fn := starText(star), ""
	if star == 0 {
		fn = "16"
		if h.posSubtype == "04" {
			fn = "19"
		}
	}
	emergency := "Yes"
	if h.posSubtype == "04" || r.chance(0.08) {
		emergency = "No"
	}
	birthing := ""
	if h.posSubtype == "01" && r.chance(0.5) {
		birthing = "Y"
	}
	row := []string{f.ccn, f.name, f.addr.line1, f.addr.city, w.ref.states[f.state].Code, f.addr.zip[:5], f.county.Name,
		phoneDisplay(f.addr.phone), h.careCompareType, ownershipLabels[kindHospital][f.ownership].label, emergency, birthing,
		rating, fn}
	group := func(total int, withOutcome bool) {
		if star == 0 && r.chance(0.5) {
			c.suppressed++
			row = append(row, strconv.Itoa(total), "Not Available")
			if withOutcome {
				row = append(row, "Not Available", "Not Available", "Not Available")
			}
			row = append(row, "5")
			return
		}
		n := 1 + r.IntN(total)
		row = append(row, strconv.Itoa(total), strconv.Itoa(n))
		if withOutcome {
			better := r.IntN(n + 1)
			worse := r.IntN(n - better + 1)
			row = append(row, strconv.Itoa(better), strconv.Itoa(n-better-worse), strconv.Itoa(worse))
		}
		row = append(row, "")
	}
	group(7, true)
	group(8, true)
	group(11, true)
	group(8, false)
	group(12, false)
	return append(row, w.periodColumns(f, hospitalPeriod, date.mdy)...)
}

func (w *world) nursingHomeRow(c *ccRow, star int, processed date) []string {
	f, r := c.f, c.r
	st := w.ref.states[f.state].Code
	overall, fn := "", "1"
	if star != 0 {
		overall, fn = strconv.Itoa(star), ""
	}
	sub := func() (string, string) {
		if star == 0 {
			return "", "1"
		}
		return strconv.Itoa(max(1, min(5, star+r.IntN(3)-1))), ""
	}
	residents := fmt.Sprintf("%.1f", float64(f.beds)*(0.55+0.4*r.Float64()))
	chainName, chainID, chainN := "", "", ""
	if r.chance(0.6) {
		chainName = pick(r, manufacturerStart) + " SENIOR LIVING"
		chainID = strconv.Itoa(100 + r.IntN(600))
		chainN = strconv.Itoa(2 + r.IntN(80))
	}
	yn := func(p float64) string {
		if r.chance(p) {
			return "Y"
		}
		return "N"
	}
	row := []string{f.ccn, f.name, f.addr.line1, f.addr.city, st, f.addr.zip[:5], f.addr.phone, f.county.SSA, f.county.Name,
		ownershipLabels[kindNursingHome][f.ownership].label, strconv.Itoa(f.beds), residents, "",
		"Medicare and Medicaid", yn(0.05), f.legalName, f.certified.iso(), chainName, chainID, chainN, yn(0.05), "N", yn(0.05), yn(0.08),
		overall, fn}
	for k := 0; k < 5; k++ {
		v, n := sub()
		row = append(row, v, n)
	}
	staffing, _ := c.measure(2.8, 5.5, 5, "")
	turnover, _ := c.measure(20, 75, 1, "")
	row = append(row, staffing, turnover, fmt.Sprintf("%.3f", 5+r.Float64()*120))
	fines := r.IntN(3)
	amount := 0
	if fines > 0 {
		amount = fines * (650 + r.IntN(40000))
	}
	loc := fmt.Sprintf("%s,%s,%s,%s", f.addr.line1, f.addr.city, st, f.addr.zip[:5])
	row = append(row, strconv.Itoa(fines), strconv.Itoa(amount), loc, "", "", "", processed.iso())
	return append(row, w.periodColumns(f, nursingHomePeriod, date.iso)...)
}

func (w *world) dialysisRow(c *ccRow, star int) []string {
	f, r := c.f, c.r
	st := w.ref.states[f.state].Code
	avail := "001"
	if star == 0 {
		avail = "258"
	}
	chain, chainOrg := "No", ""
	if r.chance(0.7) {
		chain, chainOrg = "Yes", pick(r, manufacturerStart)+" KIDNEY CARE"
	}
	cat := func() string {
		if r.chance(0.12) {
			c.suppressed++
			return "Not Available"
		}
		return pick(r, []string{"As Expected", "As Expected", "As Expected", "Better than Expected", "Worse than Expected"})
	}
	yesno := func(p float64) string {
		if r.chance(p) {
			return "Yes"
		}
		return "No"
	}
	profit := "Profit"
	if ownershipLabels[kindDialysis][f.ownership].posCode != "04" {
		profit = "Non-profit"
	}
	mort, _ := c.measure(10, 30, 1, "")
	readm, _ := c.measure(15, 35, 1, "")
	return []string{f.ccn, strconv.Itoa(1 + int(hash(w.seed, uint64(f.state))%18)), f.name, w.periodRange(f, dialysisPeriod, "-"),
		starText(star), avail, f.addr.line1, f.addr.line2, f.addr.city, st, f.addr.zip[:5], f.county.Name,
		f.addr.phone, profit, chain, chainOrg, yesno(0.2), strconv.Itoa(f.beds), "Yes", yesno(0.6), yesno(0.3),
		cat(), cat(), cat(), cat(), cat(), mort, readm}
}

func (w *world) homeHealthRow(c *ccRow, star int) []string {
	f, r := c.f, c.r
	yesno := func(p float64) string {
		if r.chance(p) {
			return "Yes"
		}
		return "No"
	}
	fn := ""
	if star == 0 {
		fn = "The number of patient episodes for this measure is too small to report a star rating."
	}
	timely, tfn := c.measure(80, 99.9, 1, "The number of patient episodes for this measure is too small to report.")
	walking, wfn := c.measure(60, 95, 1, "The number of patient episodes for this measure is too small to report.")
	// Home health stars come in half steps; whether an agency sits on a half is fixed per
	// agency, so a rating change is always a change of the whole star.
	rating := starText(star)
	if star >= 1 && star <= 4 && hash(w.seed, streamRating, uint64(f.j), 77)%2 == 0 {
		rating += ".5"
	}
	return []string{w.ref.states[f.state].Code, f.ccn, f.name, f.addr.line1, f.addr.city, f.addr.zip[:5], f.addr.phone,
		ownershipLabels[kindHomeHealth][f.ownership].label, "Yes", yesno(0.97), yesno(0.85), yesno(0.7), yesno(0.6), yesno(0.8),
		f.certified.mdy(), rating, fn, timely, tfn, walking, wfn, w.periodRange(f, homeHealthPeriod, " - ")}
}

func (w *world) hospiceIdentity(f *facility) []string {
	st := w.ref.states[f.state].Code
	return []string{f.ccn, f.name, f.addr.line1, f.addr.line2, f.addr.city, st, f.addr.zip[:5], f.county.Name,
		f.addr.phone, fmt.Sprintf("Region %d", cmsRegion[st])}
}

func (w *world) hospiceRow(c *ccRow) []string {
	f := c.f
	return append(w.hospiceIdentity(f), ownershipLabels[kindHospice][f.ownership].label, f.certified.mdy())
}

// hospiceCAHPSRows returns the long-format CAHPS rows of a hospice; the first is the star row.
func (w *world) hospiceCAHPSRows(c *ccRow, star int) [][]string {
	f := c.f
	id := w.hospiceIdentity(f)
	const period = "10/01/2022-09/30/2024"
	var rows [][]string
	for k, m := range hospiceCAHPSMeasures {
		row := append(append([]string(nil), id...), m[0], m[1])
		if k == 0 {
			fn := ""
			if star == 0 {
				fn = "11"
			}
			row = append(row, "Not Applicable", starText(star), fn, period)
		} else {
			score, fn := "Not Available", "11"
			if star != 0 {
				score, fn = c.measure(60, 95, 0, "11")
			} else {
				c.suppressed++
			}
			row = append(row, score, "Not Applicable", fn, period)
		}
		rows = append(rows, row)
	}
	return rows
}

func (w *world) ascRow(c *ccRow, npi string, year int) []string {
	f, r := c.f, c.r
	row := []string{f.name, f.ccn, npi, f.addr.city, w.ref.states[f.state].Code, f.addr.zip[:5], strconv.Itoa(year)}
	for k := 0; k < 6; k++ { // ASC-1, -2, -3, -4, -9, -11
		v, fn := c.measure(0, 0.5, 2, "5")
		if k >= 4 {
			v, fn = c.measure(60, 100, 2, "5")
		}
		row = append(row, v, fn)
	}
	cases := 20 + r.IntN(2000)
	rate, _ := c.measure(10, 18, 1, "1")
	lower, upper := "Not Available", "Not Available"
	if rate != "Not Available" {
		x, _ := strconv.ParseFloat(rate, 64)
		lower, upper = strconv.FormatFloat(x-2-r.Float64()*2, 'f', 1, 64), strconv.FormatFloat(x+2+r.Float64()*2, 'f', 1, 64)
	}
	row = append(row, strconv.Itoa(cases), pick(r, []string{"No Different than the National Rate", "Better than the National Rate", "Worse than the National Rate"}),
		rate, lower, upper, "")
	for k := 0; k < 2; k++ { // ASC-13, -14
		v, fn := c.measure(0, 5, 2, "5")
		row = append(row, v, fn)
	}
	return row
}
