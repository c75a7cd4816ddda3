package fhir_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"providerdir/smart"
	"providerdir/testing/liveserver"
)

// TestClientBudgetOnFHIR: behind SMART's real Protect and token endpoint, a client registered
// with a budget of its own gets that limit in the X-RateLimit-* fields of its FHIR responses and
// a 429 throttled past it; an unmetered client (budget 0) is never refused and its responses
// carry no rate-limit fields; a client without a budget has the default.
func TestClientBudgetOnFHIR(t *testing.T) {
	e := newSMARTEnv(t, false)
	budget := func(n int64) *int64 { return &n }
	for _, tt := range []struct {
		name     string
		budget   *int64
		requests int
		limit    string // X-RateLimit-Limit of every admitted response; "" for none
		last     int    // the status of the request after them
	}{
		{"own budget", budget(2), 2, "2", http.StatusTooManyRequests},
		{"unmetered", budget(0), 4, "", http.StatusOK},
		{"default", nil, 1, "6000", http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := liveserver.AddSMARTClient(t, e.st, tt.name, "system/Practitioner.rs")
			if _, err := smart.SetClientBudget(context.Background(), e.st, c.ID, tt.budget); err != nil {
				t.Fatal(err)
			}
			tr, err := smart.RequestToken(context.Background(), http.DefaultClient, e.url+"/fhir/token", c.ID, c.Key, "system/Practitioner.rs")
			if err != nil {
				t.Fatal(err)
			}
			auth := "Bearer " + tr.AccessToken
			for i := range tt.requests {
				r := get(t, e.url+"/fhir/Practitioner?_count=1", "Authorization", auth)
				if r.status != http.StatusOK {
					t.Fatalf("request %d: %d %.200s", i+1, r.status, r.body)
				}
				if got := r.header.Get("X-RateLimit-Limit"); got != tt.limit {
					t.Errorf("request %d: X-RateLimit-Limit %q, want %q", i+1, got, tt.limit)
				}
				if tt.limit == "" {
					for f := range r.header {
						if strings.Contains(strings.ToLower(f), "ratelimit") {
							t.Errorf("request %d of an unmetered client: %s %q", i+1, f, r.header.Values(f))
						}
					}
				}
			}
			r := get(t, e.url+"/fhir/Practitioner?_count=1", "Authorization", auth)
			if r.status != tt.last {
				t.Fatalf("the request after %d: %d, want %d: %.200s", tt.requests, r.status, tt.last, r.body)
			}
			if tt.last == http.StatusTooManyRequests {
				if oo := decodeOutcome(t, r); oo.Issue[0].Code != "throttled" || r.header.Get("Retry-After") == "" {
					t.Errorf("429: code %q, Retry-After %q", oo.Issue[0].Code, r.header.Get("Retry-After"))
				}
			}
		})
	}
}
