package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// resolverSearchChecks hold the resolver's search, quality and payments paths and the batch's
// per-NPI ceiling fields to the contract (seed 001 sections 2, 4, 7, 8) and to the documented
// additions: every status and error code each path answers to a client that sends nothing
// unusual.
func resolverSearchChecks() []Check {
	const r = "resolver"
	status := func(path string, code int, errCode string) func(context.Context, *Env) error {
		return func(ctx context.Context, e *Env) error {
			return e.resolverStatus(ctx, http.MethodGet, path, nil, code, errCode)
		}
	}
	return []Check{
		{r, "GET /search finds the sample provider by its name and state, ranked, each candidate with _match_score and the 14 provenance keys", checkResolverSearch},
		{r, "GET /search serves a limit above 100 as 100", checkResolverSearchCap},
		{r, "GET /search echoes q, state, taxonomy, limit and page, null when not given", checkResolverSearchEcho},
		{r, "GET /search without q is 400 invalid_query", status("/search?state=CA", http.StatusBadRequest, "invalid_query")},
		{r, "GET /search with an unknown state is 400 invalid_state", status("/search?q=smith&state=ZZ", http.StatusBadRequest, "invalid_state")},
		{r, "GET /search with a malformed taxonomy is 400 invalid_taxonomy", status("/search?q=smith&taxonomy=x", http.StatusBadRequest, "invalid_taxonomy")},
		{r, "GET /search with limit=0 is 400 invalid_limit", status("/search?q=smith&limit=0", http.StatusBadRequest, "invalid_limit")},
		{r, "GET /search with page=0 is 400 invalid_page", status("/search?q=smith&page=0", http.StatusBadRequest, "invalid_page")},
		{r, "GET /quality/{type}/{id} with an unknown type is 400 invalid_type", status("/quality/clinic/050001", http.StatusBadRequest, "invalid_type")},
		{r, "GET /quality/{type}/{id} with a malformed CCN is 400 invalid_ccn", status("/quality/hospital/ZZ", http.StatusBadRequest, "invalid_ccn")},
		// Care Compare publishes ambulatory surgical centers under ten-character numbers only.
		{r, "GET /quality/asc/{six-character CCN} is 404 not_found", status("/quality/asc/050001", http.StatusNotFound, "not_found")},
		{r, "GET /quality/{type}/{id} of a served facility: star, period, measures with national averages, provenance", checkResolverQuality},
		{r, "GET /quality/{type}/{id} of a served facility: measurement_period on every record, <start date>/<end date> or null", checkResolverQualityPeriod},
		{r, "GET /ccn/{ccn} of a served facility: every field of the facility record, null where no source states it", checkResolverFacility},
		{r, "GET /ccn/{id} answers the ten-character number /quality/asc/{id} answers", checkResolverASCAgrees},
		{r, "GET /payments/{npi} with nine digits is 400 invalid_npi", status("/payments/123456789", http.StatusBadRequest, "invalid_npi")},
		{r, "GET /payments/{npi} with a malformed program_year is 400 invalid_program_year", status("/payments/1234567893?program_year=23", http.StatusBadRequest, "invalid_program_year")},
		{r, "GET /payments/{npi} failing its check digit is 404 not_found", status("/payments/1234567890", http.StatusNotFound, "not_found")},
		{r, "GET /payments/{npi} of the sample provider: year, totals, records, provenance", checkResolverPayments},
		{r, "POST /batch/npi carries the per-NPI ceiling's fields", checkResolverNPICeiling},
	}
}

// sampleProvider reads the sample NPI's resolver record.
func (e *Env) sampleProvider(ctx context.Context) (map[string]any, error) {
	npi, err := e.sampleNPI(ctx)
	if err != nil {
		return nil, err
	}
	res, err := e.resolverCall(ctx, http.MethodGet, "/npi/"+npi, nil)
	if err != nil {
		return nil, err
	}
	var rec map[string]any
	if res.status != http.StatusOK || res.json(&rec) != nil {
		return nil, fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
	}
	return rec, nil
}

