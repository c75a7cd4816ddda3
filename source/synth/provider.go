package synth

import (
	"fmt"
	"strconv"
)

// address is a US postal address as the federal files carry it.
type address struct {
	line1, line2, city, state, zip, phone, fax string
}

// taxonomyHolding is one of the 15 NPPES taxonomy slots.
type taxonomyHolding struct {
	code, license, licenseState string
	primary                     bool
}

type otherID struct{ id, typeCode, state, issuer string }

type otherName struct{ name, typeCode string }

// provider is one NPPES record with what the other families need to know about it. It is built
// from (seed, index, generation) by world.provider and dropped after its rows are written.
type provider struct {
	index  int64
	npi    string
	org    bool
	state  int // practice state, index into reference.states
	taxon  int // primary taxonomy: index into indivTaxa (individuals) or orgTaxa
	prof   profession
	fac    int // facility index, or -1
	gen    int // generation that created it
	moved  int // generation of the last move, 0 if never
	taxAdd int // generations that added a taxonomy

	// Individuals.
	last, first, middle, prefix, suffix, credential, sex string
	otherLast, otherFirst, otherLastType                 string
	soleProprietor                                       string

	// Organizations.
	orgName, subpart, parentLBN, parentTIN string
	otherNames                             []otherName
	aoLast, aoFirst, aoMiddle, aoTitle     string
	aoPhone, aoPrefix, aoCredential        string

	mail, practice address
	secondary      []address
	taxonomies     []taxonomyHolding
	taxonomyGroup  string
	otherIDs       []otherID
	enumerated     date
	updated        date
	certified      date
	deactivated    date
	reactivated    date
	excluded       bool
	excludedOn     date
	leieAddr       address // practice address when excluded
	enrollState    int     // state of the PECOS enrollment: the base practice state
	changes        []pendingChange
}

// active reports whether the NPI is not deactivated.
func (p *provider) active() bool { return p.deactivated == 0 || p.reactivated != 0 }

// hasCode reports whether any taxonomy slot holds code.
func (p *provider) hasCode(code string) bool {
	for _, t := range p.taxonomies {
		if t.code == code {
			return true
		}
	}
	return false
}

// cityName returns the j-th synthetic city of state s.
func (w *world) cityName(s int, j int) string {
	h := hash(w.seed, streamCity, uint64(s), uint64(j))
	return cityStart[h%uint64(len(cityStart))] + cityEnd[(h>>20)%uint64(len(cityEnd))]
}

// cityZip returns the 5-digit ZIP of the j-th city of state s: a real ZCTA of the state's USPS
// range, or for one city in noZCTAEvery a ZIP of the range that has no ZCTA (as post-office box
// and single-firm ZIPs have none), so that both kinds of address reach every reader.
func (w *world) cityZip(s int, j int) string {
	st := &w.ref.states[s]
	h := hash(w.seed, streamCity, uint64(s), uint64(j), 1)
	if (h>>40)%noZCTAEvery != 0 {
		return st.ZCTAs[h%uint64(len(st.ZCTAs))]
	}
	span := (st.ZipHi - st.ZipLo + 1) * 100
	for k := range span {
		z := fmt.Sprintf("%05d", st.ZipLo*100+(int(h%uint64(span))+k)%span)
		if !st.zctaSet[z] {
			return z
		}
	}
	return st.ZCTAs[0] // every ZIP of the range a ZCTA: not so in any state
}

// noZCTAEvery: one city in noZCTAEvery has a ZIP with no ZCTA.
const noZCTAEvery = 10

// citiesIn is the size of a state's pool of synthetic cities: providers cluster in a few places
// per state, as they do in the real file, which makes city search meaningful.
func (w *world) citiesIn(s int) int {
	return min(60, max(4, int(w.ref.states[s].Pop/250_000)))
}

