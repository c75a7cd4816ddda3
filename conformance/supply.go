package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// supplyChecks hold the supply API (/v1) to its contract: paths, statuses, error codes,
// envelopes, provenance and the rate-limit headers every response carries.
func supplyChecks() []Check {
	const s = "supply"
	keyed := func(method, path string, status int, code string) func(context.Context, *Env) error {
		return func(ctx context.Context, e *Env) error {
			key, err := e.supplyKey()
			if err != nil {
				return err
			}
			return e.v1Error(ctx, method, path, key, status, code)
		}
	}
	return []Check{
		{s, "GET /health: public; data and meta", checkHealth},
		{s, "no Authorization is 401 missing_api_key", func(ctx context.Context, e *Env) error {
			return e.v1Error(ctx, http.MethodGet, "/specialties", "", http.StatusUnauthorized, "missing_api_key")
		}},
		{s, "unknown key is 401 invalid_api_key", func(ctx context.Context, e *Env) error {
			return e.v1Error(ctx, http.MethodGet, "/specialties", "pd_live_"+randomJTI(), http.StatusUnauthorized, "invalid_api_key")
		}},
		{s, "GET /specialties: the 12 registered specialties", checkSpecialties},
		{s, "GET /specialties/{code}/by-state: 51 rows of ProvenanceFields", checkByState},
		{s, "unknown specialty is 404 specialty_not_found", keyed(http.MethodGet, "/specialties/no-such-specialty/by-state", http.StatusNotFound, "specialty_not_found")},
		{s, "unregistered subspecialty is 400 invalid_subspecialty", keyed(http.MethodGet, "/specialties/cardiology/by-state?subspecialty=207N00000X", http.StatusBadRequest, "invalid_subspecialty")},
		{s, "by-county without state is 400 missing_state", keyed(http.MethodGet, "/specialties/cardiology/by-county?county_fips=06037", http.StatusBadRequest, "missing_state")},
		{s, "by-county without county_fips is 400 missing_county_fips", keyed(http.MethodGet, "/specialties/cardiology/by-county?state=CA", http.StatusBadRequest, "missing_county_fips")},
		{s, "by-county with another state's county is 400 state_county_mismatch", keyed(http.MethodGet, "/specialties/cardiology/by-county?state=NY&county_fips=06037", http.StatusBadRequest, "state_county_mismatch")},
		{s, "coverage of an unknown state is 404 state_not_found", keyed(http.MethodGet, "/states/ZZ/coverage", http.StatusNotFound, "state_not_found")},
		{s, "malformed NPI is 400 invalid_npi", keyed(http.MethodGet, "/providers/12345", http.StatusBadRequest, "invalid_npi")},
		{s, "unknown county is 404 county_not_found", keyed(http.MethodGet, "/specialties/cardiology/by-county?state=CA&county_fips=06999", http.StatusNotFound, "county_not_found")},
		{s, "unknown methodology is 404 methodology_not_found", keyed(http.MethodGet, "/methodology/no-such-dataset", http.StatusNotFound, "methodology_not_found")},
		{s, "well-formed NPI of no provider is 404 provider_not_found", keyed(http.MethodGet, "/providers/1234567893", http.StatusNotFound, "provider_not_found")},
		{s, "GET /specialties/{code}/by-county: the state row, the county in geo_scope_note", checkByCounty},
		{s, "subspecialty filter: meta.subspecialty_filter, no row underserved", checkSubspecialty},
		{s, "GET /providers/{npi}: a ProviderRecord of ProvenanceFields", checkProvider},
		{s, "GET /openapi.json: public OpenAPI 3.0 document of 1.0.0", checkOpenAPI},
		{s, "GET /npi/{npi} of a malformed NPI is 400", func(ctx context.Context, e *Env) error {
			_, err := e.v1Get(ctx, http.MethodGet, "/npi/12345", "", http.StatusBadRequest)
			return err
		}},
		{s, "a method a path does not route is 405 with Allow", checkMethodNotAllowed},
		{s, "GET /npi/{npi}: the six source blocks with the 14 provenance keys", checkNPISources},
	}
}

