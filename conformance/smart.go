package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
)

// smartChecks hold the deployment to SMART Backend Services (SMART App Launch 2.x, RFC 6749
// section 5.2, RFC 7523 section 3).
func smartChecks() []Check {
	const s = "smart"
	return []Check{
		{s, "discovery document", checkDiscovery},
		{s, "token: signed assertion is exchanged for a bearer token", checkTokenHappyPath},
		{s, "token: unsigned assertion (alg none) is refused", refusal(func(a *assertion) {}, true, "invalid_client")},
		{s, "token: wrong audience is refused", refusal(func(a *assertion) { a.aud += "/elsewhere" }, false, "invalid_client")},
		{s, "token: expired assertion is refused", refusal(func(a *assertion) { a.exp = time.Now().Add(-time.Minute) }, false, "invalid_client")},
		{s, "token: an assertion living more than 300 s (exp - iat) is refused", refusal(func(a *assertion) {
			a.iat = time.Now().Add(-200 * time.Second)
			a.exp = a.iat.Add(400 * time.Second)
		}, false, "invalid_client")},
		{s, "token: an assertion expiring more than 300 s after now is refused", refusal(func(a *assertion) { a.exp = time.Now().Add(10 * time.Minute) }, false, "invalid_client")},
		{s, "token: an assertion issued in the future is refused", refusal(func(a *assertion) {
			a.iat = time.Now().Add(2 * time.Minute)
			a.exp = a.iat.Add(4 * time.Minute)
		}, false, "invalid_client")},
		{s, "token: unknown client is refused", refusal(func(a *assertion) { a.iss = "unknown-" + randomJTI(); a.sub = a.iss }, false, "invalid_client")},
		{s, "token: replayed jti is refused", checkReplayedJTI},
		{s, "token: wrong grant_type is unsupported_grant_type", checkWrongGrantType},
		{s, "token: wrong client_assertion_type is refused", checkWrongAssertionType},
		{s, "FHIR without a token is 401 with WWW-Authenticate", checkNoToken},
		{s, "FHIR with a token the server never issued is 401", checkForgedToken},
		{s, "a token scoped to Practitioner is 403 insufficient_scope on Location", checkInsufficientScope},
	}
}

func checkDiscovery(ctx context.Context, e *Env) error {
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/.well-known/smart-configuration", nil, nil)
	if err != nil {
		return err
	}
	if res.status != http.StatusOK {
		return fmt.Errorf("%s: %d, want 200", res.url, res.status)
	}
	var d struct {
		TokenEndpoint  string   `json:"token_endpoint"`
		Grants         []string `json:"grant_types_supported"`
		AuthMethods    []string `json:"token_endpoint_auth_methods_supported"`
		SigningAlgs    []string `json:"token_endpoint_auth_signing_alg_values_supported"`
		Scopes         []string `json:"scopes_supported"`
		Capabilities   []string `json:"capabilities"`
		ChallengeMeths []string `json:"code_challenge_methods_supported"`
	}
	if err := res.json(&d); err != nil {
		return err
	}
	var problems []string
	if u, err := url.Parse(d.TokenEndpoint); err != nil || !u.IsAbs() {
		problems = append(problems, fmt.Sprintf("token_endpoint %q is not an absolute URL", d.TokenEndpoint))
	}
	want := func(field string, list []string, v string) {
		if !slices.Contains(list, v) {
			problems = append(problems, fmt.Sprintf("%s %v lacks %s", field, list, v))
		}
	}
	want("grant_types_supported", d.Grants, grantClientCredentials)
	want("token_endpoint_auth_methods_supported", d.AuthMethods, "private_key_jwt")
	want("capabilities", d.Capabilities, "client-confidential-asymmetric")
	if !slices.Contains(d.SigningAlgs, "RS384") && !slices.Contains(d.SigningAlgs, "ES384") {
		problems = append(problems, fmt.Sprintf("token_endpoint_auth_signing_alg_values_supported %v has neither RS384 nor ES384", d.SigningAlgs))
	}
	if len(d.Scopes) == 0 {
		problems = append(problems, "no scopes_supported")
	}
	if slices.Contains(d.ChallengeMeths, "plain") {
		problems = append(problems, "code_challenge_methods_supported offers plain")
	}
	return joinProblems(problems)
}

