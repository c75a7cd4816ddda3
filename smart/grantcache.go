package smart

import (
	"sync"
	"time"
)

// grantCache keeps the grants of access tokens already verified, by token, until they expire,
// so that a client's stream of FHIR requests pays for parsing and checking its token once, not
// on every request. Only tokens whose signature verified get in, so the cache holds at most the
// live tokens this service issued and saw; it is cleared whole when it reaches its bound, which
// needs no eviction order and only costs the next requests a verification each. A cached grant
// is no licence by itself: Protect still checks its client's status (clientState) on every
// request, and forgets a token whose client is disabled or deleted.
type grantCache struct {
	mu      sync.RWMutex
	entries map[string]cachedGrant
}

type cachedGrant struct {
	g Grant
	// until is the last instant the token is accepted: its expiry plus the clock skew the
	// verification tolerates.
	until time.Time
}

// grantCacheEntries bounds the cache: far more live tokens than a directory's clients hold at
// once (each holds one or two, renewed every TokenLifetime).
const grantCacheEntries = 10_000

// get returns the grant of token raw if it was verified and is still within its lifetime at now.
func (c *grantCache) get(raw string, now time.Time) (Grant, bool) {
	c.mu.RLock()
	e, ok := c.entries[raw]
	c.mu.RUnlock()
	if !ok || now.After(e.until) {
		return Grant{}, false
	}
	return e.g, true
}

// put remembers the grant of a verified token.
func (c *grantCache) put(raw string, g Grant) {
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= grantCacheEntries {
		c.entries = make(map[string]cachedGrant)
	}
	c.entries[raw] = cachedGrant{g: g, until: g.ExpiresAt.Add(ClockSkew)}
	c.mu.Unlock()
}

// drop forgets token raw.
func (c *grantCache) drop(raw string) {
	c.mu.Lock()
	delete(c.entries, raw)
	c.mu.Unlock()
}

// len is how many grants the cache holds.
func (c *grantCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
