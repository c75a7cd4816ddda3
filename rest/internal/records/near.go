package records

import (
	"context"
	"fmt"
	"math"
	"strings"

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
	// ZIPs are the ZCTAs within the radius, nearest first (equal distances by code). A Near is
	// shared by every search of its place: its readers never change it.
	ZIPs  []string
	miles map[string]float64
}

// NewNear finds the ZCTAs of ix within radiusMiles of at (capped at geo.MaxRadiusMiles). A
// place's ZCTAs never change, and a place is searched again and again (each page of a search,
// the ZIP codes people search near), so the places found last are kept (places).
func NewNear(ix *geo.Index, at geo.Point, radiusMiles float64) *Near {
	key := fmt.Sprintf("%p %g %g %g", ix, at.Lat, at.Lon, radiusMiles)
	if n, ok := places.Get(key); ok {
		return n
	}
	hits := ix.Within(at, radiusMiles*geo.KmPerMile)
	n := &Near{ZIPs: make([]string, len(hits)), miles: make(map[string]float64, len(hits))}
	for i, h := range hits {
		n.ZIPs[i] = h.ZCTA
		n.miles[h.ZCTA] = math.Round(h.Km/geo.KmPerMile*10) / 10
	}
	places.Put(key, n)
	return n
}

// places holds the places NewNear found last, by index, point and radius: a Near is never
// changed once made, so every search of a place shares one. The bound keeps a few megabytes.
var places = Cache[*Near]{Bound: 10_000}

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

// Nearest reads the registry records near n that meet every condition of where, their bodies
// without their search keys: nearest first (by ZIP), ties by NPI, the records of page (from 1)
// of limit a page, and the total. A record has one practice ZIP, so the total is the sum of each
// ZIP's count, and a page starts in the ZIP that holds its first record: the ZIPs before it are
// skipped by their counts, and each ZIP's records are read in turn, by NPI, until the page is
// full, so a page near a dense ZIP reads that ZIP alone.
func (v View) Nearest(ctx context.Context, n *Near, where []store.Condition, page, limit int) ([]NearRecord, int, error) {
	q := store.Query{Collection: catalog.RegistryProviders, Generation: v.Snap.Generation(catalog.RegistryProviders), BodiesOnly: true}
	counts := make([]int64, len(n.ZIPs))
	var total int64
	scope := countScope(q.Generation, where)
	for i, zip := range n.ZIPs {
		c, err := v.zipCount(ctx, q, where, scope, zip)
		if err != nil {
			return nil, 0, err
		}
		counts[i], total = c, total+c
	}
	skip := int64(page-1) * int64(limit)
	out := []NearRecord{}
	for i := 0; i < len(n.ZIPs) && len(out) < limit; i++ {
		if counts[i] <= skip {
			skip -= counts[i]
			continue
		}
		q.Where, q.After = inZIP(where, n.ZIPs[i]), ""
		for len(out) < limit {
			q.Limit = int(skip) + limit - len(out)
			found, err := v.r.store.Find(ctx, q)
			if err != nil {
				return nil, 0, err
			}
			for _, d := range found.Docs {
				if skip > 0 {
					skip--
					continue
				}
				out = append(out, NearRecord{Document: d, Miles: n.miles[n.ZIPs[i]]})
			}
			if found.Next == "" {
				break
			}
			q.After = found.Next
		}
	}
	return out, int(total), nil
}

// inZIP is where with the condition that the practice ZIP is zip.
func inZIP(where []store.Condition, zip string) []store.Condition {
	return append(where[:len(where):len(where)], store.Condition{Param: stored.KeyPostal, Values: []string{zip}})
}

// countScope is the part of Reader.zipCounts' keys that a near search's ZIPs share: the
// generation and the conditions.
func countScope(generation string, where []store.Condition) string {
	var key strings.Builder
	key.WriteString(generation)
	for _, c := range where {
		key.WriteString("\x00" + c.Param + "=" + strings.Join(c.Values, "\x01"))
	}
	return key.String()
}

// zipCount is how many registry records of q's generation in zip meet where, counted on the
// index once per scope (countScope of the generation and where) and ZIP (Reader.zipCounts):
// every page of every near search around a place adds up the same counts.
func (v View) zipCount(ctx context.Context, q store.Query, where []store.Condition, scope, zip string) (int64, error) {
	key := scope + "\x00" + zip
	if n, ok := v.r.zipCounts.Get(key); ok {
		return n, nil
	}
	q.Where = inZIP(where, zip)
	n, err := v.r.store.Count(ctx, q)
	if err != nil {
		return 0, err
	}
	v.r.zipCounts.Put(key, n)
	return n, nil
}