func checkTokenHappyPath(ctx context.Context, e *Env) error {
	t, err := e.validExchange(ctx, nil)
	if err != nil {
		return err
	}
	var problems []string
	if t.status != http.StatusOK || t.AccessToken == "" {
		return fmt.Errorf("token endpoint answered %d %q, want 200 with an access_token", t.status, t.Error)
	}
	if !strings.EqualFold(t.TokenType, "bearer") {
		problems = append(problems, fmt.Sprintf("token_type %q, want bearer", t.TokenType))
	}
	if t.ExpiresIn <= 0 || t.ExpiresIn > 300 {
		problems = append(problems, fmt.Sprintf("expires_in %d, want 1 to 300", t.ExpiresIn))
	}
	if t.Scope == "" {
		problems = append(problems, "no scope in the token response")
	}
	return joinProblems(problems)
}

// client is the token URL and the client's private key, or a skip when no client was given.
func (e *Env) client(ctx context.Context) (string, jwk.Key, error) {
	if e.creds.SMARTClientID == "" {
		return "", nil, Skipf("no SMART client id given")
	}
	key, err := e.creds.PrivateKey()
	if err != nil {
		return "", nil, Skipf("%v", err)
	}
	tokenURL, err := e.tokenEndpoint(ctx)
	return tokenURL, key, err
}

// validExchange asks the token endpoint with a valid assertion of the given client, the form
// edited by edit (nil: as it is).
func (e *Env) validExchange(ctx context.Context, edit func(url.Values)) (tokenAnswer, error) {
	tokenURL, key, err := e.client(ctx)
	if err != nil {
		return tokenAnswer{}, err
	}
	signed, err := validAssertion(e.creds.SMARTClientID, tokenURL, time.Now()).sign(key)
	if err != nil {
		return tokenAnswer{}, err
	}
	form := tokenForm(signed)
	if edit != nil {
		edit(form)
	}
	return e.exchange(ctx, tokenURL, form)
}

// refusal is a check that a valid assertion changed by change (or sent unsigned) is refused
// with 400 or 401 and the OAuth error code want.
func refusal(change func(*assertion), unsigned bool, want string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		tokenURL, key, err := e.client(ctx)
		if err != nil {
			return err
		}
		a := validAssertion(e.creds.SMARTClientID, tokenURL, time.Now())
		change(&a)
		var signed string
		if unsigned {
			kid, _ := key.KeyID()
			signed, err = a.unsigned(kid)
		} else {
			signed, err = a.sign(key)
		}
		if err != nil {
			return err
		}
		t, err := e.exchange(ctx, tokenURL, tokenForm(signed))
		if err != nil {
			return err
		}
		return refused(t, want)
	}
}

// refused says whether a token answer is an RFC 6749 refusal with the error code want.
func refused(t tokenAnswer, want string) error {
	if t.AccessToken != "" {
		return fmt.Errorf("an access token was issued (status %d)", t.status)
	}
	if t.status != http.StatusBadRequest && t.status != http.StatusUnauthorized {
		return fmt.Errorf("status %d, want 400 or 401", t.status)
	}
	if t.Error != want {
		return fmt.Errorf("error %q, want %q", t.Error, want)
	}
	return nil
}

func checkReplayedJTI(ctx context.Context, e *Env) error {
	tokenURL, key, err := e.client(ctx)
	if err != nil {
		return err
	}
	signed, err := validAssertion(e.creds.SMARTClientID, tokenURL, time.Now()).sign(key)
	if err != nil {
		return err
	}
	first, err := e.exchange(ctx, tokenURL, tokenForm(signed))
	if err != nil {
		return err
	}
	if first.status != http.StatusOK {
		return fmt.Errorf("the first use of the assertion answered %d %q, want 200", first.status, first.Error)
	}
	again, err := e.exchange(ctx, tokenURL, tokenForm(signed))
	if err != nil {
		return err
	}
	return refused(again, "invalid_client")
}

