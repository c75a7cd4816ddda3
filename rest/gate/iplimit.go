package gate

import (
	"context"
	"log/slog"
	"net/http"

	"providerdir/internal/logging"

	"providerdir/quota"
	"providerdir/rest"
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
			ctx := withCaller(r.Context(), Caller{ClientIP: ip})
			ctx = context.WithValue(ctx, ipCountKey{}, ipCount{g: g, policy: p, subject: ipSubject(ip), counted: d})
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// ipCount is the request LimitIP counted, kept in the request's context for Uncount.
type ipCount struct {
	g       *Gate
	policy  quota.Policy
	subject string
	counted quota.Decision
}

type ipCountKey struct{}

// Uncount takes back the request LimitIP counted when its handler did not serve it (a body it
// rejected, a failure of its own), and writes the rate-limit fields again to say so: under
// LimitIP only a request the handler served counts. It is called at most once, before the
// response is written. Outside LimitIP it does nothing; when the quota store fails the request
// stays counted and the fields stay as LimitIP wrote them.
func Uncount(w http.ResponseWriter, r *http.Request) {
	c, ok := r.Context().Value(ipCountKey{}).(ipCount)
	if !ok {
		return
	}
	d, err := c.g.limiter.Refund(r.Context(), c.policy, c.subject, c.counted)
	if err != nil {
		logging.Logger(r.Context()).Warn("a request the handler did not serve stays counted", slog.Any("error", err))
		return
	}
	setSupplyHeaders(w.Header(), d)
}
