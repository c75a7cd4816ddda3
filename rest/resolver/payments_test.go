package resolver_test

import (
	"math"
	"strconv"
	"testing"

	"providerdir/catalog"
	"providerdir/rest/apikey"
	"providerdir/rest/resolver"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/demostore"
)

// paymentsByNPI reads every payment of the demo snapshot that is tied to an NPI.
func paymentsByNPI(t *testing.T, st store.Store) map[string][]stored.PaymentRecord {
	out := map[string][]stored.PaymentRecord{}
	for _, r := range storedRecords[stored.PaymentRecord](t, st, catalog.Payments) {
		if r.NPI != "" {
			out[r.NPI] = append(out[r.NPI], r)
		}
	}
	return out
}

// GET /payments/{npi}: the latest program year's total, count and records, _confidence the
// weakest record's match, another year by program_year; and every error the path answers.
func TestPayments(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	byNPI := paymentsByNPI(t, d.Store)
	var npi string
	for n, recs := range byNPI {
		if len(recs) > 1 && (npi == "" || n < npi) {
			npi = n
		}
	}
	if npi == "" {
		t.Fatal("no NPI with two or more payments in the demo snapshot")
	}
	latest := 0
	for _, r := range byNPI[npi] {
		latest = max(latest, r.ProgramYear)
	}
	check := func(path string, year int) {
		t.Helper()
		r := e.get(t, path, key)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
		provenanceKeys(t, path, r.Body)
		rateLimitHeaders(t, path, r)
		var cents int64
		n, conf := 0, 1.0
		for _, p := range byNPI[npi] {
			if p.ProgramYear == year {
				cents += p.AmountCents
				n++
				conf = math.Min(conf, p.Match.Confidence)
			}
		}
		if r.Body["program_year"] != float64(year) || r.Body["record_count"] != float64(n) ||
			r.Body["total_amount_usd"] != float64(cents)/100 || len(r.Body["records"].([]any)) != n {
			t.Errorf("%s: year %v count %v total %v, want %d %d %v", path, r.Body["program_year"], r.Body["record_count"], r.Body["total_amount_usd"], year, n, float64(cents)/100)
		}
		if r.Body["_confidence"] != conf || r.Body["_dataset_id"] != stored.OpenPayments.ID {
			t.Errorf("%s: _confidence %v (want the weakest match %v), dataset %v", path, r.Body["_confidence"], conf, r.Body["_dataset_id"])
		}
	}
	check("/resolver/v1/payments/"+npi, latest)
	for _, p := range byNPI[npi] {
		if p.ProgramYear != latest {
			check("/resolver/v1/payments/"+npi+"?program_year="+strconv.Itoa(p.ProgramYear), p.ProgramYear)
			break
		}
	}
	// An NPI of the registry without payments: an empty year, the searched file's provenance.
	var none string
	for _, cand := range []string{f.notEnrolled, f.notExcluded, f.enrolled, f.excluded} {
		if len(byNPI[cand]) == 0 {
			none = cand
			break
		}
	}
	if none != "" {
		r := e.get(t, "/resolver/v1/payments/"+none, key)
		if r.Status != 200 || r.Body["record_count"] != float64(0) || r.Body["total_amount_usd"] != float64(0) {
			t.Errorf("NPI without payments: %d %s", r.Status, r.Raw)
		}
		provenanceKeys(t, "no payments", r.Body)
	}
	for _, tt := range []struct {
		name, path, key string
		status          int
		code            string
	}{
		{"malformed NPI", "/resolver/v1/payments/12345", key, 400, resolver.CodeInvalidNPI},
		{"bad program year", "/resolver/v1/payments/" + npi + "?program_year=23", key, 400, resolver.CodeInvalidProgramYear},
		{"check digit", "/resolver/v1/payments/" + f.badCheckDigit, key, 404, "not_found"},
		{"absent", "/resolver/v1/payments/" + f.absent, key, 404, "not_found"},
		{"no key", "/resolver/v1/payments/" + npi, "", 401, "invalid_key"},
	} {
		r := e.get(t, tt.path, tt.key)
		if r.Status != tt.status || r.ErrorCode() != tt.code {
			t.Errorf("%s: %d %q, want %d %q: %s", tt.name, r.Status, r.ErrorCode(), tt.status, tt.code, r.Raw)
		}
		rateLimitHeaders(t, tt.name, r)
	}
}