func checkWrongGrantType(ctx context.Context, e *Env) error {
	t, err := e.validExchange(ctx, func(form url.Values) { form.Set("grant_type", "password") })
	if err != nil {
		return err
	}
	if t.status != http.StatusBadRequest || t.Error != "unsupported_grant_type" {
		return fmt.Errorf("%d %q, want 400 unsupported_grant_type", t.status, t.Error)
	}
	return nil
}

func checkNoToken(ctx context.Context, e *Env) error {
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/Practitioner", http.Header{"Accept": {"application/fhir+json"}}, nil)
	if err != nil {
		return err
	}
	if res.status == http.StatusOK {
		return Skipf("the FHIR surface serves without a token (public read)")
	}
	if res.status != http.StatusUnauthorized {
		return fmt.Errorf("%d, want 401", res.status)
	}
	if !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
		return fmt.Errorf("WWW-Authenticate %q, want a Bearer challenge", res.header.Get("WWW-Authenticate"))
	}
	return operationOutcome(res)
}

// joinProblems is nil for none, else one error listing them.
func joinProblems(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(problems, "; "))
}

func checkWrongAssertionType(ctx context.Context, e *Env) error {
	t, err := e.validExchange(ctx, func(form url.Values) {
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer")
	})
	if err != nil {
		return err
	}
	if t.AccessToken != "" || (t.status != http.StatusBadRequest && t.status != http.StatusUnauthorized) || t.Error == "" {
		return fmt.Errorf("%d %q, want 400 or 401 with an OAuth error and no token", t.status, t.Error)
	}
	return nil
}

func checkForgedToken(ctx context.Context, e *Env) error {
	h := http.Header{"Accept": {"application/fhir+json"}, "Authorization": {"Bearer forged." + randomJTI()}}
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/Practitioner", h, nil)
	if err != nil {
		return err
	}
	if res.status != http.StatusUnauthorized {
		return fmt.Errorf("%d, want 401", res.status)
	}
	if !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
		return fmt.Errorf("WWW-Authenticate %q, want a Bearer challenge", res.header.Get("WWW-Authenticate"))
	}
	return operationOutcome(res)
}

func checkInsufficientScope(ctx context.Context, e *Env) error {
	t, err := e.validExchange(ctx, func(form url.Values) { form.Set("scope", "system/Practitioner.rs") })
	if err != nil {
		return err
	}
	if t.status != http.StatusOK || t.AccessToken == "" {
		return fmt.Errorf("a token for system/Practitioner.rs: %d %q", t.status, t.Error)
	}
	h := http.Header{"Accept": {"application/fhir+json"}, "Authorization": {"Bearer " + t.AccessToken}}
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/Location", h, nil)
	if err != nil {
		return err
	}
	if res.status == http.StatusOK {
		return Skipf("Location is served without a token's scope (public read)")
	}
	if res.status != http.StatusForbidden {
		return fmt.Errorf("a Location search with a Practitioner token: %d, want 403", res.status)
	}
	if ch := res.header.Get("WWW-Authenticate"); !strings.Contains(ch, `error="insufficient_scope"`) {
		return fmt.Errorf("WWW-Authenticate %q, want error=\"insufficient_scope\"", ch)
	}
	if err := operationOutcome(res); err != nil {
		return err
	}
	res, err = e.do(ctx, http.MethodGet, e.fhirBase()+"/Practitioner?_count=1", h, nil)
	if err != nil {
		return err
	}
	if res.status != http.StatusOK {
		return fmt.Errorf("a Practitioner search with a Practitioner token: %d, want 200", res.status)
	}
	return nil
}
