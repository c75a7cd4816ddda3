package synth

import (
	"strings"

	"providerdir/source/nppes"
)

// The Endpoint Reference File (endpoint_pfile) of the NPPES monthly full dissemination. Its
// header is that of the June 2025 V2 release, 19 columns (the Readme's layout names the last
// one "Affiliation Address Line Postal Code"; the file says "Affiliation Address Postal Code").
var endpointHeader = []string{
	"NPI", "Endpoint Type", "Endpoint Type Description", "Endpoint", "Affiliation", "Endpoint Description",
	"Affiliation Legal Business Name", "Use Code", "Use Description", "Other Use Description", "Content Type",
	"Content Description", "Other Content Description", "Affiliation Address Line One", "Affiliation Address Line Two",
	"Affiliation Address City", "Affiliation Address State", "Affiliation Address Country", "Affiliation Address Postal Code",
}

// endpointName is the endpoint file's name in a monthly release ending at end.
func endpointName(end date) string {
	return "endpoint_pfile_" + nppesEpoch.compact() + "-" + end.compact() + ".csv"
}

// endpointKind is an NPPES endpoint type with its published description and how likely a
// registered endpoint is of it: most are Direct addresses.
type endpointKind struct {
	code, desc string
	weight     float64
}

var endpointKinds = []endpointKind{
	{"DIRECT", "Direct Messaging Address", 0.70},
	{"FHIR", "FHIR URL", 0.10},
	{"OTHERS", "Other URL", 0.09},
	{"REST", "RESTful URL", 0.05},
	{"SOAP", "SOAP URL", 0.04},
	{"CONNECT", "CONNECT URL", 0.02},
}

// endpointShare is the share of active NPIs with endpoints: a few percent of individuals, more
// of organizations (hospitals and groups publish FHIR and Direct endpoints).
const (
	endpointShareIndividual   = 0.10
	endpointShareOrganization = 0.25
)

// endpointRows derives the endpoint rows of an active provider (none for most). Values are as
// the real file has them: every value quoted, many columns blank, descriptions only where a code
// is given, names with commas, the affiliation's address as entered (blank parts included). An
// endpoint of the provider's own is at its practice address, now and then written another way
// (messyAddress); one affiliated elsewhere is at another address, named as affiliationName says.
// NPPES's placeholder <UNAVAIL> appears now and then in the free-text columns: the Readme does
// not say whether this file carries it, and the reader must read it as blank wherever it does.
func (w *world) endpointRows(r *rng, p *provider) [][]string {
	share := endpointShareIndividual
	if p.org {
		share = endpointShareOrganization
	}
	r.reset(w.seed, streamEndpoints, p.index)
	if !r.chance(share) {
		return nil
	}
	n := 1
	if r.chance(0.2) {
		n = 2
	}
	domain := endpointDomain(p)
	// The affiliations named after parents and the rows written another way are drawn from a
	// stream of their own, so that every other value stays what the endpoint stream made it.
	v := newRNG()
	v.reset(w.seed, streamEndpointVariants, p.index)
	rows := make([][]string, 0, n)
	for k := 0; k < n; k++ {
		kind := pickEndpointKind(r)
		row := make([]string, len(endpointHeader))
		row[0], row[1], row[2] = p.npi, kind.code, kind.desc
		row[3] = endpointAddress(r, p, kind.code, domain, k)
		row[4] = "N"
		loc := p.practice
		if r.chance(0.35) {
			row[4] = "Y"
			row[6] = w.affiliationName(v, familyName(r)+" HEALTH NETWORK, "+pick(r, orgLegalSuffixes))
			loc = w.randomAddress(r, p.state)
		} else if v.chance(0.3) {
			loc = messyAddress(v, loc)
		}
		if r.chance(0.3) {
			row[5] = pick(r, endpointDescriptions)
		}
		switch u := r.IntN(10); {
		case u < 2:
			row[7], row[8] = "DIRECT", "Direct"
		case u < 3:
			row[7], row[8] = "HIE", "Health Information Exchange (HIE)"
		case u < 4:
			row[7], row[8], row[9] = "OTHER", "Other", pick(r, otherUses)
		}
		switch c := r.IntN(10); {
		case c < 2:
			row[10], row[11] = "CSV", "CSV"
		case c < 3:
			row[10], row[11], row[12] = "OTHER", "Other", pick(r, otherContents)
		}
		row[13], row[14], row[15], row[16], row[18] = loc.line1, loc.line2, loc.city, loc.state, loc.zip
		if !r.chance(0.1) { // the country is left blank on some rows
			row[17] = "US"
		}
		rows = append(rows, row)
	}
	return rows
}

