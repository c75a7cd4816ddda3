package gate

import (
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"providerdir/internal/logging"
	"providerdir/quota"
	"providerdir/rest"
	"providerdir/rest/apikey"
)

// Resolver API error codes (docs/contracts/resolver-api.md §7).
const (
	CodeInvalidKey  = "invalid_key"
	CodeRateLimited = "rate_limited"
)

// HeaderServiceKey carries the resolver's key.
const HeaderServiceKey = "X-Service-Key"

// RequireResolverKey admits requests with a valid resolver key within its tier's hourly budget
// (the sandbox key's budget is per client address, see SandboxPolicy). A missing or
// unrecognised key is 401 invalid_key, carrying the rate-limit fields of the sandbox budget of
// the caller's address (not spent): what a caller without a key of its own can use. Over quota
// it is 429 rate_limited with Retry-After in whole seconds until a slot is free; a 429 is not
// counted.
func (g *Gate) RequireResolverKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ip := g.ips.ClientIP(r)
		token, presented := serviceKey(r)
		if !presented {
			g.refuseResolver(w, r, ip, "Send an API key in the X-Service-Key header.")
			return
		}
		k, err := g.keys.Authenticate(ctx, apikey.Resolver, token)
		if errors.Is(err, apikey.ErrInvalidKey) {
			logging.Logger(ctx).Info("API key refused", slog.String("reason", err.Error()))
			g.refuseResolver(w, r, ip, "The X-Service-Key is not a recognised key.")
			return
		}
		if err != nil {
			g.internal(w, r, rest.ResolverError, err)
			return
		}
		ctx = withKeyLogger(ctx, k)
		subject := keySubject(k)
		if k.Tier == apikey.TierSandbox {
			subject = ipSubject(ip)
		}
		p := PolicyFor(k.Tier)
		d, err := g.limiter.Allow(ctx, p, subject)
		if err != nil {
			g.internal(w, r, rest.ResolverError, err)
			return
		}
		quota.SetHeaders(w.Header(), d)
		if !d.Allowed {
			quota.SetRetryAfter(w.Header(), d)
			b := d.Binding()
			rest.ResolverError(w, r, http.StatusTooManyRequests, CodeRateLimited,
				"Hourly budget of "+formatInt(b.Limit)+" requests used; back off for "+w.Header().Get(quota.HeaderRetryAfter)+" seconds (Retry-After).")
			return
		}
		ctx = withNPIMeter(ctx, npiMeter{g: g, policy: NPIPolicyFor(k.Tier), subject: subject, request: p, counted: d})
		next.ServeHTTP(w, r.WithContext(withCaller(ctx, Caller{Key: k, Authenticated: true, ClientIP: ip})))
	})
}

// ResolverSurface is the resolver's access rule for a whole subrouter mounted at prefix
// ("/resolver/v1"), chosen per route: prefix/sandbox, the published sandbox key
// (docs/contracts/resolver-api.md §5: usable without signup), is public (PublicResolver);
// everything else, unknown paths and wrong methods included, asks for a key (RequireResolverKey).
// Use it with Guard.
func (g *Gate) ResolverSurface(prefix string) func(http.Handler) http.Handler {
	public := map[string]bool{prefix + "/sandbox": true}
	return func(next http.Handler) http.Handler {
		keyed, pub := g.RequireResolverKey(next), g.PublicResolver(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if public[routeTemplate(r)] && !WrongMethod(r) {
				pub.ServeHTTP(w, r)
				return
			}
			keyed.ServeHTTP(w, r)
		})
	}
}

// PublicResolver is for resolver endpoints open to all: it asks for no key, refuses and counts
// nothing, and writes the rate-limit fields of the sandbox budget of the caller's address (not
// spent), the budget a caller without a key of its own has. When the store fails it serves
// without them.
func (g *Gate) PublicResolver(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip := g.ips.ClientIP(r)
		if d, err := g.limiter.Peek(r.Context(), SandboxPolicy, ipSubject(ip)); err == nil {
			quota.SetHeaders(w.Header(), d)
		} else {
			logging.Logger(r.Context()).Warn("public endpoint served without rate-limit fields", slog.Any("error", err))
		}
		next.ServeHTTP(w, r.WithContext(withCaller(r.Context(), Caller{ClientIP: ip})))
	})
}

// ResolverChallenge is the WWW-Authenticate challenge of the resolver's 401s. The key travels in
// a header of its own, not in Authorization, so the challenge names a scheme of this service's
// and the header that carries the key.
const ResolverChallenge = `ServiceKey realm="resolver-api", header="` + HeaderServiceKey + `"`

func (g *Gate) refuseResolver(w http.ResponseWriter, r *http.Request, ip netip.Addr, message string) {
	if d, err := g.peek(r, SandboxPolicy, ipSubject(ip)); err == nil {
		quota.SetHeaders(w.Header(), d)
	}
	w.Header().Set(HeaderWWWAuthenticate, ResolverChallenge)
	rest.ResolverError(w, r, http.StatusUnauthorized, CodeInvalidKey, message)
}

// serviceKey reads X-Service-Key. An absent or blank header presents no key; several headers
// present an invalid one.
func serviceKey(r *http.Request) (token string, presented bool) {
	vals := r.Header.Values(HeaderServiceKey)
	switch {
	case len(vals) == 0:
		return "", false
	case len(vals) > 1:
		return "", true
	}
	token = strings.TrimSpace(vals[0])
	return token, token != ""
}
