package smart_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"providerdir/smart"
)

// TestProtect covers the bearer check: what a FHIR request gets with no token, a broken one, an
// expired one (by moving the clock, not sleeping) and a good one.
func TestProtect(t *testing.T) {
	e := newEnv(t)
	other := newEnv(t) // another deployment: another token secret
	k := ecKey(t, "a")
	good := e.token(t, e.addClient(t, k, "system/Practitioner.read"), k, "system/Practitioner.read").AccessToken
	foreign := other.token(t, other.addClient(t, k), k, "system/*.read").AccessToken

	const noError = `Bearer realm="fhir"`
	const invalid = `Bearer realm="fhir", error="invalid_token"`
	tests := []struct {
		name      string
		path      string
		header    string // Authorization
		status    int
		challenge string // prefix of WWW-Authenticate
	}{
		{"good token", "/fhir/Practitioner/1", "Bearer " + good, 200, ""},
		{"scheme is case-insensitive", "/fhir/Practitioner/1", "bearer " + good, 200, ""},
		{"good token, type not granted", "/fhir/Organization/1", "Bearer " + good, 403, ""},
		{"no token", "/fhir/Practitioner/1", "", 401, noError},
		{"another scheme", "/fhir/Practitioner/1", "Basic dXNlcjpwYXNz", 401, noError},
		{"empty bearer", "/fhir/Practitioner/1", "Bearer ", 401, invalid},
		{"garbage", "/fhir/Practitioner/1", "Bearer not-a-token", 401, invalid},
		{"tampered scope", "/fhir/Practitioner/1", "Bearer " + tamper(t, good, "system/Practitioner.read", "system/*.read"), 401, invalid},
		{"another deployment's token", "/fhir/Practitioner/1", "Bearer " + foreign, 401, invalid},
		{"metadata is open", "/fhir/metadata", "", 200, ""},
		{"discovery is open", "/fhir/.well-known/smart-configuration", "", 200, ""},
		{"the server's own SearchParameters are open", "/fhir/SearchParameter/Organization-phone", "", 200, ""},
		{"a SearchParameter search is not open", "/fhir/SearchParameter", "", 401, noError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.srv.URL+tt.path, nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.status)
			}
			if got := res.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, tt.challenge) || (tt.challenge == noError && got != noError) {
				t.Errorf("WWW-Authenticate %q, want %q", got, tt.challenge)
			}
			if tt.status == 401 && res.Header.Get("Content-Type") != "application/fhir+json" {
				t.Errorf("401 content type %q", res.Header.Get("Content-Type"))
			}
		})
	}

	t.Run("401 body is an OperationOutcome", func(t *testing.T) {
		status, _, body := e.get(t, "/fhir/Practitioner/1", "")
		issue := body["issue"].([]any)[0].(map[string]any)
		if status != 401 || body["resourceType"] != "OperationOutcome" || issue["code"] != "login" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("token used after expiry", func(t *testing.T) {
		e.clock.Advance(smart.TokenLifetime - time.Second)
		if status, _, _ := e.get(t, "/fhir/Practitioner/1", good); status != 200 {
			t.Fatalf("a second before expiry: %d", status)
		}
		e.clock.Advance(time.Minute)
		status, h, _ := e.get(t, "/fhir/Practitioner/1", good)
		if status != 401 || !strings.HasPrefix(h.Get("WWW-Authenticate"), invalid) {
			t.Errorf("after expiry: %d %q", status, h.Get("WWW-Authenticate"))
		}
	})
}

// tamper rewrites a claim in a token's payload, keeping the signature.
func tamper(t *testing.T, token, from, to string) string {
	parts := strings.Split(token, ".")
	p, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || !strings.Contains(string(p), from) {
		t.Fatalf("cannot tamper with %q", p)
	}
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(p), from, to, 1)))
	return strings.Join(parts, ".")
}

func TestPublicRead(t *testing.T) {
	e := newEnv(t, func(c *smart.Config) { c.PublicRead = true })
	status, _, body := e.get(t, "/fhir/Location/1", "")
	if status != 200 || body["grant"].(map[string]any)["Public"] != true {
		t.Fatalf("no token in public mode: %d %v", status, body)
	}
	if status, _, _ := e.get(t, "/fhir/Location", ""); status != 200 {
		t.Errorf("public search: %d", status)
	}
	if status, _, _ := e.get(t, "/fhir/Location/1", "garbage"); status != 401 {
		t.Errorf("a bad token in public mode: %d, want 401", status)
	}
}

