package fhir

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"providerdir/geo"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// The near search (R4 Location-near, type special): near=latitude|longitude|distance|units
// finds the Locations within distance of the point, and PractitionerRole?location.near the
// roles at one of them. A Location's position is its ZIP code's ZCTA centroid (fhirmap), so the
// search is one for the ZCTAs within the radius (geo.Index.Within), looked up by the near key
// that both types carry. Results come nearest first (ties by id) unless another _sort is given;
// _sort=near asks for that order explicitly, as HAPI FHIR spells it.
const (
	// DefaultNearKm is the radius of a near search that gives no distance (R4 leaves it to the
	// server).
	DefaultNearKm = 25
	// kmPerUSMile is the US survey mile ([mi_us] in UCUM).
	kmPerUSMile = 1.609347219
)

// kindSpecial is R4's search parameter type of near.
const kindSpecial kind = "special"

var pNear = withDef(param{name: "near", kind: kindSpecial, key: fhirmap.KeyNear, apply: addNearParam,
	doc: fmt.Sprintf("latitude|longitude|distance|units: within distance of the point (decimal degrees), units km "+
		"(the default), m, [mi_us] or [mi_i] (mi_us, mi_i and mi are taken too); distance %d km by default, at most %d "+
		"miles (%.1f km). A Location's position is its ZIP code's Census ZCTA centroid: a ZIP with no ZCTA has none and is "+
		"never near. Nearest first (ties by id) unless another _sort is given; _sort=near says so explicitly. "+
		"PractitionerRole chains it: location.near", DefaultNearKm, geo.MaxRadiusMiles, geo.MaxRadiusKm)},
	baseSP+"Location-near")

// carriesNear are the types whose documents carry the near key of their Locations, so that a
// chained location.near is answered by their own keys.
var carriesNear = []string{fhirmap.TypeLocation, fhirmap.TypePractitionerRole}

// nearQuery is a parsed near parameter.
type nearQuery struct {
	at geo.Point
	km float64
}

// refused is the error of a near value: refused under any handling, since dropping the
// parameter would answer a different question (places anywhere) as if it were the one asked.
func refused(p, format string, args ...any) *paramError {
	e := invalid(p, format, args...)
	e.limit = true
	return e
}

func addNearParam(q *query, modifier, name, value string) error {
	if modifier != "" {
		return refused(name, "near takes no modifier")
	}
	return q.addNear(name, value)
}

// addNear parses a near value (of near or a chained location.near) into the query.
func (q *query) addNear(name, value string) error {
	if q.near != nil {
		return refused(name, "one near parameter per search")
	}
	n, err := parseNear(value)
	if err != nil {
		return refused(name, "%v", err)
	}
	q.near = &n
	return nil
}

// parseNear parses latitude|longitude[|distance[|units]].
func parseNear(value string) (nearQuery, error) {
	parts := strings.Split(value, "|")
	if len(parts) < 2 || len(parts) > 4 {
		return nearQuery{}, fmt.Errorf("%q is not latitude|longitude|distance|units", value)
	}
	for len(parts) < 4 {
		parts = append(parts, "")
	}
	lat, errLat := geo.Decimal(parts[0])
	lon, errLon := geo.Decimal(parts[1])
	at := geo.Point{Lat: lat, Lon: lon}
	if errLat != nil || errLon != nil || !at.Valid() {
		return nearQuery{}, fmt.Errorf("%q is not a latitude (-90 to 90) and a longitude (-180 to 180) in decimal degrees", parts[0]+"|"+parts[1])
	}
	km := float64(DefaultNearKm)
	if parts[2] != "" {
		d, err := geo.Decimal(parts[2])
		if err != nil || d <= 0 {
			return nearQuery{}, fmt.Errorf("distance %q is not a number above 0", parts[2])
		}
		unit, ok := nearUnits[parts[3]]
		if !ok {
			return nearQuery{}, fmt.Errorf("units %q: km, m, [mi_us] or [mi_i]", parts[3])
		}
		km = d * unit
	} else if parts[3] != "" {
		return nearQuery{}, fmt.Errorf("units %q without a distance", parts[3])
	}
	// 100 US survey miles are a few metres over 100 miles: the cap allows for that.
	if km > geo.MaxRadiusKm*(1+1e-5) {
		return nearQuery{}, fmt.Errorf("distance %s %s is over the limit of %d miles (%.1f km)", parts[2], parts[3], geo.MaxRadiusMiles, geo.MaxRadiusKm)
	}
	return nearQuery{at: at, km: min(km, geo.MaxRadiusKm)}, nil
}

