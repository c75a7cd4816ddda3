package conformance

import (
	"context"
	"fmt"
	"net/http"
)

// resolverChecks hold the resolver API (/resolver/v1, seed 001) to its authentication contract:
// a key in X-Service-Key, 401 invalid_key without a recognised one, errors in its envelope.
// Its endpoints are added here as the deployment serves them.
func resolverChecks() []Check {
	const r = "resolver"
	return []Check{
		{r, "no X-Service-Key is 401 invalid_key", func(ctx context.Context, e *Env) error {
			return e.resolverError(ctx, "", http.StatusUnauthorized, "invalid_key")
		}},
		{r, "unrecognised X-Service-Key is 401 invalid_key", func(ctx context.Context, e *Env) error {
			return e.resolverError(ctx, "sk_"+randomJTI(), http.StatusUnauthorized, "invalid_key")
		}},
		{r, "the given key is accepted", checkResolverKey},
	}
}

// resolverProbe is the path the key checks ask: an NPI lookup, the resolver's first endpoint.
const resolverProbe = "/resolver/v1/npi/1234567893"

func (e *Env) resolver(ctx context.Context, key string) (response, error) {
	h := http.Header{"Accept": {"application/json"}}
	if key != "" {
		h.Set("X-Service-Key", key)
	}
	return e.do(ctx, http.MethodGet, e.creds.BaseURL+resolverProbe, h, nil)
}

// resolverError holds an answer to the resolver's error envelope with the status and code.
func (e *Env) resolverError(ctx context.Context, key string, status int, code string) error {
	res, err := e.resolver(ctx, key)
	if err != nil {
		return err
	}
	if res.status != status {
		return fmt.Errorf("%s: %d, want %d", res.url, res.status, status)
	}
	var env struct {
		Error struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	if err := res.json(&env); err != nil {
		return err
	}
	if env.Error.Code != code || env.Error.Message == "" || env.Error.RequestID == "" {
		return fmt.Errorf("%s: error %+v, want code %s with a message and a request_id", res.url, env.Error, code)
	}
	return nil
}

func checkResolverKey(ctx context.Context, e *Env) error {
	if e.creds.ResolverKey == "" {
		return Skipf("no resolver key given")
	}
	res, err := e.resolver(ctx, e.creds.ResolverKey)
	if err != nil {
		return err
	}
	if res.status == http.StatusUnauthorized || res.status == http.StatusForbidden {
		return fmt.Errorf("%s with the given key: %d: %.200s", res.url, res.status, res.body)
	}
	return nil
}
