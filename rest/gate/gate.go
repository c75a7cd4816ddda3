// Package gate is the front door of the JSON APIs: HTTP middleware that authenticates a request's
// API key (package apikey), meters it against its quota (package quota), writes the rate-limit
// fields each contract asks for on every response, and refuses in each contract's own error
// envelope. Surfaces wrap their routes with it and read the caller from the request context; they
// never see a key.
//
//   - Supply data API (/v1, docs/contracts/supply-api.md): Authorization: Bearer <key>.
//     RequireSupplyKey for the keyed endpoints, OptionalSupplyKey for GET /npi/{npi} (anonymous
//     callers limited per client address), PublicSupply for /health and /openapi.json (never
//     refused, never counted). SupplySurface picks among the three by route, for a whole
//     subrouter.
//   - Resolver API (/resolver/v1, docs/contracts/resolver-api.md): X-Service-Key: <key>.
//     RequireResolverKey.
//   - Service host (/api): LimitIP, a per-client-address limit, for the evidence-query demo and
//     the pilot access-request form.
//
// Each request is one Allow call, whatever it does: a batch of 1,000 NPIs on the resolver counts
// as one request (docs/contracts/resolver-api.md §4 rule 3). The batch's per-NPI ceiling is
// metered by the resolver through MeterNPIs once the body is read; a batch it refuses has its
// request refunded, so that no 429 is counted.
//
// A credential sent in the other API's scheme counts as no credential: X-Service-Key on /v1 is a
// missing Authorization header, and an Authorization header on the resolver is a missing
// X-Service-Key.
//
// # Rate-limit fields
//
// Every response that passes a gate middleware carries them, 2xx, 4xx and 429 alike:
//
//   - supply API and service host: X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset
//     (RFC 3339, UTC, whole seconds) and X-RateLimit-Window ("rolling-1m", "rolling-1h",
//     "rolling-24h");
//   - resolver: X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (Unix seconds);
//   - both: RateLimit-Policy and RateLimit of draft-ietf-httpapi-ratelimit-headers, listing every
//     window of the policy.
//
// When a policy has two windows (the pilot tier's minute and 24 hours) the X-RateLimit-* fields
// describe the one closer to exhaustion: fewer requests remaining, the longer window on a tie.
// X-RateLimit-Reset is when Remaining next grows (quota.State.Reset), rounded up to a second; for
// a window that counts nothing, now plus its length. A 429 carries Retry-After: 60 on the supply
// API (its contract's fixed value) and the real seconds until every full window has a slot on the
// resolver and the service host. Refusals for a missing or bad key carry the fields of the budget
// the caller has without one, unspent: the anonymous budget of its address on the supply API, the
// sandbox budget of its address on the resolver.
package gate

import (
	"context"
	"net/netip"
	"time"

	"providerdir/internal/clientip"
	"providerdir/quota"
	"providerdir/rest/apikey"
	"providerdir/store"
)

// Options configures a Gate.
type Options struct {
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client
	// (config.Config.TrustedProxies, from --trusted-proxies).
	TrustedProxies []netip.Prefix
	// Now is the clock of key expiry and quota windows; nil means time.Now. Tests move it.
	Now func() time.Time
	// Limiter meters the gate's requests; nil is quota.New on the store, which replicas on a
	// shared store may share a budget through. providerd passes a local one on a store it owns
	// alone and a leasing one on a shared store.
	Limiter *quota.Limiter
}

// Gate holds what the middleware needs. It keeps no request state of its own: keys live in the
// store and counts in its limiter, so gates of several replicas on one store, each with a
// limiter of quota.New or quota.NewLeased, act as one.
type Gate struct {
	keys    *apikey.Manager
	limiter *quota.Limiter
	ips     clientip.Resolver
}

// New returns a gate over st.
func New(st store.Store, o Options) *Gate {
	limiter := o.Limiter
	if limiter == nil {
		limiter = quota.New(st, o.Now)
	}
	return &Gate{
		keys:    apikey.NewManager(st, o.Now),
		limiter: limiter,
		ips:     clientip.New(o.TrustedProxies),
	}
}

// Keys is the key manager the gate authenticates with.
func (g *Gate) Keys() *apikey.Manager { return g.keys }

// Start prepares what the gate relies on before serving: the published sandbox key exists
// from the first start on. Call it once at startup.
func (g *Gate) Start(ctx context.Context) error {
	_, _, err := g.keys.Sandbox(ctx)
	return err
}
