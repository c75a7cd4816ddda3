package gate_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

// TestResolverEveryPath checks status, envelope and header set of every resolver path
// (docs/contracts/resolver-api.md §7 and §8).
func TestResolverEveryPath(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		srv := newServer(t, st, clock)
		ctx := context.Background()
		pro, _, err := srv.gate.Keys().Create(ctx, apikey.TierPro, "Beta", apikey.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		supplyKey, _, _ := srv.gate.Keys().Create(ctx, apikey.TierPilot, "Acme", apikey.CreateOptions{})
		sandbox, _, err := srv.gate.Keys().Sandbox(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name      string
			method    string
			path      string
			headers   []string
			status    int
			code      string
			limit     int
			remaining int
		}{
			{"200 with a pro key", "GET", "/resolver/v1/npi/" + npi, service(pro.Reveal()), 200, "", 50000, 49999},
			{"a batch is one request", "POST", "/resolver/v1/batch/npi", service(pro.Reveal()), 200, "", 50000, 49998},
			{"404 from a handler", "GET", "/resolver/v1/ccn/999999", service(pro.Reveal()), 404, "not_found", 50000, 49997},
			{"404 from the router", "GET", "/resolver/v1/nope", service(pro.Reveal()), 404, "not_found", 50000, 49996},
			{"405 from the router", "PUT", "/resolver/v1/npi/" + npi, service(pro.Reveal()), 405, "method_not_allowed", 50000, 49995},
			{"sandbox key, metered per address", "GET", "/resolver/v1/npi/" + npi, service(sandbox.Reveal()), 200, "", 100, 99},
			// 401s describe the sandbox budget of the caller's address, unspent.
			{"401 without a key", "GET", "/resolver/v1/npi/" + npi, nil, 401, "invalid_key", 100, 99},
			{"401 with a blank key", "GET", "/resolver/v1/npi/" + npi, service("  "), 401, "invalid_key", 100, 99},
			{"401 with an unknown key", "GET", "/resolver/v1/npi/" + npi, service("pdlive_" + "0123456789012345678901234567890123456789012"), 401, "invalid_key", 100, 99},
			{"401 with a supply key", "GET", "/resolver/v1/npi/" + npi, service(supplyKey.Reveal()), 401, "invalid_key", 100, 99},
			{"401 with two keys", "GET", "/resolver/v1/npi/" + npi, join(service(pro.Reveal()), service(pro.Reveal())), 401, "invalid_key", 100, 99},
			{"wrong scheme: Bearer is no key here", "GET", "/resolver/v1/npi/" + npi, bearer(pro.Reveal()), 401, "invalid_key", 100, 99},
			{"401 on an unknown path", "GET", "/resolver/v1/nope", nil, 401, "invalid_key", 100, 99},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := do(t, tt.method, srv.URL+tt.path, tt.headers...)
				if tt.code != "" {
					checkResolverError(t, r, tt.status, tt.code)
				} else if r.status != tt.status {
					t.Fatalf("status %d, want %d (%v)", r.status, tt.status, r.body)
				}
				checkResolverHeaders(t, r, tt.limit, tt.remaining, clock.Now())
				if got, want := r.header.Get("WWW-Authenticate"), map[bool]string{true: `ServiceKey realm="resolver-api", header="X-Service-Key"`}[tt.status == 401]; got != want {
					t.Fatalf("WWW-Authenticate %q, want %q", got, want)
				}
			})
		}
	})
}

// TestResolverHour spends the sandbox budget of two addresses and checks the 101st request, its
// Retry-After (the real wait) and the hour sliding past.
func TestResolverHour(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		srv := newServer(t, st, clock)
		sandbox, _, err := srv.gate.Keys().Sandbox(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		start := clock.Now()
		url := srv.URL + "/resolver/v1/npi/" + npi
		for _, ip := range []string{"203.0.113.1", "203.0.113.2"} {
			for i := range 100 {
				if r := do(t, "GET", url, join(service(sandbox.Reveal()), from(ip))...); r.status != 200 {
					t.Fatalf("%s request %d: %d", ip, i+1, r.status)
				}
			}
		}
		clock.Advance(25 * time.Minute)
		r := do(t, "GET", url, join(service(sandbox.Reveal()), from("203.0.113.1"))...)
		checkResolverError(t, r, 429, "rate_limited")
		checkResolverHeaders(t, r, 100, 0, clock.Now())
		// All 200 were made in the first 10-second bucket: back at start + 1h + 10s.
		release := start.Add(time.Hour + 10*time.Second)
		if got, want := r.header.Get("Retry-After"), strconv.Itoa(int(release.Sub(clock.Now())/time.Second)); got != want {
			t.Fatalf("Retry-After %s, want %s", got, want)
		}
		if got := r.header.Get("X-RateLimit-Reset"); got != strconv.FormatInt(release.Unix(), 10) {
			t.Fatalf("X-RateLimit-Reset %s, want %d", got, release.Unix())
		}
		clock.Set(release.Add(-time.Millisecond))
		checkResolverError(t, do(t, "GET", url, join(service(sandbox.Reveal()), from("203.0.113.2"))...), 429, "rate_limited")
		if got := do(t, "GET", url, join(service(sandbox.Reveal()), from("203.0.113.2"))...).header.Get("Retry-After"); got != "1" {
			t.Fatalf("Retry-After a millisecond before the slot: %s, want 1", got)
		}
		clock.Set(release)
		r = do(t, "GET", url, join(service(sandbox.Reveal()), from("203.0.113.2"))...)
		if r.status != 200 {
			t.Fatalf("after the hour slid past: %d", r.status)
		}
		checkResolverHeaders(t, r, 100, 99, clock.Now())
	})
}

