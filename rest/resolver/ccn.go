package resolver

import (
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/rest"
	"providerdir/store"
	"providerdir/stored"
)

// Facility is the facility record of GET /ccn/{ccn} (docs/contracts/resolver-api.md §2): the
// certification file's identity of the CCN, with the provenance of that record, joined with the
// Care Compare rows of the same CCN. Every field is present; one no source states is null.
type Facility struct {
	CCN          string `json:"ccn"`
	FacilityName string `json:"facility_name"`
	// FacilityType is the type a Care Compare row publishes (Hospital Type, Provider Type), else
	// the label of the certification file's provider category (stored.FacilityCategory).
	FacilityType *string `json:"facility_type"`
	// OwnershipType is the ownership a Care Compare row publishes, as published.
	OwnershipType *string         `json:"ownership_type"`
	Address       FacilityAddress `json:"address"`
	// OverallStar is the Care Compare overall star rounded to a whole star (home health ratings
	// have halves); null when no row publishes one, never zero.
	OverallStar *int `json:"overall_star"`
	stored.Provenance
}

// FacilityAddress is a facility's city and state; the state is the one the CCN's state code
// names, which is what the certification number itself asserts.
type FacilityAddress struct {
	City  *string `json:"city"`
	State string  `json:"state"`
}

// ccn serves GET /ccn/{ccn}. The id is a CCN as validCCN takes it (six characters, or an
// ambulatory surgical center's ten-character supplier number); anything else is 400
// invalid_ccn, one the certification file does not hold 404 not_found.
func (a *API) ccn(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ccn := mux.Vars(r)["ccn"]
	if !validCCN(w, r, ccn) {
		return
	}
	state, _ := ident.CCNState(ccn[:2])
	v, err := a.records.Serving(ctx)
	if err != nil {
		fail(w, r, "ccn: read the serving snapshot", err)
		return
	}
	gen := v.Snap.Generation(catalog.Facilities)
	if gen == "" {
		unavailable(w, r, "The certification file is not loaded; retry later.")
		return
	}
	d, err := a.records.Store().Get(ctx, gen, catalog.Facilities, ccn)
	if errors.Is(err, store.ErrNotFound) {
		rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound, "CCN "+ccn+" is not in the certification file.")
		return
	}
	if err != nil {
		fail(w, r, "ccn: read the facility", err)
		return
	}
	pos, err := stored.DecodeBody[stored.FacilityRecord](d)
	if err != nil {
		fail(w, r, "ccn: decode the facility", fmt.Errorf("decode facility %s: %w", ccn, err))
		return
	}
	f := Facility{CCN: ccn, FacilityName: pos.Record.Name,
		Address: FacilityAddress{City: nonEmpty(pos.Record.Address.City), State: state}, Provenance: pos.Provenance}
	quality, err := v.Keyed(ctx, catalog.Quality, stored.KeyCCN, ccn)
	if err != nil {
		fail(w, r, "ccn: read quality", err)
		return
	}
	for _, qd := range quality {
		q, err := stored.DecodeBody[stored.QualityRecord](qd)
		if err != nil {
			fail(w, r, "ccn: decode quality", fmt.Errorf("decode quality %s: %w", qd.ID, err))
			return
		}
		f.join(q.Record)
	}
	if f.FacilityType == nil {
		f.FacilityType = nonEmpty(stored.FacilityCategory(pos.Record.CategoryCode))
	}
	rest.WriteJSON(w, r, http.StatusOK, f)
}

// join takes what a Care Compare row publishes and the record lacks.
func (f *Facility) join(q stored.QualityRecord) {
	if f.FacilityType == nil {
		f.FacilityType = nonEmpty(q.FacilityType)
	}
	if f.OwnershipType == nil {
		f.OwnershipType = nonEmpty(q.Ownership)
	}
	if f.OverallStar == nil {
		f.OverallStar = wholeStar(q.OverallStar)
	}
}

// wholeStar rounds a published star to a whole star; nil stays nil.
func wholeStar(s *float64) *int {
	if s == nil {
		return nil
	}
	star := int(math.Round(*s))
	return &star
}

// nonEmpty is s, or nil (null) when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
