package gate_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

const npi = "1234567893"

// TestSupplyEveryPath sends one request down every path a supply API response can take and
// checks status, envelope and the complete header set (docs/contracts/supply-api.md §8 rule 1).
func TestSupplyEveryPath(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		srv := newServer(t, st, clock)
		ctx := context.Background()
		key, _, err := srv.gate.Keys().Create(ctx, apikey.TierPilot, "Acme", apikey.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		revoked, _, _ := srv.gate.Keys().Create(ctx, apikey.TierPilot, "Gone", apikey.CreateOptions{})
		if _, _, err := srv.gate.Keys().Revoke(ctx, revoked.Reveal()); err != nil {
			t.Fatal(err)
		}
		resolverKey, _, _ := srv.gate.Keys().Create(ctx, apikey.TierStarter, "Other API", apikey.CreateOptions{})

		tests := []struct {
			name      string
			method    string
			path      string
			headers   []string
			status    int
			code      string // error code, "" for success
			limit     int
			remaining int
			window    string
		}{
			// Keyed: the pilot quota, reported for its rolling day (docs/contracts/supply-api.md §8 rule 1).
			{"200 with a key", "GET", "/v1/specialties", bearer(key.Reveal()), 200, "", 1000, 999, "rolling-24h"},
			{"404 from a handler", "GET", "/v1/providers/" + npi, bearer(key.Reveal()), 404, "provider_not_found", 1000, 998, "rolling-24h"},
			{"404 from the router", "GET", "/v1/no/such/thing", bearer(key.Reveal()), 404, "not_found", 1000, 997, "rolling-24h"},
			{"405 from the router, not counted", "DELETE", "/v1/specialties", bearer(key.Reveal()), 405, "method_not_allowed", 1000, 997, "rolling-24h"},
			{"405 needs no key", "POST", "/v1/specialties", nil, 405, "method_not_allowed", 100, 100, "rolling-1h"},
			{"405 on a public path", "POST", "/v1/health", nil, 405, "method_not_allowed", 100, 100, "rolling-1h"},
			{"lower-case scheme", "GET", "/v1/specialties", []string{"Authorization", "bearer " + key.Reveal()}, 200, "", 1000, 996, "rolling-24h"},
			// Refused: the caller's anonymous budget, not spent.
			{"401 without a key", "GET", "/v1/specialties", nil, 401, "missing_api_key", 100, 100, "rolling-1h"},
			{"401 without a key on an unknown path", "GET", "/v1/nope", nil, 401, "missing_api_key", 100, 100, "rolling-1h"},
			{"401 with an unknown key", "GET", "/v1/specialties", bearer("pdsupply_" + "x234567890123456789012345678901234567890123"), 401, "invalid_api_key", 100, 100, "rolling-1h"},
			{"401 with a revoked key", "GET", "/v1/specialties", bearer(revoked.Reveal()), 401, "invalid_api_key", 100, 100, "rolling-1h"},
			{"401 with a resolver key", "GET", "/v1/specialties", bearer(resolverKey.Reveal()), 401, "invalid_api_key", 100, 100, "rolling-1h"},
			{"401 with Bearer and no token", "GET", "/v1/specialties", []string{"Authorization", "Bearer"}, 401, "invalid_api_key", 100, 100, "rolling-1h"},
			{"401 with two Authorization headers", "GET", "/v1/specialties", join(bearer(key.Reveal()), bearer(key.Reveal())), 401, "invalid_api_key", 100, 100, "rolling-1h"},
			{"wrong scheme: X-Service-Key is no key here", "GET", "/v1/specialties", service(key.Reveal()), 401, "missing_api_key", 100, 100, "rolling-1h"},
			{"wrong scheme: Basic is refused", "GET", "/v1/specialties", []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401, "invalid_api_key", 100, 100, "rolling-1h"},
			{"wrong scheme: a bare key is refused", "GET", "/v1/specialties", []string{"Authorization", key.Reveal()}, 401, "invalid_api_key", 100, 100, "rolling-1h"},
			// Public: never refused, never spent; the fields describe the caller's budget.
			{"public without a key", "GET", "/v1/health", nil, 200, "", 100, 100, "rolling-1h"},
			{"public with a key", "GET", "/v1/health", bearer(key.Reveal()), 200, "", 1000, 996, "rolling-24h"},
			{"public with a bad key", "GET", "/v1/health", bearer("nonsense"), 200, "", 100, 100, "rolling-1h"},
			// Optional: anonymous callers spend their address's budget.
			{"anonymous NPI lookup", "GET", "/v1/npi/" + npi, nil, 200, "", 100, 99, "rolling-1h"},
			{"anonymous 404 from the router", "GET", "/v1/npi/123", nil, 401, "missing_api_key", 100, 99, "rolling-1h"},
			{"keyed NPI lookup", "GET", "/v1/npi/" + npi, bearer(key.Reveal()), 200, "", 1000, 995, "rolling-24h"},
			{"NPI lookup with a revoked key", "GET", "/v1/npi/" + npi, bearer(revoked.Reveal()), 401, "invalid_api_key", 100, 99, "rolling-1h"},
			{"NPI lookup, X-Service-Key is anonymous here", "GET", "/v1/npi/" + npi, service(key.Reveal()), 200, "", 100, 98, "rolling-1h"},
			{"NPI lookup with Basic is refused, not anonymous", "GET", "/v1/npi/" + npi, []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401, "invalid_api_key", 100, 98, "rolling-1h"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := do(t, tt.method, srv.URL+tt.path, tt.headers...)
				if tt.code != "" {
					checkV1Error(t, r, tt.status, tt.code)
				} else if r.status != tt.status {
					t.Fatalf("status %d, want %d (%v)", r.status, tt.status, r.body)
				}
				checkSupplyHeaders(t, r, tt.limit, tt.remaining, tt.window, clock.Now())
				challenge := r.header.Get("WWW-Authenticate")
				switch {
				case tt.status != 401 && challenge != "":
					t.Fatalf("WWW-Authenticate %q on a %d", challenge, tt.status)
				case tt.code == "missing_api_key" && challenge != `Bearer realm="supply-api"`,
					tt.code == "invalid_api_key" && challenge != `Bearer realm="supply-api", error="invalid_token"`:
					t.Fatalf("WWW-Authenticate %q on a 401 %s", challenge, tt.code)
				}
				if r.header.Get("Retry-After") != "" {
					t.Error("Retry-After on a response that is not a 429")
				}
			})
		}

		// The anonymous view of /v1/npi/{npi} says whether a key was used, and varies by it.
		r := do(t, "GET", srv.URL+"/v1/npi/"+npi)
		if r.body["authenticated"] != false || r.header.Get("Vary") != "Authorization" {
			t.Fatalf("anonymous: %v, Vary %q", r.body, r.header.Get("Vary"))
		}
		r = do(t, "GET", srv.URL+"/v1/npi/"+npi, bearer(key.Reveal())...)
		if r.body["authenticated"] != true || r.body["tier"] != "pilot" || r.body["name"] != "Acme" {
			t.Fatalf("keyed: %v", r.body)
		}
	})
}

