package resolver

import (
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/mapping"
	"providerdir/rest"
	"providerdir/store"
)

// Facility is the facility record of GET /ccn/{ccn} (seeds/001 section 2): the certification
// file's identity of the CCN, with the provenance of that record, joined with the Care Compare
// row of the same CCN for the type, ownership and overall star it publishes. Fields Care Compare
// does not publish for the facility are left out.
type Facility struct {
	CCN           string          `json:"ccn"`
	FacilityName  string          `json:"facility_name"`
	FacilityType  string          `json:"facility_type,omitempty"`
	OwnershipType string          `json:"ownership_type,omitempty"`
	Address       FacilityAddress `json:"address"`
	OverallStar   *int            `json:"overall_star,omitempty"`
	mapping.Provenance
}

// FacilityAddress is a facility's city and state; the state is the one the CCN's state code
// names, which is what the certification number itself asserts.
type FacilityAddress struct {
	City  string `json:"city,omitempty"`
	State string `json:"state"`
}

// ccn serves GET /ccn/{ccn}. A CCN is six characters here (the contract's form): anything else,
// or six characters that are not a CCN, is 400 invalid_ccn; a CCN the certification file does
// not hold is 404 not_found.
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
	pos, err := mapping.DecodeBody[mapping.FacilityRecord](d)
	if err != nil {
		fail(w, r, "ccn: decode the facility", fmt.Errorf("decode facility %s: %w", ccn, err))
		return
	}
	f := Facility{CCN: ccn, FacilityName: pos.Record.Name,
		Address: FacilityAddress{City: pos.Record.Address.City, State: state}, Provenance: pos.Provenance}
	quality, err := v.Keyed(ctx, catalog.Quality, mapping.KeyCCN, ccn)
	if err != nil {
		fail(w, r, "ccn: read quality", err)
		return
	}
	for _, qd := range quality {
		q, err := mapping.DecodeBody[mapping.QualityRecord](qd)
		if err != nil {
			fail(w, r, "ccn: decode quality", fmt.Errorf("decode quality %s: %w", qd.ID, err))
			return
		}
		f.join(q.Record)
	}
	rest.WriteJSON(w, r, http.StatusOK, f)
}

// join takes what the Care Compare row publishes and the facility record lacks.
func (f *Facility) join(q mapping.QualityRecord) {
	if f.FacilityType == "" {
		f.FacilityType = q.FacilityType
	}
	if f.OwnershipType == "" {
		f.OwnershipType = q.Ownership
	}
	if f.OverallStar == nil && q.OverallStar != nil {
		star := int(math.Round(*q.OverallStar))
		f.OverallStar = &star
	}
}
