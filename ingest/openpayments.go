package ingest

import (
	"context"
	"errors"
	"strings"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/openpayments"
	"providerdir/store"
	"providerdir/stored"
)

var generalPayments = pattern(`OP_DTL_GNRL_PGY\d{4}_P\d{8}\.csv`)

// loadOpenPayments stores general payments, each tied to a registry NPI as strongly as the
// evidence allows (see stored.MatchConfidence); the match strength is the record's confidence.
func loadOpenPayments(ctx context.Context, l *familyLoad, files []sourceFile) error {
	gen, err := l.run.readGeneration(ctx, catalog.RegistryProviders)
	if err != nil {
		return err
	}
	m := &registryMatcher{st: l.run.opts.Store, gen: gen, byNPI: map[string]string{}, byName: map[nameKey][2]string{}}
	prepare := func(batch []openpayments.Payment) error { return m.prepare(ctx, batch) }
	for _, f := range filesMatching(files, generalPayments) {
		snap := l.snapshotOfFiles(stored.OpenPayments, []sourceFile{f})
		err := loadPrepared(ctx, l, []sourceFile{f}, generalPayments, openpayments.NewReader, catalog.Payments, prepare, func(p *openpayments.Payment) (store.Document, bool, error) {
			npi, method, err := m.match(ctx, p)
			if err != nil {
				return store.Document{}, false, err
			}
			rec, keys := mapping.Payment(p, npi, method)
			doc, err := stored.NewDocument(p.RecordID, rec, snap.Provenance(rec.Match.Confidence), keys)
			return doc, true, err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// registryMatcher ties payment recipients to registry NPIs. Recipients recur across thousands of
// payments, so answers are cached; the caches are cleared when large, bounding memory. A batch
// of payments is prepared first: the look-ups its recipients need are made concurrently, since
// each reads the registry from disk and one at a time they left the processors mostly waiting.
type registryMatcher struct {
	st     store.Store
	gen    string            // registry generation; "" when no registry is loaded
	byNPI  map[string]string // NPI -> normalized registry last name ("" when absent)
	byName map[nameKey][2]string
	// matchKeys is 1 when the registry carries the matching keys, -1 when it does not (written
	// by an earlier version), 0 until known.
	matchKeys int
}

type nameKey struct{ last, first, state, zip string }

const matcherCacheMax = 200_000

// matchLookups is how many registry look-ups prepare has in flight at a time.
const matchLookups = 8

// prepare makes the registry look-ups that matching batch needs and caches their answers, up
// to matchLookups at a time, so that match finds them cached.
func (m *registryMatcher) prepare(ctx context.Context, batch []openpayments.Payment) error {
	if m.gen == "" {
		return nil
	}
	var npis []string
	var names []nameKey
	seenNPI, seenName := map[string]bool{}, map[nameKey]bool{}
	for i := range batch {
		p := &batch[i]
		if p.NPI != "" {
			if _, ok := m.byNPI[p.NPI]; !ok && !seenNPI[p.NPI] {
				seenNPI[p.NPI] = true
				npis = append(npis, p.NPI)
			}
		} else if k, ok := nameKeyOf(p); ok {
			if _, ok := m.byName[k]; !ok && !seenName[k] {
				seenName[k] = true
				names = append(names, k)
			}
		}
	}
	if len(names) > 0 {
		if err := m.learnMatchKeys(ctx); err != nil {
			return err
		}
	}
	lasts := make([]string, len(npis))
	hits := make([][2]string, len(names))
	err := concurrently(ctx, len(npis)+len(names), matchLookups, func(ctx context.Context, i int) (err error) {
		if i < len(npis) {
			lasts[i], err = m.registryLastName(ctx, npis[i])
			return err
		}
		i -= len(npis)
		hits[i][0], hits[i][1], err = m.byNameLookup(ctx, names[i])
		return err
	})
	if err != nil {
		return err
	}
	if len(m.byNPI)+len(npis) > matcherCacheMax {
		clear(m.byNPI)
	}
	for i, npi := range npis {
		m.byNPI[npi] = lasts[i]
	}
	if len(m.byName)+len(names) > matcherCacheMax {
		clear(m.byName)
	}
	for i, k := range names {
		m.byName[k] = hits[i]
	}
	return nil
}

// nameKeyOf is the key a payment without an NPI is matched by, if it names enough to match.
func nameKeyOf(p *openpayments.Payment) (nameKey, bool) {
	last := stored.NormalizeText(p.LastName)
	if last == "" || p.FirstName == "" {
		return nameKey{}, false
	}
	zip := p.ZIP
	if len(zip) > 5 {
		zip = zip[:5]
	}
	return nameKey{last, stored.NormalizeText(p.FirstName), p.State, zip}, true
}

func (m *registryMatcher) match(ctx context.Context, p *openpayments.Payment) (npi, method string, err error) {
	if p.NPI != "" {
		if m.gen == "" {
			return p.NPI, stored.MatchNPIUnverified, nil
		}
		regLast, ok := m.byNPI[p.NPI]
		if !ok {
			if regLast, err = m.registryLastName(ctx, p.NPI); err != nil {
				return "", "", err
			}
			if len(m.byNPI) >= matcherCacheMax {
				clear(m.byNPI)
			}
			m.byNPI[p.NPI] = regLast
		}
		last := stored.NormalizeText(p.LastName)
		switch {
		case regLast == "\x00":
			return p.NPI, stored.MatchNPINotInRegistry, nil
		case regLast == last:
			return p.NPI, stored.MatchNPIAndName, nil
		}
		return p.NPI, stored.MatchNPIOnly, nil
	}
	k, ok := nameKeyOf(p)
	if m.gen == "" || !ok {
		return "", stored.MatchNone, nil
	}
	if hit, ok := m.byName[k]; ok {
		return hit[0], hit[1], nil
	}
	npi, method, err = m.byNameLookup(ctx, k)
	if err != nil {
		return "", "", err
	}
	if len(m.byName) >= matcherCacheMax {
		clear(m.byName)
	}
	m.byName[k] = [2]string{npi, method}
	return npi, method, nil
}

// registryLastName returns the normalized last name the registry holds for an NPI, or "\x00"
// when the NPI is not in the registry.
func (m *registryMatcher) registryLastName(ctx context.Context, npi string) (string, error) {
	doc, err := m.st.Get(ctx, m.gen, catalog.RegistryProviders, npi)
	if errors.Is(err, store.ErrNotFound) {
		return "\x00", nil
	}
	if err != nil {
		return "", err
	}
	body, err := stored.DecodeBody[struct {
		Name *stored.PersonName `json:"name"`
	}](doc)
	if err != nil || body.Record.Name == nil {
		return "", err
	}
	return stored.NormalizeText(body.Record.Name.Last), nil
}

// byNameLookup finds the one active individual with the recipient's name in the state and, more
// strongly, at the ZIP code. Two or more candidates are no match: guessing would misattribute
// money to a namesake. A registry written with the matching keys answers each question from
// one posting list; one written before them, by intersecting the name, state, entity and
// status keys (whose lists grow with the registry).
func (m *registryMatcher) byNameLookup(ctx context.Context, k nameKey) (string, string, error) {
	if err := m.learnMatchKeys(ctx); err != nil {
		return "", "", err
	}
	if m.matchKeys > 0 && !strings.Contains(k.state, "|") && !strings.Contains(k.zip, "|") {
		return m.byMatchKey(ctx, k)
	}
	where := []store.Condition{
		{Param: stored.KeyFamily, Values: []string{k.last}},
		{Param: stored.KeyGiven, Values: []string{k.first}},
		{Param: stored.KeyState, Values: []string{k.state}},
		{Param: stored.KeyEntity, Values: []string{"individual"}},
		{Param: stored.KeyActive, Values: []string{"true"}},
	}
	if k.zip != "" {
		page, err := m.st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: m.gen, Limit: 2,
			Where: append(where, store.Condition{Param: stored.KeyPostal, Values: []string{k.zip}})})
		if err != nil {
			return "", "", err
		}
		if len(page.Docs) == 1 {
			return page.Docs[0].ID, stored.MatchNameAddress, nil
		}
	}
	page, err := m.st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: m.gen, Limit: 2, Where: where})
	if err != nil {
		return "", "", err
	}
	if len(page.Docs) == 1 {
		return page.Docs[0].ID, stored.MatchNameState, nil
	}
	return "", stored.MatchNone, nil
}

