package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Headers of every delivery.
const (
	// HeaderSignature carries "t=<unix seconds>,v1=<hex HMAC-SHA256>" (docs/contracts/resolver-api.md
	// §5 rule 4), with a second v1 while a rotated secret's overlap lasts.
	HeaderSignature = "X-Service-Signature"
	// HeaderEventID carries the event id, the same on every attempt of a delivery, so a
	// receiver can drop a duplicate.
	HeaderEventID = "X-Service-Event-Id"
	// HeaderEvent names the event type (source.refreshed, ...).
	HeaderEvent = "X-Service-Event"
)

// secretPrefix starts every signing secret, so that one is recognisable in a config file.
const secretPrefix = "whsec_"

// NewSecret returns a fresh signing secret: the prefix and 32 random bytes in hex.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return secretPrefix + hex.EncodeToString(b)
}

// signature is the hex HMAC-SHA256 of the raw body under secret (the secret string's bytes
// are the key). The signed string is the raw request body and nothing else, as the contract
// states; the time of sending is inside the body too (delivered_at), so it is covered.
func signature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Sign returns the X-Service-Signature value for body sent at t: t=<unix>, then one v1 per
// secret in the order given (the current secret first, the previous one during a rotation's
// overlap).
func Sign(t time.Time, body []byte, secrets ...string) string {
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(strconv.FormatInt(t.Unix(), 10))
	for _, s := range secrets {
		b.WriteString(",v1=")
		b.WriteString(signature(s, body))
	}
	return b.String()
}

// Errors of Verify.
var (
	ErrSignatureFormat   = errors.New("webhook: malformed signature header")
	ErrSignatureMismatch = errors.New("webhook: no signature matches")
	ErrSignatureTooOld   = errors.New("webhook: signature timestamp outside the tolerance")
)

// Verify checks a delivery as a receiver should: header is the X-Service-Signature value, body
// the raw request body. It succeeds when a v1 value equals the HMAC of body under secret,
// compared in constant time, and (when tolerance is above zero) t is within tolerance of now.
// Every v1 value is compared, so the time taken does not say which one matched.
func Verify(header string, body []byte, secret string, now time.Time, tolerance time.Duration) error {
	ts, sigs, err := parseSignature(header)
	if err != nil {
		return err
	}
	want, _ := hex.DecodeString(signature(secret, body))
	ok := false
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			ok = true
		}
	}
	if !ok {
		return ErrSignatureMismatch
	}
	if tolerance > 0 {
		if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
			return ErrSignatureTooOld
		}
	}
	return nil
}

// parseSignature splits "t=<unix>,v1=<hex>[,v1=<hex>...]"; elements of other schemes are
// ignored, so that a later scheme can be added beside v1.
func parseSignature(header string) (int64, [][]byte, error) {
	var ts int64 = -1
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, found := strings.Cut(strings.TrimSpace(part), "=")
		if !found {
			return 0, nil, ErrSignatureFormat
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || ts >= 0 || n < 0 {
				return 0, nil, ErrSignatureFormat
			}
			ts = n
		case "v1":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != sha256.Size {
				return 0, nil, ErrSignatureFormat
			}
			sigs = append(sigs, b)
		}
	}
	if ts < 0 || len(sigs) == 0 {
		return 0, nil, ErrSignatureFormat
	}
	return ts, sigs, nil
}
