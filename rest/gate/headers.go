package gate

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"providerdir/rest"
	"providerdir/rest/quota"
)

// Header names.
const (
	HeaderLimit           = "X-RateLimit-Limit"
	HeaderRemaining       = "X-RateLimit-Remaining"
	HeaderReset           = "X-RateLimit-Reset"
	HeaderWindow          = "X-RateLimit-Window"
	HeaderRetryAfter      = "Retry-After"
	HeaderRateLimit       = "RateLimit"
	HeaderRateLimitPolicy = "RateLimit-Policy"
)

// SupplyRetryAfter is the supply API's fixed Retry-After, in seconds (seeds/000 section 8 rule
// 2), whichever window is full. X-RateLimit-Reset says when a slot really comes back.
const SupplyRetryAfter = "60"

// setSupplyHeaders writes the supply API's fields (seeds/000 section 8 rule 1), which name "a
// rolling 1-day window": with the pilot tier's two windows, the X-RateLimit-* fields describe the
// rolling day, whose name X-RateLimit-Window carries (a policy with one window, such as the
// anonymous hourly limit, reports that window). The minute window is in the IETF fields, which
// list every window, and a 429 it causes still carries Retry-After: 60.
func setSupplyHeaders(h http.Header, d quota.Decision) {
	b := d.Longest()
	h.Set(HeaderLimit, strconv.FormatInt(b.Limit, 10))
	h.Set(HeaderRemaining, strconv.FormatInt(b.Remaining, 10))
	h.Set(HeaderReset, rest.Timestamp(ceilSecond(b.Reset)))
	h.Set(HeaderWindow, b.Name)
	setIETFHeaders(h, d)
}

// setResolverHeaders writes the resolver's fields (seeds/001 section 8 rule 1): the reset as
// Unix seconds.
func setResolverHeaders(h http.Header, d quota.Decision) {
	b := d.Binding()
	h.Set(HeaderLimit, strconv.FormatInt(b.Limit, 10))
	h.Set(HeaderRemaining, strconv.FormatInt(b.Remaining, 10))
	h.Set(HeaderReset, strconv.FormatInt(ceilSecond(b.Reset).Unix(), 10))
	setIETFHeaders(h, d)
}

// setIETFHeaders writes the RateLimit-Policy and RateLimit fields of
// draft-ietf-httpapi-ratelimit-headers (revision 11): Structured Field lists with one member
// per window, identified by a String, for example
//
//	RateLimit-Policy: "rolling-1m";q=60;w=60, "rolling-24h";q=1000;w=86400
//	RateLimit: "rolling-1m";r=59;t=1, "rolling-24h";r=999;t=86340
//
// q is the quota and w the window in seconds; r is what remains and t the seconds until it
// grows (the window's Reset), within which the client can use no more than r.
func setIETFHeaders(h http.Header, d quota.Decision) {
	var policy, limit strings.Builder
	for i, s := range d.States {
		if i > 0 {
			policy.WriteString(", ")
			limit.WriteString(", ")
		}
		id := strconv.Quote(s.Name) // window names are plain ASCII: a valid sf-string
		policy.WriteString(id + ";q=" + strconv.FormatInt(s.Limit, 10) + ";w=" + strconv.FormatInt(int64(s.Length/time.Second), 10))
		limit.WriteString(id + ";r=" + strconv.FormatInt(s.Remaining, 10) + ";t=" + strconv.FormatInt(secondsUntil(d.At, s.Reset), 10))
	}
	h.Set(HeaderRateLimitPolicy, policy.String())
	h.Set(HeaderRateLimit, limit.String())
}

// setRetryAfter writes the seconds until every full window has a slot again, at least 1.
func setRetryAfter(h http.Header, d quota.Decision) {
	h.Set(HeaderRetryAfter, strconv.FormatInt(max(1, secondsUntil(d.At, d.At.Add(d.RetryAfter()))), 10))
}

// ceilSecond rounds t up to a whole second: a client waiting until a rounded time must not
// arrive before the slot is back.
func ceilSecond(t time.Time) time.Time {
	if r := t.Truncate(time.Second); r.Before(t) {
		return r.Add(time.Second)
	}
	return t
}

// secondsUntil is the whole seconds from now until t, rounded up, never negative.
func secondsUntil(now, t time.Time) int64 {
	d := t.Sub(now)
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