// TestSupplyMinute checks the 61st request in a rolling minute, its 429 exactly, and the
// window sliding past, over HTTP.
func TestSupplyMinute(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		srv := newServer(t, st, clock)
		key, _, err := srv.gate.Keys().Create(context.Background(), apikey.TierPilot, "Acme", apikey.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		auth := bearer(key.Reveal())
		start := clock.Now()
		clock.Advance(500 * time.Millisecond)
		for i := range 60 {
			r := do(t, "GET", srv.URL+"/v1/specialties", auth...)
			if r.status != 200 {
				t.Fatalf("request %d: %d", i+1, r.status)
			}
			checkSupplyHeaders(t, r, 1000, 999-i, "rolling-24h", clock.Now())
		}
		for range 3 { // the 61st, and retries: refused, not counted
			r := do(t, "GET", srv.URL+"/v1/specialties", auth...)
			checkV1Error(t, r, http.StatusTooManyRequests, "rate_limit_exceeded")
			checkSupplyHeaders(t, r, 1000, 940, "rolling-24h", clock.Now())
			if r.header.Get("Retry-After") != "60" {
				t.Fatalf("Retry-After %q, want 60", r.header.Get("Retry-After"))
			}
			// X-RateLimit-* report the rolling day: all 60 are in its first one-minute bucket and
			// come back a day and a minute later. The minute window (full, back at 61 s) is in
			// the RateLimit field, and Retry-After stays 60.
			if want := start.Add(24*time.Hour + time.Minute).Format(time.RFC3339); r.header.Get("X-RateLimit-Reset") != want {
				t.Fatalf("X-RateLimit-Reset %s, want %s", r.header.Get("X-RateLimit-Reset"), want)
			}
			if want := `"rolling-1m";r=0;t=61, "rolling-24h";r=940;t=86460`; r.header.Get("RateLimit") != want {
				t.Fatalf("RateLimit %q, want %q", r.header.Get("RateLimit"), want)
			}
		}
		clock.Set(start.Add(61*time.Second - time.Nanosecond))
		checkV1Error(t, do(t, "GET", srv.URL+"/v1/specialties", auth...), 429, "rate_limit_exceeded")
		clock.Set(start.Add(61 * time.Second))
		r := do(t, "GET", srv.URL+"/v1/specialties", auth...)
		if r.status != 200 {
			t.Fatalf("after the window slid past: %d", r.status)
		}
		checkSupplyHeaders(t, r, 1000, 939, "rolling-24h", clock.Now()) // 61 admitted today
		if want := `"rolling-1m";q=60;w=60, "rolling-24h";q=1000;w=86400`; r.header.Get("RateLimit-Policy") != want {
			t.Fatalf("RateLimit-Policy %q, want %q", r.header.Get("RateLimit-Policy"), want)
		}
	})
}

