package gate_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

// BenchmarkGate measures what the gate adds to each request on the embedded store: the key
// lookup, the quota read and compare-and-swap write (a synced write), and the headers. The
// clock moves 100 ms a request, under the pro tier's 50,000 an hour, so every request is
// admitted and written.
func BenchmarkGate(b *testing.B) {
	for _, tc := range []struct {
		name string
		tier apikey.Tier
		wrap func(*gate.Gate, http.Handler) http.Handler
		auth func(string) []string
	}{
		{"resolver pro key", apikey.TierPro, func(g *gate.Gate, h http.Handler) http.Handler { return g.RequireResolverKey(h) }, service},
		{"supply pilot key", apikey.TierPilot, func(g *gate.Gate, h http.Handler) http.Handler { return g.RequireSupplyKey(h) }, bearer},
	} {
		b.Run(tc.name, func(b *testing.B) {
			st := backends.Embedded(b)
			clock := handclock.New()
			g := gate.New(st, gate.Options{Now: clock.Now})
			key, _, err := g.Keys().Create(context.Background(), tc.tier, "bench", apikey.CreateOptions{})
			if err != nil {
				b.Fatal(err)
			}
			h := tc.wrap(g, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
			req := httptest.NewRequest("GET", "/x", nil)
			hdr := tc.auth(key.Reveal())
			req.Header.Set(hdr[0], hdr[1])
			step := 100 * time.Millisecond
			if tc.tier == apikey.TierPilot {
				step = 87 * time.Second // 1,000 a day: keep every request under the quota
			}
			b.ResetTimer()
			for b.Loop() {
				clock.Advance(step)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusNoContent {
					b.Fatalf("status %d", w.Code)
				}
			}
		})
	}
}

// BenchmarkGateParallel is BenchmarkGate with many callers at once, each with its own key, as a
// busy server sees them: the store commits their quota writes together.
func BenchmarkGateParallel(b *testing.B) {
	st := backends.Embedded(b)
	clock := handclock.New()
	g := gate.New(st, gate.Options{Now: clock.Now})
	const callers = 64
	keys := make(chan string, callers)
	for range callers {
		k, _, err := g.Keys().Create(context.Background(), apikey.TierPro, "bench", apikey.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		keys <- k.Reveal()
	}
	h := g.RequireResolverKey(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	b.SetParallelism(callers / 2) // 2 cores: 64 goroutines
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		key := <-keys
		req := httptest.NewRequest("GET", "/x", nil)
		req.Header.Set("X-Service-Key", key)
		for pb.Next() {
			clock.Advance(time.Millisecond) // 64 keys share the clock: ~64 ms a key per request
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusNoContent {
				b.Errorf("status %d", w.Code)
				return
			}
		}
	})
}
