package resolver_test

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"testing"

	"providerdir/catalog"
	"providerdir/rest/apikey"
	"providerdir/rest/resolver"
	"providerdir/source/reference"
	"providerdir/source/zcta"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/demostore"
)

// milesBetween is the haversine distance in miles, written here so that the expectations do not
// lean on the server's arithmetic.
func milesBetween(lat1, lon1, lat2, lon2 float64) float64 {
	r := math.Pi / 180
	a := math.Pow(math.Sin((lat2-lat1)*r/2), 2) + math.Cos(lat1*r)*math.Cos(lat2*r)*math.Pow(math.Sin((lon2-lon1)*r/2), 2)
	return 2 * 6371.0088 * math.Asin(math.Sqrt(a)) / 1.609344
}

// GET /search with near: by place alone, every record whose practice ZIP's ZCTA centroid is
// within the radius, nearest first, each with its distance_miles, page by page, total exact;
// with a name, the name's matches within the radius; bad values are 400 with their codes.
func TestSearchNear(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	cs, err := zcta.Load(reference.Embedded(), zcta.File)
	if err != nil {
		t.Fatal(err)
	}
	centroid := map[string][2]float64{}
	for _, c := range cs {
		centroid[c.ZCTA] = [2]float64{c.Lat, c.Lon}
	}
	ctx := context.Background()
	snap, err := store.Serving(ctx, d.Store)
	if err != nil {
		t.Fatal(err)
	}
	var recs []stored.RegistryRecord
	perZIP := map[string]int{}
	q := store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders), Limit: 1000}
	for {
		page, err := d.Store.Find(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range page.Docs {
			b, err := stored.DecodeBody[stored.RegistryRecord](doc)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, b.Record)
			if z := b.Record.PracticeAddress.PostalCode; len(z) >= 5 {
				perZIP[z[:5]]++
			}
		}
		if q.After = page.Next; q.After == "" {
			break
		}
	}
	var dense string
	var noZCTA int
	for z, n := range perZIP {
		if _, ok := centroid[z]; !ok {
			noZCTA += n
		} else if n > perZIP[dense] || n == perZIP[dense] && z < dense {
			dense = z
		}
	}
	if noZCTA == 0 {
		t.Fatal("every record's ZIP has a ZCTA: the demo snapshot should hold some that have none")
	}
	at := centroid[dense]
	miles := func(r stored.RegistryRecord) float64 {
		z := r.PracticeAddress.PostalCode
		if len(z) < 5 {
			return math.Inf(1)
		}
		c, ok := centroid[z[:5]]
		if !ok {
			return math.Inf(1)
		}
		return milesBetween(at[0], at[1], c[0], c[1])
	}
	// the taxonomy most records within 100 miles hold
	var taxonomy string
	held := map[string]int{}
	for _, r := range recs {
		if miles(r) <= 100 {
			for _, t := range r.Taxonomies {
				if held[t.Code]++; held[t.Code] > held[taxonomy] {
					taxonomy = t.Code
				}
			}
		}
	}
	tests := []struct {
		name, params string
		radius       float64
		keep         func(stored.RegistryRecord) bool
	}{
		{"a ZIP", "near=" + dense + "&radius=60", 60, nil},
		{"a ZIP, the default radius", "near=" + dense, resolver.DefaultRadiusMiles, nil},
		{"a point", fmt.Sprintf("near=%v,%v&radius=80", at[0], at[1]), 80, nil},
		{"a ZIP and a taxonomy", "near=" + dense + "&radius=100&taxonomy=" + taxonomy, 100,
			func(r stored.RegistryRecord) bool {
				return slices.ContainsFunc(r.Taxonomies, func(t stored.RegistryTaxonomy) bool { return t.Code == taxonomy })
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := map[string]float64{}
			for _, r := range recs {
				if m := miles(r); m <= tt.radius && (tt.keep == nil || tt.keep(r)) {
					want[r.NPI] = m
				}
			}
			if len(want) < 2 {
				t.Fatalf("the case selects %d records: widen it", len(want))
			}
			var got []string
			last := -1.0
			for page := 1; ; page++ {
				r := e.get(t, "/resolver/v1/search?"+tt.params+"&limit=7&page="+fmt.Sprint(page), key)
				if r.Status != 200 {
					t.Fatalf("%d %s", r.Status, r.Raw)
				}
				if total := int(r.Body["total"].(float64)); total != len(want) {
					t.Fatalf("total %d, want %d", total, len(want))
				}
				results := r.Body["results"].([]any)
				for _, c := range results {
					c := c.(map[string]any)
					npi := c["npi"].(string)
					dm, ok := c["distance_miles"].(float64)
					if w, in := want[npi]; !ok || !in || math.Abs(dm-w) > 0.051 {
						t.Fatalf("%s at %v miles (present %v); want %v (within %v)", npi, dm, ok, w, in)
					}
					if dm < last {
						t.Fatalf("%s at %v miles after one at %v", npi, dm, last)
					}
					last = dm
					got = append(got, npi)
				}
				if len(results) < 7 {
					break
				}
			}
			if len(got) != len(want) || len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(want) {
				t.Errorf("paged through %d distinct of %d, want %d", len(slices.Compact(slices.Sorted(slices.Values(got)))), len(got), len(want))
			}
		})
	}

	// A name near the dense ZIP: the name's matches whose practice is within the radius.
	var named stored.RegistryRecord
	for _, r := range recs {
		if miles(r) == 0 && r.Name != nil && len(r.Name.Last) > 3 {
			named = r
		}
	}
	r := e.get(t, "/resolver/v1/search?q="+url.QueryEscape(named.Name.Last)+"&near="+dense+"&radius=5&limit=100", key)
	wide := e.get(t, "/resolver/v1/search?q="+url.QueryEscape(named.Name.Last)+"&limit=100", key)
	if r.Status != 200 || wide.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	found := false
	for _, c := range r.Body["results"].([]any) {
		c := c.(map[string]any)
		found = found || c["npi"] == named.NPI
		if dm, ok := c["distance_miles"].(float64); !ok || dm > 5 {
			t.Errorf("%v at %v miles, beyond 5", c["npi"], c["distance_miles"])
		}
	}
	if !found || r.Body["total"].(float64) > wide.Body["total"].(float64) {
		t.Errorf("%s near %s: found %v, total %v of %v", named.Name.Last, dense, found, r.Body["total"], wide.Body["total"])
	}
	if q := r.Body["query"].(map[string]any); q["near"] != dense || q["radius"] != 5.0 {
		t.Errorf("echo %v", q)
	}
	if q := wide.Body["query"].(map[string]any); q["near"] != nil || q["radius"] != nil {
		t.Errorf("echo without near: %v", q)
	}
	// Over the cap is served at the cap, and echoed so.
	if r := e.get(t, "/resolver/v1/search?near="+dense+"&radius=500", key); r.Status != 200 || r.Body["query"].(map[string]any)["radius"] != float64(resolver.MaxRadiusMiles) {
		t.Errorf("radius=500: %d %v", r.Status, r.Body["query"])
	}

	var foreign string // a 5-digit ZIP with no ZCTA
	for z := range 100000 {
		if _, ok := centroid[fmt.Sprintf("%05d", z)]; !ok {
			foreign = fmt.Sprintf("%05d", z)
			break
		}
	}
	bad := []struct{ params, code string }{
		{"near=" + foreign, resolver.CodeInvalidNear},
		{"near=1000", resolver.CodeInvalidNear},
		{"near=north", resolver.CodeInvalidNear},
		{"near=91,0", resolver.CodeInvalidNear},
		{"near=40,-181", resolver.CodeInvalidNear},
		{"near=1e1,5", resolver.CodeInvalidNear},
		{"near=" + dense + "&radius=0", resolver.CodeInvalidRadius},
		{"near=" + dense + "&radius=-3", resolver.CodeInvalidRadius},
		{"near=" + dense + "&radius=ten", resolver.CodeInvalidRadius},
		{"q=smith&radius=10", resolver.CodeInvalidRadius},
		{"radius=10", resolver.CodeInvalidRadius},
	}
	for _, b := range bad {
		if r := e.get(t, "/resolver/v1/search?"+b.params, key); r.Status != 400 || r.ErrorCode() != b.code {
			t.Errorf("%s: %d %q, want 400 %q", b.params, r.Status, r.ErrorCode(), b.code)
		}
	}
}
