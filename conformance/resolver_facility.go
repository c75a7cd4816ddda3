package conformance

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
)

// facilityFields are the fields of the facility record (seed 001 section 2), each on every
// record: a value, or null where no source states it.
var facilityFields = []string{"ccn", "facility_name", "facility_type", "ownership_type", "address", "overall_star"}

// sampleCCNs are the CCNs the sampled Organizations carry, in sample order.
func (e *Env) sampleCCNs(ctx context.Context) ([]string, error) {
	orgs, err := e.samplesOf(ctx, "Organization")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range orgs {
		ids, _ := o["identifier"].([]any)
		for _, id := range ids {
			m, _ := id.(map[string]any)
			if v, ok := m["value"].(string); ok && m["system"] == ccnSystem {
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		return nil, Skipf("no sampled Organization carries a CCN")
	}
	return out, nil
}

// checkResolverFacility holds GET /ccn/{ccn} of each sampled facility to the contract's record:
// every field present, strings or null, the star a whole 1 to 5 or null, the address's city and
// state, and the 14 provenance keys.
func checkResolverFacility(ctx context.Context, e *Env) error {
	ccns, err := e.sampleCCNs(ctx)
	if err != nil {
		return err
	}
	for _, ccn := range ccns {
		if err := e.checkFacility(ctx, ccn); err != nil {
			return err
		}
	}
	return nil
}

func (e *Env) checkFacility(ctx context.Context, ccn string) error {
	res, err := e.resolverCall(ctx, http.MethodGet, "/ccn/"+ccn, nil)
	if err != nil {
		return err
	}
	var rec map[string]any
	if res.status != http.StatusOK || res.json(&rec) != nil {
		return fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
	}
	for _, k := range facilityFields {
		if _, ok := rec[k]; !ok {
			return fmt.Errorf("%s: %s absent (null where no source states it)", res.url, k)
		}
	}
	if rec["ccn"] != ccn {
		return fmt.Errorf("%s: ccn %v", res.url, rec["ccn"])
	}
	for _, k := range []string{"facility_type", "ownership_type"} {
		if _, ok := rec[k].(string); !ok && rec[k] != nil {
			return fmt.Errorf("%s: %s %v is neither a string nor null", res.url, k, rec[k])
		}
	}
	if s, ok := rec["overall_star"].(float64); rec["overall_star"] != nil && (!ok || s != float64(int(s)) || s < 1 || s > 5) {
		return fmt.Errorf("%s: overall_star %v is not a whole 1 to 5 or null", res.url, rec["overall_star"])
	}
	addr, _ := rec["address"].(map[string]any)
	if _, ok := addr["state"].(string); !ok {
		return fmt.Errorf("%s: address %v has no state", res.url, rec["address"])
	}
	if _, ok := addr["city"]; !ok {
		return fmt.Errorf("%s: address %v has no city (null where no source states it)", res.url, rec["address"])
	}
	return hasProvenance("the facility record of "+ccn, rec)
}

// isoPeriod is the contract's measurement period: "<start date>/<end date>".
var isoPeriod = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})/(\d{4}-\d{2}-\d{2})$`)

// checkResolverQualityPeriod holds every quality record of a served facility to the contract's
// measurement_period: present on each, "<start date>/<end date>" with the start not after the
// end, or null where the source states none.
func checkResolverQualityPeriod(ctx context.Context, e *Env) error {
	ccns, err := e.sampleCCNs(ctx)
	if err != nil {
		return err
	}
	answered := 0
	for _, ccn := range ccns {
		n, err := e.checkQualityPeriods(ctx, ccn)
		if err != nil {
			return err
		}
		answered += n
	}
	if answered == 0 {
		return Skipf("no sampled CCN has a quality row")
	}
	return nil
}

// checkQualityPeriods checks the quality records of one CCN and counts them.
func (e *Env) checkQualityPeriods(ctx context.Context, ccn string) (int, error) {
	answered := 0
	for _, typ := range []string{"hospital", "nursing-home", "home-health", "hospice", "dialysis", "asc"} {
		res, err := e.resolverCall(ctx, http.MethodGet, "/quality/"+typ+"/"+ccn, nil)
		if err != nil {
			return answered, err
		}
		if res.status == http.StatusNotFound {
			continue
		}
		var q map[string]any
		if res.status != http.StatusOK || res.json(&q) != nil {
			return answered, fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
		}
		answered++
		p, present := q["measurement_period"]
		if !present {
			return answered, fmt.Errorf("%s: measurement_period absent (null where the source states none)", res.url)
		}
		if p == nil {
			continue
		}
		s, _ := p.(string)
		m := isoPeriod.FindStringSubmatch(s)
		if m == nil || m[2] < m[1] {
			return answered, fmt.Errorf("%s: measurement_period %v is not <start date>/<end date>", res.url, p)
		}
	}
	return answered, nil
}

// checkResolverASCAgrees holds /ccn and /quality/asc to one identifier of an ambulatory surgical
// center: the ten-character number a served Organization carries answers at both.
func checkResolverASCAgrees(ctx context.Context, e *Env) error {
	ccns, err := e.sampleCCNs(ctx)
	if err != nil {
		return err
	}
	for _, v := range ccns {
		if len(v) != 10 {
			continue
		}
		q, err := e.resolverCall(ctx, http.MethodGet, "/quality/asc/"+v, nil)
		if err != nil {
			return err
		}
		if q.status == http.StatusNotFound {
			continue // Care Compare lists not every certified center
		}
		c, err := e.resolverCall(ctx, http.MethodGet, "/ccn/"+v, nil)
		if err != nil {
			return err
		}
		if q.status != http.StatusOK || c.status != http.StatusOK {
			return fmt.Errorf("%s: %d, %s: %d; want both 200", q.url, q.status, c.url, c.status)
		}
		return nil
	}
	return Skipf("no sampled Organization is an ambulatory surgical center Care Compare lists")
}
