package supply_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/testing/apiclient"
)

// docs/contracts/supply-api.md §8 on the real endpoints: the pilot quota (60 per rolling minute,
// 1,000 per rolling 24 hours), the anonymous budget of GET /npi/{npi} (100 per hour per address),
// the rate-limit fields on every response, Retry-After: 60 on a 429, and a 429 not counted.
func TestPilotQuotaPerMinute(t *testing.T) {
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	path := "/v1/specialties/cardiology/by-state"
	for i := 1; i <= 60; i++ {
		r := e.get(t, path, apiclient.Bearer(key)...)
		if r.Status != 200 {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Raw)
		}
		checkRemaining(t, r, 1000, 1000-i)
	}
	r := e.get(t, path, apiclient.Bearer(key)...)
	if r.Status != 429 || r.ErrorCode() != "rate_limit_exceeded" || r.Header.Get("Retry-After") != "60" {
		t.Fatalf("61st: %d %q Retry-After %q", r.Status, r.ErrorCode(), r.Header.Get("Retry-After"))
	}
	checkRemaining(t, r, 1000, 940)
	if r.Header.Get("X-RateLimit-Window") != "rolling-24h" {
		t.Errorf("X-RateLimit-Window %q", r.Header.Get("X-RateLimit-Window"))
	}
	// Every path of the key shares the budget, errors included.
	if r := e.get(t, "/v1/specialties/nope/by-state", apiclient.Bearer(key)...); r.Status != 429 {
		t.Fatalf("another path: %d", r.Status)
	}
	// A minute (and one bucket of a second) later the window has room again; the refused
	// requests were not counted, so the day window holds the 60 admitted ones.
	e.clock.Advance(time.Minute + time.Second)
	r = e.get(t, path, apiclient.Bearer(key)...)
	if r.Status != 200 {
		t.Fatalf("after a minute: %d", r.Status)
	}
	checkRemaining(t, r, 1000, 939)
	if r := e.get(t, "/v1/health", apiclient.Bearer(key)...); r.Header.Get("X-RateLimit-Remaining") != "939" {
		t.Errorf("health is not counted and reports the key's budget: remaining %q", r.Header.Get("X-RateLimit-Remaining"))
	}
	if got := dayRemaining(t, r); got != 1000-61 {
		t.Errorf("day window remaining %d, want %d", got, 1000-61)
	}
}

func TestPilotQuotaPerDay(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 requests")
	}
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	path := "/v1/specialties"
	for i := 1; i <= 1000; i++ {
		if i%60 == 1 && i > 1 {
			e.clock.Advance(time.Minute + time.Second) // stay inside the minute window
		}
		r := e.get(t, path, apiclient.Bearer(key)...)
		if r.Status != 200 {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Raw)
		}
	}
	e.clock.Advance(time.Minute + time.Second)
	r := e.get(t, path, apiclient.Bearer(key)...)
	if r.Status != 429 || r.ErrorCode() != "rate_limit_exceeded" || r.Header.Get("Retry-After") != "60" {
		t.Fatalf("1,001st: %d %q", r.Status, r.ErrorCode())
	}
	if r.Header.Get("X-RateLimit-Window") != "rolling-24h" || r.Header.Get("X-RateLimit-Limit") != "1000" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("fields %v", r.Header)
	}
	reset, err := time.Parse(time.RFC3339, r.Header.Get("X-RateLimit-Reset"))
	if err != nil || !reset.After(e.clock.Now()) {
		t.Errorf("X-RateLimit-Reset %q", r.Header.Get("X-RateLimit-Reset"))
	}
	// A rolling day (and one bucket of a minute) later the first requests have left the window.
	e.clock.Advance(24*time.Hour + time.Minute)
	if r := e.get(t, path, apiclient.Bearer(key)...); r.Status != 200 {
		t.Fatalf("a day later: %d", r.Status)
	}
}

func TestAnonymousNPIQuota(t *testing.T) {
	e := demoEnv(t)
	f := demoFixtures(t)
	path := "/v1/npi/" + f.dermatologist
	for i := 1; i <= 100; i++ {
		r := e.get(t, path)
		if r.Status != 200 {
			t.Fatalf("request %d: %d", i, r.Status)
		}
		checkRemaining(t, r, 100, 100-i)
		if r.Header.Get("X-RateLimit-Window") != "rolling-1h" {
			t.Fatalf("X-RateLimit-Window %q", r.Header.Get("X-RateLimit-Window"))
		}
	}
	r := e.get(t, path)
	if r.Status != 429 || r.ErrorCode() != "rate_limit_exceeded" || r.Header.Get("Retry-After") != "60" {
		t.Fatalf("101st: %d %q", r.Status, r.ErrorCode())
	}
	// Malformed requests count too: the budget is per address, whatever is asked.
	if r := e.get(t, "/v1/npi/123"); r.Status != 429 {
		t.Errorf("malformed NPI over budget: %d", r.Status)
	}
	// A keyed caller from the same address follows its key's limits.
	key := e.Key(t, apikey.TierPilot)
	if r := e.get(t, path, apiclient.Bearer(key)...); r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "1000" {
		t.Errorf("keyed: %d limit %q", r.Status, r.Header.Get("X-RateLimit-Limit"))
	}
	// Another address has its own budget.
	other := *e
	other.IP = "192.0.2.77"
	if r := other.get(t, path); r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "99" {
		t.Errorf("another address: %d remaining %q", r.Status, r.Header.Get("X-RateLimit-Remaining"))
	}
	// An hour (and one bucket of ten seconds) later the anonymous budget is back.
	e.clock.Advance(time.Hour + 10*time.Second)
	if r := e.get(t, path); r.Status != 200 {
		t.Errorf("an hour later: %d", r.Status)
	}
}

func checkRemaining(t *testing.T, r response, limit, remaining int) {
	t.Helper()
	if r.Header.Get("X-RateLimit-Limit") != strconv.Itoa(limit) || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(remaining) {
		t.Fatalf("X-RateLimit-Limit %q Remaining %q, want %d %d", r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"), limit, remaining)
	}
	if _, err := time.Parse(time.RFC3339, r.Header.Get("X-RateLimit-Reset")); err != nil {
		t.Fatalf("X-RateLimit-Reset %q", r.Header.Get("X-RateLimit-Reset"))
	}
}

// dayRemaining reads the 24-hour window's remaining count from the RateLimit field.
func dayRemaining(t *testing.T, r response) int {
	t.Helper()
	var minute, day, t1, t2 int
	if _, err := fmt.Sscanf(r.Header.Get("RateLimit"), `"rolling-1m";r=%d;t=%d, "rolling-24h";r=%d;t=%d`, &minute, &t1, &day, &t2); err != nil {
		t.Fatalf("RateLimit %q: %v", r.Header.Get("RateLimit"), err)
	}
	return day
}
