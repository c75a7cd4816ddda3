package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"providerdir/catalog"
	"providerdir/mapping/study"
	"providerdir/source/nppes"
	"providerdir/source/nucc"
	"providerdir/store"
	"providerdir/stored"
)

// Search-key params of study documents.
const (
	KeySpecialty = "specialty"
	KeyCode      = "code"
)

// studiesOutdated reports whether the serving studies were computed with another methodology
// version than this build's. All studies of a generation share one version, so one is read.
func studiesOutdated(ctx context.Context, st store.Store, serving store.Snapshot) (bool, error) {
	gen := serving.Generation(catalog.SupplyStudies)
	if gen == "" {
		return false, nil
	}
	d, err := st.Get(ctx, gen, catalog.SupplyStudies, study.ID(study.Specialties()[0].Slug, ""))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var v struct {
		MethodologyVersion string `json:"methodology_version"`
	}
	if err := json.Unmarshal(d.Body, &v); err != nil {
		return false, fmt.Errorf("supply: decode study %s: %w", d.ID, err)
	}
	return v.MethodologyVersion != study.MethodologyVersion, nil
}

// registryView is the part of a stored registry document the studies read: decoding only it
// keeps the pass over the registry cheap.
type registryView struct {
	Record struct {
		NPI        string `json:"npi"`
		Active     bool   `json:"active"`
		EntityType string `json:"entity_type"`
		Taxonomies []struct {
			Code string `json:"code"`
		} `json:"taxonomies"`
		PracticeAddress struct {
			State string `json:"state"`
		} `json:"practice_address"`
	} `json:"record"`
	Provenance stored.Provenance `json:"provenance"`
}

// provider is what the studies count of a registry document.
func (v *registryView) provider() study.Provider {
	codes := make([]string, len(v.Record.Taxonomies))
	for i, tx := range v.Record.Taxonomies {
		codes[i] = tx.Code
	}
	return study.Provider{NPI: v.Record.NPI, Active: v.Record.Active, State: v.Record.PracticeAddress.State, Codes: codes,
		Organization: v.Record.EntityType == nppes.EntityOrganization.String()}
}

// buildSupply computes the studies. Without a registry or Census figures there is nothing to
// compute and the collection is left empty (the API then answers that no study exists); a
// Census file without all of the 51 fails the ingest, since every study would be wrong.
func buildSupply(ctx context.Context, p *Projection) error {
	in, regGen, err := studyInputs(ctx, p)
	if err != nil || regGen == "" {
		return err
	}
	tally := study.NewTally()
	held := p.run.registry
	p.run.registry = nil // counted once; the FHIR projection that follows has its memory
	if held != nil && regGen == p.run.gen && held.tally(tally) {
		in.Registry = held.prov // counted while the registry loaded
	} else if in.Registry, err = tallyRegistry(ctx, p.Store(), regGen, tally); err != nil {
		return err
	}
	return emitStudies(ctx, p, tally, in)
}

// updateSupply recomputes the studies after a weekly NPPES delta: the serving studies' counts
// are the tally they were built from (study.TallyOf), from which each changed record's old
// contribution is taken and its new one added. The result is what buildSupply computes from the
// whole registry with the week applied.
func updateSupply(ctx context.Context, p *Projection) error {
	in, regGen, err := studyInputs(ctx, p)
	if err != nil || regGen == "" {
		return err
	}
	var serving []study.Study
	err = eachDoc(ctx, p.Store(), store.Query{Collection: catalog.SupplyStudies, Generation: p.run.serving.Generation(catalog.SupplyStudies)},
		func(d *store.Document) error {
			var s study.Study
			if err := json.Unmarshal(d.Body, &s); err != nil {
				return fmt.Errorf("supply: decode study %s: %w", d.ID, err)
			}
			serving = append(serving, s)
			return nil
		})
	if err != nil {
		return err
	}
	tally := study.TallyOf(serving)
	d := p.run.delta
	for _, npi := range d.npis {
		if old, ok := d.old[npi]; ok {
			tally.Remove(old)
		}
		if now, ok := d.new[npi]; ok {
			tally.Add(now)
		}
	}
	in.Registry = d.prov
	return emitStudies(ctx, p, tally, in)
}

