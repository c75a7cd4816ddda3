package webhook

import (
	"context"
	"strings"
	"sync"
	"time"
)

// ClientChecker answers for the SMART clients that own FHIR subscriptions (smart.Registry is
// one): whether a client may still receive notifications, and whether its registered scopes
// let it read a resource type. reason says why a client is not active.
type ClientChecker interface {
	ClientStatus(ctx context.Context, clientID string) (active bool, reason string, err error)
	ClientMayRead(ctx context.Context, clientID, resourceType string) (bool, error)
}

// KeyChecker answers for the resolver keys that own webhooks (apikey.Manager is one): whether a
// key is live; reason says why not.
type KeyChecker interface {
	KeyStatus(ctx context.Context, keyID string) (active bool, reason string, err error)
}

// Owners answers for the owners of subscriptions, each kind by its own registry: a FHIROwner
// by Clients, any other owner (a resolver key's id) by Keys. A nil checker holds every owner of
// its kind active and allowed to read everything; a deployment sets both.
type Owners struct {
	Clients ClientChecker
	Keys    KeyChecker
}

// Status reports whether owner may receive deliveries, and why not.
func (o Owners) Status(ctx context.Context, owner string) (active bool, reason string, err error) {
	if id, ok := strings.CutPrefix(owner, fhirOwnerPrefix); ok {
		if o.Clients == nil {
			return true, "", nil
		}
		return o.Clients.ClientStatus(ctx, id)
	}
	if o.Keys == nil {
		return true, "", nil
	}
	return o.Keys.KeyStatus(ctx, owner)
}

// MayRead reports whether owner may read resources of resourceType: a SMART client whose
// registered scopes allow reading it. Owners other than clients read no FHIR resource.
func (o Owners) MayRead(ctx context.Context, owner, resourceType string) (bool, error) {
	id, ok := strings.CutPrefix(owner, fhirOwnerPrefix)
	switch {
	case !ok:
		return false, nil
	case o.Clients == nil:
		return true, nil
	}
	return o.Clients.ClientMayRead(ctx, id, resourceType)
}

// checks reports whether any checker is set: without one, nothing needs watching.
func (o Owners) checks() bool { return o.Clients != nil || o.Keys != nil }

// OwnerCheckInterval is how long the worker relies on an answer about an owner: an operator's
// change of a client or a key acts on deliveries within it, and a worker sending many
// deliveries asks each registry once per owner and interval rather than once per delivery.
const OwnerCheckInterval = 2 * time.Second

// ownerCache keeps the Owners answers of the last OwnerCheckInterval, by question: one small
// entry per owner of a subscription (and per focus type asked of it). Its clock is the
// process's real one, not the worker's (which tests hold still), so an answer always ages.
type ownerCache struct {
	owners  Owners
	mu      sync.Mutex
	answers map[ownerQuestion]ownerAnswer
}

// ownerQuestion is an owner and, for MayRead, the resource type ("" for Status).
type ownerQuestion struct{ owner, resourceType string }

type ownerAnswer struct {
	yes    bool
	reason string
	at     time.Time
}

func newOwnerCache(o Owners) *ownerCache {
	return &ownerCache{owners: o, answers: map[ownerQuestion]ownerAnswer{}}
}

// status is Owners.Status, answered from the cache while fresh.
func (c *ownerCache) status(ctx context.Context, owner string) (bool, string, error) {
	return c.answer(ownerQuestion{owner: owner}, func() (bool, string, error) { return c.owners.Status(ctx, owner) })
}

// mayRead is Owners.MayRead, answered from the cache while fresh.
func (c *ownerCache) mayRead(ctx context.Context, owner, resourceType string) (bool, error) {
	yes, _, err := c.answer(ownerQuestion{owner, resourceType}, func() (bool, string, error) {
		yes, err := c.owners.MayRead(ctx, owner, resourceType)
		return yes, "", err
	})
	return yes, err
}

func (c *ownerCache) answer(q ownerQuestion, ask func() (bool, string, error)) (bool, string, error) {
	now := time.Now()
	c.mu.Lock()
	a, ok := c.answers[q]
	c.mu.Unlock()
	if ok && now.Sub(a.at) < OwnerCheckInterval {
		return a.yes, a.reason, nil
	}
	yes, reason, err := ask()
	if err != nil {
		return false, "", err
	}
	c.mu.Lock()
	c.answers[q] = ownerAnswer{yes: yes, reason: reason, at: now}
	c.mu.Unlock()
	return yes, reason, nil
}
