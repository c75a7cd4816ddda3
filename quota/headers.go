package quota

import (
	"net/http"
	"strconv"
	"time"
)

// Names of the rate-limit fields every metered response carries.
const (
	HeaderLimit           = "X-RateLimit-Limit"
	HeaderRemaining       = "X-RateLimit-Remaining"
	HeaderReset           = "X-RateLimit-Reset"
	HeaderRetryAfter      = "Retry-After"
	HeaderRateLimit       = "RateLimit"
	HeaderRateLimitPolicy = "RateLimit-Policy"
)

// The fields' names as net/http keeps them, worked out once: Header.Set would canonicalize each
// mixed-case name again on every metered response.
var (
	keyLimit           = http.CanonicalHeaderKey(HeaderLimit)
	keyRemaining       = http.CanonicalHeaderKey(HeaderRemaining)
	keyReset           = http.CanonicalHeaderKey(HeaderReset)
	keyRateLimit       = http.CanonicalHeaderKey(HeaderRateLimit)
	keyRateLimitPolicy = http.CanonicalHeaderKey(HeaderRateLimitPolicy)
)

// SetHeaders writes the rate-limit fields with the reset as Unix seconds, as the resolver's
// contract states them (docs/contracts/resolver-api.md §8 rule 1) and the FHIR surface writes them
// too: X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset of the binding window
// (Decision.Binding), and the IETF fields of every window (SetIETFHeaders).
func SetHeaders(h http.Header, d Decision) {
	b := d.Binding()
	h[keyLimit] = []string{strconv.FormatInt(b.Limit, 10)}
	h[keyRemaining] = []string{strconv.FormatInt(b.Remaining, 10)}
	h[keyReset] = []string{strconv.FormatInt(b.ResetSecond().Unix(), 10)}
	SetIETFHeaders(h, d)
}

// SetIETFHeaders writes the RateLimit-Policy and RateLimit fields of
// draft-ietf-httpapi-ratelimit-headers (revision 11): Structured Field lists with one member
// per window, identified by a String, for example
//
//	RateLimit-Policy: "rolling-1m";q=60;w=60, "rolling-24h";q=1000;w=86400
//	RateLimit: "rolling-1m";r=59;t=1, "rolling-24h";r=999;t=86340
//
// q is the quota and w the window in seconds; r is what remains and t the seconds until it
// grows (the window's Reset), within which the client can use no more than r. Both fields are
// appended into one buffer, converted to strings once.
func SetIETFHeaders(h http.Header, d Decision) {
	buf := make([]byte, 0, 64*len(d.States))
	for i, s := range d.States {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = strconv.AppendQuote(buf, s.Name) // window names are plain ASCII: a valid sf-string
		buf = append(buf, ";q="...)
		buf = strconv.AppendInt(buf, s.Limit, 10)
		buf = append(buf, ";w="...)
		buf = strconv.AppendInt(buf, int64(s.Length/time.Second), 10)
	}
	policyEnd := len(buf)
	for i, s := range d.States {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = strconv.AppendQuote(buf, s.Name)
		buf = append(buf, ";r="...)
		buf = strconv.AppendInt(buf, s.Remaining, 10)
		buf = append(buf, ";t="...)
		buf = strconv.AppendInt(buf, secondsUntil(d.At, s.Reset), 10)
	}
	both := string(buf)
	h[keyRateLimitPolicy] = []string{both[:policyEnd]}
	h[keyRateLimit] = []string{both[policyEnd:]}
}

// SetRetryAfter writes the seconds until every full window has a slot again, at least 1.
func SetRetryAfter(h http.Header, d Decision) {
	h.Set(HeaderRetryAfter, strconv.FormatInt(max(1, secondsUntil(d.At, d.At.Add(d.RetryAfter()))), 10))
}

// ResetSecond is Reset rounded up to a whole second: a client waiting until a rounded time must
// not arrive before the slot is back.
func (s State) ResetSecond() time.Time {
	if r := s.Reset.Truncate(time.Second); r.Before(s.Reset) {
		return r.Add(time.Second)
	}
	return s.Reset
}

// secondsUntil is the whole seconds from now until t, rounded up, never negative.
func secondsUntil(now, t time.Time) int64 {
	d := t.Sub(now)
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
