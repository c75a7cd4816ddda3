package smart

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"providerdir/store"
)

const (
	// MaxAssertionLifetime is how far ahead an assertion's exp may be (SMART: at most 5 minutes).
	MaxAssertionLifetime = 5 * time.Minute
	// ClockSkew is the clock difference tolerated on exp, iat and nbf: between a client and the
	// server for assertions, between the replica that issued an access token and the one that
	// checks it. Clocks kept by NTP agree to well under a second; the leeway covers a slow
	// network on top, no more, so an expired credential is not honoured for long. The replay
	// guard keeps a jti for the assertion's lifetime plus this much.
	ClockSkew = 5 * time.Second
	// JTIKind is the record kind of the replay guard: one record "<client id>:<jti>" per accepted
	// assertion, expiring with it.
	JTIKind = "jti"
	// maxJTILen keeps "<client>:<jti>" well inside store.MaxIDLen.
	maxJTILen = 256
)

// authFailure is a client authentication failure: answered with invalid_client, logged with its
// reason. Other errors from authenticate are the server's (a store that is down).
type authFailure struct {
	clientID string // as claimed, unverified
	reason   string
}

func (e *authFailure) Error() string { return e.reason }

func failAuth(clientID, format string, a ...any) error {
	return &authFailure{clientID: clientID, reason: fmt.Sprintf(format, a...)}
}

// numericDate checks a time claim as sent: absent, or a JSON number (RFC 7519 NumericDate, which
// RFC 7523 requires of exp, iat and nbf). jwx also accepts a string of digits, and a client that
// sends one is not following the profile; such an assertion is refused, not reinterpreted.
func numericDate(raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	var n float64
	if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &n) != nil {
		return fmt.Errorf("is %.40q, not a NumericDate (a JSON number of seconds)", raw)
	}
	return nil
}

// authenticate verifies a client assertion (RFC 7523 section 3, SMART client-confidential-
// asymmetric) and consumes its jti. The header and the issuer are read before the signature is
// checked only to find the key; nothing else is trusted until the signature verifies with the
// one registered key that matches kid and fits alg, and the algorithm is fixed by the server's
// choice of key, never taken from the header alone.
func (s *Service) authenticate(ctx context.Context, f tokenForm) (Client, error) {
	msg, err := jws.Parse([]byte(f.Assertion), jws.WithCompact())
	if err != nil || len(msg.Signatures()) != 1 {
		return Client{}, failAuth("", "assertion is not a compact JWS")
	}
	hdr := msg.Signatures()[0].ProtectedHeaders()
	var claimed struct {
		Iss string `json:"iss"`
		// The time claims as sent, to check their JSON type (see numericDate).
		Exp json.RawMessage `json:"exp"`
		Iat json.RawMessage `json:"iat"`
		Nbf json.RawMessage `json:"nbf"`
	}
	if err := json.Unmarshal(msg.Payload(), &claimed); err != nil || claimed.Iss == "" {
		return Client{}, failAuth("", "assertion has no iss claim")
	}
	id := claimed.Iss
	for _, c := range []struct {
		name string
		raw  json.RawMessage
	}{{"exp", claimed.Exp}, {"iat", claimed.Iat}, {"nbf", claimed.Nbf}} {
		if err := numericDate(c.raw); err != nil {
			return Client{}, failAuth(id, "assertion claim %q %v", c.name, err)
		}
	}
	alg, _ := hdr.Algorithm()
	if alg.String() != jwa.RS384().String() && alg.String() != jwa.ES384().String() {
		return Client{}, failAuth(id, "assertion alg %q is not RS384 or ES384", alg.String())
	}
	kid, _ := hdr.KeyID()
	if kid == "" {
		return Client{}, failAuth(id, "assertion header has no kid")
	}
	if typ, ok := hdr.Type(); ok && !strings.EqualFold(typ, "JWT") {
		return Client{}, failAuth(id, "assertion typ %q is not JWT", typ)
	}
	if f.ClientID != "" && f.ClientID != id {
		return Client{}, failAuth(id, "client_id parameter %q differs from the assertion's iss", f.ClientID)
	}

	c, err := GetClient(ctx, s.store, id)
	switch {
	case errors.Is(err, ErrClientNotFound):
		return Client{}, failAuth(id, "unknown client")
	case err != nil:
		return Client{}, err
	case !c.Enabled:
		return Client{}, failAuth(id, "client is disabled")
	}
	if jku, ok := hdr.JWKSetURL(); ok && (c.JWKSURL == "" || jku != c.JWKSURL) {
		return Client{}, failAuth(id, "assertion jku %q is not the client's registered JWKS URL", jku)
	}
	key, err := s.keys.find(ctx, c, kid, alg)
	if err != nil {
		return Client{}, failAuth(id, "no key to verify with: %v", err)
	}

	now := s.now()
	tok, err := jwt.Parse([]byte(f.Assertion),
		jwt.WithKey(alg, key),
		jwt.WithClock(jwt.ClockFunc(func() time.Time { return now })),
		jwt.WithAcceptableSkew(ClockSkew),
		jwt.WithIssuer(id),
		jwt.WithSubject(id),
		jwt.WithAudience(s.tokenURL),
		jwt.WithRequiredClaim(jwt.ExpirationKey),
		jwt.WithRequiredClaim(jwt.JwtIDKey))
	if err != nil {
		return Client{}, failAuth(id, "assertion rejected: %v", err)
	}
	exp, _ := tok.Expiration()
	if exp.After(now.Add(MaxAssertionLifetime + ClockSkew)) {
		return Client{}, failAuth(id, "assertion exp %s is more than %s ahead", exp.UTC().Format(time.RFC3339), MaxAssertionLifetime)
	}
	// An assertion lives from its issue time for at most MaxAssertionLifetime: one issued a while
	// ago with a later exp is refused even though its exp is near, so a leaked assertion cannot
	// be stretched past the lifetime the profile allows. Both claims come from the client's
	// clock; the leeway is the same ClockSkew as everywhere else.
	if iat, ok := tok.IssuedAt(); ok && exp.Sub(iat) > MaxAssertionLifetime+ClockSkew {
		return Client{}, failAuth(id, "assertion lifetime exp - iat is %s, more than %s", exp.Sub(iat), MaxAssertionLifetime)
	}
	jti, _ := tok.JwtID()
	if jti == "" || len(jti) > maxJTILen || strings.IndexByte(jti, 0) >= 0 {
		return Client{}, failAuth(id, "assertion jti is empty or longer than %d bytes", maxJTILen)
	}
	// The guard is written only after the signature verified, so nobody without a client's key
	// can fill the store with guards. It lives as long as the assertion stays acceptable; the
	// store judges expiry by its own clock, so the lifetime is carried over, not the instant.
	guard := store.Record{Kind: JTIKind, ID: c.ID + ":" + jti, Body: []byte(`{}`),
		ExpiresAt: time.Now().Add(exp.Sub(now) + ClockSkew)}
	_, err = s.store.PutRecord(ctx, guard)
	switch {
	case errors.Is(err, store.ErrConflict):
		return Client{}, failAuth(id, "assertion jti %q was already used", jti)
	case err != nil:
		return Client{}, fmt.Errorf("record jti: %w", err)
	}
	return c, nil
}
