package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// resolverChecks hold the resolver API (/resolver/v1, seed 001) to its contract: a key in
// X-Service-Key, 401 invalid_key without a recognised one, errors in its envelope, the
// rate-limit fields, and its records and facts each carrying the 14 provenance keys.
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
		{r, "GET /sandbox without a key: the sandbox key, its limits, and it opens the resolver", checkResolverSandbox},
		{r, "GET /npi/{npi}?include=facts: the record and each fact carry the 14 provenance keys", checkResolverNPI},
		{r, "GET /npi/{npi} with nine digits is 400 invalid_npi", func(ctx context.Context, e *Env) error {
			return e.resolverStatus(ctx, http.MethodGet, "/npi/123456789", nil, http.StatusBadRequest, "invalid_npi")
		}},
		{r, "GET /ccn/{ccn} that is malformed is 400 invalid_ccn", func(ctx context.Context, e *Env) error {
			return e.resolverStatus(ctx, http.MethodGet, "/ccn/ZZ", nil, http.StatusBadRequest, "invalid_ccn")
		}},
		{r, "GET /npi/{npi} of a well-formed NPI no provider holds is 404 not_found, the envelope with a request_id", func(ctx context.Context, e *Env) error {
			return e.resolverNotFound(ctx, "/npi/1234567893")
		}},
		{r, "GET /ccn/{ccn} of a well-formed CCN no facility holds is 404 not_found", func(ctx context.Context, e *Env) error {
			return e.resolverNotFound(ctx, "/ccn/999999")
		}},
		{r, "POST /batch/npi answers in request order, null for an NPI no provider holds or a malformed one", checkResolverBatch},
		{r, "POST /batch/npi with 1,001 NPIs is 400 batch_too_large", func(ctx context.Context, e *Env) error {
			npis := make([]string, 1001)
			for i := range npis {
				npis[i] = "1234567893"
			}
			body, _ := json.Marshal(map[string]any{"npis": npis})
			return e.resolverStatus(ctx, http.MethodPost, "/batch/npi", body, http.StatusBadRequest, "batch_too_large")
		}},
	}
}

// resolverNotFound holds the answer to path to the contract's 404: not_found, with a message
// and the request's id.
func (e *Env) resolverNotFound(ctx context.Context, path string) error {
	res, err := e.resolverCall(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if err := wantResolverError(res, http.StatusNotFound, "not_found"); err != nil {
		return err
	}
	var env struct {
		Error struct {
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	if res.json(&env) != nil || env.Error.RequestID == "" {
		return fmt.Errorf("%s: the error has no request_id: %.200s", res.url, res.body)
	}
	return nil
}

// hasProvenance says which of the 14 keys an object lacks.
func hasProvenance(what string, obj map[string]any) error {
	for _, k := range provenanceKeys {
		if _, ok := obj[k]; !ok {
			return fmt.Errorf("%s lacks %s", what, k)
		}
	}
	return nil
}

// resolverCall asks the resolver with the given key and checks the rate-limit fields every
// answer carries (seed 001 section 8: the reset in Unix seconds).
func (e *Env) resolverCall(ctx context.Context, method, path string, body []byte) (response, error) {
	if e.creds.ResolverKey == "" {
		return response{}, Skipf("no resolver key given")
	}
	h := http.Header{"Accept": {"application/json"}, "X-Service-Key": {e.creds.ResolverKey}}
	var rd io.Reader
	if body != nil {
		h.Set("Content-Type", "application/json")
		rd = bytes.NewReader(body)
	}
	res, err := e.do(ctx, method, e.creds.BaseURL+"/resolver/v1"+path, h, rd)
	if err != nil {
		return res, err
	}
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if _, err := strconv.ParseInt(res.header.Get(name), 10, 64); err != nil {
			return res, fmt.Errorf("%s: %s %q is not an integer", res.url, name, res.header.Get(name))
		}
	}
	return res, nil
}

// resolverStatus holds one resolver answer to its status and error code.
func (e *Env) resolverStatus(ctx context.Context, method, path string, body []byte, status int, code string) error {
	res, err := e.resolverCall(ctx, method, path, body)
	if err != nil {
		return err
	}
	var env struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if res.status != status || res.json(&env) != nil || env.Error.Code != code {
		return fmt.Errorf("%s: %d %q, want %d %s", res.url, res.status, env.Error.Code, status, code)
	}
	return nil
}

// sampleNPI is the NPI of the first Practitioner the deployment serves.
func (e *Env) sampleNPI(ctx context.Context) (string, error) {
	p, err := e.sampleOf(ctx, "Practitioner")
	if err != nil {
		return "", err
	}
	tok := npiToken(p)
	if tok == "" {
		return "", Skipf("the sample Practitioner has no NPI")
	}
	return tok[strings.IndexByte(tok, '|')+1:], nil
}

func checkResolverNPI(ctx context.Context, e *Env) error {
	npi, err := e.sampleNPI(ctx)
	if err != nil {
		return err
	}
	res, err := e.resolverCall(ctx, http.MethodGet, "/npi/"+npi+"?include=facts", nil)
	if err != nil {
		return err
	}
	var rec map[string]any
	if res.status != http.StatusOK || res.json(&rec) != nil {
		return fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
	}
	if rec["npi"] != npi {
		return fmt.Errorf("%s: npi %v", res.url, rec["npi"])
	}
	if err := hasProvenance("the record", rec); err != nil {
		return err
	}
	facts, _ := rec["facts"].([]any)
	for i, f := range facts {
		fact, _ := f.(map[string]any)
		if _, ok := fact["type"].(string); !ok || fact["value"] == nil {
			return fmt.Errorf("fact %d has no type or value: %v", i, fact)
		}
		if err := hasProvenance(fmt.Sprintf("fact %d (%v)", i, fact["type"]), fact); err != nil {
			return err
		}
	}
	return nil
}

func checkResolverBatch(ctx context.Context, e *Env) error {
	npi, err := e.sampleNPI(ctx)
	if err != nil {
		return err
	}
	// Ten digits whose check digit fails belong to no provider in any deployment: null; so does
	// an entry that is no NPI at all, which is unresolvable, not an error.
	absent := npi[:9] + string('0'+(npi[9]-'0'+1)%10)
	body, _ := json.Marshal(map[string]any{"npis": []string{npi, absent, npi, "1"}})
	res, err := e.resolverCall(ctx, http.MethodPost, "/batch/npi", body)
	if err != nil {
		return err
	}
	var out struct {
		Requested int              `json:"requested"`
		Resolved  int              `json:"resolved"`
		Results   []map[string]any `json:"results"`
	}
	if res.status != http.StatusOK || res.json(&out) != nil {
		return fmt.Errorf("%s: %d: %.200s", res.url, res.status, res.body)
	}
	if out.Requested != 4 || out.Resolved != 2 || len(out.Results) != 4 || out.Results[1] != nil || out.Results[3] != nil ||
		out.Results[0]["npi"] != npi || out.Results[2]["npi"] != npi {
		return fmt.Errorf("%s: requested %d, resolved %d, results %v; want 4, 2, [%s null %s null]", res.url, out.Requested, out.Resolved, out.Results, npi, npi)
	}
	return hasProvenance("a batch result", out.Results[0])
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
