package synth

import (
	"fmt"
	"time"
)

// SAM.gov exclusions public extract, SAM_Exclusions_Public_Extract_V2_YYDDD.CSV: every party with
// an active federal exclusion. Every field is quoted, lines end in CRLF, dates are MM/DD/YYYY with
// "Indefinite" for an exclusion without an end, and Creation_Date is YYYY-MM-DD. HHS OIG's
// exclusions are mirrored into SAM as reciprocal records; some carry the NPI, most do not. The
// rest of the list is other agencies' debarments of people, firms and vessels with no NPI. A drop
// dated before SAM moved to its Unique Entity ID (April 2022) gets the older layout and name,
// with DUNS and without Creation_Date. The extract ends with blank lines, and a blank line
// separates its health-care records from the others.

// samV2Since is the first day the V2 extract (Unique Entity ID) was published.
var samV2Since = ymd(2022, time.April, 4)

var samHeaderV2 = []string{"Classification", "Name", "Prefix", "First", "Middle", "Last", "Suffix", "Address 1", "Address 2",
	"Address 3", "Address 4", "City", "State / Province", "Country", "Zip Code", "Open Data Flag", "Blank (Deprecated)",
	"Unique Entity ID", "Exclusion Program", "Excluding Agency", "CT Code", "Exclusion Type", "Additional Comments",
	"Active Date", "Termination Date", "Record Status", "Cross-Reference", "SAM Number", "CAGE", "NPI", "Creation_Date"}

// Columns of a V2 row that bad rows and the older layout touch.
const (
	samColDUNSFrom = 15 // Open Data Flag, Blank (Deprecated), Unique Entity ID: DUNS in the older layout
	samColUEI      = 17
	samColActive   = 23
	samColNPI      = 29
	samColCreated  = 30
)

// samName is the extract's file name for a snapshot, in the layout of its day.
func samName(snap date) string {
	t := snap.time()
	if snap < samV2Since {
		return fmt.Sprintf("SAM_Exclusions_Public_Extract_%02d%03d.CSV", t.Year()%100, t.YearDay())
	}
	return fmt.Sprintf("SAM_Exclusions_Public_Extract_V2_%02d%03d.CSV", t.Year()%100, t.YearDay())
}

// samHeader is the header of a snapshot's layout.
func samHeader(snap date) []string {
	if snap >= samV2Since {
		return samHeaderV2
	}
	return samOlder(samHeaderV2, "DUNS")
}

// samLayout turns a V2 row into the snapshot's layout: unchanged from V2 on; before, a firm's
// nine-digit DUNS number in place of its Unique Entity ID.
func samLayout(snap date, row []string) []string {
	if snap >= samV2Since {
		return row
	}
	duns := ""
	if uei := row[samColUEI]; uei != "" {
		h := uint64(streamSAM)
		for k := 0; k < len(uei); k++ {
			h = hash(h, uint64(uei[k]))
		}
		duns = fmt.Sprintf("%09d", h%1_000_000_000)
	}
	return samOlder(row, duns)
}

// samOlder is a V2 row in the older layout: DUNS in place of the three identifier columns and no
// Creation_Date.
func samOlder(row []string, duns string) []string {
	out := append(append([]string{}, row[:samColDUNSFrom]...), duns)
	return append(out, row[samColUEI+1:samColCreated]...)
}

// Shares of the SAM extract.
const (
	shareSAMMirrored = 0.7 // LEIE exclusions mirrored into SAM
	shareSAMWithNPI  = 0.6 // mirrored records that carry the NPI
)

// samRow is the reciprocal SAM record of a provider on the LEIE, in V2 layout, and whether it
// carries the NPI; nil when the exclusion is not mirrored.
func (w *world) samRow(r *rng, p *provider) ([]string, bool) {
	if !w.flag(p.index, flagSAM, shareSAMMirrored) {
		return nil, false
	}
	r.reset(w.seed, streamSAM, p.index)
	withNPI := r.chance(shareSAMWithNPI)
	return w.samRecord(r, p, withNPI), withNPI
}