// affiliationName is the legal business name an endpoint affiliated elsewhere gives. Six in ten
// name one of the parent organizations (parentName), whose names one organization carries, two
// carry, or none does: the affiliation resolves to one organization, is ambiguous, or names no
// NPI; half of those are written as a registrant might type them (messyName). The others give
// network, a health network no organization of the drop is called.
func (w *world) affiliationName(r *rng, network string) string {
	if r.chance(0.6) {
		name := w.parentName(int64(r.IntN(parentNames)))
		if r.chance(0.5) {
			name = messyName(name)
		}
		return name
	}
	return network
}

// messyName writes a legal name in lower case with a comma before its last word and a full stop
// after it: the same name with case, punctuation and spacing aside.
func messyName(name string) string {
	words := strings.Fields(strings.ToLower(name))
	if len(words) > 1 {
		words[len(words)-2] += ","
	}
	return strings.Join(words, "  ") + "."
}

// messyAddress writes an address as a registrant might type it again: in mixed case with a full
// stop after the street line, the suite moved onto the street line, the ZIP+4 cut to five
// digits, or the city and state in lower case. It is the same place with case, punctuation,
// spacing and line breaks aside, and the ZIP's first five digits.
func messyAddress(r *rng, a address) address {
	switch r.IntN(4) {
	case 0:
		a.line1 = strings.ToLower(a.line1) + "."
	case 1:
		if a.line2 != "" {
			a.line1, a.line2 = a.line1+", "+a.line2, ""
		} else {
			a.line1 = "  " + a.line1
		}
	case 2:
		a.zip = a.zip[:min(5, len(a.zip))]
	default:
		a.city, a.state = strings.ToLower(a.city), strings.ToLower(a.state)
	}
	return a
}

func pickEndpointKind(r *rng) endpointKind {
	x := r.Float64()
	for _, k := range endpointKinds {
		if x < k.weight {
			return k
		}
		x -= k.weight
	}
	return endpointKinds[0]
}

// endpointDomain is a provider's made-up internet domain under example.org, which is reserved
// for examples: no generated address reaches a real host.
func endpointDomain(p *provider) string {
	name := p.orgName
	if !p.org {
		name = p.last
	}
	var b strings.Builder
	for _, c := range strings.ToLower(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		b.WriteString("provider")
	}
	return b.String()[:min(b.Len(), 24)] + ".example.org"
}

// endpointAddress is the endpoint itself: a Direct address for DIRECT, a URL otherwise.
func endpointAddress(r *rng, p *provider, code, domain string, k int) string {
	switch code {
	case "DIRECT":
		user := "records"
		if !p.org {
			user = strings.ToLower(p.first+"."+p.last) + r.digits(2)
		}
		return strings.ReplaceAll(user, " ", "") + "@direct." + domain
	case "FHIR":
		return "https://fhir." + domain + "/api/FHIR/R4"
	case "OTHERS":
		return "https://www." + domain + "/"
	}
	return "https://hie." + domain + "/" + strings.ToLower(code) + "/" + r.digits(1+k)
}

var endpointDescriptions = []string{"Secure messaging", "Patient access API, R4", "Referrals and records requests",
	"Provider directory", nppes.Unavailable}

var otherUses = []string{"Referrals", "Care coordination, transitions of care", "Lab results", nppes.Unavailable}

var otherContents = []string{"PDF", "C-CDA", "HL7 v2"}
