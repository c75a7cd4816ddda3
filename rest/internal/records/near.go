package records

import (
	"context"
	"math"

	"providerdir/catalog"
	"providerdir/geo"
	"providerdir/store"
	"providerdir/stored"
)

// Near is a near search's place resolved to ZIP codes: the 5-digit ZCTAs whose centroids are
// within the radius, nearest first, each with its distance in miles to a tenth. A record's place
// is its practice ZIP's ZCTA centroid, so a record is near when its practice ZIP is one of them;
// a record whose ZIP has no ZCTA is never near. The resolver's search and the supply pages'
// "near a ZIP" both search through it.
type Near struct {
	// ZIPs are the ZCTAs within the radius, nearest first (equal distances by code).
	ZIPs  []string
	miles map[string]float64
}

// NewNear finds the ZCTAs of ix within radiusMiles of at (capped at geo.MaxRadiusMiles).
func NewNear(ix *geo.Index, at geo.Point, radiusMiles float64) *Near {
	hits := ix.Within(at, radiusMiles*geo.KmPerMile)
	n := &Near{ZIPs: make([]string, len(hits)), miles: make(map[string]float64, len(hits))}
	for i, h := range hits {
		n.ZIPs[i] = h.ZCTA
		n.miles[h.ZCTA] = math.Round(h.Km/geo.KmPerMile*10) / 10
	}
	return n
}

// Condition selects the records whose practice ZIP is within the radius.
func (n *Near) Condition() store.Condition {
	return store.Condition{Param: stored.KeyPostal, Values: n.ZIPs}
}

// Miles is the distance of a practice postal code ("12345", "12345-6789") in miles; false when
// its ZIP is not within the radius.
func (n *Near) Miles(postal string) (float64, bool) {
	if len(postal) < 5 {
		return 0, false
	}
	d, ok := n.miles[postal[:5]]
	return d, ok
}

// NearRecord is a registry record a near search found, with its distance in miles.
type NearRecord struct {
	store.Document
	Miles float64
}

// Nearest reads the registry records near n that meet every condition of where: nearest first
// (by ZIP), ties by NPI, the records of page (from 1) of limit a page, and the total. Each ZIP's
// records are read in turn, by NPI, until the page is full, so a page near a dense ZIP reads
// that ZIP alone.
func (v View) Nearest(ctx context.Context, n *Near, where []store.Condition, page, limit int) ([]NearRecord, int, error) {
	q := store.Query{Collection: catalog.RegistryProviders, Generation: v.Snap.Generation(catalog.RegistryProviders)}
	skip, need := (page-1)*limit, page*limit
	out := []NearRecord{}
	for i := 0; i < len(n.ZIPs) && len(out) < limit; {
		q.Where = append(where[:len(where):len(where)], store.Condition{Param: stored.KeyPostal, Values: n.ZIPs[i : i+1]})
		q.Limit = need
		found, err := v.r.store.Find(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		for _, d := range found.Docs {
			if skip > 0 {
				skip, need = skip-1, need-1
				continue
			}
			out = append(out, NearRecord{Document: d, Miles: n.miles[n.ZIPs[i]]})
			need--
		}
		if q.After = found.Next; found.Next == "" {
			i++
		}
	}
	total, err := v.r.store.Count(ctx, store.Query{Collection: q.Collection, Generation: q.Generation, Where: append(where[:len(where):len(where)], n.Condition())})
	return out, int(total), err
}
