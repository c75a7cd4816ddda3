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
