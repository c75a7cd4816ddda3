package smart

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// The client side of SMART Backend Services, for providerctl, the conformance suite and tests:
// what a backend client does to get a token, written once.

// SignAssertion signs a client assertion with a private JWK (RSA for RS384, EC P-384 for ES384):
// iss and sub the client id, aud the token URL, exp now plus 300 seconds, a random jti, and the
// key's kid in the header.
func SignAssertion(clientID, tokenURL string, key jwk.Key, now time.Time) (string, error) {
	alg, err := algorithmFor(key)
	if err != nil {
		return "", err
	}
	if kid, _ := key.KeyID(); kid == "" {
		return "", fmt.Errorf("the signing key has no kid")
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	tok, err := jwt.NewBuilder().
		Issuer(clientID).
		Subject(clientID).
		Audience([]string{tokenURL}).
		IssuedAt(now).
		Expiration(now.Add(MaxAssertionLifetime)).
		JwtID(hex.EncodeToString(jti)).
		Build()
	if err != nil {
		return "", err
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(alg, key))
	if err != nil {
		return "", err
	}
	return string(signed), nil
}

// RequestToken asks tokenURL for an access token with a freshly signed assertion. A refusal
// comes back as an error quoting the server's error code and description.
func RequestToken(ctx context.Context, hc *http.Client, tokenURL, clientID string, key jwk.Key, scope string) (TokenResponse, error) {
	assertion, err := SignAssertion(clientID, tokenURL, key, time.Now())
	if err != nil {
		return TokenResponse{}, err
	}
	form := url.Values{
		"grant_type":            {GrantClientCredentials},
		"client_assertion_type": {AssertionTypeJWTBearer},
		"client_assertion":      {assertion},
		"scope":                 {scope},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return TokenResponse{}, err
	}
	req.Header.Set("Content-Type", formContentType)
	req.Header.Set("Accept", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		return TokenResponse{}, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return TokenResponse{}, err
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &e)
		return TokenResponse{}, fmt.Errorf("token endpoint answered %d %s: %s", res.StatusCode, e.Error, e.Description)
	}
	var tr TokenResponse
	if err := json.Unmarshal(body, &tr); err != nil || tr.AccessToken == "" {
		return TokenResponse{}, fmt.Errorf("token endpoint answered 200 without an access token")
	}
	return tr, nil
}