// searchResult is the search answer as the checks read it.
type searchResult struct {
	Query struct {
		Limit int `json:"limit"`
	} `json:"query"`
	Total   int              `json:"total"`
	Results []map[string]any `json:"results"`
}

func (e *Env) resolverSearch(ctx context.Context, q url.Values) (searchResult, error) {
	var out searchResult
	res, err := e.resolverCall(ctx, http.MethodGet, "/search?"+q.Encode(), nil)
	if err != nil {
		return out, err
	}
	if res.status != http.StatusOK || res.json(&out) != nil {
		return out, fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
	}
	prev := 2.0
	for i, c := range out.Results {
		s, ok := c["_match_score"].(float64)
		if !ok || s < 0 || s > 1 || s > prev {
			return out, fmt.Errorf("%s: candidate %d _match_score %v (after %v): want a number in [0, 1], best first", res.url, i, c["_match_score"], prev)
		}
		prev = s
		if err := hasProvenance(fmt.Sprintf("candidate %d", i), c); err != nil {
			return out, err
		}
	}
	if out.Total < len(out.Results) {
		return out, fmt.Errorf("%s: total %d below the %d results", res.url, out.Total, len(out.Results))
	}
	return out, nil
}

func checkResolverSearch(ctx context.Context, e *Env) error {
	rec, err := e.sampleProvider(ctx)
	if err != nil {
		return err
	}
	q := ""
	if n, ok := rec["name"].(map[string]any); ok {
		q = fmt.Sprint(n["first"], " ", n["last"])
	} else if o, ok := rec["organization_name"].(string); ok {
		q = o
	}
	if strings.TrimSpace(q) == "" {
		return Skipf("the sample provider has no name")
	}
	v := url.Values{"q": {q}, "limit": {"100"}}
	if a, ok := rec["address"].(map[string]any); ok && a["state"] != nil {
		v.Set("state", fmt.Sprint(a["state"]))
	}
	out, err := e.resolverSearch(ctx, v)
	if err != nil {
		return err
	}
	for _, c := range out.Results {
		if c["npi"] == rec["npi"] {
			return nil
		}
	}
	return fmt.Errorf("search for %q (%v): %d of %d candidates, none is NPI %v", q, v.Get("state"), len(out.Results), out.Total, rec["npi"])
}

func checkResolverSearchCap(ctx context.Context, e *Env) error {
	out, err := e.resolverSearch(ctx, url.Values{"q": {"smith"}, "limit": {"1000"}})
	if err != nil {
		return err
	}
	if out.Query.Limit != 100 || len(out.Results) > 100 {
		return fmt.Errorf("limit=1000: query.limit %d, %d results; want 100 and at most 100", out.Query.Limit, len(out.Results))
	}
	return nil
}

func checkResolverSearchEcho(ctx context.Context, e *Env) error {
	res, err := e.resolverCall(ctx, http.MethodGet, "/search?q=smith", nil)
	if err != nil {
		return err
	}
	var out struct {
		Query map[string]any `json:"query"`
	}
	if res.status != http.StatusOK || res.json(&out) != nil {
		return fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
	}
	for _, k := range []string{"q", "state", "taxonomy", "limit", "page"} {
		if _, ok := out.Query[k]; !ok {
			return fmt.Errorf("%s: query has no %q: %v", res.url, k, out.Query)
		}
	}
	if out.Query["q"] != "smith" || out.Query["state"] != nil || out.Query["taxonomy"] != nil {
		return fmt.Errorf("%s: query %v; want q smith, state and taxonomy null", res.url, out.Query)
	}
	return nil
}

// ccnSystem is the identifier system of a CMS Certification Number on FHIR resources.
const ccnSystem = "http://terminology.hl7.org/NamingSystem/CCN"

