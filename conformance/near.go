package conformance

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
)

// nearKm is the radius of the near checks.
const nearKm = 50

func nearChecks() []Check {
	const f = "fhir"
	return []Check{
		{f, "Location?near: within the distance, nearest first, GET and POST _search, paged", checkLocationNear},
		{f, "PractitionerRole?location.near with specialty: GET and POST _search, paged", checkRoleNear},
		{f, "near: a malformed or over-large value is 400 OperationOutcome", checkNearRefused},
	}
}

// kmBetween is the haversine distance on a sphere of the Earth's mean radius.
func kmBetween(lat1, lon1, lat2, lon2 float64) float64 {
	r := math.Pi / 180
	a := math.Pow(math.Sin((lat2-lat1)*r/2), 2) + math.Cos(lat1*r)*math.Cos(lat2*r)*math.Pow(math.Sin((lon2-lon1)*r/2), 2)
	return 2 * 6371.0088 * math.Asin(math.Sqrt(a))
}

func positionOf(r map[string]any) (lat, lon float64, ok bool) {
	lat, ok1 := path(r, "position", "latitude").(float64)
	lon, ok2 := path(r, "position", "longitude").(float64)
	return lat, lon, ok1 && ok2
}

// placedLocation is a served Location with a position: its id and "lat|lon".
func placedLocation(ctx context.Context, e *Env) (string, float64, float64, error) {
	b, err := e.search(ctx, "Location", url.Values{"_count": {"100"}})
	if err != nil {
		return "", 0, 0, err
	}
	for _, en := range b.Entry {
		if lat, lon, ok := positionOf(en.Resource); ok {
			return fmt.Sprintf("Location/%v", en.Resource["id"]), lat, lon, nil
		}
	}
	return "", 0, 0, Skipf("no Location of the first 100 has a position")
}

// walk follows a search's next links from its first page (already read) to the end, and
// returns every match in order, checking that the pages hold total matches, each once.
func (e *Env) walk(ctx context.Context, first bundle) ([]map[string]any, error) {
	var out []map[string]any
	seen := map[string]bool{}
	b := first
	for pages := 1; ; pages++ {
		for _, en := range b.Entry {
			if en.Search.Mode != "match" {
				continue
			}
			id := fmt.Sprintf("%v/%v", en.Resource["resourceType"], en.Resource["id"])
			if seen[id] {
				return nil, fmt.Errorf("%s repeated on page %d", id, pages)
			}
			seen[id] = true
			out = append(out, en.Resource)
		}
		next := b.next()
		if next == "" {
			break
		}
		if pages == maxPages {
			return nil, fmt.Errorf("still a next link after %d pages", pages)
		}
		res, err := e.fhirGet(ctx, next, nil)
		if err != nil {
			return nil, err
		}
		if b, err = searchBundle(res); err != nil {
			return nil, err
		}
	}
	if first.Total != nil && *first.Total != len(out) {
		return nil, fmt.Errorf("%d matches over the pages, total %d", len(out), *first.Total)
	}
	return out, nil
}

func checkLocationNear(ctx context.Context, e *Env) error {
	id, lat, lon, err := placedLocation(ctx, e)
	if err != nil {
		return err
	}
	q := url.Values{"near": {fmt.Sprintf("%v|%v|%d|km", lat, lon, nearKm)}, "_count": {"3"}}
	first, err := e.searchBoth(ctx, "Location", q)
	if err != nil {
		return err
	}
	found, err := e.walk(ctx, first)
	if err != nil {
		return err
	}
	last, own := -1.0, false
	for _, r := range found {
		rid := fmt.Sprintf("Location/%v", r["id"])
		own = own || rid == id
		la, lo, ok := positionOf(r)
		if !ok {
			return fmt.Errorf("%s has no position", rid)
		}
		d := kmBetween(lat, lon, la, lo)
		if d > nearKm+0.01 {
			return fmt.Errorf("%s is %.1f km away, beyond %d km", rid, d, nearKm)
		}
		if d < last-0.01 {
			return fmt.Errorf("%s (%.2f km) comes after one at %.2f km", rid, d, last)
		}
		last = d
	}
	if !own {
		return fmt.Errorf("%s, the point searched from, is not among the %d found", id, len(found))
	}
	return nil
}

func checkRoleNear(ctx context.Context, e *Env) error {
	id, lat, lon, err := placedLocation(ctx, e)
	if err != nil {
		return err
	}
	at, err := e.search(ctx, "PractitionerRole", url.Values{"location": {id}, "_count": {"1"}})
	if err != nil {
		return err
	}
	if len(at.Entry) == 0 {
		return Skipf("no PractitionerRole at %s", id)
	}
	specialty, _ := path(list(path(list(at.Entry[0].Resource["specialty"])[0], "coding"))[0], "code").(string)
	q := url.Values{"location.near": {fmt.Sprintf("%v|%v|%d", lat, lon, nearKm)}, "specialty": {specialty}, "_count": {"2"}}
	first, err := e.searchBoth(ctx, "PractitionerRole", q)
	if err != nil {
		return err
	}
	found, err := e.walk(ctx, first)
	if err != nil {
		return err
	}
	want := fmt.Sprintf("PractitionerRole/%v", at.Entry[0].Resource["id"])
	for _, r := range found {
		if fmt.Sprintf("PractitionerRole/%v", r["id"]) == want {
			return nil
		}
	}
	return fmt.Errorf("%s, a %s at %s, is not among the %d roles found", want, specialty, id, len(found))
}

func checkNearRefused(ctx context.Context, e *Env) error {
	for _, v := range []string{"91|0|10|km", "40|-73|500|km", "40|-73|10|parsecs", "forty|-73"} {
		res, err := e.fhirGet(ctx, "Location?near="+url.QueryEscape(v), nil)
		if err != nil {
			return err
		}
		if res.status != http.StatusBadRequest {
			return fmt.Errorf("near=%s: %d, want 400", v, res.status)
		}
		if err := operationOutcome(res); err != nil {
			return err
		}
	}
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/metadata", http.Header{"Accept": {"application/fhir+json"}}, nil)
	if err != nil {
		return err
	}
	if !strings.Contains(string(res.body), `"name":"near","definition":"http://hl7.org/fhir/SearchParameter/Location-near","type":"special"`) {
		return fmt.Errorf("the CapabilityStatement declares no near of type special with its definition")
	}
	return nil
}
