package gate_test

import (
	"context"
	"testing"

	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

// TestStoreFailure: when the store fails, the gate answers 500 internal_error in the surface's
// envelope, and never lets the request through unchecked.
func TestStoreFailure(t *testing.T) {
	st := backends.Embedded(t)
	clock := handclock.New()
	srv := newServer(t, st, clock)
	ctx := context.Background()
	pilot, _, _ := srv.gate.Keys().Create(ctx, apikey.TierPilot, "Acme", apikey.CreateOptions{})
	pro, _, _ := srv.gate.Keys().Create(ctx, apikey.TierPro, "Beta", apikey.CreateOptions{})
	_ = st.Close()
	checkV1Error(t, do(t, "GET", srv.URL+"/v1/specialties", bearer(pilot.Reveal())...), 500, rest.CodeInternal)
	// A request without a key is refused as ever, without the fields the store would give.
	if r := do(t, "GET", srv.URL+"/v1/specialties"); r.status != 401 || r.header.Get("X-RateLimit-Limit") != "" {
		t.Fatalf("no key, store down: %d %v", r.status, r.header)
	}
	checkResolverError(t, do(t, "GET", srv.URL+"/resolver/v1/npi/"+npi, service(pro.Reveal())...), 500, rest.CodeInternal)
	checkResolverError(t, do(t, "POST", srv.URL+"/api/evidence-query/demo"), 500, rest.CodeInternal)
	// Public endpoints still answer (health reports the failure itself), without the fields.
	for _, auth := range [][]string{nil, bearer(pilot.Reveal())} {
		if r := do(t, "GET", srv.URL+"/v1/health", auth...); r.status != 200 || r.header.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("public endpoint with the store down: %d %v", r.status, r.header)
		}
	}
}