// randomAddress draws a street address in state s.
func (w *world) randomAddress(r *rng, s int) address {
	n := w.citiesIn(s)
	u := r.Float64()
	j := int(u * u * float64(n)) // skewed towards the first, larger cities
	a := address{
		line1: fmt.Sprintf("%d %s %s", 1+r.IntN(9899), pick(r, streetNames), pick(r, streetTypes)),
		city:  w.cityName(s, j),
		state: w.ref.states[s].Code,
		zip:   w.cityZip(s, j),
		phone: phone(r),
	}
	if r.chance(0.3) {
		a.line2 = fmt.Sprintf("%s %d", pick(r, suiteKinds), 100+r.IntN(900))
	}
	if r.chance(0.6) {
		a.zip += r.digits(4)
	}
	if r.chance(0.45) {
		a.fax = phone(r)
	}
	return a
}

func phone(r *rng) string {
	return strconv.Itoa(2+r.IntN(8)) + r.digits(2) + strconv.Itoa(2+r.IntN(8)) + r.digits(6)
}

// practiceAddress is the base practice address of record i: its own stream, so a facility table
// can read its organization's address without building the provider.
func (w *world) practiceAddress(i int64, s int) address {
	r := newRNG()
	r.reset(w.seed, streamAddress, i)
	return w.randomAddress(r, s)
}

func familyName(r *rng) string { return pick(r, familyStart) + pick(r, familyEnd) }

// orgBaseName is the name of organization i; facilities take it from their city and kind.
// Parent organizations. The registry marks an organization that is part of another a subpart,
// naming its parent's legal business name. A subpart names one of parentNames names, by a hash
// of its index; the last organizations of the base drop that are no certified facility (whose
// names the certification files give) carry them as their legal names: the first and fourth
// name once each (the parent is found), the second and fifth twice each (two organizations of
// one legal name: the parent is ambiguous), the third never (a parent with no NPI of its own).
const parentNames = 5

// parentCarriers lists, from the last such organization on, the parent name each carries.
var parentCarriers = []int64{0, 1, 1, 3, 4, 4}

// parentName is the legal business name of parent k.
func (w *world) parentName(k int64) string {
	r := newRNG()
	r.reset(w.seed, streamParentName, k)
	return familyName(r) + " HEALTH " + pick(r, []string{"SYSTEM", "NETWORK", "PARTNERS"}) + " " + pick(r, orgLegalSuffixes)
}

// carriedParent is the parent name organization record i carries as its legal name, if any.
func (w *world) carriedParent(i int64) (int64, bool) {
	if i >= w.n0 || w.facilityOf(i) >= 0 {
		return 0, false
	}
	j := 0
	for o := w.n0/orgEvery - 1; o > orgOrdinal(i) && j < len(parentCarriers); o-- {
		if w.facilityOf(o*orgEvery+orgEvery-1) < 0 {
			j++
		}
	}
	if j >= len(parentCarriers) {
		return 0, false
	}
	return parentCarriers[j], true
}

func (w *world) orgBaseName(i int64, city string, kinds []string) string {
	r := newRNG()
	r.reset(w.seed, streamOrgName, i)
	switch r.IntN(3) {
	case 0:
		return city + " " + pick(r, kinds)
	case 1:
		return familyName(r) + " " + pick(r, kinds)
	default:
		return pick(r, cityStart) + " " + pick(r, kinds)
	}
}

// provider derives record i as of the world's generation.
func (w *world) provider(r *rng, i int64) *provider {
	p := w.baseProvider(r, i)
	for g := p.gen + 1; g <= w.gen; g++ {
		w.applyChanges(r, p, g)
	}
	return p
}