func TestDiscovery(t *testing.T) {
	e := newEnv(t)
	status, h, body := e.get(t, "/fhir/.well-known/smart-configuration", "")
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %q", status, h.Get("Content-Type"))
	}
	if body["token_endpoint"] != e.srv.URL+"/fhir/token" {
		t.Errorf("token_endpoint %v", body["token_endpoint"])
	}
	has := func(field, v string) bool {
		for _, x := range body[field].([]any) {
			if x == v {
				return true
			}
		}
		return false
	}
	for field, want := range map[string][]string{
		"grant_types_supported":                            {"client_credentials"},
		"token_endpoint_auth_methods_supported":            {"private_key_jwt"},
		"token_endpoint_auth_signing_alg_values_supported": {"RS384", "ES384"},
		"capabilities":                     {"client-confidential-asymmetric", "permission-v1", "permission-v2"},
		"code_challenge_methods_supported": {"S256"},
		"scopes_supported":                 {"system/*.read", "system/Practitioner.rs", "system/HealthcareService.read"},
	} {
		for _, v := range want {
			if !has(field, v) {
				t.Errorf("%s lacks %q", field, v)
			}
		}
	}
	if has("code_challenge_methods_supported", "plain") || body["authorization_endpoint"] != nil {
		t.Error("advertises what a backend-only server does not offer")
	}
}

// TestAccessTokenClockSkew holds the leeway on an access token's expiry to ClockSkew (5 s), the
// clock difference tolerated between replicas.
func TestAccessTokenClockSkew(t *testing.T) {
	e := newEnv(t)
	k := ecKey(t, "a")
	tok := e.token(t, e.addClient(t, k), k, "system/*.read").AccessToken
	e.clock.Advance(smart.TokenLifetime + 3*time.Second)
	if status, _, _ := e.get(t, "/fhir/Practitioner/1", tok); status != http.StatusOK {
		t.Fatalf("3 s after expiry: %d, want 200", status)
	}
	e.clock.Advance(7 * time.Second)
	if status, _, _ := e.get(t, "/fhir/Practitioner/1", tok); status != http.StatusUnauthorized {
		t.Fatalf("10 s after expiry: %d, want 401", status)
	}
}

// TestClientStatusEndsTokens: a live access token stops working once its client is disabled (as
// providerctl clients disable does) or deleted, within ClientCheckInterval, and works again once
// the client is enabled; other clients' tokens are untouched. The clock is moved, not slept.
func TestClientStatusEndsTokens(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	k, other := ecKey(t, "a"), rsaKey(t, "b")
	id, otherID := e.addClient(t, k), e.addClient(t, other)
	tok := e.token(t, id, k, "system/*.read").AccessToken
	otherTok := e.token(t, otherID, other, "system/*.read").AccessToken

	expect := func(step string, token string, want int) {
		t.Helper()
		status, h, body := e.get(t, "/fhir/Practitioner/1", token)
		if status != want {
			t.Fatalf("%s: %d %v, want %d", step, status, body, want)
		}
		if want != http.StatusUnauthorized {
			return
		}
		issue, _ := body["issue"].([]any)
		if len(issue) != 1 || body["resourceType"] != "OperationOutcome" || issue[0].(map[string]any)["code"] != "login" ||
			!strings.HasPrefix(h.Get("WWW-Authenticate"), `Bearer realm="fhir", error="invalid_token"`) {
			t.Fatalf("%s: the 401 is not the invalid-token answer: %v %q", step, body, h.Get("WWW-Authenticate"))
		}
	}
	expect("enabled", tok, http.StatusOK)
	expect("enabled, once more", tok, http.StatusOK)
	if n := smart.CachedGrants(e.svc); n != 1 {
		t.Fatalf("%d grants kept after two requests with one token, want 1", n)
	}
	if _, err := smart.SetClientEnabled(ctx, e.st, id, false); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(smart.ClientCheckInterval)
	expect("disabled", tok, http.StatusUnauthorized)
	if n := smart.CachedGrants(e.svc); n != 0 {
		t.Fatalf("the disabled client's grant is still kept (%d)", n)
	}
	expect("another client", otherTok, http.StatusOK)

	if _, err := smart.SetClientEnabled(ctx, e.st, id, true); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(smart.ClientCheckInterval)
	expect("enabled again", tok, http.StatusOK)

	c, err := smart.GetClient(ctx, e.st, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.DeleteRecord(ctx, smart.ClientKind, id, c.Version); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(smart.ClientCheckInterval)
	expect("deleted", tok, http.StatusUnauthorized)
	expect("another client after the delete", otherTok, http.StatusOK)
}

// TestClientCheckStoreDown: when the client's record cannot be read the request is not served,
// and the answer is a server error as an OperationOutcome, not a 401 that would send the client
// off for a new token.
func TestClientCheckStoreDown(t *testing.T) {
	e := newEnv(t)
	k := ecKey(t, "a")
	tok := e.token(t, e.addClient(t, k), k, "system/*.read").AccessToken
	e.st.Close()
	e.clock.Advance(smart.ClientCheckInterval)
	status, _, body := e.get(t, "/fhir/Practitioner/1", tok)
	issue, _ := body["issue"].([]any)
	if status != http.StatusInternalServerError || len(issue) != 1 || issue[0].(map[string]any)["code"] != "exception" {
		t.Fatalf("%d %v, want 500 with an exception OperationOutcome", status, body)
	}
}
