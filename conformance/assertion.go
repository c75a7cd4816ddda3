package conformance

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// The client side of SMART Backend Services, written here from RFC 7523 and the SMART
// specification rather than taken from the server, so the suite holds the server to the
// specification and not to itself.

const (
	grantClientCredentials = "client_credentials"
	assertionTypeJWTBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	// assertionLifetime is SMART's ceiling on exp - now.
	assertionLifetime = 5 * time.Minute
)

// assertion is what a client assertion says; each refusal check changes one part of a valid one.
type assertion struct {
	iss, sub, aud string
	// iat is the issue time the assertion states; zero states the time it is signed.
	iat time.Time
	exp time.Time
	jti string
}

// validAssertion is the assertion a registered client sends to tokenURL now.
func validAssertion(clientID, tokenURL string, now time.Time) assertion {
	return assertion{iss: clientID, sub: clientID, aud: tokenURL, exp: now.Add(assertionLifetime), jti: randomJTI()}
}

func randomJTI() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// signingAlg is the SMART algorithm for the key: RS384 for RSA, ES384 for EC P-384.
func signingAlg(key jwk.Key) (jwa.SignatureAlgorithm, error) {
	switch key.KeyType() {
	case jwa.RSA():
		return jwa.RS384(), nil
	case jwa.EC():
		return jwa.ES384(), nil
	}
	return jwa.SignatureAlgorithm{}, fmt.Errorf("a %s key signs neither RS384 nor ES384", key.KeyType())
}

// sign signs a with key, the key's kid in the header.
func (a assertion) sign(key jwk.Key) (string, error) {
	alg, err := signingAlg(key)
	if err != nil {
		return "", err
	}
	tok, err := a.build()
	if err != nil {
		return "", err
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(alg, key))
	if err != nil {
		return "", err
	}
	return string(signed), nil
}

func (a assertion) build() (jwt.Token, error) {
	iat := a.iat
	if iat.IsZero() {
		iat = time.Now()
	}
	return jwt.NewBuilder().Issuer(a.iss).Subject(a.sub).Audience([]string{a.aud}).
		IssuedAt(iat).Expiration(a.exp).JwtID(a.jti).Build()
}

// unsigned is a with alg "none" and no signature, which a server must never accept.
func (a assertion) unsigned(kid string) (string, error) {
	claims, err := json.Marshal(map[string]any{"iss": a.iss, "sub": a.sub, "aud": a.aud, "exp": a.exp.Unix(), "jti": a.jti})
	if err != nil {
		return "", err
	}
	head, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT", "kid": kid})
	enc := base64.RawURLEncoding.EncodeToString
	return enc(head) + "." + enc(claims) + ".", nil
}

// tokenAnswer is the token endpoint's answer: the token, or the OAuth error.
type tokenAnswer struct {
	status      int
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
	Error       string `json:"error"`
}

// exchange posts a token request with the given form values over the defaults of a valid one.
func (e *Env) exchange(ctx context.Context, tokenURL string, form url.Values) (tokenAnswer, error) {
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}}
	res, err := e.do(ctx, http.MethodPost, tokenURL, h, strings.NewReader(form.Encode()))
	if err != nil {
		return tokenAnswer{}, err
	}
	var t tokenAnswer
	if err := res.json(&t); err != nil {
		return tokenAnswer{}, err
	}
	t.status = res.status
	return t, nil
}

// tokenForm is a token request carrying the assertion.
func tokenForm(assertion string) url.Values {
	return url.Values{
		"grant_type":            {grantClientCredentials},
		"client_assertion_type": {assertionTypeJWTBearer},
		"client_assertion":      {assertion},
		"scope":                 {"system/*.read"},
	}
}