// baseProvider derives record i as first published.
func (w *world) baseProvider(r *rng, i int64) *provider {
	p := &provider{index: i, npi: w.npi(i), org: isOrg(i), fac: w.facilityOf(i), gen: w.bornIn(i)}
	born := w.snaps[p.gen]
	var lo date = nppesEpoch
	if p.gen > 0 {
		lo = w.snaps[p.gen-1] + 1
	}
	if p.org {
		p.state = w.orgState(i)
	} else {
		p.taxon, p.state = w.indivTaxonState(i)
		p.prof = indivTaxa[p.taxon].prof
	}
	p.practice = w.practiceAddress(i, p.state)

	r.reset(w.seed, streamProvider, i)
	// Dates: a quarter of today's NPIs date from the first two years of enumeration.
	if p.fac >= 0 || p.gen == 0 && r.chance(0.25) {
		p.enumerated = r.between(nppesEpoch, nppesEpoch+730)
	} else {
		p.enumerated = r.between(lo, born-1)
	}
	p.updated = r.between(p.enumerated, born-1)
	if p.gen == 0 {
		// Most records have been touched since enumeration; recent updates are common.
		p.updated = r.between(max(p.enumerated, born-3*365), born-1)
		if r.chance(0.3) {
			p.updated = r.between(p.enumerated, born-1)
		}
	}

	if p.org {
		w.fillOrganization(r, p)
	} else {
		w.fillIndividual(r, p)
	}

	// Mailing address: usually the practice address, otherwise a PO box or another street.
	p.mail = p.practice
	if r.chance(0.3) {
		p.mail = w.randomAddress(r, p.state)
		if r.chance(0.4) {
			p.mail.line1 = fmt.Sprintf("PO BOX %d", 1+r.IntN(99999))
			p.mail.line2 = ""
		}
	}
	// Secondary practice locations (pl_pfile).
	share := shareSecondInd
	if p.org {
		share = shareSecondOrg
	}
	if w.flag(i, flagSecondary, share) {
		n := 1
		if r.chance(0.3) {
			n += 1 + r.IntN(3)
		}
		for k := 0; k < n; k++ {
			s := p.state
			if r.chance(0.2) {
				s = w.ref.stateDist.draw(r)
			}
			p.secondary = append(p.secondary, w.randomAddress(r, s))
		}
	}
	// Other provider identifiers.
	if r.chance(0.3) {
		p.otherIDs = append(p.otherIDs, otherID{id: r.digits(7 + r.IntN(4)), typeCode: "05", state: p.practice.state, issuer: ""})
		if r.chance(0.3) {
			p.otherIDs = append(p.otherIDs, otherID{id: r.digits(8), typeCode: "01", state: p.practice.state, issuer: pick(r, []string{"COMMERCIAL PAYER", "STATE HMO", "PPO NETWORK", "WORKERS COMP", "MEDICARE ADVANTAGE PLAN"})})
		}
	}
	if deact, react := w.deactivatedBase(i); deact || react {
		p.deactivated = r.between(min(p.enumerated+30, born-2), born-2)
		if react {
			p.reactivated = r.between(p.deactivated+1, born-1)
			p.updated = max(p.updated, p.reactivated)
		}
	}
	p.enrollState = p.state
	if w.excludedBase(i) {
		p.excluded = true
		p.leieAddr = p.practice
		p.excludedOn = r.between(max(p.enumerated, born-15*365), born-1)
	}
	return p
}

func (w *world) fillIndividual(r *rng, p *provider) {
	t := &indivTaxa[p.taxon]
	if r.chance(0.5) {
		p.sex, p.first = "F", pick(r, givenFemale)
	} else {
		p.sex, p.first = "M", pick(r, givenMale)
	}
	p.last = familyName(r)
	switch u := r.Float64(); {
	case u < 0.6:
		p.middle = pick(r, middleInitials)
	case u < 0.75:
		if p.sex == "F" {
			p.middle = pick(r, givenFemale)
		} else {
			p.middle = pick(r, givenMale)
		}
	}
	if r.chance(0.2) {
		p.prefix = pick(r, namePrefixes)
	}
	if r.chance(0.03) {
		p.suffix = pick(r, nameSuffixes)
	}
	if r.chance(0.92) {
		p.credential = pick(r, credentials[t.prof])
	}
	if r.chance(0.03) {
		p.otherLast, p.otherFirst, p.otherLastType = familyName(r), p.first, "1"
	}
	p.soleProprietor = pick(r, []string{"N", "N", "N", "Y", "X", "X"})

	// Taxonomies: 1 to 4, one primary. Companions come from the primary's list, else the
	// general pool; a few providers list the primary in a later slot, as the real file does.
	n := 1
	switch u := r.Float64(); {
	case u < 0.04:
		n = 4
	case u < 0.14:
		n = 3
	case u < 0.38:
		n = 2
	}
	codes := []string{t.code}
	for len(codes) < n {
		pool := t.also
		if len(pool) == 0 || r.chance(0.2) {
			pool = generalSecondary
		}
		c := pick(r, pool)
		if !contains(codes, c) {
			codes = append(codes, c)
		} else if r.chance(0.5) {
			break
		}
	}
	lic := licenseNumber(r, t.prof)
	licState := p.practice.state
	primarySlot := 0
	if len(codes) > 1 && r.chance(0.15) {
		primarySlot = 1 + r.IntN(len(codes)-1)
		codes[0], codes[primarySlot] = codes[primarySlot], codes[0]
	}
	for k, c := range codes {
		h := taxonomyHolding{code: c, license: lic, licenseState: licState, primary: k == primarySlot}
		if k > 0 && r.chance(0.25) {
			h.licenseState = w.ref.states[w.ref.stateDist.draw(r)].Code
			h.license = licenseNumber(r, t.prof)
		}
		p.taxonomies = append(p.taxonomies, h)
	}
	if r.chance(0.3) {
		p.certified = r.between(max(p.enumerated, ymd(2012, 1, 1)), p.updated)
	}
}

