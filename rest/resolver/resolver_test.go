package resolver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/rest/resolver"
	"providerdir/stored"
	"providerdir/testing/backends"
	"providerdir/testing/demostore"
)

// provenanceKeys fails unless o carries each of the 14 provenance keys.
func provenanceKeys(t *testing.T, what string, o map[string]any) {
	t.Helper()
	for _, k := range stored.ProvenanceKeys {
		if _, ok := o[k]; !ok {
			t.Errorf("%s: provenance key %s missing", what, k)
		}
	}
}

// rateLimitHeaders fails unless the response carries the three rate-limit fields of
// docs/contracts/resolver-api.md §8 as integers, Reset in Unix epoch seconds not in the past.
func rateLimitHeaders(t *testing.T, what string, r response) {
	t.Helper()
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if _, err := strconv.ParseInt(r.Header.Get(h), 10, 64); err != nil {
			t.Errorf("%s: %s = %q, want an integer", what, h, r.Header.Get(h))
		}
	}
	reset, _ := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
	if now := time.Now().Unix(); reset < now-3600 || reset > now+2*3600 {
		t.Errorf("%s: X-RateLimit-Reset %d is not epoch seconds within the hour of %d", what, reset, now)
	}
}

// factsOf indexes the facts of a record by type.
func factsOf(t *testing.T, body map[string]any) map[string][]map[string]any {
	t.Helper()
	list, ok := body["facts"].([]any)
	if !ok {
		t.Fatalf("facts is %T, want an array", body["facts"])
	}
	out := map[string][]map[string]any{}
	for _, v := range list {
		f := v.(map[string]any)
		provenanceKeys(t, "fact "+f["type"].(string), f)
		out[f["type"].(string)] = append(out[f["type"].(string)], f)
	}
	return out
}

// GET /npi/{npi}: every status and code the path answers, with the rate-limit fields on each, the
// provenance keys on each record and fact, and each response valid against the document.
func TestNPI(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	tests := []struct {
		name, path, key string
		status          int
		code            string
		message         string // a fragment the error message holds
	}{
		{"record", "/resolver/v1/npi/" + f.enrolled, key, 200, "", ""},
		{"with facts", "/resolver/v1/npi/" + f.excluded + "?include=facts", key, 200, "", ""},
		{"too short", "/resolver/v1/npi/123456789", key, 400, resolver.CodeInvalidNPI, "10 decimal digits"},
		{"too long", "/resolver/v1/npi/12345678901", key, 400, resolver.CodeInvalidNPI, "10 decimal digits"},
		{"letters", "/resolver/v1/npi/12345abcde", key, 400, resolver.CodeInvalidNPI, "10 decimal digits"},
		{"check digit", "/resolver/v1/npi/" + f.badCheckDigit, key, 404, "not_found", "check digit"},
		{"absent", "/resolver/v1/npi/" + f.absent, key, 404, "not_found", "not in the national registry"},
		{"unknown include", "/resolver/v1/npi/" + f.enrolled + "?include=everything", key, 400, resolver.CodeInvalidInclude, "facts"},
		{"no key", "/resolver/v1/npi/" + f.enrolled, "", 401, "invalid_key", "X-Service-Key"},
		{"unknown key", "/resolver/v1/npi/" + f.enrolled, "sk_live_notakey", 401, "invalid_key", "not a recognised key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, tt.path, tt.key)
			if r.Status != tt.status || r.ErrorCode() != tt.code {
				t.Fatalf("%d %q, want %d %q: %s", r.Status, r.ErrorCode(), tt.status, tt.code, r.Raw)
			}
			rateLimitHeaders(t, tt.name, r)
			if tt.code != "" {
				msg, _ := r.Body["error"].(map[string]any)["message"].(string)
				if !strings.Contains(msg, tt.message) {
					t.Errorf("message %q does not say %q", msg, tt.message)
				}
				return
			}
			provenanceKeys(t, "record", r.Body)
			if r.Body["_dataset_id"] != stored.NPPES.ID {
				t.Errorf("_dataset_id %v, want the registry's", r.Body["_dataset_id"])
			}
		})
	}
}

// The record's fields come from the registry record, pecos_enrolled from the enrollment file:
// true for a listed NPI, false for one the loaded file does not list.
func TestNPIRecord(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierStarter)
	for _, tt := range []struct {
		npi      string
		enrolled bool
	}{{f.enrolled, true}, {f.notEnrolled, false}} {
		r := e.get(t, "/resolver/v1/npi/"+tt.npi, key)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", tt.npi, r.Status, r.Raw)
		}
		if r.Body["npi"] != tt.npi || r.Body["pecos_enrolled"] != tt.enrolled {
			t.Errorf("%s: npi %v pecos_enrolled %v, want %v", tt.npi, r.Body["npi"], r.Body["pecos_enrolled"], tt.enrolled)
		}
		for _, k := range []string{"entity_type", "address"} {
			if r.Body[k] == nil {
				t.Errorf("%s: %s missing", tt.npi, k)
			}
		}
		if _, ok := r.Body["facts"]; ok {
			t.Errorf("%s: facts without include=facts", tt.npi)
		}
	}
}

