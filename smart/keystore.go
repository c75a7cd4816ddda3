package smart

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lestrrat-go/httprc/v3"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
)

// keyStore finds the key that verifies a client's assertion. Inline JWKS are parsed once per
// client record version. JWKS URLs go through jwx's cache (httprc underneath), which refetches a
// set when its Cache-Control max-age (or Expires) runs out, clamped to [minRefresh, maxRefresh];
// an assertion whose kid the cached set lacks forces one refetch, at most once per forceEvery per
// URL, so a client that rotated its keys is picked up at once while a stream of assertions with
// made-up kids cannot turn the server into a poller of someone's JWKS host.
type keyStore struct {
	cache        *jwk.Cache
	stop         context.CancelFunc
	httpClient   jwk.HTTPClient
	minRefresh   time.Duration
	maxRefresh   time.Duration
	forceEvery   time.Duration
	fetchTimeout time.Duration

	mu     sync.Mutex
	inline map[string]inlineSet  // by client id
	forced map[string]time.Time  // by URL: when a refetch was last forced
	known  map[string]*sync.Once // by URL: registration with the cache
}

// firstFetchWait bounds how long the first use of a JWKS URL waits for the cache's own fetch.
const firstFetchWait = 2 * time.Second

type inlineSet struct {
	version int64
	set     jwk.Set
}

func newKeyStore(c Config) (*keyStore, error) {
	ctx, stop := context.WithCancel(context.Background())
	hc := jwk.HTTPClient(jwk.DefaultHTTPClient())
	if c.HTTPClient != nil {
		hc = jwk.WrapHTTPClientDefaults(c.HTTPClient)
	}
	cl := httprc.NewClient(
		httprc.WithWorkers(2),
		httprc.WithHTTPClient(hc),
		// Only URLs an operator registered are ever added; the whitelist re-checks the scheme
		// rule so a record edited behind the registry's back cannot point the fetcher elsewhere.
		httprc.WithWhitelist(httprc.WhitelistFunc(func(u string) bool { return checkJWKSURL(u) == nil })),
	)
	cache, err := jwk.NewCache(ctx, cl)
	if err != nil {
		stop()
		return nil, fmt.Errorf("start JWKS cache: %w", err)
	}
	return &keyStore{
		cache: cache, stop: stop, httpClient: hc,
		minRefresh: c.JWKSMinRefresh, maxRefresh: c.JWKSMaxRefresh, forceEvery: c.JWKSForcedRefresh,
		fetchTimeout: 10 * time.Second,
		inline:       map[string]inlineSet{}, forced: map[string]time.Time{}, known: map[string]*sync.Once{},
	}, nil
}

func (k *keyStore) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := k.cache.Shutdown(ctx)
	k.stop()
	return err
}

// find returns the public key of client c with the given kid that fits alg.
func (k *keyStore) find(ctx context.Context, c Client, kid string, alg jwa.SignatureAlgorithm) (jwk.Key, error) {
	if c.JWKSURL == "" {
		set, err := k.inlineSet(c)
		if err != nil {
			return nil, err
		}
		return pickKey(set, kid, alg)
	}
	set, err := k.remoteSet(ctx, c.JWKSURL)
	if err == nil {
		var key jwk.Key
		if key, err = pickKey(set, kid, alg); err == nil {
			return key, nil
		}
	}
	// An unknown kid (or a set not fetched yet): the client may have rotated; fetch once more.
	if !k.mayForce(c.JWKSURL) {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, k.fetchTimeout)
	defer cancel()
	set, rerr := k.cache.Refresh(ctx, c.JWKSURL)
	if rerr != nil {
		return nil, fmt.Errorf("refetch JWKS %s: %w (before: %w)", c.JWKSURL, rerr, err)
	}
	return pickKey(set, kid, alg)
}

func (k *keyStore) inlineSet(c Client) (jwk.Set, error) {
	k.mu.Lock()
	cached, ok := k.inline[c.ID]
	k.mu.Unlock()
	if ok && cached.version == c.Version {
		return cached.set, nil
	}
	if len(c.JWKS) == 0 {
		return nil, errors.New("client has neither a JWKS nor a JWKS URL")
	}
	set, err := jwk.Parse(c.JWKS)
	if err != nil {
		return nil, fmt.Errorf("stored JWKS of client %q: %w", c.ID, err)
	}
	k.mu.Lock()
	k.inline[c.ID] = inlineSet{version: c.Version, set: set}
	k.mu.Unlock()
	return set, nil
}

// remoteSet returns the cached set at u. The first use of u registers it with the cache and
// waits, bounded, for its first fetch; later calls never wait: a set that is not there yet is an
// error, and find then forces a fetch (rate-limited) rather than letting requests queue behind a
// JWKS host that is down.
func (k *keyStore) remoteSet(ctx context.Context, u string) (jwk.Set, error) {
	k.mu.Lock()
	once, ok := k.known[u]
	if !ok {
		once = &sync.Once{}
		k.known[u] = once
	}
	k.mu.Unlock()
	var regErr error
	once.Do(func() {
		// The cache reports a failed first fetch only by never becoming ready, so the wait is
		// short; find then forces a synchronous fetch, which does report the failure.
		ctx, cancel := context.WithTimeout(ctx, firstFetchWait)
		defer cancel()
		regErr = k.cache.Register(ctx, u,
			jwk.WithHTTPClient(k.httpClient),
			jwk.WithMinInterval(k.minRefresh),
			jwk.WithMaxInterval(k.maxRefresh))
		switch {
		case errors.Is(regErr, httprc.ErrResourceAlreadyExists()):
			regErr = nil
		case regErr != nil && !errors.Is(regErr, httprc.ErrNotReady()):
			k.mu.Lock()
			delete(k.known, u) // not registered at all: let the next request try again
			k.mu.Unlock()
		}
	})
	if regErr != nil {
		return nil, fmt.Errorf("register JWKS %s: %w", u, regErr)
	}
	r, err := k.cache.LookupResource(ctx, u)
	if err != nil {
		return nil, err
	}
	set := r.Resource()
	if set == nil {
		return nil, fmt.Errorf("JWKS %s not fetched yet", u)
	}
	return set, nil
}

// mayForce reports whether a refetch of u may be forced now, and records it if so.
func (k *keyStore) mayForce(u string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	if last, ok := k.forced[u]; ok && now.Sub(last) < k.forceEvery {
		return false
	}
	k.forced[u] = now
	return true
}
