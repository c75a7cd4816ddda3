package resolver_test

import (
	"context"
	"net/http"
	"testing"

	"providerdir/testing/backends"
)

// GET /sandbox answers without a key, counts nothing, and gives the published sandbox key, which
// opens the resolver, with the limits of docs/contracts/resolver-api.md §8 and the rate-limit
// fields of the caller's sandbox budget; after a rotation it gives the new key.
func TestSandbox(t *testing.T) {
	e := newEnv(t, backends.Embedded(t))
	want := map[string]any{"requests_per_hour": 100.0, "metered_by": "client_address", "batch_max_npis": 1000.0,
		"batch_npis_per_hour": 1000.0, "search_max_limit": 100.0}
	tests := []struct {
		name, key string // key: the X-Service-Key sent, none when empty
	}{
		{"no key", ""},
		{"an unknown key", "pdlive_notakey"},
		{"the sandbox key", e.sandbox(t)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, "/resolver/v1/sandbox", tt.key)
			if r.Status != http.StatusOK {
				t.Fatalf("status %d: %s", r.Status, r.Raw)
			}
			rateLimitHeaders(t, "GET /sandbox", r)
			if r.Body["key"] != e.sandbox(t) || r.Body["tier"] != "sandbox" {
				t.Errorf("key %v tier %v, want the published sandbox key %s", r.Body["key"], r.Body["tier"], e.sandbox(t))
			}
			if got := r.Body["limits"].(map[string]any); len(got) != len(want) {
				t.Errorf("limits %v, want %v", got, want)
			}
			for k, v := range want {
				if got := r.Body["limits"].(map[string]any)[k]; got != v {
					t.Errorf("limits.%s = %v, want %v", k, got, v)
				}
			}
			if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
		})
	}

	// nothing counted: the budget the key then spends is the caller's sandbox budget, whole
	first := e.get(t, "/resolver/v1/sandbox", "")
	again := e.get(t, "/resolver/v1/sandbox", "")
	remaining := func(r response) string { return r.Header.Get("X-RateLimit-Remaining") }
	if remaining(again) != remaining(first) || remaining(first) != "100" {
		t.Errorf("X-RateLimit-Remaining %s then %s, want 100 both times", remaining(first), remaining(again))
	}
	key, _ := first.Body["key"].(string)
	opened := e.get(t, "/resolver/v1/npi/1234567893", key)
	if opened.Status == http.StatusUnauthorized || remaining(opened) != "99" {
		t.Errorf("with the sandbox key: status %d, X-RateLimit-Remaining %s; want it admitted and counted", opened.Status, remaining(opened))
	}

	rotated, _, err := e.Gate.Keys().RotateSandbox(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.get(t, "/resolver/v1/sandbox", "").Body["key"]; got != rotated.Reveal() {
		t.Errorf("after rotation the key %v, want the new %s", got, rotated.Reveal())
	}
	if r := e.get(t, "/resolver/v1/npi/1234567893", ""); r.Status != http.StatusUnauthorized {
		t.Errorf("another path without a key: status %d, want 401", r.Status)
	}
}