// TestSupplyDay spends a pilot key's 1,000 requests a day over HTTP, one every 61 seconds so
// the minute window never binds, and checks the 1,001st and the slide of the first.
func TestSupplyDay(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		srv := newServer(t, st, clock)
		key, _, err := srv.gate.Keys().Create(context.Background(), apikey.TierPilot, "Acme", apikey.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		auth := bearer(key.Reveal())
		start := clock.Now()
		var r response
		for i := range 1000 {
			r = do(t, "GET", srv.URL+"/v1/specialties", auth...)
			if r.status != 200 {
				t.Fatalf("request %d: %d %v", i+1, r.status, r.body)
			}
			clock.Advance(61 * time.Second)
		}
		checkSupplyHeaders(t, r, 1000, 0, "rolling-24h", clock.Now().Add(-61*time.Second))
		r = do(t, "GET", srv.URL+"/v1/specialties", auth...)
		checkV1Error(t, r, 429, "rate_limit_exceeded")
		checkSupplyHeaders(t, r, 1000, 0, "rolling-24h", clock.Now())
		release := start.Add(time.Minute + 24*time.Hour)
		if r.header.Get("X-RateLimit-Reset") != release.Format(time.RFC3339) || r.header.Get("Retry-After") != "60" {
			t.Fatalf("reset %s retry %s, want %s and 60", r.header.Get("X-RateLimit-Reset"), r.header.Get("Retry-After"), release.Format(time.RFC3339))
		}
		clock.Set(release.Add(-time.Second))
		checkV1Error(t, do(t, "GET", srv.URL+"/v1/specialties", auth...), 429, "rate_limit_exceeded")
		clock.Set(release)
		if r := do(t, "GET", srv.URL+"/v1/specialties", auth...); r.status != 200 {
			t.Fatalf("after the first request left the day: %d", r.status)
		}
		checkV1Error(t, do(t, "GET", srv.URL+"/v1/specialties", auth...), 429, "rate_limit_exceeded")
	})
}

// TestAnonymousNPI checks the 100-an-hour anonymous limit per client address and which address
// counts.
func TestAnonymousNPI(t *testing.T) {
	st := backends.Embedded(t)
	clock := handclock.New()
	srv := newServer(t, st, clock)
	url := srv.URL + "/v1/npi/" + npi
	for i := range 100 {
		r := do(t, "GET", url, from("203.0.113.9")...)
		if r.status != 200 || r.body["client_ip"] != "203.0.113.9" {
			t.Fatalf("request %d: %d %v", i+1, r.status, r.body)
		}
	}
	r := do(t, "GET", url, from("203.0.113.9")...)
	checkV1Error(t, r, 429, "rate_limit_exceeded")
	checkSupplyHeaders(t, r, 100, 0, "rolling-1h", clock.Now())
	// A client cannot pick its address: what it writes left of the proxy's entry is ignored.
	checkV1Error(t, do(t, "GET", url, from("198.51.100.1, 203.0.113.9")...), 429, "rate_limit_exceeded")
	// Another address has its own budget; an IPv6 client is counted by its /64.
	if r := do(t, "GET", url, from("203.0.113.10")...); r.status != 200 {
		t.Fatalf("another address: %d", r.status)
	}
	do(t, "GET", url, from("2001:db8:1:2::1")...)
	r = do(t, "GET", url, from("2001:db8:1:2:ffff::9")...)
	checkSupplyHeaders(t, r, 100, 98, "rolling-1h", clock.Now())
	// The hour slides: the first 100 were made in the first 10-second bucket.
	clock.Advance(time.Hour + 10*time.Second)
	if r := do(t, "GET", url, from("203.0.113.9")...); r.status != 200 {
		t.Fatalf("an hour later: %d", r.status)
	}
}