// nearUnits are the units a near distance may be given in, as kilometres.
var nearUnits = map[string]float64{
	"": 1, "km": 1, "m": 0.001,
	"[mi_us]": kmPerUSMile, "mi_us": kmPerUSMile,
	"[mi_i]": geo.KmPerMile, "mi_i": geo.KmPerMile, "mi": geo.KmPerMile,
}

// nearCondition is the condition of a near search: the ZCTAs within its radius, nearest first;
// nil when there is none.
func nearCondition(n *nearQuery) (*store.Condition, error) {
	ix, err := geo.ZCTAs()
	if err != nil {
		return nil, err
	}
	hits := ix.Within(n.at, n.km)
	if len(hits) == 0 {
		return nil, nil
	}
	zctas := make([]string, len(hits))
	for i, h := range hits {
		zctas[i] = h.ZCTA
	}
	return &store.Condition{Param: fhirmap.KeyNear, Values: zctas, Match: store.Exact}, nil
}

// nearPage reads one page of a search in distance order. sq's conditions end with the near
// condition, whose values are the ZCTAs nearest first: the page takes each ZCTA's matches in
// turn, by id, from cursor on, leaving out those at a nearer ZCTA too (a role at several
// Locations), which came with that one. A cursor is "<ZCTA index>.<store cursor in that ZCTA>";
// the page reads one match past its end, across ZCTAs if need be, so that the last page has no
// next.
func (s *Server) nearPage(ctx context.Context, typ string, sq store.Query, cursor string) (store.Page, error) {
	near := sq.Where[len(sq.Where)-1]
	ring, after, err := decodeNearCursor(cursor, len(near.Values))
	if err != nil {
		return store.Page{}, err
	}
	rank := make(map[string]int, len(near.Values))
	for i, z := range near.Values {
		rank[z] = i
	}
	nearer := func(d store.Document, ring int) bool {
		for _, k := range d.Keys {
			if r, ok := rank[k.Value]; ok && k.Param == fhirmap.KeyNear && r < ring {
				return true
			}
		}
		return false
	}
	where := slices.Clone(sq.Where)
	q := sq
	q.Where, q.OrderBy, q.Descending = where, "", false
	q.KeysOf = append(slices.Clip(sq.KeysOf), fhirmap.KeyNear)
	q.BodiesOnly = false
	want := sq.Limit
	var docs []store.Document
	resume := after // where a read of this ZCTA goes on after the last match kept
	for ring < len(near.Values) {
		where[len(where)-1] = store.Condition{Param: near.Param, Values: near.Values[ring : ring+1], Match: store.Exact}
		q.After, q.Limit = after, want-len(docs)+1
		page, err := s.find(ctx, typ, q)
		if err != nil {
			return store.Page{}, err
		}
		for _, d := range page.Docs {
			if nearer(d, ring) {
				continue
			}
			if len(docs) == want {
				return store.Page{Docs: docs, Next: nearCursor(ring, resume)}, nil
			}
			docs = append(docs, d)
			resume = cursorOf(d, "")
		}
		if after = page.Next; after == "" {
			ring, resume = ring+1, ""
		}
	}
	return store.Page{Docs: docs}, nil
}

func nearCursor(ring int, after string) string { return strconv.Itoa(ring) + "." + after }

func decodeNearCursor(c string, rings int) (int, string, error) {
	if c == "" {
		return 0, "", nil
	}
	n, after, ok := strings.Cut(c, ".")
	ring, err := strconv.Atoi(n)
	if !ok || err != nil || ring < 0 || ring >= rings {
		return 0, "", invalid("_cursor", "not a cursor of this search; follow the Bundle's links")
	}
	return ring, after, nil
}
