package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// webhookChecks hold the webhook registration of the resolver (/resolver/v1/webhooks) to its
// contract: the key header as on every resolver path, writes refused to the read-only sandbox
// key (403 forbidden), bad registrations refused with the resolver's error envelope, URLs
// limited to public https endpoints, and a signing secret shown once.
func webhookChecks() []Check {
	const w = "webhooks"
	return []Check{
		{w, "POST /webhooks without a key is 401 invalid_key", func(ctx context.Context, e *Env) error {
			res, err := e.do(ctx, http.MethodPost, e.creds.BaseURL+"/resolver/v1/webhooks", http.Header{"Content-Type": {"application/json"}},
				strings.NewReader(`{"url":"https://example.com/h","events":["source.refreshed"]}`))
			if err != nil {
				return err
			}
			return wantResolverError(res, http.StatusUnauthorized, "invalid_key")
		}},
		{w, "POST /webhooks with an empty body is 403 forbidden for the sandbox key, 400 invalid_event for a live key", func(ctx context.Context, e *Env) error {
			res, err := e.resolverCall(ctx, http.MethodPost, "/webhooks", []byte(`{}`))
			if err != nil {
				return err
			}
			if wantResolverError(res, http.StatusForbidden, "forbidden") == nil {
				e.note = "the given key is read-only"
				return nil
			}
			return wantResolverError(res, http.StatusBadRequest, "invalid_event")
		}},
		{w, "POST /webhooks with an unknown event is 400 invalid_event", func(ctx context.Context, e *Env) error {
			return e.webhookError(ctx, `{"url":"https://example.com/h","events":["provider.deleted"]}`, http.StatusBadRequest, "invalid_event")
		}},
		{w, "POST /webhooks to plain http is 400 invalid_url", func(ctx context.Context, e *Env) error {
			return e.webhookError(ctx, `{"url":"http://example.com/h","events":["source.refreshed"]}`, http.StatusBadRequest, "invalid_url")
		}},
		{w, "POST /webhooks to the cloud metadata address is 400 invalid_url", func(ctx context.Context, e *Env) error {
			return e.webhookError(ctx, `{"url":"https://169.254.169.254/latest/meta-data","events":["source.refreshed"]}`, http.StatusBadRequest, "invalid_url")
		}},
		{w, "POST /webhooks to a private address is 400 invalid_url", func(ctx context.Context, e *Env) error {
			return e.webhookError(ctx, `{"url":"https://10.0.0.1/h","events":["source.refreshed"]}`, http.StatusBadRequest, "invalid_url")
		}},
		{w, "POST /webhooks with a malformed watched NPI is 400 invalid_npi", func(ctx context.Context, e *Env) error {
			return e.webhookError(ctx, `{"url":"https://example.com/h","events":["provider.changed"],"npis":["123"]}`, http.StatusBadRequest, "invalid_npi")
		}},
		{w, "a webhook is created with its secret shown once, read without it, and deleted", checkWebhookLifecycle},
	}
}

// wantResolverError holds an answer to a status and a resolver error code.
func wantResolverError(res response, status int, code string) error {
	var env struct {
		Error struct{ Code, Message, RequestID string } `json:"error"`
	}
	if res.status != status || res.json(&env) != nil || env.Error.Code != code || env.Error.Message == "" {
		return fmt.Errorf("%s: %d %.200s, want %d %s", res.url, res.status, res.body, status, code)
	}
	return nil
}

// webhookWrite POSTs a registration with the given key; a read-only key's 403 skips the check,
// which needs a live key.
func (e *Env) webhookWrite(ctx context.Context, method, path, body string) (response, error) {
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	res, err := e.resolverCall(ctx, method, path, b)
	if err == nil && res.status == http.StatusForbidden {
		return res, Skipf("the given resolver key is read-only; webhooks need a live key")
	}
	return res, err
}

func (e *Env) webhookError(ctx context.Context, body string, status int, code string) error {
	res, err := e.webhookWrite(ctx, http.MethodPost, "/webhooks", body)
	if err != nil {
		return err
	}
	return wantResolverError(res, status, code)
}

func checkWebhookLifecycle(ctx context.Context, e *Env) error {
	reg, _ := json.Marshal(map[string]any{"url": e.webhookURL, "events": []string{"source.refreshed"}})
	res, err := e.webhookWrite(ctx, http.MethodPost, "/webhooks", string(reg))
	if err != nil {
		return err
	}
	if res.status == http.StatusBadRequest && strings.Contains(string(res.body), "does not resolve") {
		return Skipf("the deployment cannot resolve the host of %s", e.webhookURL)
	}
	var created struct {
		ID            string `json:"id"`
		SigningSecret string `json:"signing_secret"`
		Status        string `json:"status"`
	}
	if res.status != http.StatusCreated || res.json(&created) != nil || created.ID == "" || !strings.HasPrefix(created.SigningSecret, "whsec_") || created.Status != "active" {
		return fmt.Errorf("%s: %d %.300s, want 201 with an id and a signing_secret", res.url, res.status, res.body)
	}
	defer func() {
		_, _ = e.webhookWrite(context.WithoutCancel(ctx), http.MethodDelete, "/webhooks/"+created.ID, "")
	}()
	res, err = e.webhookWrite(ctx, http.MethodGet, "/webhooks/"+created.ID, "")
	if err != nil {
		return err
	}
	if res.status != http.StatusOK || strings.Contains(string(res.body), created.SigningSecret) || strings.Contains(string(res.body), "signing_secret") {
		return fmt.Errorf("%s: %d %.300s, want 200 without the secret", res.url, res.status, res.body)
	}
	if res, err = e.webhookWrite(ctx, http.MethodDelete, "/webhooks/"+created.ID, ""); err != nil {
		return err
	}
	if res.status != http.StatusNoContent {
		return fmt.Errorf("%s: %d, want 204", res.url, res.status)
	}
	res, err = e.webhookWrite(ctx, http.MethodGet, "/webhooks/"+created.ID, "")
	if err != nil {
		return err
	}
	return wantResolverError(res, http.StatusNotFound, "not_found")
}