// v1Envelope is a supply API answer: data or error, and meta.
type v1Envelope struct {
	Data  json.RawMessage `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Meta map[string]any `json:"meta"`
}

// v1Get asks path and holds the answer to the status, the rate-limit headers and the envelope.
func (e *Env) v1Get(ctx context.Context, method, path, key string, status int) (v1Envelope, error) {
	res, err := e.v1(ctx, method, path, key)
	if err != nil {
		return v1Envelope{}, err
	}
	return v1Answer(res, status)
}

// v1Answer holds a supply API answer to the status, the rate-limit headers and the envelope
// with its request metadata, and returns the envelope.
func v1Answer(res response, status int) (v1Envelope, error) {
	if res.status != status {
		return v1Envelope{}, fmt.Errorf("%s: %d, want %d: %.300s", res.url, res.status, status, res.body)
	}
	if err := rateLimitHeaders(res); err != nil {
		return v1Envelope{}, err
	}
	var env v1Envelope
	if err := res.json(&env); err != nil {
		return v1Envelope{}, err
	}
	if err := requestMeta(env.Meta); err != nil {
		return v1Envelope{}, fmt.Errorf("%s: %w", res.url, err)
	}
	return env, nil
}

// v1Error holds an answer to an error envelope with the status and code.
func (e *Env) v1Error(ctx context.Context, method, path, key string, status int, code string) error {
	env, err := e.v1Get(ctx, method, path, key, status)
	if err != nil {
		return err
	}
	if env.Error == nil || env.Error.Code != code || env.Error.Message == "" {
		return fmt.Errorf("%s %s: error %+v, want code %s with a message", method, path, env.Error, code)
	}
	return nil
}

// rateLimitHeaders: every supply API response carries the four rate-limit headers (seed 000,
// section 8).
func rateLimitHeaders(res response) error {
	var problems []string
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining"} {
		if _, err := strconv.Atoi(res.header.Get(h)); err != nil {
			problems = append(problems, fmt.Sprintf("%s %q is not an integer", h, res.header.Get(h)))
		}
	}
	if _, err := time.Parse(time.RFC3339, res.header.Get("X-RateLimit-Reset")); err != nil {
		problems = append(problems, fmt.Sprintf("X-RateLimit-Reset %q is not a date-time", res.header.Get("X-RateLimit-Reset")))
	}
	if res.header.Get("X-RateLimit-Window") == "" {
		problems = append(problems, "no X-RateLimit-Window")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", res.url, strings.Join(problems, "; "))
	}
	return nil
}

// requestMeta holds meta to what every answer carries: request_id and api_version v1.
func requestMeta(meta map[string]any) error {
	if s, _ := meta["request_id"].(string); s == "" {
		return fmt.Errorf("meta has no request_id")
	}
	if meta["api_version"] != "v1" {
		return fmt.Errorf("meta.api_version %v, want v1", meta["api_version"])
	}
	return nil
}

// responseMeta holds a success's meta to ResponseMeta's required fields.
func responseMeta(meta map[string]any) error {
	var problems []string
	if meta["data_freshness"] == nil {
		problems = append(problems, "no data_freshness")
	}
	for _, k := range []string{"methodology_url", "limitations_url"} {
		if s, _ := meta[k].(string); !strings.HasPrefix(s, "http") {
			problems = append(problems, fmt.Sprintf("%s %v is not a URL", k, meta[k]))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("meta: %s", strings.Join(problems, "; "))
	}
	return nil
}

func checkHealth(ctx context.Context, e *Env) error {
	env, err := e.v1Get(ctx, http.MethodGet, "/health", "", http.StatusOK)
	if err != nil {
		return err
	}
	var h struct {
		Status  string `json:"status"`
		Uptime  string `json:"uptime_target"`
		Sources []any  `json:"sources"`
	}
	if err := json.Unmarshal(env.Data, &h); err != nil || h.Status != "ok" || h.Uptime == "" || h.Sources == nil {
		return fmt.Errorf("data %s, want status ok, uptime_target and sources", env.Data)
	}
	return responseMeta(env.Meta)
}

// registeredSpecialties are the twelve specialty slugs of seed 000.
var registeredSpecialties = []string{"cardiology", "dermatology", "gastroenterology", "neurology", "obgyn", "oncology",
	"ophthalmology", "orthopedic", "otolaryngology", "pediatrics", "psychiatry", "urology"}

func checkSpecialties(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/specialties", key, http.StatusOK)
	if err != nil {
		return err
	}
	var items []struct {
		Slug          string   `json:"slug"`
		DisplayName   string   `json:"display_name"`
		TaxonomyCodes []string `json:"taxonomy_codes"`
		StudyURL      string   `json:"study_url"`
		ReleaseDate   string   `json:"release_date"`
	}
	if err := json.Unmarshal(env.Data, &items); err != nil {
		return fmt.Errorf("data is not an array of SpecialtyListItem: %v", err)
	}
	var slugs []string
	for _, it := range items {
		slugs = append(slugs, it.Slug)
		if it.DisplayName == "" || len(it.TaxonomyCodes) == 0 || it.StudyURL == "" {
			return fmt.Errorf("%s: display_name, taxonomy_codes or study_url missing", it.Slug)
		}
		if _, err := time.Parse(time.DateOnly, it.ReleaseDate); err != nil {
			return fmt.Errorf("%s: release_date %q is not a date", it.Slug, it.ReleaseDate)
		}
	}
	slices.Sort(slugs)
	if !slices.Equal(slugs, registeredSpecialties) {
		return fmt.Errorf("slugs %v, want %v", slugs, registeredSpecialties)
	}
	return responseMeta(env.Meta)
}

// stateRowFields are SpecialtyStateRow's fields, each a ProvenanceField.
var stateRowFields = []string{"state_code", "state_name", "active_providers", "population_2024", "per_100k", "rank_density", "quartile", "underserved"}

func checkByState(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/specialties/cardiology/by-state", key, http.StatusOK)
	if err != nil {
		return err
	}
	rows, err := stateRows(env.Data)
	if err != nil {
		return err
	}
	if len(rows) != 51 {
		return fmt.Errorf("%d rows, want 51", len(rows))
	}
	states := map[string]bool{}
	for _, row := range rows {
		states[fmt.Sprint(row["state_code"].Value)] = true
	}
	if len(states) != 51 {
		return fmt.Errorf("%d distinct state codes, want 51", len(states))
	}
	return responseMeta(env.Meta)
}

// provField is a ProvenanceField (seed 000, section 2).
type provField struct {
	Value           any      `json:"value"`
	Source          string   `json:"source"`
	LastChecked     string   `json:"last_checked"`
	ConfidenceScore *float64 `json:"confidence_score"`
}

func provenanceField(raw json.RawMessage) (provField, error) {
	if raw == nil {
		return provField{}, fmt.Errorf("missing")
	}
	var all map[string]json.RawMessage
	var pf provField
	if err := json.Unmarshal(raw, &all); err != nil {
		return pf, fmt.Errorf("not a ProvenanceField: %s", raw)
	}
	if _, ok := all["value"]; !ok {
		return pf, fmt.Errorf("no value")
	}
	_ = json.Unmarshal(raw, &pf)
	if pf.Source == "" {
		return pf, fmt.Errorf("no source")
	}
	if _, err := time.Parse(time.RFC3339, pf.LastChecked); err != nil {
		return pf, fmt.Errorf("last_checked %q is not a date-time", pf.LastChecked)
	}
	if c := pf.ConfidenceScore; c != nil && (*c < 0 || *c > 1) {
		return pf, fmt.Errorf("confidence_score %v outside 0 to 1", *c)
	}
	return pf, nil
}

func checkMethodNotAllowed(ctx context.Context, e *Env) error {
	res, err := e.v1(ctx, http.MethodDelete, "/specialties", e.creds.SupplyKey)
	if err != nil {
		return err
	}
	if res.status != http.StatusMethodNotAllowed {
		return fmt.Errorf("%s: %d, want 405", res.url, res.status)
	}
	if allow := res.header.Get("Allow"); !strings.Contains(allow, http.MethodGet) {
		return fmt.Errorf("%s: Allow %q, want one naming GET", res.url, allow)
	}
	return rateLimitHeaders(res)
}

// npiSources are the source blocks of an entity-resolution result.
var npiSources = []string{"nppes", "oig_leie", "pecos", "qpp_mips", "open_payments", "sam_gov"}

func checkNPISources(ctx context.Context, e *Env) error {
	npi, err := e.sampleNPI(ctx)
	if err != nil {
		return err
	}
	res, err := e.v1(ctx, http.MethodGet, "/npi/"+npi, "")
	if err != nil {
		return err
	}
	if cc := res.header.Get("Cache-Control"); !strings.Contains(cc, "max-age=60") || !strings.Contains(cc, "stale-while-revalidate=86400") {
		return fmt.Errorf("anonymous answer's Cache-Control %q, want 60 seconds fresh and a day stale-while-revalidate", cc)
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/npi/"+npi, "", http.StatusOK)
	if err != nil {
		return err
	}
	var d struct {
		NPI           string `json:"npi"`
		Authenticated *bool  `json:"authenticated"`
		Sources       map[string]struct {
			Data       json.RawMessage            `json:"data"`
			Provenance map[string]json.RawMessage `json:"provenance"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return err
	}
	if d.NPI != npi || d.Authenticated == nil || *d.Authenticated {
		return fmt.Errorf("npi %q authenticated %v, want %s and false for an anonymous call", d.NPI, d.Authenticated, npi)
	}
	for _, src := range npiSources {
		b, ok := d.Sources[src]
		if !ok {
			return fmt.Errorf("no %s source block", src)
		}
		for _, k := range provenanceKeys {
			if _, ok := b.Provenance[k]; !ok {
				return fmt.Errorf("%s provenance lacks %s", src, k)
			}
		}
	}
	if string(d.Sources["nppes"].Data) == "null" || d.Sources["nppes"].Data == nil {
		return fmt.Errorf("the nppes block has no data for a registry NPI")
	}
	return nil
}

