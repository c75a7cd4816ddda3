package gate

import (
	"net/http"

	"providerdir/rest"
	"providerdir/rest/quota"
)

// LimitIP meters the requests it wraps by client address under p, for the unauthenticated
// routes of the service host (EvidenceDemoPolicy for POST /api/evidence-query/demo,
// AccessRequestPolicy for POST /api/access-requests). It writes the supply API's rate-limit
// fields (the evidence demo's limit is that contract's) and refuses in the service host's
// envelope with rate_limit_exceeded and a Retry-After of the real seconds until a slot frees:
// on a 10-a-day limit a fixed minute would only invite retries that fail.
func (g *Gate) LimitIP(p quota.Policy) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ip := g.ips.ClientIP(r)
			d, err := g.limiter.Allow(r.Context(), p, ipSubject(ip))
			if err != nil {
				g.internal(w, r, rest.APIError, err)
				return
			}
			setSupplyHeaders(w.Header(), d)
			if !d.Allowed {
				quota.SetRetryAfter(w.Header(), d)
				rest.APIError(w, r, http.StatusTooManyRequests, CodeRateLimitExceeded, exhausted(d))
				return
			}
			next.ServeHTTP(w, r.WithContext(withCaller(r.Context(), Caller{ClientIP: ip})))
		})
	}
}
