package synth

import (
	"fmt"
)

// facility is one Medicare-certified facility: an organization record of NPPES that also has a
// CCN in POS, an enrollment in PECOS and (unless terminated) a row in its Care Compare file.
type facility struct {
	j         int
	org       int64 // provider index of the organization
	kind      facilityKind
	hospSub   int // hospitalSubtypes index, hospitals only
	state     int
	ccn       string
	taxonomy  string
	name      string // the name Care Compare and POS print
	legalName string // the NPPES legal business name
	dba       string
	addr      address
	county    countyRef
	certified date // original participation / certification date
	ownership int  // index into the kind's ownership labels
	beds      int
	// terminated is the generation at which the facility left Medicare (POS termination code
	// set, Care Compare row gone); -1 while active.
	terminated int
}

// ccnSlot tracks the next free CCN number of one (state code, number range).
type ccnSlot struct{ next, hi int }

// buildFacilities lays out the facility table: which organizations are facilities, their kind,
// and their CCNs. CCN numbers are sequential within the SOM 2779 range of their kind in their
// state (from a seeded start), moving to the state's overflow codes when a range fills, so they
// are unique and their first two characters are always a state code of the facility's state.
func (w *world) buildFacilities() error {
	orgs := (w.n0 + 1) / orgEvery // records with isOrg(i) and i < n0
	n := max(min(int64(minFacilities), orgs), w.n0/facilitiesPer)
	n = min(n, orgs)
	if n < 1 {
		n = 1
	}
	w.facilityEvery = max(1, orgs/n)
	kw := make([]float64, numFacilityKinds)
	for k := range kw {
		kw[k] = facilityKinds[k].weight
	}
	kindDist := newCumulative(kw)
	slots := map[string]*ccnSlot{}
	w.facilities = make([]facility, 0, n)
	r := newRNG()
	for j := int64(0); j < n; j++ {
		i := orgIndex(j * w.facilityEvery)
		f := facility{j: int(j), org: i, state: w.orgState(i), terminated: -1}
		// The first 30 cycle through the kinds so that every kind exists at any scale; the rest
		// follow the kind shares.
		if j < 5*int64(numFacilityKinds) {
			f.kind = facilityKind(j % int64(numFacilityKinds))
		} else {
			f.kind = facilityKind(kindDist.at(r1(w.seed, streamFacilityKind, j)))
		}
		r.reset(w.seed, streamFacility, j)
		info := &facilityKinds[f.kind]
		f.taxonomy = info.taxonomy
		ranges := info.ranges
		if f.kind == kindHospital {
			f.hospSub = w.hospDist.draw(r)
			h := hospitalSubtypes[f.hospSub]
			f.taxonomy = h.taxonomy
			ranges = [][2]int{{h.lo, h.hi}}
		}
		var err error
		if f.ccn, err = w.assignCCN(r, slots, &f, ranges); err != nil {
			return err
		}
		r.reset(w.seed, streamAddress, i)
		f.addr = w.randomAddress(r, f.state)
		r.reset(w.seed, streamFacility, j+1<<40)
		f.name = w.orgBaseName(i, f.addr.city, info.nameKinds)
		f.legalName = f.name
		if r.chance(0.5) {
			f.legalName = f.name + " " + pick(r, orgLegalSuffixes)
		}
		if r.chance(0.2) {
			f.dba = f.name
			f.legalName = familyName(r) + " HEALTH " + pick(r, orgLegalSuffixes)
		}
		st := &w.ref.states[f.state]
		f.county = st.Counties[st.countyDist.draw(r)]
		f.certified = r.between(ymd(1966, 7, 1), w.snaps[0]-400)
		if f.kind == kindASC || f.kind == kindHospice || f.kind == kindDialysis {
			f.certified = r.between(ymd(1983, 1, 1), w.snaps[0]-400)
		}
		f.ownership = r.IntN(len(ownershipLabels[f.kind]))
		switch f.kind {
		case kindHospital:
			f.beds = 10 + r.IntN(600)
			if f.hospSub == 1 {
				f.beds = 5 + r.IntN(21)
			}
		case kindNursingHome:
			f.beds = 30 + r.IntN(200)
		case kindDialysis:
			f.beds = 8 + r.IntN(30) // stations
		}
		if r.chance(0.03) {
			f.terminated = 0
		}
		w.facilities = append(w.facilities, f)
	}
	return nil
}

func (w *world) assignCCN(r *rng, slots map[string]*ccnSlot, f *facility, ranges [][2]int) (string, error) {
	st := &w.ref.states[f.state]
	for _, code := range st.CCNCodes {
		for ri, rg := range ranges {
			key := fmt.Sprintf("%s/%d/%d", code, f.kind, rg[0])
			s := slots[key]
			if s == nil {
				span := rg[1] - rg[0] + 1
				start := rg[0]
				if ri == 0 {
					// A seeded start inside the first eighth of the range (at most 9,000 numbers
					// in, for the wide supplier range of ambulatory surgical centers).
					start += int(hash(w.seed, streamCCN, uint64(f.state), uint64(f.kind), uint64(rg[0])) % uint64(max(1, min(span/8, 9000))))
				}
				s = &ccnSlot{next: start, hi: rg[1]}
				slots[key] = s
			}
			if s.next > s.hi {
				continue
			}
			n := s.next
			s.next++
			if r.chance(0.1) {
				s.next++ // an occasional gap, as numbers of closed facilities are not reused
			}
			if f.kind == kindASC {
				return fmt.Sprintf("%sC%07d", code, n), nil
			}
			return fmt.Sprintf("%s%04d", code, n), nil
		}
	}
	// Every range of every code of the state is full: only possible far beyond national scale.
	return "", fmt.Errorf("synth: no CCN numbers left for %s in %s", facilityKinds[f.kind].slug, st.Code)
}

// Ownership labels per kind, as each Care Compare file spells them, with the POS
// GNRL_CNTL_TYPE_CD they correspond to.
type ownership struct{ label, posCode string }

var ownershipLabels = [numFacilityKinds][]ownership{
	kindHospital: {
		{"Voluntary non-profit - Private", "02"}, {"Voluntary non-profit - Other", "03"},
		{"Voluntary non-profit - Church", "01"}, {"Proprietary", "04"},
		{"Government - Hospital District or Authority", "09"}, {"Government - Local", "08"},
		{"Government - State", "07"}, {"Physician", "04"},
	},
	kindNursingHome: {
		{"For profit - Corporation", "04"}, {"For profit - Limited Liability company", "04"},
		{"For profit - Partnership", "04"}, {"Non profit - Corporation", "01"},
		{"Non profit - Church related", "01"}, {"Government - County", "06"},
	},
	kindHomeHealth: {
		{"PROPRIETARY", "04"}, {"VOLUNTARY NON PROFIT - PRIVATE", "02"},
		{"VOLUNTARY NON PROFIT - RELIGIOUS AFFILIATION", "01"}, {"GOVERNMENT - STATE/COUNTY", "06"},
	},
	kindHospice: {
		{"For-Profit", "04"}, {"Non-Profit", "02"}, {"Government", "06"}, {"Combination Government & Non-Profit", "05"},
	},
	kindDialysis: {{"Profit", "04"}, {"Non-profit", "02"}},
	kindASC:      {{"Proprietary", "04"}, {"Non-Profit", "02"}},
}