// learnMatchKeys sets matchKeys, once. Concurrent look-ups only read it: prepare calls this
// before it starts them.
func (m *registryMatcher) learnMatchKeys(ctx context.Context) error {
	if m.matchKeys != 0 {
		return nil
	}
	page, err := m.st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: m.gen, Limit: 1,
		Where: []store.Condition{{Param: stored.KeyMatchState, Values: []string{""}, Match: store.Prefix}}})
	if err != nil {
		return err
	}
	m.matchKeys = -1
	if len(page.Docs) > 0 {
		m.matchKeys = 1
	}
	return nil
}

// byMatchKey is byNameLookup on a registry that carries the matching keys.
func (m *registryMatcher) byMatchKey(ctx context.Context, k nameKey) (string, string, error) {
	one := func(param, value string) (string, error) {
		page, err := m.st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: m.gen, Limit: 2,
			Where: []store.Condition{{Param: param, Values: []string{value}}}})
		if err != nil || len(page.Docs) != 1 {
			return "", err
		}
		return page.Docs[0].ID, nil
	}
	if k.zip != "" {
		npi, err := one(stored.KeyMatchZip, stored.MatchKey(k.last, k.first, k.state, k.zip))
		if err != nil || npi != "" {
			return npi, stored.MatchNameAddress, err
		}
	}
	npi, err := one(stored.KeyMatchState, stored.MatchKey(k.last, k.first, k.state))
	if err != nil || npi != "" {
		return npi, stored.MatchNameState, err
	}
	return "", stored.MatchNone, nil
}
