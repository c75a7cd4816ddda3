package smart

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
)

// maxJWKSBytes bounds an inline JWKS: a handful of public keys is a few kilobytes.
const maxJWKSBytes = 64 << 10

// validateJWKS checks an inline JWKS an operator registers and returns it as a canonical JWK Set
// (a single JWK is accepted and wrapped). Every key must be usable for RS384 or ES384 and carry a
// kid unique in the set, so that exactly one key answers an assertion's kid; private key material
// is refused, because a server that stores it could be made to leak it.
func validateJWKS(raw []byte) (json.RawMessage, error) {
	if len(raw) > maxJWKSBytes {
		return nil, fmt.Errorf("JWKS is larger than %d bytes", maxJWKSBytes)
	}
	set, err := jwk.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("JWKS does not parse: %w", err)
	}
	if set.Len() == 0 {
		return nil, errors.New("JWKS holds no keys")
	}
	seen := map[string]bool{}
	for i := range set.Len() {
		k, _ := set.Key(i)
		kid, _ := k.KeyID()
		if kid == "" {
			return nil, fmt.Errorf("JWKS key %d has no kid", i)
		}
		if seen[kid] {
			return nil, fmt.Errorf("JWKS has two keys with kid %q", kid)
		}
		seen[kid] = true
		if priv, err := jwk.IsPrivateKey(k); err != nil || priv {
			return nil, fmt.Errorf("JWKS key %q is private or symmetric: register public keys only", kid)
		}
		if _, err := algorithmFor(k); err != nil {
			return nil, fmt.Errorf("JWKS key %q: %w", kid, err)
		}
		if err := k.Validate(); err != nil {
			return nil, fmt.Errorf("JWKS key %q: %w", kid, err)
		}
	}
	b, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// algorithmFor returns the one assertion algorithm a key can verify: RS384 for RSA, ES384 for EC
// on P-384. A key whose own "alg" or "use" says otherwise is not usable.
func algorithmFor(k jwk.Key) (jwa.SignatureAlgorithm, error) {
	var alg jwa.SignatureAlgorithm
	switch k.KeyType() {
	case jwa.RSA():
		alg = jwa.RS384()
	case jwa.EC():
		ec, ok := k.(interface {
			Crv() (jwa.EllipticCurveAlgorithm, bool)
		})
		crv := jwa.EmptyEllipticCurveAlgorithm()
		if ok {
			crv, _ = ec.Crv()
		}
		if crv != jwa.P384() {
			return jwa.EmptySignatureAlgorithm(), fmt.Errorf("EC key on curve %s: ES384 needs P-384", crv)
		}
		alg = jwa.ES384()
	default:
		return jwa.EmptySignatureAlgorithm(), fmt.Errorf("key type %s: only RSA (RS384) and EC P-384 (ES384) keys are accepted", k.KeyType())
	}
	if a, ok := k.Algorithm(); ok && a.String() != alg.String() {
		return jwa.EmptySignatureAlgorithm(), fmt.Errorf("key alg %s: only %s fits this key", a, alg)
	}
	if use, ok := k.KeyUsage(); ok && use != string(jwk.ForSignature) {
		return jwa.EmptySignatureAlgorithm(), fmt.Errorf("key use %q is not sig", use)
	}
	return alg, nil
}

// pickKey chooses the key that verifies an assertion: the one key whose kid matches and whose
// type fits alg (SMART: "the registered key whose kid matches and whose kty fits the alg"). No
// match and more than one match are both failures; the result is the public half only.
func pickKey(set jwk.Set, kid string, alg jwa.SignatureAlgorithm) (jwk.Key, error) {
	var found jwk.Key
	for i := range set.Len() {
		k, _ := set.Key(i)
		if id, _ := k.KeyID(); id != kid {
			continue
		}
		if a, err := algorithmFor(k); err != nil || a.String() != alg.String() {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%w: two keys with kid %q fit %s", errNoKey, kid, alg)
		}
		found = k
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no key with kid %q fits %s", errNoKey, kid, alg)
	}
	return found.PublicKey()
}

var errNoKey = errors.New("no usable key")

// checkJWKSURL admits https URLs, and plain http only to a loopback host (a client's JWKS on the
// same machine, as in tests and local demos). Anything else would let a network attacker swap a
// client's keys.
func checkJWKSURL(raw string) error {
	if len(raw) > 2048 {
		return errors.New("JWKS URL longer than 2048 bytes")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return fmt.Errorf("%q is not an absolute URL without user info or fragment", raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("JWKS URL %q must use https (plain http only on a loopback host)", raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
