package synth

import (
	"fmt"
	"strings"
)

// OIG LEIE, UPDATED.csv: the full current exclusion list. The header is unquoted, every value is
// quoted, lines end in CRLF, dates are YYYYMMDD with 00000000 for none, and an excluded party
// without an NPI has 0000000000.

// LEIEName is the file name of the full list.
const LEIEName = "UPDATED.csv"

var leieHeader = []string{"LASTNAME", "FIRSTNAME", "MIDNAME", "BUSNAME", "GENERAL", "SPECIALTY", "UPIN", "NPI",
	"DOB", "ADDRESS", "CITY", "STATE", "ZIP", "EXCLTYPE", "EXCLDATE", "REINDATE", "WAIVERDATE", "WVRSTATE"}

const leieNone = "00000000"

// Exclusion authorities (Social Security Act 1128 and 1156) with rough shares of the list.
var exclTypes = []string{"1128b4", "1128b4", "1128b4", "1128a1", "1128a1", "1128a2", "1128a3", "1128a4", "1128b7", "1128b8", "1128b14", "1156"}

func leieGeneral(p profession) string {
	switch p {
	case profMD:
		return "MEDICAL PRACTICE, MD"
	case profNP, profRN, profCRNA:
		return "NURSING PROFESSION"
	case profPharmacist:
		return "PHARMACY"
	case profChiro:
		return "CHIROPRACTIC PRACTICE"
	case profDentist:
		return "DENTAL PRACTICE"
	}
	return "IND- LIC HC SERV PRO"
}

// leieRow is the exclusion row of an excluded provider, with the address at exclusion.
func (w *world) leieRow(r *rng, p *provider) []string {
	r.reset(w.seed, streamLEIE, p.index)
	dob := ""
	if !p.org && r.chance(0.8) {
		dob = r.between(ymd(1940, 1, 1), ymd(1995, 12, 31)).compact()
	}
	zip := p.leieAddr.zip
	if len(zip) > 5 {
		zip = zip[:5]
	}
	addr := strings.TrimSpace(p.leieAddr.line1 + " " + p.leieAddr.line2)
	row := []string{"", "", "", "", "", "", "", p.npi, dob, addr, p.leieAddr.city, p.leieAddr.state, zip,
		pick(r, exclTypes), p.excludedOn.compact(), leieNone, leieNone, ""}
	if p.org {
		row[3] = p.orgName
		row[4] = "OTHER BUSINESS"
		row[5] = strings.ToUpper(w.ref.nucc[p.taxonomies[0].code].Classification)
	} else {
		row[0], row[1], row[2] = p.last, p.first, p.middle
		row[4] = leieGeneral(p.prof)
		row[5] = strings.ToUpper(w.ref.nucc[indivTaxa[p.taxon].code].Classification)
	}
	return row
}

// leieNoNPIRow is the k-th excluded person who never had an NPI: aides, billing clerks,
// owners. Their names come from the same synthetic lists.
func (w *world) leieNoNPIRow(r *rng, k int64) []string {
	r.reset(w.seed, streamLEIE, -1-k)
	s := w.ref.stateDist.draw(r)
	a := w.randomAddress(r, s)
	first := pick(r, givenFemale)
	if r.chance(0.4) {
		first = pick(r, givenMale)
	}
	general := pick(r, []string{"EMPLOYEE - PRIVATE SECTOR", "BUSINESS OWNER/EXEC", "IND- LIC HC SERV PRO", "OTHER BUSINESS"})
	specialty := pick(r, []string{"NURSE/NURSES AIDE", "HOME HEALTH AGENCY", "BILLING SERVICE", "PERSONAL CARE PROVIDER", "PHARMACY TECHNICIAN", "DME - GENERAL"})
	row := []string{familyName(r), first, pick(r, middleInitials), "", general, specialty, "", "0000000000",
		r.between(ymd(1950, 1, 1), ymd(2000, 12, 31)).compact(), a.line1, a.city, a.state, a.zip[:5],
		pick(r, exclTypes), r.between(w.snaps[0]-20*365, w.snaps[0]-1).compact(), leieNone, leieNone, ""}
	if general == "OTHER BUSINESS" {
		row[0], row[1], row[2], row[8] = "", "", "", ""
		row[3] = fmt.Sprintf("%s %s %s", pick(r, cityStart), pick(r, []string{"HOME CARE", "MEDICAL BILLING", "TRANSPORT", "SUPPLY"}), pick(r, orgLegalSuffixes))
	}
	// A few waivers, as the real list has.
	if r.chance(0.05) {
		row[16] = r.between(w.snaps[0]-5*365, w.snaps[0]-1).compact()
		row[17] = a.state
	}
	return row
}

// leieNoNPICount is how many excluded parties without NPIs the list carries: about half as many
// as those with one, as on the real list (where most have none) scaled down.
func (w *world) leieNoNPICount() int64 { return max(5, w.n0/500) }
