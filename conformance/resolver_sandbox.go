package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
)

// checkResolverSandbox holds GET /resolver/v1/sandbox (an addition) to the contract's sandbox
// key (seed 001 sections 5 and 8): answered without a key, with the rate-limit fields, a key of
// the sandbox tier with its hourly budget of 100, batches of at most 1,000 NPIs and search pages
// of at most 100; and the key opens the resolver.
func checkResolverSandbox(ctx context.Context, e *Env) error {
	res, err := e.do(ctx, http.MethodGet, e.creds.BaseURL+"/resolver/v1/sandbox", http.Header{"Accept": {"application/json"}}, nil)
	if err != nil {
		return err
	}
	var body struct {
		Key    string         `json:"key"`
		Tier   string         `json:"tier"`
		Limits map[string]any `json:"limits"`
	}
	if res.status != http.StatusOK || res.json(&body) != nil {
		return fmt.Errorf("%s without a key: %d: %.200s", res.url, res.status, res.body)
	}
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if _, err := strconv.ParseInt(res.header.Get(name), 10, 64); err != nil {
			return fmt.Errorf("%s: %s %q is not an integer", res.url, name, res.header.Get(name))
		}
	}
	if body.Key == "" || body.Tier != "sandbox" {
		return fmt.Errorf("%s: key %q tier %q, want a key of the sandbox tier", res.url, body.Key, body.Tier)
	}
	for limit, want := range map[string]float64{"requests_per_hour": 100, "batch_max_npis": 1000, "search_max_limit": 100} {
		if got, _ := body.Limits[limit].(float64); got != want {
			return fmt.Errorf("%s: limits.%s %v, want %v", res.url, limit, body.Limits[limit], want)
		}
	}
	probe, err := e.resolver(ctx, body.Key)
	if err != nil {
		return err
	}
	if probe.status == http.StatusUnauthorized || probe.status == http.StatusForbidden {
		return fmt.Errorf("%s with the sandbox key: %d: %.200s", probe.url, probe.status, probe.body)
	}
	return nil
}

// checkResolverBudget spends the public sandbox key's hourly budget to its 429 (seed 001,
// section 7): rate_limited with Retry-After and the rate-limit fields. The sandbox key is
// everyone's, so this runs only when budgets may be spent.
func checkResolverBudget(ctx context.Context, e *Env) error {
	if !e.exhaust {
		return Skipf("opt-in (--exhaust-budgets): spending the sandbox key's hour locks every sandbox user out")
	}
	res, err := e.do(ctx, http.MethodGet, e.creds.BaseURL+"/resolver/v1/sandbox", http.Header{"Accept": {"application/json"}}, nil)
	if err != nil {
		return err
	}
	var sandbox struct {
		Key string `json:"key"`
	}
	if res.status != http.StatusOK || res.json(&sandbox) != nil || sandbox.Key == "" {
		return fmt.Errorf("%s: %d %.200s, want the sandbox key", res.url, res.status, res.body)
	}
	refused, err := e.spend("sandbox key's hourly", func() (response, error) { return e.resolver(ctx, sandbox.Key) })
	if err != nil {
		return err
	}
	if err := wantResolverError(refused, http.StatusTooManyRequests, "rate_limited"); err != nil {
		return err
	}
	if refused.header.Get("X-RateLimit-Remaining") != "0" {
		return fmt.Errorf("%s: 429 with X-RateLimit-Remaining %q, want 0", refused.url, refused.header.Get("X-RateLimit-Remaining"))
	}
	return retryAfter(refused)
}
