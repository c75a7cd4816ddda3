package gate

import (
	"context"
	"net/netip"

	"providerdir/rest/apikey"
)

// Caller is who made a request, as the gate established it.
type Caller struct {
	// Key is the authenticated key's record (ID, Tier, Name, ...); zero when Authenticated is
	// false. It never holds the key itself.
	Key           apikey.Key
	Authenticated bool
	// ClientIP is the client address, trusted proxies applied; invalid when unknown.
	ClientIP netip.Addr
}

type callerKey struct{}

func withCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller of the request ctx belongs to, and false outside the gate.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// KeyFrom returns the authenticated key of the request, and false for anonymous requests.
func KeyFrom(ctx context.Context) (apikey.Key, bool) {
	c, ok := CallerFrom(ctx)
	return c.Key, ok && c.Authenticated
}
