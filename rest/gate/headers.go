package gate

import (
	"net/http"
	"strconv"

	"providerdir/quota"
	"providerdir/rest"
)

// HeaderWindow names the window the supply API's X-RateLimit-* fields describe.
const HeaderWindow = "X-RateLimit-Window"

// SupplyRetryAfter is the supply API's fixed Retry-After, in seconds (docs/contracts/supply-api.md
// §8 rule 2), whichever window is full. X-RateLimit-Reset says when a slot really comes back.
const SupplyRetryAfter = "60"

// setSupplyHeaders writes the supply API's fields (docs/contracts/supply-api.md §8 rule 1), which
// name the window they describe: with the pilot tier's two windows, the X-RateLimit-* fields
// describe the rolling day, whose name X-RateLimit-Window carries (a policy with one window, such
// as the anonymous hourly limit, reports that window), with the reset in RFC 3339. The minute
// window is in the IETF fields, which list every window, and a 429 it causes still carries
// Retry-After: 60. The resolver's fields are quota.SetHeaders.
func setSupplyHeaders(h http.Header, d quota.Decision) {
	b := d.Longest()
	h.Set(quota.HeaderLimit, strconv.FormatInt(b.Limit, 10))
	h.Set(quota.HeaderRemaining, strconv.FormatInt(b.Remaining, 10))
	h.Set(quota.HeaderReset, rest.Timestamp(b.ResetSecond()))
	h.Set(HeaderWindow, b.Name)
	quota.SetIETFHeaders(h, d)
}
