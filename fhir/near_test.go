package fhir_test

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// greatCircleKm is the haversine distance on a sphere of the Earth's mean radius, written here
// so that the expectations do not lean on the server's own arithmetic.
func greatCircleKm(lat1, lon1, lat2, lon2 float64) float64 {
	r := math.Pi / 180
	a := math.Pow(math.Sin((lat2-lat1)*r/2), 2) + math.Cos(lat1*r)*math.Cos(lat2*r)*math.Pow(math.Sin((lon2-lon1)*r/2), 2)
	return 2 * 6371.0088 * math.Asin(math.Sqrt(a))
}

type placed struct {
	lat, lon float64
	ok       bool
}

func positionOf(r res) placed {
	p, _ := r["position"].(map[string]any)
	lat, ok1 := p["latitude"].(float64)
	lon, ok2 := p["longitude"].(float64)
	return placed{lat, lon, ok1 && ok2}
}

// The near search, on Location and chained from PractitionerRole: exactly the resources within
// the distance of the point, nearest first (ties by id), by GET and POST _search, page by page;
// a Location without a position (a ZIP with no ZCTA) is never found.
func TestNearSearch(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	locs := all["Location"]
	var without int
	var centre placed
	best := -1
	for _, r := range locs {
		p := positionOf(r)
		if !p.ok {
			without++
			continue
		}
		n := 0
		for _, o := range locs {
			if q := positionOf(o); q.ok && greatCircleKm(p.lat, p.lon, q.lat, q.lon) <= 120 {
				n++
			}
		}
		if n > best {
			best, centre = n, p
		}
	}
	if without == 0 || best < 5 {
		t.Fatalf("the drop has %d Locations without a position and at most %d within 120 km of one", without, best)
	}
	// distance of a Location, or +Inf without a position
	distance := func(r res) float64 {
		if p := positionOf(r); p.ok {
			return greatCircleKm(centre.lat, centre.lon, p.lat, p.lon)
		}
		return math.Inf(1)
	}
	roleDistance := func(r res) float64 {
		d := math.Inf(1)
		for _, l := range list(r["location"]) {
			if loc, ok := locs[strings.TrimPrefix(text(l, "reference"), "Location/")]; ok {
				d = min(d, distance(loc))
			}
		}
		return d
	}
	// the specialty most roles near the point have
	var specialty string
	seen := map[string]int{}
	for _, r := range all["PractitionerRole"] {
		if roleDistance(r) <= 120 {
			for _, s := range list(r["specialty"]) {
				for _, c := range list(field(s, "coding")) {
					if seen[text(c, "code")]++; seen[text(c, "code")] > seen[specialty] {
						specialty = text(c, "code")
					}
				}
			}
		}
	}
	point := fmt.Sprintf("%v|%v", centre.lat, centre.lon)
	tests := []struct {
		name, typ string
		params    []string
		km        float64
		want      func(res) bool
		dist      func(res) float64
		sorted    bool // nearest first
	}{
		{"km by default", "Location", []string{"near", point + "|120"}, 120, nil, distance, true},
		{"units km", "Location", []string{"near", point + "|80|km"}, 80, nil, distance, true},
		{"US survey miles", "Location", []string{"near", point + "|50|[mi_us]"}, 50 * 1.609347219, nil, distance, true},
		{"miles, _sort=near", "Location", []string{"near", point + "|60|mi_us", "_sort", "near"}, 60 * 1.609347219, nil, distance, true},
		{"metres", "Location", []string{"near", point + "|100000|m"}, 100, nil, distance, true},
		{"no distance: 25 km", "Location", []string{"near", point}, 25, nil, distance, true},
		{"sorted by _lastUpdated", "Location", []string{"near", point + "|120", "_sort", "_lastUpdated"}, 120, nil, distance, false},
		{"with a status", "Location", []string{"near", point + "|120", "status", "active"}, 120,
			func(r res) bool { return text(r, "status") == "active" }, distance, true},
		{"roles at a Location near", "PractitionerRole", []string{"location.near", point + "|120"}, 120, nil, roleDistance, true},
		{"roles of a specialty near", "PractitionerRole", []string{"location.near", point + "|120|km", "specialty", specialty}, 120,
			func(r res) bool { return hasCode(r, "specialty", "", specialty) }, roleDistance, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := url.Values{}
			for i := 0; i+1 < len(tt.params); i += 2 {
				v.Add(tt.params[i], tt.params[i+1])
			}
			v.Set("_count", "3")
			got := e.searchAll(t, e.base+"/"+tt.typ+"?"+v.Encode())
			var want []string
			for id, r := range all[tt.typ] {
				if tt.dist(r) <= tt.km*(1+1e-9) && (tt.want == nil || tt.want(r)) {
					want = append(want, tt.typ+"/"+id)
				}
			}
			if len(want) == 0 {
				t.Fatal("the case selects nothing: widen it")
			}
			if g := slices.Sorted(slices.Values(got.matches)); !slices.Equal(g, slices.Sorted(slices.Values(want))) {
				t.Errorf("found %d, want %d\n got %v\nwant %v", len(g), len(want), head(g), head(slices.Sorted(slices.Values(want))))
			}
			if got.pages < 2 && len(want) > 3 {
				t.Errorf("%d pages of 3 for %d matches", got.pages, len(got.matches))
			}
			for i := 1; tt.sorted && i < len(got.matches); i++ {
				a, b := got.matches[i-1], got.matches[i]
				da, db := tt.dist(all[tt.typ][strings.TrimPrefix(a, tt.typ+"/")]), tt.dist(all[tt.typ][strings.TrimPrefix(b, tt.typ+"/")])
				if da > db+1e-6 || math.Abs(da-db) <= 1e-6 && a > b {
					t.Fatalf("%s (%.3f km) before %s (%.3f km)", a, da, b, db)
				}
			}
			post := e.searchPost(t, tt.typ, v)
			if !slices.Equal(post.matches, got.matches) || post.total == nil || got.total == nil || *post.total != *got.total {
				t.Errorf("POST _search found %v (total %v), GET %v (total %v)", head(post.matches), post.total, head(got.matches), got.total)
			}
		})
	}
}

