package supply

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/internal/safetext"
	"providerdir/rest"
	"providerdir/store"
	"providerdir/stored"
)

// CountyContext is the county a by-county request named, as the Census county file lists it.
type CountyContext struct {
	FIPS       Field `json:"fips"`
	Name       Field `json:"name"`
	StateCode  Field `json:"state_code"`
	Population Field `json:"population_2024"`
}

// CountySupply is the data of GET /v1/specialties/{code}/by-county.
type CountySupply struct {
	// StateLevelSupply is the state's row of the study: the registry has no county of practice.
	StateLevelSupply StateRow      `json:"state_level_supply"`
	County           CountyContext `json:"county"`
}

// byCounty serves GET /v1/specialties/{code}/by-county?state=..&county_fips=..: the state's row
// of the study as a proxy for the county, which meta.geo_scope_note names (rule 6).
func (a *API) byCounty(w http.ResponseWriter, r *http.Request) {
	sp, ok := specialtyOf(w, r)
	if !ok {
		return
	}
	qs := r.URL.Query()
	state := strings.ToUpper(strings.TrimSpace(qs.Get("state")))
	fips := strings.TrimSpace(qs.Get("county_fips"))
	switch {
	case state == "":
		rest.WriteV1Error(w, r, http.StatusBadRequest, CodeMissingState, "The state query parameter (a two-letter code) is required.", nil)
		return
	case fips == "":
		rest.WriteV1Error(w, r, http.StatusBadRequest, CodeMissingCountyFIPS, "The county_fips query parameter (a 5-digit county FIPS code) is required.", nil)
		return
	}
	code, ok := subspecialtyOf(w, r, sp)
	if !ok {
		return
	}
	q, ok := a.loadStudy(w, r, sp, code)
	if !ok {
		return
	}
	ctx := r.Context()
	county, prov, err := q.v.county(ctx, fips)
	if errors.Is(err, store.ErrNotFound) {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeCountyNotFound,
			"No county has the FIPS code "+quote(fips)+" in the Census county list.", map[string]any{"county_fips": safetext.EchoEscaped(fips)})
		return
	}
	if err != nil {
		fail(w, r, "by-county: read the county", err)
		return
	}
	if county.StateCode != state {
		rest.WriteV1Error(w, r, http.StatusBadRequest, CodeStateCountyMismatch,
			fmt.Sprintf("County %s (%s) is in %s, not in %s.", fips, county.Name, county.StateCode, quote(state)),
			map[string]any{"county_fips": fips, "county_state": county.StateCode, "state": state})
		return
	}
	row, ok := q.st.Row(state)
	if !ok {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeStateNotFound, "The study has no data for "+quote(state)+".", nil)
		return
	}
	c := recordOrigin(prov)
	data := CountySupply{
		StateLevelSupply: a.rowWrapper(q.st).wrap(row),
		County: CountyContext{
			FIPS:       c.field(county.FIPS, ""),
			Name:       c.field(county.Name, "As published by the Census Bureau."),
			StateCode:  c.field(county.StateCode, ""),
			Population: c.field(county.Population, "Census Bureau Vintage 2024 resident population estimate for July 1, 2024; context only, the supply figures are the state's."),
		},
	}
	meta, err := a.meta(ctx, r, q.v, studyFamilies, a.MethodologyURL(q.st.Dataset))
	if err != nil {
		fail(w, r, "by-county: read the manifests", err)
		return
	}
	meta.GeoScopeNote = fmt.Sprintf("County-level supply is not available: the registry has no county of practice. "+
		"state_level_supply holds the figures of %s (%s) as a proxy for %s (FIPS %s).", row.StateName, row.StateCode, county.Name, county.FIPS)
	if q.filtered() {
		meta.SubspecialtyFilter = filterMeta(q.st, row.ActiveProviders)
	}
	rest.WriteV1(w, r, http.StatusOK, data, meta)
}

// county reads a county of the Census county list by its FIPS code; a code of the wrong shape
// is as unknown as an absent one, and is never looked up.
func (v view) county(ctx context.Context, fips string) (stored.CensusCountyRecord, stored.Provenance, error) {
	if ident.ValidateCountyFIPS(fips) != nil {
		return stored.CensusCountyRecord{}, stored.Provenance{}, store.ErrNotFound
	}
	gen := v.Snap.Generation(catalog.CensusCounties)
	if gen == "" {
		return stored.CensusCountyRecord{}, stored.Provenance{}, store.ErrNotFound
	}
	d, err := v.api.store.Get(ctx, gen, catalog.CensusCounties, fips)
	if err != nil {
		return stored.CensusCountyRecord{}, stored.Provenance{}, err
	}
	b, err := stored.DecodeBody[stored.CensusCountyRecord](d)
	if err != nil {
		return stored.CensusCountyRecord{}, stored.Provenance{}, fmt.Errorf("decode county %s: %w", fips, err)
	}
	return b.Record, b.Provenance, nil
}