// samRecord builds the reciprocal record of an excluded provider.
func (w *world) samRecord(r *rng, p *provider, withNPI bool) []string {
	row := make([]string, len(samHeaderV2))
	row[0] = "Individual"
	if p.org {
		row[0], row[1] = "Firm", p.orgName
		row[7], row[8] = p.leieAddr.line1, p.leieAddr.line2
		row[samColUEI] = w.uei(r)
	} else {
		row[3], row[4], row[5], row[6] = p.first, p.middle, p.last, p.suffix
	}
	row[11], row[12], row[13], row[14] = p.leieAddr.city, p.leieAddr.state, "USA", p.leieAddr.zip[:5]
	row[18], row[19], row[20], row[21] = "Reciprocal", "HHS", "Z1", "Prohibition/Restriction"
	row[22] = "Excluded by the Department of Health and Human Services from participation in all Federal health care programs."
	row[samColActive], row[24] = p.excludedOn.mdy(), "Indefinite"
	row[27] = samNumber(2 * uint64(p.index))
	if withNPI {
		row[samColNPI] = p.npi
	}
	row[samColCreated] = (p.excludedOn + 1).iso()
	return row
}

// Other agencies' exclusions, with rough shares of the list.
var samAgencies = []string{"OPM", "OPM", "TREAS-OFAC", "TREAS-OFAC", "DOJ", "EPA", "DOL", "NAVY", "ARMY", "GSA", "VA", "DOS"}

var samTypes = []string{"Ineligible (Proceedings Completed)", "Ineligible (Proceedings Completed)", "Ineligible (Proceedings Pending)",
	"Prohibition/Restriction", "Voluntary Exclusion"}

// samOtherRow is the k-th record of another agency: a person, a firm or a vessel, none with an NPI.
func (w *world) samOtherRow(r *rng, k int64) []string {
	r.reset(w.seed, streamSAM, -1-k)
	s := w.ref.stateDist.draw(r)
	a := w.randomAddress(r, s)
	row := make([]string, len(samHeaderV2))
	agency := pick(r, samAgencies)
	switch u := r.Float64(); {
	case agency == "TREAS-OFAC" && u < 0.3:
		row[0], row[1], row[13] = "Vessel", pick(r, cityStart)+" "+pick(r, []string{"STAR", "WIND", "SPIRIT", "TRADER"}), pick(r, []string{"PAN", "LBR", "IRN"})
	case u < 0.35:
		row[0], row[1] = "Firm", fmt.Sprintf("%s %s, %s", pick(r, cityStart), pick(r, []string{"CONSTRUCTION", "SUPPLY", "LOGISTICS", "SERVICES"}), pick(r, orgLegalSuffixes))
		row[7], row[11], row[12], row[13], row[14] = a.line1, a.city, a.state, "USA", a.zip[:5]
		row[samColUEI] = w.uei(r)
		if r.chance(0.3) {
			row[28] = r.digits(1) + "A" + r.digits(3)
		}
	default:
		row[0] = "Individual"
		if r.chance(0.2) {
			row[2] = pick(r, []string{"MR.", "MS.", "MRS."})
		}
		row[3], row[5] = pick(r, givenMale), familyName(r)
		if r.chance(0.5) {
			row[3] = pick(r, givenFemale)
		}
		row[11], row[12], row[13], row[14] = a.city, a.state, "USA", a.zip[:5]
	}
	if row[13] == "" {
		row[13] = "USA"
	}
	row[18], row[19], row[21] = pick(r, []string{"Reciprocal", "Reciprocal", "NonProcurement", "Procurement"}), agency, pick(r, samTypes)
	active := r.between(w.snaps[0]-8*365, w.snaps[0]-1)
	row[samColActive] = active.mdy()
	row[24] = "Indefinite"
	if r.chance(0.6) {
		row[24] = (active + date(365*(1+r.IntN(5)))).mdy()
	}
	if r.chance(0.2) {
		row[26] = "(also " + familyName(r) + " " + pick(r, []string{"LLC", "INC"}) + ")"
	}
	row[27] = samNumber(2*uint64(k) + 1)
	row[samColCreated] = (active + date(r.IntN(3))).iso()
	return row
}

// samOtherCount is how many records of other agencies the extract carries.
func (w *world) samOtherCount() int64 { return max(5, w.n0/400) }

// uei draws a SAM Unique Entity ID: twelve characters, letters and digits, no O or I.
func (w *world) uei(r *rng) string { return r.chars(12, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") }

// samNumber is the SAM record number of the n-th record: S4M and six letters or digits, distinct
// for every n below 34^6.
func samNumber(n uint64) string {
	const alphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	b := []byte("S4M000000")
	for k := len(b) - 1; k >= 3; k-- {
		b[k] = alphabet[n%uint64(len(alphabet))]
		n /= uint64(len(alphabet))
	}
	return string(b)
}
