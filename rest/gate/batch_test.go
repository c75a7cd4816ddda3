package gate_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/quota"
	"providerdir/rest"
	"providerdir/rest/gate"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

// TestBatchRefusedCountsNoRequest: a batch the per-NPI ceiling refuses is a 429 that counts as
// no request of the hourly budget, its X-RateLimit-Remaining the same as before it, however
// the limiter holds its counts (on the store at every decision, in memory, or leased from a
// store replicas share); the next request is counted as usual.
func TestBatchRefusedCountsNoRequest(t *testing.T) {
	for _, tt := range []struct {
		name string
		open func(st store.Store, now func() time.Time) *quota.Limiter
	}{
		{"stored", func(st store.Store, now func() time.Time) *quota.Limiter { return quota.New(st, now) }},
		{"local", func(st store.Store, now func() time.Time) *quota.Limiter {
			return quota.NewLocal(st, now, time.Hour, nil)
		}},
		{"leased", func(st store.Store, now func() time.Time) *quota.Limiter {
			return quota.NewLeased(st, now, time.Hour, nil)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := backends.Embedded(t)
			clock := handclock.New()
			l := tt.open(st, clock.Now)
			t.Cleanup(func() { l.Close() })
			g := gate.New(st, gate.Options{TrustedProxies: loopback, Now: clock.Now, Limiter: l})
			h, err := httpserver.New(httpserver.Options{
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Surfaces: []httpserver.Surface{{Name: "resolver", Prefix: "/resolver/v1", Error: rest.ResolverError,
					Routes: gate.Guard(g.RequireResolverKey, func(r *mux.Router) {
						r.HandleFunc("/npi/{npi}", echoCaller).Methods(http.MethodGet)
						r.HandleFunc("/batch/npi", meteredBatch).Methods(http.MethodPost)
					})}},
			})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			sandbox, _, err := g.Keys().Sandbox(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			key := join(service(sandbox.Reveal()), from("203.0.113.9"))
			batch := func(n int) response {
				return do(t, "POST", srv.URL+"/resolver/v1/batch/npi?n="+strconv.Itoa(n), key...)
			}

			r := batch(1000)
			if r.status != 200 || r.header.Get(gate.HeaderNPIRemaining) != "0" {
				t.Fatalf("a full batch: %d, NPIs remaining %q", r.status, r.header.Get(gate.HeaderNPIRemaining))
			}
			checkResolverHeaders(t, r, 100, 99, clock.Now())
			for i := range 3 {
				r := batch(1 + i)
				checkResolverError(t, r, 429, "rate_limited")
				checkResolverHeaders(t, r, 100, 99, clock.Now())
			}
			checkResolverHeaders(t, do(t, "GET", srv.URL+"/resolver/v1/npi/"+npi, key...), 100, 98, clock.Now())
		})
	}
}

// meteredBatch stands in for POST /batch/npi: it charges the ?n= NPIs it is given.
func meteredBatch(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	if gate.MeterNPIs(w, r, n) {
		echoCaller(w, r)
	}
}
