package resolver

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/rest"
	"providerdir/store"
	"providerdir/stored"
)

// CodeInvalidType is an addition: a quality type other than the six of
// docs/contracts/resolver-api.md §4.
const CodeInvalidType = "invalid_type"

// Quality is the quality record of GET /quality/{type}/{id} (docs/contracts/resolver-api.md §2):
// the facility's Care Compare row for the type, with the row's provenance.
type Quality struct {
	Type         string `json:"type"`
	CCN          string `json:"ccn"`
	FacilityName string `json:"facility_name,omitempty"`
	// OverallStar is null when Care Compare publishes no star for the facility, never zero.
	OverallStar *int `json:"overall_star"`
	// MeasurementPeriod is "<start date>/<end date>" (ISO 8601 dates), null when the source
	// states no period for the row.
	MeasurementPeriod *string          `json:"measurement_period"`
	Measures          []QualityMeasure `json:"measures"`
	stored.Provenance
}

// QualityMeasure is one measure: its value (null when suppressed for a small sample, never
// zero) and the national average of the facilities of the type that published one, absent when
// none did.
type QualityMeasure struct {
	ID          string   `json:"id"`
	Value       *float64 `json:"value"`
	NationalAvg *float64 `json:"national_avg,omitempty"`
}

// qualityType returns the type of a path slug.
func qualityType(slug string) (stored.QualityType, bool) {
	for _, t := range stored.QualityTypes {
		if t.Slug == slug {
			return t, true
		}
	}
	return stored.QualityType{}, false
}

// quality serves GET /quality/{type}/{id}. An unknown type is 400 invalid_type, an id validCCN
// refuses 400 invalid_ccn, a CCN without a row of the type 404 not_found; a snapshot without
// Care Compare is 503 source_unavailable.
func (a *API) quality(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	vars := mux.Vars(r)
	t, ok := qualityType(vars["type"])
	if !ok {
		slugs := make([]string, len(stored.QualityTypes))
		for i, qt := range stored.QualityTypes {
			slugs[i] = qt.Slug
		}
		rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidType, "type is one of "+strings.Join(slugs, ", ")+".")
		return
	}
	ccn := vars["id"]
	if !validCCN(w, r, ccn) {
		return
	}
	v, err := a.records.Serving(ctx)
	if err != nil {
		fail(w, r, "quality: read the serving snapshot", err)
		return
	}
	gen := v.Snap.Generation(catalog.Quality)
	if gen == "" {
		unavailable(w, r, "Care Compare is not loaded; retry later.")
		return
	}
	d, err := a.records.Store().Get(ctx, gen, catalog.Quality, t.Slug+"."+ccn)
	if errors.Is(err, store.ErrNotFound) {
		rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound, "Care Compare publishes no "+t.Slug+" row for CCN "+ccn+".")
		return
	}
	if err != nil {
		fail(w, r, "quality: read the row", err)
		return
	}
	row, err := stored.DecodeBody[stored.QualityRecord](d)
	if err != nil {
		fail(w, r, "quality: decode the row", fmt.Errorf("decode quality %s: %w", d.ID, err))
		return
	}
	averages, err := a.nationalAverages(r, v.Snap, t.Slug)
	if err != nil {
		fail(w, r, "quality: read the national averages", err)
		return
	}
	q := Quality{Type: t.Slug, CCN: ccn, FacilityName: row.Record.Name, OverallStar: wholeStar(row.Record.OverallStar),
		MeasurementPeriod: nonEmpty(row.Record.MeasurementPeriod),
		Measures:          make([]QualityMeasure, 0, len(row.Record.Measures)), Provenance: row.Provenance}
	for _, m := range row.Record.Measures {
		qm := QualityMeasure{ID: m.ID, Value: m.Value}
		if avg, ok := averages[m.ID]; ok {
			qm.NationalAvg = &avg
		}
		q.Measures = append(q.Measures, qm)
	}
	rest.WriteJSON(w, r, http.StatusOK, q)
}

// validCCN answers an id that is no CCN (400 invalid_ccn) and reports whether the lookup goes
// on. /ccn and /quality take the same ids: the six-character CCN of the contract, or the
// ten-character supplier number (state code, "C", seven digits) CMS identifies an ambulatory
// surgical center by in the certification file and in Care Compare.
func validCCN(w http.ResponseWriter, r *http.Request, ccn string) bool {
	if ident.ValidateCCN(ccn) != nil {
		rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidCCN,
			"A CCN is six characters (a two-character state code and four more, digits or uppercase letters as CMS assigns them), or a ten-character supplier number such as an ambulatory surgical center's (a state code, C, D or X, and seven digits).")
		return false
	}
	return true
}

// nationalAverages reads a type's national averages, by measure id; empty when the snapshot
// holds none for the type.
func (a *API) nationalAverages(r *http.Request, snap store.Snapshot, slug string) (map[string]float64, error) {
	gen := snap.Generation(catalog.QualityNational)
	if gen == "" {
		return nil, nil
	}
	d, err := a.records.Store().Get(r.Context(), gen, catalog.QualityNational, slug)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := stored.DecodeBody[stored.NationalRecord](d)
	if err != nil {
		return nil, fmt.Errorf("decode national averages %s: %w", slug, err)
	}
	out := make(map[string]float64, len(b.Record.Measures))
	for _, m := range b.Record.Measures {
		out[m.ID] = m.Average
	}
	return out, nil
}