// include=facts: exclusion is true with the LEIE record's provenance for a listed NPI and false
// with the searched snapshot's (availability absent) for one the list does not hold;
// care_compare_star is the rated facility's star, named by CCN, for the NPI the hospital
// enrollment file ties to it. Each fact is its own object with its own provenance.
func TestNPIFacts(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	facts := func(npi string) map[string][]map[string]any {
		r := e.get(t, "/resolver/v1/npi/"+npi+"?include=facts", key)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", npi, r.Status, r.Raw)
		}
		return factsOf(t, r.Body)
	}
	ex := facts(f.excluded)
	if len(ex["exclusion"]) != 1 || ex["exclusion"][0]["value"] != true || ex["exclusion"][0]["_dataset_id"] != stored.LEIE.ID {
		t.Errorf("excluded NPI: exclusion facts %v", ex["exclusion"])
	}
	clear := facts(f.notExcluded)
	if len(clear["exclusion"]) != 1 || clear["exclusion"][0]["value"] != false {
		t.Fatalf("NPI off the list: exclusion facts %v", clear["exclusion"])
	}
	if av, _ := json.Marshal(clear["exclusion"][0]["_data_availability"]); string(av) != `["absent"]` {
		t.Errorf("NPI off the list: _data_availability %s, want [absent]", av)
	}
	enrolled := facts(f.enrolled)["pecos_enrolled"]
	if len(enrolled) != 1 || enrolled[0]["value"] != true || enrolled[0]["_dataset_id"] != stored.PECOS.ID {
		t.Errorf("enrolled NPI: pecos_enrolled facts %v", enrolled)
	}
	stars := facts(f.rated)["care_compare_star"]
	found := false
	for _, s := range stars {
		if s["ccn"] == f.ratedCCN {
			found = true
			if s["value"] != float64(f.ratedStar) || !strings.HasPrefix(s["_dataset_id"].(string), "cms_care_compare_") {
				t.Errorf("star fact %v, want %d from Care Compare", s, f.ratedStar)
			}
		}
	}
	if !found {
		t.Errorf("rated NPI %s: no care_compare_star for CCN %s in %v", f.rated, f.ratedCCN, stars)
	}
}

// A snapshot without the sources a fact rests on states no fact: unknown is left out, never
// false. With no registry at all, the resolver cannot answer: 503 source_unavailable with
// Retry-After, on every path that reads it.
func TestSourcesNotLoaded(t *testing.T) {
	e := newEnv(t, backends.Embedded(t))
	key := e.Key(t, apikey.TierPro)
	for _, r := range []response{
		e.get(t, "/resolver/v1/npi/1234567893?include=facts", key),
		e.get(t, "/resolver/v1/ccn/050001", key),
		e.do(t, http.MethodPost, "/resolver/v1/batch/npi", key, []byte(`{"npis":["1234567893"]}`)),
		e.get(t, "/resolver/v1/search?q=jane+doe", key),
		e.get(t, "/resolver/v1/quality/hospital/050001", key),
		e.get(t, "/resolver/v1/payments/1234567893", key),
	} {
		if r.Status != 503 || r.ErrorCode() != "source_unavailable" || r.Header.Get("Retry-After") == "" {
			t.Errorf("%d %q Retry-After %q, want 503 source_unavailable with Retry-After", r.Status, r.ErrorCode(), r.Header.Get("Retry-After"))
		}
		rateLimitHeaders(t, "503", r)
	}
}

// GET /ccn/{ccn}: the POS record joined with Care Compare, state from the CCN's state code.
func TestCCN(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	ccn := f.facility.Record.CCN
	tests := []struct {
		name, ccn string
		status    int
		code      string
	}{
		{"facility", ccn, 200, ""},
		{"unknown", f.unknownCCN, 404, "not_found"},
		{"five characters", "05000", 400, resolver.CodeInvalidCCN},
		{"seven characters", "0500011", 400, resolver.CodeInvalidCCN},
		{"ten-character supplier number not held", "05C0001234", 404, "not_found"},
		{"ten characters, no supplier number", "05Q0001234", 400, resolver.CodeInvalidCCN},
		{"lowercase", "05a001", 400, resolver.CodeInvalidCCN},
		{"unknown state code", "0Z0001", 400, resolver.CodeInvalidCCN},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, "/resolver/v1/ccn/"+tt.ccn, key)
			if r.Status != tt.status || r.ErrorCode() != tt.code {
				t.Fatalf("%d %q, want %d %q: %s", r.Status, r.ErrorCode(), tt.status, tt.code, r.Raw)
			}
			rateLimitHeaders(t, tt.name, r)
			if tt.code != "" {
				return
			}
			provenanceKeys(t, "facility", r.Body)
			state, _ := testCCNState(tt.ccn)
			addr, _ := r.Body["address"].(map[string]any)
			if r.Body["ccn"] != tt.ccn || r.Body["facility_name"] != f.facility.Record.Name || addr["state"] != state ||
				r.Body["overall_star"] != float64(f.facilityStar) || r.Body["_dataset_id"] != stored.POS.ID {
				t.Errorf("facility %s", r.Raw)
			}
		})
	}
}