// sampleCCN is a CCN one of the served Organizations carries.
func (e *Env) sampleCCN(ctx context.Context) (string, error) {
	orgs, err := e.samplesOf(ctx, "Organization")
	if err != nil {
		return "", err
	}
	for _, o := range orgs {
		ids, _ := o["identifier"].([]any)
		for _, id := range ids {
			m, _ := id.(map[string]any)
			if m["system"] == ccnSystem {
				if v, ok := m["value"].(string); ok {
					return v, nil
				}
			}
		}
	}
	return "", Skipf("no sampled Organization carries a CCN")
}

func checkResolverQuality(ctx context.Context, e *Env) error {
	ccn, err := e.sampleCCN(ctx)
	if err != nil {
		return err
	}
	for _, typ := range []string{"hospital", "nursing-home", "home-health", "hospice", "dialysis"} {
		res, err := e.resolverCall(ctx, http.MethodGet, "/quality/"+typ+"/"+ccn, nil)
		if err != nil {
			return err
		}
		if res.status == http.StatusNotFound {
			continue
		}
		var q struct {
			Type     string           `json:"type"`
			CCN      string           `json:"ccn"`
			Star     *int             `json:"overall_star"`
			Measures []map[string]any `json:"measures"`
		}
		var all map[string]any
		if res.status != http.StatusOK || res.json(&q) != nil || res.json(&all) != nil {
			return fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
		}
		if q.Type != typ || q.CCN != ccn {
			return fmt.Errorf("%s: type %q ccn %q", res.url, q.Type, q.CCN)
		}
		if q.Star != nil && (*q.Star < 1 || *q.Star > 5) {
			return fmt.Errorf("%s: overall_star %d outside 1..5 (a missing star is null, never zero)", res.url, *q.Star)
		}
		for i, m := range q.Measures {
			if _, present := m["value"]; !present {
				return fmt.Errorf("%s: measure %d %v has no value (null when suppressed)", res.url, i, m)
			}
		}
		return hasProvenance("the quality record", all)
	}
	return Skipf("CCN %s has no quality row of the five CCN-keyed types", ccn)
}

func checkResolverPayments(ctx context.Context, e *Env) error {
	npi, err := e.sampleNPI(ctx)
	if err != nil {
		return err
	}
	res, err := e.resolverCall(ctx, http.MethodGet, "/payments/"+npi, nil)
	if err != nil {
		return err
	}
	var p struct {
		Total   float64 `json:"total_amount_usd"`
		Count   int     `json:"record_count"`
		Year    int     `json:"program_year"`
		Records []struct {
			Amount float64 `json:"amount_usd"`
		} `json:"records"`
	}
	var all map[string]any
	if res.status != http.StatusOK || res.json(&p) != nil || res.json(&all) != nil {
		return fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
	}
	var cents int64
	for _, r := range p.Records {
		cents += int64(r.Amount*100 + 0.5)
	}
	if p.Count != len(p.Records) || int64(p.Total*100+0.5) != cents {
		return fmt.Errorf("%s: record_count %d, total %v; the %d records sum to %s", res.url, p.Count, p.Total, len(p.Records), strconv.FormatFloat(float64(cents)/100, 'f', 2, 64))
	}
	return hasProvenance("the payments record", all)
}

func checkResolverNPICeiling(ctx context.Context, e *Env) error {
	npi, err := e.sampleNPI(ctx)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(map[string]any{"npis": []string{npi}})
	res, err := e.resolverCall(ctx, http.MethodPost, "/batch/npi", body)
	if err != nil {
		return err
	}
	if res.status != http.StatusOK {
		return fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
	}
	for _, h := range []string{"X-RateLimit-NPI-Limit", "X-RateLimit-NPI-Remaining", "X-RateLimit-NPI-Reset"} {
		if _, err := strconv.ParseInt(res.header.Get(h), 10, 64); err != nil {
			return fmt.Errorf("%s: %s %q is not an integer", res.url, h, res.header.Get(h))
		}
	}
	return nil
}
