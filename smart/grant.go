package smart

import (
	"context"
	"time"

	"providerdir/catalog"
)

// Grant is what a request may do: the client, its granted scopes, whether it is confined to the
// sandbox subset, and whether it came in without a token under public read mode. The FHIR
// surface sees it through its own Grant interface (Allows, Sandboxed), found with GrantFrom: it
// answers 403 when Allows says no and restricts sandbox grants to the sandbox subset (the
// documents ingest marked as the sandbox's).
type Grant struct {
	ClientID string
	// Scopes are the granted scopes in SMART syntax, as the token response listed them.
	Scopes  []string
	Sandbox bool
	// Public marks an unauthenticated request admitted by public read mode.
	Public bool
	// ExpiresAt is when the access token expires (zero for a public grant). Protect has already
	// refused expired tokens; it is here for logs and for handlers that stream long responses.
	ExpiresAt time.Time
}

// Allows reports whether the grant permits interaction i on resourceType. A public grant allows
// read and search of every directory type; subscriptions belong to clients, so it allows nothing
// on Subscription. Scopes are parsed on each call (a few string cuts, no
// allocation), so a Grant built by hand in a test behaves exactly like one from a token.
func (g Grant) Allows(resourceType string, i catalog.Interaction) bool {
	if g.Public {
		return resourceType != SubscriptionType && (i == catalog.Read || i == catalog.Search)
	}
	for _, s := range g.Scopes {
		sc, err := ParseScope(s)
		if err == nil && sc.allows(resourceType, i) {
			return true
		}
	}
	return false
}

// Client is the id of the client the grant was issued to ("" for a public grant); a FHIR
// subscription belongs to it.
func (g Grant) Client() string { return g.ClientID }

// Sandboxed reports whether the grant sees only the sandbox subset.
func (g Grant) Sandboxed() bool { return g.Sandbox }

type grantKey struct{}

// WithGrant returns a context carrying g. Protect uses it; tests of FHIR handlers use it to skip
// the token dance.
func WithGrant(ctx context.Context, g Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// GrantFrom returns the grant Protect put into the request context, and false when there is
// none (a handler reached without Protect, which should be treated as no access).
func GrantFrom(ctx context.Context) (Grant, bool) {
	g, ok := ctx.Value(grantKey{}).(Grant)
	return g, ok
}