// POST /batch/npi: results in request order, null for an absent NPI and for one failing its
// check digit, counts; the whole batch is one request against the hourly budget.
func TestBatch(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierStarter)
	npis := []string{f.enrolled, f.absent, f.excluded, f.badCheckDigit, f.enrolled}
	body, _ := json.Marshal(map[string]any{"npis": npis})
	first := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", key, body)
	if first.Status != 200 {
		t.Fatalf("%d %s", first.Status, first.Raw)
	}
	rateLimitHeaders(t, "batch", first)
	if first.Body["requested"] != float64(5) || first.Body["resolved"] != float64(3) {
		t.Errorf("requested %v resolved %v, want 5 and 3", first.Body["requested"], first.Body["resolved"])
	}
	results := first.Body["results"].([]any)
	if len(results) != len(npis) {
		t.Fatalf("%d results for %d NPIs", len(results), len(npis))
	}
	for i, want := range []string{f.enrolled, "", f.excluded, "", f.enrolled} {
		if want == "" {
			if results[i] != nil {
				t.Errorf("results[%d] = %v, want null", i, results[i])
			}
			continue
		}
		rec, _ := results[i].(map[string]any)
		if rec["npi"] != want {
			t.Errorf("results[%d].npi = %v, want %s", i, rec["npi"], want)
		}
		provenanceKeys(t, "batch result", rec)
	}
	second := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", key, body)
	a, _ := strconv.Atoi(first.Header.Get("X-RateLimit-Remaining"))
	b, _ := strconv.Atoi(second.Header.Get("X-RateLimit-Remaining"))
	if a-b != 1 {
		t.Errorf("a batch of %d spent %d of the hourly budget, want 1", len(npis), a-b)
	}
}

// A bad batch is refused whole, before any lookup, with the contract's code.
func TestBatchRefused(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	batchOf := func(n int) []byte {
		npis := make([]string, n)
		for i := range npis {
			npis[i] = f.enrolled
		}
		b, _ := json.Marshal(map[string]any{"npis": npis})
		return b
	}
	tests := []struct {
		name string
		body []byte
		code string
	}{
		{"1,001 NPIs", batchOf(resolver.MaxBatch + 1), resolver.CodeBatchTooLarge},
		{"body over the bound", append([]byte(`{"npis":["`+f.enrolled+`"]`), bytes.Repeat([]byte(" "), resolver.MaxBatchBody)...), resolver.CodeBatchTooLarge},
		{"an entry that is not a string", []byte(`{"npis":["` + f.enrolled + `",12345]}`), resolver.CodeInvalidBody},
		{"a list of lists", []byte(`{"npis":[["` + f.enrolled + `"]]}`), resolver.CodeInvalidBody},
		{"not JSON", []byte(`npis=1`), resolver.CodeInvalidBody},
		{"no npis", []byte(`{}`), resolver.CodeInvalidBody},
		{"unknown field", []byte(`{"npis":[],"extra":1}`), resolver.CodeInvalidBody},
		{"two objects", []byte(`{"npis":[]}{"npis":[]}`), resolver.CodeInvalidBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", key, tt.body)
			if r.Status != 400 || r.ErrorCode() != tt.code {
				t.Fatalf("%d %q, want 400 %q: %.300s", r.Status, r.ErrorCode(), tt.code, r.Raw)
			}
			rateLimitHeaders(t, tt.name, r)
		})
	}
	empty := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", key, []byte(`{"npis":[]}`))
	if empty.Status != 200 || string(bytes.TrimSpace(empty.Raw)) != `{"requested":0,"resolved":0,"results":[]}` {
		t.Errorf("an empty batch: %d %s", empty.Status, empty.Raw)
	}
	full := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", key, batchOf(resolver.MaxBatch))
	if full.Status != 200 || full.Body["resolved"] != float64(resolver.MaxBatch) {
		t.Errorf("a batch of exactly %d: %d resolved %v", resolver.MaxBatch, full.Status, full.Body["resolved"])
	}
}

// The sandbox key's hourly budget of 100 requests: the 101st is 429 rate_limited with
// Retry-After and the rate-limit fields.
func TestRateLimited(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	key := e.sandbox(t)
	var r response
	for i := 0; i <= 100; i++ {
		r = e.get(t, "/resolver/v1/npi/"+f.enrolled, key)
		if i < 100 && r.Status != 200 {
			t.Fatalf("request %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	if r.Status != 429 || r.ErrorCode() != "rate_limited" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("101st request: %d %q Retry-After %q", r.Status, r.ErrorCode(), r.Header.Get("Retry-After"))
	}
	rateLimitHeaders(t, "429", r)
	if r.Header.Get("X-RateLimit-Limit") != "100" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("limit %s remaining %s, want 100 and 0", r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
	}
}
