package resolver

import (
	"context"
	"math"
	"strconv"
	"strings"

	"providerdir/catalog"
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

// nearSearch is a parsed near and radius: the ZIP codes within the radius, nearest first, and
// each one's distance in miles.
type nearSearch struct {
	zips  []string
	miles map[string]float64
}

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
	hits := ix.Within(at, sq.Radius*geo.KmPerMile)
	n := &nearSearch{zips: make([]string, len(hits)), miles: make(map[string]float64, len(hits))}
	for i, h := range hits {
		n.zips[i] = h.ZCTA
		n.miles[h.ZCTA] = math.Round(h.Km/geo.KmPerMile*10) / 10
	}
	sq.near = n
	return "", ""
}

// condition selects the records whose practice ZIP is within the radius.
func (n *nearSearch) condition() store.Condition {
	return store.Condition{Param: stored.KeyPostal, Values: n.zips}
}

// distance is a record's distance in miles, nil when its practice ZIP is not within the radius.
func (n *nearSearch) distance(postal string) *float64 {
	if len(postal) < 5 {
		return nil
	}
	if d, ok := n.miles[postal[:5]]; ok {
		return &d
	}
	return nil
}

// nearest answers a search by place alone: the records within the radius (in the state, with the
// taxonomy, when given), nearest first (by ZIP), ties by NPI; the page asked for and the total.
// Each ZIP's records are read in turn, by NPI, until the page is full.
func nearest(ctx context.Context, st store.Store, v records.View, sq SearchQuery) ([]Candidate, int, error) {
	n := sq.near
	var where []store.Condition
	if sq.State != "" {
		where = append(where, store.Condition{Param: stored.KeyState, Values: []string{sq.State}})
	}
	if sq.Taxonomy != "" {
		where = append(where, store.Condition{Param: stored.KeyTaxonomy, Values: []string{sq.Taxonomy}})
	}
	q := store.Query{Collection: catalog.RegistryProviders, Generation: v.Snap.Generation(catalog.RegistryProviders)}
	skip, need := (sq.Page-1)*sq.Limit, sq.Page*sq.Limit
	out := []Candidate{}
	for i := 0; i < len(n.zips) && len(out) < sq.Limit; {
		q.Where = append(where[:len(where):len(where)], store.Condition{Param: stored.KeyPostal, Values: n.zips[i : i+1]})
		q.Limit = need
		page, err := st.Find(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		for _, d := range page.Docs {
			if skip > 0 {
				skip, need = skip-1, need-1
				continue
			}
			b, err := stored.DecodeBody[searchRecord](d)
			if err != nil {
				return nil, 0, err
			}
			c := candidate(b.Record, b.Provenance, nil)
			d := n.miles[n.zips[i]]
			c.DistanceMiles = &d
			out = append(out, c)
			need--
		}
		if q.After = page.Next; page.Next == "" {
			i++
		}
	}
	total, err := st.Count(ctx, store.Query{Collection: q.Collection, Generation: q.Generation, Where: append(where, n.condition())})
	return out, int(total), err
}
