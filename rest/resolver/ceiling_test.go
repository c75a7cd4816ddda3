package resolver_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/testing/demostore"
)

// POST /batch/npi is metered NPI by NPI on the per-NPI ceiling besides the one request it
// counts: the sandbox's ceiling (1,000 NPIs an hour per address) takes one full batch, and the
// next batches are 429 rate_limited with Retry-After and every rate-limit field, counting none
// of their NPIs and no request (the 429 rule); the fields name each tier's ceiling.
func TestBatchNPICeiling(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	e := newEnv(t, d.Store)
	batchOf := func(n int) []byte {
		npis := make([]string, n)
		for i := range npis {
			npis[i] = f.enrolled
		}
		b, _ := json.Marshal(map[string]any{"npis": npis})
		return b
	}
	sandbox := e.sandbox(t)
	full := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", sandbox, batchOf(1000))
	if full.Status != 200 || full.Header.Get(gate.HeaderNPILimit) != "1000" || full.Header.Get(gate.HeaderNPIRemaining) != "0" {
		t.Fatalf("full batch: %d, NPI limit %q remaining %q", full.Status, full.Header.Get(gate.HeaderNPILimit), full.Header.Get(gate.HeaderNPIRemaining))
	}
	if got := full.Header.Get("X-RateLimit-Remaining"); got != "99" {
		t.Errorf("full batch: X-RateLimit-Remaining %q, want 99 of the sandbox's 100", got)
	}
	for i := range 3 {
		over := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", sandbox, batchOf(1+i))
		if over.Status != 429 || over.ErrorCode() != "rate_limited" || !strings.Contains(string(over.Raw), "Per-NPI ceiling") {
			t.Fatalf("over the ceiling: %d %q %s", over.Status, over.ErrorCode(), over.Raw)
		}
		rateLimitHeaders(t, "per-NPI 429", over)
		if s, err := strconv.Atoi(over.Header.Get("Retry-After")); err != nil || s < 1 || s > 3610 { // an hour and one 10-second step at most
			t.Errorf("Retry-After %q", over.Header.Get("Retry-After"))
		}
		if over.Header.Get(gate.HeaderNPIRemaining) != "0" {
			t.Errorf("NPI remaining %q after a refusal", over.Header.Get(gate.HeaderNPIRemaining))
		}
		// A refused batch is no request: the budget still holds what the full batch left.
		if got := over.Header.Get("X-RateLimit-Remaining"); got != "99" {
			t.Errorf("refused batch %d: X-RateLimit-Remaining %q, want 99 of the sandbox's 100", i+1, got)
		}
	}
	if next := e.do(t, http.MethodGet, "/resolver/v1/npi/"+f.enrolled, sandbox, nil); next.Header.Get("X-RateLimit-Remaining") != "98" {
		t.Errorf("the request after the refused batches: %d, X-RateLimit-Remaining %q, want 98", next.Status, next.Header.Get("X-RateLimit-Remaining"))
	}
	for tier, want := range map[apikey.Tier]string{apikey.TierStarter: "50000", apikey.TierPro: "500000"} {
		r := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", e.Key(t, tier), batchOf(3))
		if r.Status != 200 || r.Header.Get(gate.HeaderNPILimit) != want || r.Header.Get(gate.HeaderNPIRemaining) != strconv.Itoa(mustAtoi(want)-3) {
			t.Errorf("%s: %d NPI limit %q remaining %q", tier, r.Status, r.Header.Get(gate.HeaderNPILimit), r.Header.Get(gate.HeaderNPIRemaining))
		}
	}
}

func mustAtoi(s string) int { n, _ := strconv.Atoi(s); return n }