// A malformed or over-large near is a 400 OperationOutcome under any handling: dropping it would
// answer with places anywhere.
func TestNearRefused(t *testing.T) {
	e := sharedEnv(t)
	tests := []struct {
		typ, name, value, diag string
	}{
		{"Location", "near", "north|-73", "not a latitude"},
		{"Location", "near", "91|-73|10", "not a latitude"},
		{"Location", "near", "40|-181", "not a latitude"},
		{"Location", "near", "1e1|-73", "not a latitude"},
		{"Location", "near", "40", "latitude|longitude|distance|units"},
		{"Location", "near", "40|-73|1|km|x", "latitude|longitude|distance|units"},
		{"Location", "near", "40|-73|0", "above 0"},
		{"Location", "near", "40|-73|-5|km", "above 0"},
		{"Location", "near", "40|-73|NaN|km", "above 0"},
		{"Location", "near", "40|-73|10|furlongs", "units"},
		{"Location", "near", "40|-73||km", "without a distance"},
		{"Location", "near", "40|-73|161|km", "over the limit of 100 miles"},
		{"Location", "near", "40|-73|101|[mi_i]", "over the limit of 100 miles"},
		{"PractitionerRole", "location.near", "40|-73|500", "over the limit"},
		{"Location", "_sort", "near", "give one"},
	}
	for _, tt := range tests {
		for _, handling := range []string{"lenient", "strict"} {
			r := get(t, e.url("/"+tt.typ, tt.name, tt.value), "Prefer", "handling="+handling)
			if r.status != http.StatusBadRequest {
				t.Errorf("%s?%s=%s (%s): %d, want 400", tt.typ, tt.name, tt.value, handling, r.status)
				continue
			}
			if oo := decodeOutcome(t, r); !strings.Contains(oo.Issue[0].Diagnostics, tt.diag) {
				t.Errorf("%s=%s: %q, want %q", tt.name, tt.value, oo.Issue[0].Diagnostics, tt.diag)
			}
		}
	}
	// Exactly at the cap, in either mile, is served.
	for _, v := range []string{"40|-73|100|[mi_us]", "40|-73|160.9|km"} {
		if r := get(t, e.url("/Location", "near", v)); r.status != http.StatusOK {
			t.Errorf("near=%s: %d %s", v, r.status, r.body)
		}
	}
}
