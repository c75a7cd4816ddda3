// Package apikey owns the API keys of the two JSON APIs: their format, how they are made, stored
// and checked, and their lifecycle (create, import, revoke, expire, list), including the one
// published sandbox key of the resolver.
//
// # Format
//
// A key is a fixed prefix, an underscore and 43 characters drawn uniformly from the 62 letters
// and digits by crypto/rand: 43·log2(62) = 256.03 bits, more than 32 random bytes. The prefix
// says which API the key opens, so a key pasted into the wrong place is recognised at once
// (and secret scanners can look for `pd(supply|pilot|live|sandbox)_[0-9A-Za-z]{43}`):
//
//	pdsupply_…   supply data API (/v1), pilot tier: Authorization: Bearer <key>
//	pdpilot_…    supply data API, legacy prefix: accepted, never issued (keys keep working
//	             when imported from the pilot's first issue with providerctl keys import)
//	pdlive_…     resolver API, live tiers (starter, pro): X-Service-Key: <key>
//	pdsandbox_…  resolver API, the one shared sandbox key, published (see Sandbox)
//
// # Storage
//
// Only HMAC-SHA256(pepper, key) is stored: it is the record id the key is looked up by, and the
// stored copy is compared with hmac.Equal (constant time). The pepper is 32 random bytes kept in
// the store itself (record secret/apikey-pepper, made once by whichever process needs it first).
// Keys carry 256 random bits, so their hashes cannot be reversed by guessing, pepper or not; the
// pepper's job is to make the stored hashes useless anywhere else (no precomputed table, no
// match against another system's hashes). Kept in the store it needs no configuration that every
// replica and providerctl must share and that, set wrong once, would silently invalidate every
// key. The trade-off: whoever copies the whole store also has the pepper, and still no key.
//
// The plaintext exists only in the Secret returned at creation; Secret prints and logs as its
// hint (prefix_…last4), so it cannot end up in a log by accident. Every check reads the key's
// record from the store: no process caches keys, so a revocation or an expiry takes effect on
// the next request on every replica, at the cost of one point read per request.
//
// Delivery of keys by e-mail is out of scope: the operator hands over the key that
// `providerctl keys approve` or `keys create` prints once.
package apikey

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
)

// Key prefixes. Never reuse a retired prefix for another purpose: keys in the wild would change
// meaning.
const (
	PrefixSupply       = "pdsupply"
	PrefixSupplyLegacy = "pdpilot"
	PrefixLive         = "pdlive"
	PrefixSandbox      = "pdsandbox"
)

// SecretLen is the length of the random part of an issued key.
const SecretLen = 43

// Imported legacy keys may have a random part of another length, within these bounds.
const (
	minLegacyLen = 32
	maxLegacyLen = 128
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Surface is an API a key opens.
type Surface string

const (
	Supply   Surface = "supply"
	Resolver Surface = "resolver"
)

// prefixSurface maps each accepted prefix to its API.
var prefixSurface = map[string]Surface{
	PrefixSupply:       Supply,
	PrefixSupplyLegacy: Supply,
	PrefixLive:         Resolver,
	PrefixSandbox:      Resolver,
}

// Parse checks that s has the shape of a key and returns its prefix. It says nothing of whether
// the key exists; it only keeps malformed input away from the store.
func Parse(s string) (prefix string, ok bool) {
	prefix, random, found := strings.Cut(s, "_")
	if !found {
		return "", false
	}
	if _, known := prefixSurface[prefix]; !known {
		return "", false
	}
	n := len(random)
	if prefix == PrefixSupplyLegacy {
		if n < minLegacyLen || n > maxLegacyLen {
			return "", false
		}
	} else if n != SecretLen {
		return "", false
	}
	for i := 0; i < n; i++ {
		if !isBase62(random[i]) {
			return "", false
		}
	}
	return prefix, true
}

func isBase62(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// generate returns a new key with the given prefix. Each character is drawn from crypto/rand
// by rejection sampling (bytes of 248 and above are redrawn), so all 62 are equally likely.
func generate(prefix string) Secret {
	out := make([]byte, 0, len(prefix)+1+SecretLen)
	out = append(append(out, prefix...), '_')
	var buf [64]byte
	for len(out) < cap(out) {
		_, _ = rand.Read(buf[:]) // crypto/rand.Read never fails on supported platforms
		for _, b := range buf {
			if b < 248 && len(out) < cap(out) {
				out = append(out, base62[b%62])
			}
		}
	}
	return Secret{s: string(out)}
}

// hint is how a key is shown after creation: its prefix and the last four characters.
func hint(key string) string {
	prefix, random, _ := strings.Cut(key, "_")
	if len(random) < 4 {
		return prefix + "_…"
	}
	return prefix + "_…" + random[len(random)-4:]
}

// Secret is a key's plaintext. It formats, logs and marshals as its hint, so passing one to a
// logger or an error message by mistake shows nothing that opens the API; Reveal returns the
// key itself for the one place meant to show it.
type Secret struct{ s string }

// Reveal returns the full key.
func (s Secret) Reveal() string { return s.s }

// IsZero reports whether s holds no key.
func (s Secret) IsZero() bool { return s.s == "" }

// String returns the hint.
func (s Secret) String() string { return hint(s.s) }

// GoString returns the hint, for %#v.
func (s Secret) GoString() string { return "apikey.Secret(" + hint(s.s) + ")" }

// Format writes the hint whatever the verb, so no verb prints the key.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = fmt.Fprint(f, hint(s.s)) }

// LogValue logs the hint.
func (s Secret) LogValue() slog.Value { return slog.StringValue(hint(s.s)) }

// MarshalText marshals the hint (JSON included).
func (s Secret) MarshalText() ([]byte, error) { return []byte(hint(s.s)), nil }