// stateRows decodes by-state rows, each field a ProvenanceField.
func stateRows(data json.RawMessage) ([]map[string]provField, error) {
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("data is not an array of rows: %v", err)
	}
	rows := make([]map[string]provField, len(raw))
	for i, row := range raw {
		rows[i] = map[string]provField{}
		for _, f := range stateRowFields {
			pf, err := provenanceField(row[f])
			if err != nil {
				return nil, fmt.Errorf("row %d %s: %w", i, f, err)
			}
			rows[i][f] = pf
		}
	}
	return rows, nil
}

func checkByCounty(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/specialties/cardiology/by-county?state=CA&county_fips=06037", key, http.StatusOK)
	if err != nil {
		return err
	}
	var d struct {
		StateLevelSupply json.RawMessage `json:"state_level_supply"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return err
	}
	rows, err := stateRows([]byte("[" + string(d.StateLevelSupply) + "]"))
	if err != nil {
		return fmt.Errorf("state_level_supply: %w", err)
	}
	if rows[0]["state_code"].Value != "CA" {
		return fmt.Errorf("state_level_supply is of %v, want CA", rows[0]["state_code"].Value)
	}
	if note, _ := env.Meta["geo_scope_note"].(string); !strings.Contains(note, "06037") {
		return fmt.Errorf("meta.geo_scope_note %q does not name the county 06037", note)
	}
	return responseMeta(env.Meta)
}

func checkSubspecialty(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/specialties/dermatology/by-state?subspecialty=207ND0900X", key, http.StatusOK)
	if err != nil {
		return err
	}
	rows, err := stateRows(env.Data)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r["underserved"].Value != false {
			return fmt.Errorf("%v is underserved %v in a filtered answer, want false", r["state_code"].Value, r["underserved"].Value)
		}
	}
	if f, ok := env.Meta["subspecialty_filter"].(map[string]any); !ok || len(f) == 0 || !strings.Contains(fmt.Sprint(f), "207ND0900X") {
		return fmt.Errorf("meta.subspecialty_filter %v, want one naming 207ND0900X", env.Meta["subspecialty_filter"])
	}
	return responseMeta(env.Meta)
}

// providerFields are ProviderRecord's fields, each a ProvenanceField.
var providerFields = []string{"npi", "specialty", "taxonomy_codes", "taxonomy_primary", "state", "city", "last_updated_in_source"}

// providerTries bounds the sample Practitioners checkProvider asks about: each costs a request
// of the key's quota.
const providerTries = 5

// checkProvider reads a provider of a registered specialty: the first of the sample
// Practitioners the API knows.
func checkProvider(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	ps, err := e.samplesOf(ctx, "Practitioner")
	if err != nil {
		return err
	}
	for _, p := range ps[:min(len(ps), providerTries)] {
		tok := npiToken(p)
		if tok == "" {
			continue
		}
		npi := tok[strings.IndexByte(tok, '|')+1:]
		res, err := e.v1(ctx, http.MethodGet, "/providers/"+npi, key)
		if err != nil {
			return err
		}
		if res.status == http.StatusNotFound {
			continue // not in a registered specialty
		}
		env, err := e.v1Get(ctx, http.MethodGet, "/providers/"+npi, key, http.StatusOK)
		if err != nil {
			return err
		}
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(env.Data, &rec); err != nil {
			return err
		}
		for _, f := range providerFields {
			pf, err := provenanceField(rec[f])
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			if f == "npi" && pf.Value != npi {
				return fmt.Errorf("npi %v, want %s", pf.Value, npi)
			}
		}
		return responseMeta(env.Meta)
	}
	return Skipf("none of the first %d sample Practitioners is a provider of a registered specialty", providerTries)
}

func checkOpenAPI(ctx context.Context, e *Env) error {
	res, err := e.v1(ctx, http.MethodGet, "/openapi.json", "")
	if err != nil {
		return err
	}
	if res.status != http.StatusOK {
		return fmt.Errorf("%d, want 200", res.status)
	}
	if err := rateLimitHeaders(res); err != nil {
		return err
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]any `json:"paths"`
	}
	if err := res.json(&doc); err != nil {
		return err
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0") || doc.Info.Version != "1.0.0" {
		return fmt.Errorf("openapi %q info.version %q, want 3.0.x and 1.0.0", doc.OpenAPI, doc.Info.Version)
	}
	for _, p := range []string{"/health", "/specialties", "/specialties/{code}/by-state", "/specialties/{code}/by-county",
		"/states/{state}/coverage", "/providers/{npi}", "/npi/{npi}", "/methodology/{dataset}"} {
		// The document may put the version prefix in its servers' URL or in each path.
		_, bare := doc.Paths[p]
		_, prefixed := doc.Paths["/v1"+p]
		if !bare && !prefixed {
			return fmt.Errorf("paths lack %s", p)
		}
	}
	return nil
}
