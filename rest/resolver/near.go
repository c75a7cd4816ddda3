package resolver

import (
	"context"
	"strconv"
	"strings"

	"providerdir/geo"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
)

// Near search: near is a 5-digit ZIP code (its Census ZCTA centroid) or "latitude,longitude";
// radius is in miles. A record's place is its practice ZIP's ZCTA centroid, so the search is
// one for the records whose practice ZIP is a ZCTA within the radius (geo.Index.Within); a
// record whose ZIP has no ZCTA is never near.
const (
	DefaultRadiusMiles = 10
	// MaxRadiusMiles caps radius; a larger one is served as MaxRadiusMiles and echoed so.
	MaxRadiusMiles    = geo.MaxRadiusMiles
	CodeInvalidNear   = "invalid_near"
	CodeInvalidRadius = "invalid_radius"
)

// parseNear reads near and radius into the echo and the search; a non-empty code is the error.
func parseNear(sq *SearchQuery, near, radius string) (code, msg string) {
	if near == "" {
		if radius != "" {
			return CodeInvalidRadius, "radius goes with near."
		}
		return "", ""
	}
	ix, err := geo.ZCTAs()
	if err != nil {
		return CodeInvalidNear, "ZIP code positions are not available."
	}
	var at geo.Point
	if lat, lon, ok := strings.Cut(near, ","); ok {
		la, errLat := geo.Decimal(strings.TrimSpace(lat))
		lo, errLon := geo.Decimal(strings.TrimSpace(lon))
		at = geo.Point{Lat: la, Lon: lo}
		if errLat != nil || errLon != nil || !at.Valid() {
			return CodeInvalidNear, "near is a 5-digit ZIP code or latitude,longitude in decimal degrees, such as 40.7506,-73.9973."
		}
		sq.Near = strconv.FormatFloat(la, 'f', -1, 64) + "," + strconv.FormatFloat(lo, 'f', -1, 64)
	} else {
		p, ok := ix.Lookup(near)
		if !ok {
			if len(near) == 5 && strings.Trim(near, "0123456789") == "" {
				return CodeInvalidNear, "ZIP code " + near + " has no Census ZCTA, so no position; give latitude,longitude instead."
			}
			return CodeInvalidNear, "near is a 5-digit ZIP code or latitude,longitude in decimal degrees, such as 40.7506,-73.9973."
		}
		at, sq.Near = p, near
	}
	sq.Radius = DefaultRadiusMiles
	if radius != "" {
		r, err := geo.Decimal(radius)
		if err != nil || r <= 0 {
			return CodeInvalidRadius, "radius is a number of miles above 0 (at most " + strconv.Itoa(MaxRadiusMiles) + " are served)."
		}
		sq.Radius = min(r, MaxRadiusMiles)
	}
	sq.near = records.NewNear(ix, at, sq.Radius)
	return "", ""
}

// distance is a record's distance in miles, nil when its practice ZIP is not within the radius.
func distance(n *records.Near, postal string) *float64 {
	if d, ok := n.Miles(postal); ok {
		return &d
	}
	return nil
}

// nearest answers a search by place alone: the records within the radius (in the state, with the
// taxonomy, when given), nearest first (by ZIP), ties by NPI; the page asked for and the total.
func nearest(ctx context.Context, v records.View, sq SearchQuery) ([]Candidate, int, error) {
	var where []store.Condition
	if sq.State != "" {
		where = append(where, store.Condition{Param: stored.KeyState, Values: []string{sq.State}})
	}
	if sq.Taxonomy != "" {
		where = append(where, store.Condition{Param: stored.KeyTaxonomy, Values: []string{sq.Taxonomy}})
	}
	found, total, err := v.Nearest(ctx, sq.near, where, sq.Page, sq.Limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Candidate, len(found))
	for i, d := range found {
		b, err := stored.DecodeBody[searchRecord](d.Document)
		if err != nil {
			return nil, 0, err
		}
		out[i] = candidate(b.Record, b.Provenance, nil)
		out[i].DistanceMiles = &d.Miles
	}
	return out, total, nil
}