// TestRevocationAndExpiry checks that both act on the very next request.
func TestRevocationAndExpiry(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		srv := newServer(t, st, clock)
		ctx := context.Background()
		keys := srv.gate.Keys()
		expiring, ek, err := keys.Create(ctx, apikey.TierStarter, "Trial", apikey.CreateOptions{ExpiresAt: clock.Now().Add(30 * 24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		pilot, pk, _ := keys.Create(ctx, apikey.TierPilot, "Acme", apikey.CreateOptions{})

		if r := do(t, "GET", srv.URL+"/resolver/v1/npi/"+npi, service(expiring.Reveal())...); r.status != 200 {
			t.Fatalf("before expiry: %d", r.status)
		}
		clock.Set(ek.ExpiresAt.Add(-time.Nanosecond))
		if r := do(t, "GET", srv.URL+"/resolver/v1/npi/"+npi, service(expiring.Reveal())...); r.status != 200 {
			t.Fatalf("a nanosecond before expiry: %d", r.status)
		}
		clock.Set(*ek.ExpiresAt)
		checkResolverError(t, do(t, "GET", srv.URL+"/resolver/v1/npi/"+npi, service(expiring.Reveal())...), 401, "invalid_key")

		if r := do(t, "GET", srv.URL+"/v1/specialties", bearer(pilot.Reveal())...); r.status != 200 {
			t.Fatalf("before revocation: %d", r.status)
		}
		if _, _, err := keys.Revoke(ctx, pk.ID); err != nil {
			t.Fatal(err)
		}
		r := do(t, "GET", srv.URL+"/v1/specialties", bearer(pilot.Reveal())...)
		checkV1Error(t, r, 401, "invalid_api_key")
		checkSupplyHeaders(t, r, 100, 100, "rolling-1h", clock.Now())
	})
}

// TestTwoReplicas runs two servers on one store: they share quotas and see each other's
// revocations.
func TestTwoReplicas(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, replica := b.Open(t)
		clock := handclock.New()
		a, bsrv := newServer(t, st, clock), newServer(t, replica(), clock)
		key, k, err := a.gate.Keys().Create(context.Background(), apikey.TierPilot, "Acme", apikey.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 60 {
			srv := []*server{a, bsrv}[i%2]
			r := do(t, "GET", srv.URL+"/v1/specialties", bearer(key.Reveal())...)
			if r.status != 200 {
				t.Fatalf("request %d: %d", i+1, r.status)
			}
			checkSupplyHeaders(t, r, 1000, 999-i, "rolling-24h", clock.Now())
		}
		for _, srv := range []*server{a, bsrv} {
			checkV1Error(t, do(t, "GET", srv.URL+"/v1/specialties", bearer(key.Reveal())...), 429, "rate_limit_exceeded")
		}
		clock.Advance(61 * time.Second)
		if r := do(t, "GET", bsrv.URL+"/v1/specialties", bearer(key.Reveal())...); r.status != 200 {
			t.Fatalf("after the minute: %d", r.status)
		}
		if _, _, err := bsrv.gate.Keys().Revoke(context.Background(), k.ID); err != nil {
			t.Fatal(err)
		}
		checkV1Error(t, do(t, "GET", a.URL+"/v1/specialties", bearer(key.Reveal())...), 401, "invalid_api_key")
	})
}

// TestRaceForTheLastRequest sends 200 concurrent requests for a key's last request: exactly one
// succeeds, on one replica or split over two.
func TestRaceForTheLastRequest(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		for _, replicas := range []int{1, 2} {
			name := map[int]string{1: "one replica", 2: "two replicas"}[replicas]
			t.Run(name, func(t *testing.T) {
				st, replica := b.Open(t)
				clock := handclock.New()
				servers := []*server{newServer(t, st, clock)}
				if replicas == 2 {
					servers = append(servers, newServer(t, replica(), clock))
				}
				sandbox, _, err := servers[0].gate.Keys().Sandbox(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				auth := join(service(sandbox.Reveal()), from("198.51.100.77"))
				for i := range 99 {
					if r := do(t, "GET", servers[0].URL+"/resolver/v1/npi/"+npi, auth...); r.status != 200 {
						t.Fatalf("request %d: %d", i+1, r.status)
					}
				}
				var ok, limited atomic.Int64
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i := range 200 {
					wg.Go(func() {
						<-start
						r := do(t, "GET", servers[i%len(servers)].URL+"/resolver/v1/npi/"+npi, auth...)
						switch r.status {
						case 200:
							ok.Add(1)
						case 429:
							limited.Add(1)
						default:
							t.Errorf("status %d", r.status)
						}
					})
				}
				close(start)
				wg.Wait()
				if ok.Load() != 1 || limited.Load() != 199 {
					t.Fatalf("%d succeeded and %d were limited, want 1 and 199", ok.Load(), limited.Load())
				}
			})
		}
	})
}
