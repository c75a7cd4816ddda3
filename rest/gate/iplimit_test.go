package gate_test

import (
	"strconv"
	"testing"
	"time"

	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

// TestEvidenceDemoLimit checks the service host's 10-a-day limit per address.
func TestEvidenceDemoLimit(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		srv := newServer(t, st, clock)
		url := srv.URL + "/api/evidence-query/demo"
		start := clock.Now()
		for i := range 10 {
			r := do(t, "POST", url, from("192.0.2.44")...)
			if r.status != 200 || r.body["client_ip"] != "192.0.2.44" {
				t.Fatalf("request %d: %d %v", i+1, r.status, r.body)
			}
			checkSupplyHeaders(t, r, 10, 9-i, "rolling-24h", clock.Now())
			clock.Advance(time.Hour)
		}
		r := do(t, "POST", url, from("192.0.2.44")...)
		checkResolverError(t, r, 429, "rate_limit_exceeded")
		checkSupplyHeaders(t, r, 10, 0, "rolling-24h", clock.Now())
		release := start.Add(24*time.Hour + time.Minute)
		if got, want := r.header.Get("Retry-After"), strconv.Itoa(int(release.Sub(clock.Now())/time.Second)); got != want {
			t.Fatalf("Retry-After %s, want %s", got, want)
		}
		if r := do(t, "POST", url, from("192.0.2.45")...); r.status != 200 {
			t.Fatalf("another address: %d", r.status)
		}
		clock.Set(release)
		if r := do(t, "POST", url, from("192.0.2.44")...); r.status != 200 {
			t.Fatalf("a day later: %d", r.status)
		}
		checkResolverError(t, do(t, "POST", url, from("192.0.2.44")...), 429, "rate_limit_exceeded")
	})
}
