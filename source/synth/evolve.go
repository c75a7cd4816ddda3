package synth

import "strconv"

// Evolved snapshots. Generation g of a drop is generation g-1 plus a known set of changes, each
// drawn from (seed, g, record) alone: a record is moved, given a taxonomy, excluded or
// deactivated in generation g when its hashed draw falls in that kind's band, and a block of new
// records is appended. Recomputing a record at generation g replays generations 1..g, so any
// drop can be rebuilt from its manifest, and the change lists come out of the same computation
// that writes the rows.

// Per-generation change rates, floored so that even a small drop shows several of each kind
// (about eight expected at 2,000 providers), the floor capped so tiny drops are not rewritten.
func (w *world) changeRates() (move, taxonomy, exclude, deactivate float64) {
	floor := min(8/float64(w.n0), 0.1)
	return max(0.01, floor), max(0.01, floor), max(0.004, floor), max(0.004, floor)
}

// applyChanges applies generation g's change, if any, to p and reports it when g is the
// generation being written.
func (w *world) applyChanges(r *rng, p *provider, g int) {
	i := p.index
	u := unit(hash(w.seed, streamEvolve, uint64(g), uint64(i)))
	pm, pt, pe, pd := w.changeRates()
	prev, snap := w.snaps[g-1], w.snaps[g]
	r.reset(w.seed, streamEvolve+uint64(g)<<8, i)
	var kind string
	var ch Change
	switch {
	case u < pm:
		if !p.active() || p.fac >= 0 {
			return
		}
		from := p.state
		to := from
		for k := 0; k < 8 && to == from; k++ {
			to = w.ref.stateDist.draw(r)
		}
		if to == from {
			return
		}
		p.state = to
		p.practice = w.randomAddress(r, to)
		p.mail = p.practice
		p.updated = r.between(prev+1, snap)
		p.moved = g
		kind, ch = ChangeMoved, Change{Key: p.npi, From: w.ref.states[from].Code, To: w.ref.states[to].Code}
	case u < pm+pt:
		if p.org || !p.active() || len(p.taxonomies) >= 15 {
			return
		}
		code := w.newTaxonomyFor(r, p)
		if code == "" {
			return
		}
		prim := p.taxonomies[0]
		for _, t := range p.taxonomies {
			if t.primary {
				prim = t
			}
		}
		p.taxonomies = append(p.taxonomies, taxonomyHolding{code: code, license: prim.license, licenseState: prim.licenseState})
		p.updated = r.between(prev+1, snap)
		p.taxAdd++
		kind, ch = ChangeTaxonomyAdded, Change{Key: p.npi, To: code}
	case u < pm+pt+pe:
		if p.org || p.excluded || !p.active() {
			return
		}
		p.excluded = true
		p.excludedOn = r.between(prev+1, snap)
		p.leieAddr = p.practice
		kind, ch = ChangeNewlyExcluded, Change{Key: p.npi, To: p.excludedOn.iso()}
	case u < pm+pt+pe+pd:
		if p.org || !p.active() {
			return
		}
		p.deactivated = r.between(prev+1, snap)
		p.reactivated = 0
		kind, ch = ChangeDeactivated, Change{Key: p.npi, To: p.deactivated.iso()}
	default:
		return
	}
	if g == w.gen {
		p.changes = append(p.changes, pendingChange{kind, ch})
	}
}

// newTaxonomyFor picks a code p does not hold: a companion of its primary taxonomy if one is
// free, otherwise a registered code, so that gains show up in specialty counts.
func (w *world) newTaxonomyFor(r *rng, p *provider) string {
	var pool []string
	for _, c := range indivTaxa[p.taxon].also {
		if !p.hasCode(c) {
			pool = append(pool, c)
		}
	}
	if len(pool) == 0 {
		for _, s := range Specialties {
			for _, c := range s.Codes {
				if !p.hasCode(c) {
					pool = append(pool, c)
				}
			}
		}
	}
	if len(pool) == 0 {
		return ""
	}
	return pick(r, pool)
}

// pendingChange is a change of the generation being written, carried on the provider record
// until its rows are written.
type pendingChange struct {
	kind string
	ch   Change
}

// changeSet collects the changes of the generation being written.
type changeSet struct{ c Changes }

func (s *changeSet) add(kind string, ch Change) {
	switch kind {
	case ChangeMoved:
		s.c.Moved = append(s.c.Moved, ch)
	case ChangeTaxonomyAdded:
		s.c.TaxonomyAdded = append(s.c.TaxonomyAdded, ch)
	case ChangeNewlyExcluded:
		s.c.NewlyExcluded = append(s.c.NewlyExcluded, ch)
	case ChangeDeactivated:
		s.c.Deactivated = append(s.c.Deactivated, ch)
	case ChangeNewProvider:
		s.c.NewProviders = append(s.c.NewProviders, ch)
	case ChangeFacilityRating:
		s.c.FacilityRating = append(s.c.FacilityRating, ch)
	case ChangeFacilityTerminated:
		s.c.FacilityTerminated = append(s.c.FacilityTerminated, ch)
	}
}

// Facility changes: per generation a few facilities terminate and a share get a new star rating.
func (w *world) facilityRates() (terminate, rating float64) {
	n := float64(max(1, len(w.facilities)))
	return max(0.01, 2/n), max(0.08, 6/n)
}

// facilityTerminatedAt returns the generation (<= g) at which f left Medicare, or -1.
func (w *world) facilityTerminatedAt(f *facility, g int) int {
	if f.terminated == 0 {
		return 0
	}
	pt, _ := w.facilityRates()
	for h := 1; h <= g; h++ {
		if unit(hash(w.seed, streamEvolve, uint64(h), uint64(f.j), 1)) < pt {
			return h
		}
	}
	return -1
}

func (w *world) terminationDate(f *facility, term int) date {
	r := newRNG()
	r.reset(w.seed, streamFacility, int64(f.j)+3<<40)
	if term == 0 {
		return r.between(f.certified+365, w.snaps[0]-30)
	}
	return r.between(w.snaps[term-1]+1, w.snaps[term])
}

// Star ratings: 1-5, or 0 for "Not Available". Psychiatric hospitals and ambulatory surgical
// centers have no overall star.
func (w *world) hasStar(f *facility) bool {
	return f.kind != kindASC && (f.kind != kindHospital || hospitalSubtypes[f.hospSub].posSubtype != "04")
}

func starFrom(h uint64) int {
	switch u := unit(h); {
	case u < 0.12:
		return 0
	case u < 0.19:
		return 1
	case u < 0.37:
		return 2
	case u < 0.66:
		return 3
	case u < 0.89:
		return 4
	default:
		return 5
	}
}

// rating returns f's overall star at generation g. A rating change moves an available star to a
// different available star, so every listed change is visible in the files.
func (w *world) rating(f *facility, g int) int {
	if !w.hasStar(f) {
		return 0
	}
	star := starFrom(hash(w.seed, streamRating, uint64(f.j)))
	_, pr := w.facilityRates()
	for h := 1; h <= g; h++ {
		if star == 0 || w.facilityTerminatedAt(f, h) >= 0 {
			continue
		}
		if unit(hash(w.seed, streamEvolve, uint64(h), uint64(f.j), 2)) < pr {
			next := 1 + int(hash(w.seed, streamRating, uint64(f.j), uint64(h))%5)
			if next == star {
				next = star%5 + 1
			}
			star = next
		}
	}
	return star
}

func starText(s int) string {
	if s == 0 {
		return "Not Available"
	}
	return strconv.Itoa(s)
}
