package smart

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"providerdir/store"
)

const (
	// TokenLifetime is how long an access token is valid (SMART: expires_in SHOULD be at most 300).
	TokenLifetime = 300 * time.Second
	// TokenKeyKind and tokenKeyID name the record holding the access-token secret.
	TokenKeyKind = "smart_token_key"
	tokenKeyID   = "access"
	// Private claims of an access token.
	claimScope    = "scope"
	claimSandbox  = "sandbox"
	claimClientID = "client_id"
)

// tokenKey is the HS256 secret access tokens are signed with, shared by every replica through
// the store. kid names it so that a later rotation can keep the previous secret for 300 s.
type tokenKey struct {
	KID       string    `json:"kid"`
	Secret    []byte    `json:"secret"`
	CreatedAt time.Time `json:"created_at"`

	signer jwk.Key
}

// loadTokenKey reads the shared secret, creating it on the very first start. Two replicas that
// start together both try the create; the store lets exactly one win and the other reads it.
func loadTokenKey(ctx context.Context, st store.Store) (*tokenKey, error) {
	rec, err := store.Update(ctx, st, TokenKeyKind, tokenKeyID, func(old store.Record) (store.Record, error) {
		if old.Version != 0 {
			return old, store.SkipWrite
		}
		k := tokenKey{Secret: make([]byte, 32), CreatedAt: time.Now().UTC()}
		_, _ = rand.Read(k.Secret)
		k.KID = hex.EncodeToString(k.Secret[:4]) + "-" + k.CreatedAt.Format("20060102")
		body, err := json.Marshal(k)
		old.Body = body
		return old, err
	}, store.CreateIfAbsent())
	if err != nil {
		return nil, fmt.Errorf("access-token key: %w", err)
	}
	return decodeTokenKey(rec.Body)
}

func decodeTokenKey(body []byte) (*tokenKey, error) {
	var k tokenKey
	if err := json.Unmarshal(body, &k); err != nil || len(k.Secret) < 32 {
		return nil, errors.New("access-token key record is malformed")
	}
	signer, err := jwk.Import(k.Secret)
	if err == nil {
		err = signer.Set(jwk.KeyIDKey, k.KID)
	}
	if err != nil {
		return nil, fmt.Errorf("access-token key: %w", err)
	}
	k.signer = signer
	return &k, nil
}

// issue signs an access token for client c with the granted scopes.
func (s *Service) issue(c Client, scopes []string) (string, error) {
	now := s.now()
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	b := jwt.NewBuilder().
		Issuer(s.issuer).
		Audience([]string{s.issuer}).
		Subject(c.ID).
		IssuedAt(now).
		Expiration(now.Add(TokenLifetime)).
		JwtID(hex.EncodeToString(jti)).
		Claim(claimClientID, c.ID).
		Claim(claimScope, strings.Join(scopes, " "))
	if c.Sandbox {
		b = b.Claim(claimSandbox, true)
	}
	tok, err := b.Build()
	if err != nil {
		return "", err
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.HS256(), s.tokenKey.signer))
	if err != nil {
		return "", err
	}
	return string(signed), nil
}

// verifyAccess checks an access token and returns its grant.
func (s *Service) verifyAccess(raw string) (Grant, error) {
	tok, err := jwt.Parse([]byte(raw),
		jwt.WithKey(jwa.HS256(), s.tokenKey.Secret),
		jwt.WithClock(jwt.ClockFunc(s.now)),
		jwt.WithAcceptableSkew(ClockSkew),
		jwt.WithIssuer(s.issuer),
		jwt.WithAudience(s.issuer),
		jwt.WithRequiredClaim(jwt.ExpirationKey))
	if err != nil {
		return Grant{}, err
	}
	g := Grant{}
	g.ClientID, _ = tok.Subject()
	g.ExpiresAt, _ = tok.Expiration()
	var scope string
	if err := tok.Get(claimScope, &scope); err != nil {
		return Grant{}, errors.New("access token has no scope claim")
	}
	g.Scopes = strings.Fields(scope)
	if tok.Has(claimSandbox) {
		if err := tok.Get(claimSandbox, &g.Sandbox); err != nil {
			return Grant{}, errors.New("access token has a malformed sandbox claim")
		}
	}
	return g, nil
}
