package study

import (
	"slices"

	"providerdir/ident"
	"providerdir/stored"
)

// Provider is what the studies read of one registry record.
type Provider struct {
	NPI    string
	Active bool // not deactivated, or reactivated since
	// Organization is true for NPPES entity type 2. A deactivated record publishes no entity
	// type, so it is false there; such a record is left out as deactivated first.
	Organization bool
	State        string   // practice location state as published (USPS code)
	Codes        []string // taxonomy codes of the filled slots, in slot order (repeats possible)
}

// Counted reports whether the studies count p wherever its codes match: an active individual
// practising in one of the 50 states and DC. Tally applies the same rules, reason by reason.
func Counted(p Provider) bool {
	st, ok := ident.LookupState(p.State)
	return p.Active && !p.Organization && ok && st.InThe51()
}

// FromRecord is what the studies read of a registry record.
func FromRecord(rec stored.RegistryRecord) Provider {
	codes := make([]string, len(rec.Taxonomies))
	for i, t := range rec.Taxonomies {
		codes[i] = t.Code
	}
	return Provider{NPI: rec.NPI, Active: rec.Active, Organization: rec.EntityType == stored.EntityOrganization,
		State: rec.PracticeAddress.State, Codes: codes}
}

// Counts are the providers a study counted per state, and those it left out and why.
type Counts struct {
	// States maps a state code of the 51 to its count of active providers.
	States map[string]int64 `json:"states"`
	// Deactivated counts matching registry records left out because the NPI is deactivated.
	Deactivated int64 `json:"deactivated"`
	// Organizations counts active matching records of organizations (entity type 2), left out
	// because the studies count clinicians.
	Organizations int64 `json:"organizations"`
	// OutsideThe51 counts active matching records whose practice state is not one of the 50
	// states and DC (territories, military and foreign addresses, blanks).
	OutsideThe51 int64 `json:"outside_the_51"`
}

func (c *Counts) add(p *Provider, in51 bool, n int64) {
	switch {
	case !p.Active:
		c.Deactivated += n
	case p.Organization:
		c.Organizations += n
	case !in51:
		c.OutsideThe51 += n
	default:
		c.States[p.State] += n
	}
}

// NewCounts returns empty counts, ready for Add.
func NewCounts() Counts { return Counts{States: map[string]int64{}} }

// Add counts one provider that matched a study's codes by the rules Tally applies: into its
// state when Counted, else into the reason it was left out. It is for a study of codes outside
// the registered specialties, which Tally does not hold.
func (c *Counts) Add(p Provider) {
	st, ok := ident.LookupState(p.State)
	c.add(&p, ok && st.InThe51(), 1)
}

// Total is the number of providers counted over the 51.
func (c Counts) Total() int64 {
	var n int64
	for _, v := range c.States {
		n += v
	}
	return n
}

// Tally counts registry providers for every specialty and every registered code at once, so one
// pass over the registry serves all studies. Each NPI counts at most once per specialty and once
// per code, however many of its taxonomy slots carry the code (a physician licensed in two
// states lists the same code twice).
type Tally struct {
	specialty map[string]*Counts // by slug
	code      map[string]*Counts // by taxonomy code
	bySlug    map[string][]string
}

// NewTally returns an empty tally over the registered specialties.
func NewTally() *Tally {
	t := &Tally{specialty: map[string]*Counts{}, code: map[string]*Counts{}, bySlug: map[string][]string{}}
	for _, s := range registry {
		t.specialty[s.Slug] = &Counts{States: map[string]int64{}}
		t.bySlug[s.Slug] = s.Codes
		for _, c := range s.Codes {
			t.code[c] = &Counts{States: map[string]int64{}}
		}
	}
	return t
}

// Add counts one registry record and reports whether it matched any registered code.
func (t *Tally) Add(p Provider) bool { return t.count(p, 1) }

// Remove takes back what Add counted for p: a registry record that changed since is removed
// with what it was and added with what it is, so a tally follows a registry update without a
// pass over the whole registry.
func (t *Tally) Remove(p Provider) bool { return t.count(p, -1) }

// count adds n to every count p falls in.
func (t *Tally) count(p Provider, n int64) bool {
	st, ok := ident.LookupState(p.State)
	in51 := ok && st.InThe51()
	matched := false
	for i, c := range p.Codes {
		counts, ok := t.code[c]
		if !ok || slices.Contains(p.Codes[:i], c) {
			continue
		}
		matched = true
		counts.add(&p, in51, n)
	}
	if !matched {
		return false
	}
	for _, s := range registry {
		if slices.ContainsFunc(p.Codes, s.Supports) {
			t.specialty[s.Slug].add(&p, in51, n)
		}
	}
	return true
}

// Specialty returns the counts of a specialty (every registered code of it).
func (t *Tally) Specialty(slug string) Counts { return *t.specialty[slug] }

// Code returns the counts of one registered code.
func (t *Tally) Code(code string) Counts { return *t.code[code] }

// TallyOf returns the tally the studies were built from (Build's output, in any order): each
// study keeps its counts per state of the 51 and the records it left out and why, which is all
// a tally holds.
func TallyOf(studies []Study) *Tally {
	t := NewTally()
	for _, s := range studies {
		c := t.specialty[s.Specialty]
		if s.Filter != nil {
			c = t.code[s.Filter.Code]
		}
		if c == nil {
			continue // a specialty or code this build does not register
		}
		c.Deactivated, c.Organizations, c.OutsideThe51 = s.Deactivated, s.Organizations, s.OutsideThe51
		for _, r := range s.Rows {
			if r.ActiveProviders != 0 {
				c.States[r.StateCode] = r.ActiveProviders
			}
		}
	}
	return t
}