func (w *world) fillOrganization(r *rng, p *provider) {
	var codes []string
	if p.fac >= 0 {
		f := &w.facilities[p.fac]
		p.orgName = f.legalName
		codes = []string{f.taxonomy}
		if f.dba != "" {
			p.otherNames = append(p.otherNames, otherName{name: f.dba, typeCode: "3"})
		}
	} else {
		p.taxon = w.orgKind(p.index)
		t := &orgTaxa[p.taxon]
		kinds := t.kinds
		name := w.orgBaseName(p.index, p.practice.city, kinds)
		p.orgName = name + " " + pick(r, orgLegalSuffixes)
		if r.chance(0.15) {
			p.orgName = name + ", " + pick(r, orgLegalSuffixes) // "..., LLC": commas in values
		}
		codes = []string{t.code}
		if r.chance(0.2) {
			extra := orgTaxa[w.orgDist.draw(r)].code
			if extra != t.code {
				codes = append(codes, extra)
			}
		}
		if r.chance(0.3) {
			p.otherNames = append(p.otherNames, otherName{name: name, typeCode: "3"})
			if r.chance(0.2) {
				p.otherNames = append(p.otherNames, otherName{name: familyName(r) + " " + pick(r, kinds), typeCode: "5"})
			}
		}
	}
	p.subpart = "N"
	if k, ok := w.carriedParent(p.index); ok {
		p.orgName = w.parentName(k)
	} else if r.chance(0.25) {
		p.subpart = "Y"
		p.parentLBN = w.parentName(int64(hash(w.seed, streamParentName, uint64(p.index)) % parentNames))
		p.parentTIN = r.digits(9)
	}
	if r.chance(0.5) {
		p.aoFirst, p.aoLast = pick(r, givenFemale), familyName(r)
	} else {
		p.aoFirst, p.aoLast = pick(r, givenMale), familyName(r)
	}
	if r.chance(0.5) {
		p.aoMiddle = pick(r, middleInitials)
	}
	p.aoTitle = pick(r, officialTitles)
	p.aoPhone = phone(r)
	if r.chance(0.15) {
		p.aoPrefix = pick(r, namePrefixes)
	}
	if r.chance(0.15) {
		p.aoCredential = pick(r, credentials[profMD])
	}
	for k, c := range codes {
		h := taxonomyHolding{code: c, primary: k == 0}
		if r.chance(0.3) {
			h.license, h.licenseState = strconv.Itoa(10000+r.IntN(900000)), p.practice.state
		}
		p.taxonomies = append(p.taxonomies, h)
	}
	if codes[0] == "193200000X" || codes[0] == "193400000X" {
		if r.chance(0.3) {
			p.taxonomyGroup = codes[0] + " " + map[string]string{"193200000X": "MULTI-SPECIALTY GROUP", "193400000X": "SINGLE SPECIALTY GROUP"}[codes[0]]
		}
	}
}

func licenseNumber(r *rng, prof profession) string {
	return pick(r, licensePrefix[prof]) + strconv.Itoa(1000+r.IntN(999000))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
