package smart

import (
	"context"
	"errors"
	"sync"
	"time"

	"providerdir/quota"
)

// ClientCheckInterval is how long Protect relies on what it last read of a client's record: a
// client disabled or deleted in the registry has its live access tokens refused by every replica
// within this time, and a change of its budget applies to its requests within it too. The read
// is one small record per client and interval, so a busy client costs the store nothing per
// request; a shorter interval would buy little, since the change is made by an operator and not
// a request away.
const ClientCheckInterval = 2 * time.Second

// clientStatus caches, per client id, what Protect needs of the client's record: whether the
// client exists and is enabled, and its budget. Ids come only from access tokens whose signature
// verified, so the map holds at most one small entry per client this service ever issued a
// token to.
type clientStatus struct {
	mu      sync.Mutex
	entries map[string]statusEntry
}

type statusEntry struct {
	active bool
	// budget is the policy of the record's Budget (limits.clientPolicy); metered is false for
	// an unmetered client.
	budget  quota.Policy
	metered bool
	read    time.Time
}

// clientState reports whether client id exists and is enabled, and its budget, as read from the
// store within the last ClientCheckInterval. A clock that moved back (another replica's record
// does not matter here: the time is this process's) makes the entry stale, never fresher.
func (s *Service) clientState(ctx context.Context, id string) (statusEntry, error) {
	now := s.now()
	s.clients.mu.Lock()
	e, ok := s.clients.entries[id]
	s.clients.mu.Unlock()
	if ok && !now.Before(e.read) && now.Sub(e.read) < ClientCheckInterval {
		return e, nil
	}
	c, err := GetClient(ctx, s.store, id)
	if err != nil && !errors.Is(err, ErrClientNotFound) {
		return statusEntry{}, err
	}
	e = statusEntry{active: err == nil && c.Enabled, read: now}
	e.budget, e.metered = s.limits.clientPolicy(c.Budget)
	s.clients.mu.Lock()
	s.clients.entries[id] = e
	s.clients.mu.Unlock()
	return e, nil
}