// studyInputs reads what the studies are computed from besides the registry tally, and the
// generation the registry is read at; "" (and no error) when the registry or the Census figures
// were never loaded.
func studyInputs(ctx context.Context, p *Projection) (study.Inputs, string, error) {
	regGen, err := p.Generation(ctx, catalog.RegistryProviders)
	if err != nil {
		return study.Inputs{}, "", err
	}
	censusGen, err := p.Generation(ctx, catalog.CensusStates)
	if err != nil {
		return study.Inputs{}, "", err
	}
	if regGen == "" || censusGen == "" {
		p.run.opts.Log.Info("supply studies not computed: registry or Census figures not loaded")
		return study.Inputs{}, "", nil
	}
	states, censusProv, err := readThe51(ctx, p.Store(), censusGen)
	if err != nil {
		return study.Inputs{}, "", err
	}
	in := study.Inputs{States: states, Census: censusProv}
	if in.Names, in.Taxonomy, err = readDisplayNames(ctx, p); err != nil {
		return study.Inputs{}, "", err
	}
	return in, regGen, nil
}

// emitStudies writes the studies of a finished tally.
func emitStudies(ctx context.Context, p *Projection, tally *study.Tally, in study.Inputs) error {
	for _, st := range study.Build(tally, in) {
		code := ""
		if st.Filter != nil {
			code = st.Filter.Code
		}
		body, err := json.Marshal(st)
		if err != nil {
			return err
		}
		var k stored.Keys
		k.Add(KeySpecialty, st.Specialty)
		k.Add(KeyCode, code)
		if err := p.Emit(ctx, catalog.SupplyStudies, store.Document{ID: study.ID(st.Specialty, code), Body: body, Keys: k}); err != nil {
			return err
		}
	}
	return nil
}

// readThe51 reads the state populations of the 51 and the Census provenance.
func readThe51(ctx context.Context, st store.Store, gen string) ([]study.Row, stored.Provenance, error) {
	page, err := st.Find(ctx, store.Query{Collection: catalog.CensusStates, Generation: gen, Limit: 1000})
	if err != nil {
		return nil, stored.Provenance{}, err
	}
	var out []study.Row
	var prov stored.Provenance
	for _, d := range page.Docs {
		b, err := stored.DecodeBody[stored.CensusStateRecord](d)
		if err != nil {
			return nil, prov, fmt.Errorf("supply: decode Census state %s: %w", d.ID, err)
		}
		if !b.Record.InThe51 {
			continue
		}
		out = append(out, study.Row{StateCode: b.Record.Code, StateName: b.Record.Name, Population: b.Record.Population})
		prov = b.Provenance
	}
	if len(out) != 51 {
		return nil, prov, fmt.Errorf("supply: the Census state figures hold %d of the 51 states and DC", len(out))
	}
	return out, prov, nil
}

// readDisplayNames reads the NUCC display names of the registered codes; without a NUCC code
// set it returns no names (the studies then show the codes).
func readDisplayNames(ctx context.Context, p *Projection) (map[string]string, *stored.Provenance, error) {
	gen, err := p.Generation(ctx, catalog.NUCCTaxonomy)
	if err != nil || gen == "" {
		return nil, nil, err
	}
	names := map[string]string{}
	var prov *stored.Provenance
	for _, code := range study.AllCodes() {
		d, err := p.Store().Get(ctx, gen, catalog.NUCCTaxonomy, code)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		b, err := stored.DecodeBody[nucc.Taxonomy](d)
		if err != nil {
			return nil, nil, fmt.Errorf("supply: decode NUCC code %s: %w", code, err)
		}
		names[code] = b.Record.DisplayName
		prov = &b.Provenance
	}
	return names, prov, nil
}

// tallyRegistry counts every registry record holding a registered code, found through the
// taxonomy search key so that the rest of the registry is never read, and returns the registry
// snapshot's provenance.
func tallyRegistry(ctx context.Context, st store.Store, gen string, t *study.Tally) (stored.Provenance, error) {
	q := store.Query{Collection: catalog.RegistryProviders, Generation: gen, Limit: 2000,
		Where: []store.Condition{{Param: stored.KeyTaxonomy, Values: study.AllCodes()}}}
	var prov stored.Provenance
	seen := false
	err := store.EachDocument(ctx, st, q, func(d *store.Document) error {
		var v registryView
		if err := json.Unmarshal(d.Body, &v); err != nil {
			return fmt.Errorf("supply: decode registry record %s: %w", d.ID, err)
		}
		t.Add(v.provider())
		if !seen {
			prov, seen = v.Provenance, true
		}
		return nil
	})
	if err != nil {
		return prov, err
	}
	if seen {
		return prov, nil
	}
	// No record holds a registered code: the studies are all zeros, stamped with the registry
	// snapshot all the same.
	page, err := st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: gen, Limit: 1})
	if err != nil || len(page.Docs) == 0 {
		return prov, err
	}
	var v registryView
	err = json.Unmarshal(page.Docs[0].Body, &v)
	return v.Provenance, err
}
