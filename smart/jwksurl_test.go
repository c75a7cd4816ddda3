package smart_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/smart"
)

// jwksHost is a client's JWKS endpoint on loopback: swappable content, a Cache-Control header
// and a fetch counter.
type jwksHost struct {
	mu      sync.Mutex
	body    []byte
	status  int
	fetches atomic.Int32
	srv     *httptest.Server
}

func newJWKSHost(t *testing.T, jwks []byte, cacheControl string) *jwksHost {
	h := &jwksHost{body: jwks, status: http.StatusOK}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h.fetches.Add(1)
		h.mu.Lock()
		defer h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", cacheControl)
		w.WriteHeader(h.status)
		w.Write(h.body)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *jwksHost) serve(status int, jwks []byte) {
	h.mu.Lock()
	h.status, h.body = status, jwks
	h.mu.Unlock()
}

func (h *jwksHost) url() string { return h.srv.URL + "/.well-known/jwks.json" }

func (e *testEnv) addURLClient(t *testing.T, u string) string {
	t.Helper()
	c, err := smart.AddClient(context.Background(), e.st, smart.ClientSpec{Name: "url client", JWKSURL: u, Scopes: []string{"system/*.read"}})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func (e *testEnv) tryToken(t *testing.T, id string, k testKey, hdr map[string]any) oauthReply {
	t.Helper()
	return e.postToken(t, tokenForm(sign(t, k.priv, k.alg, k.kid, e.claims(id), hdr), "system/*.read"))
}

// TestJWKSURL: a client whose keys are served at a URL with Cache-Control gets tokens from the
// cached set, rotates by publishing a new kid, and jku must name the registered URL.
func TestJWKSURL(t *testing.T) {
	e := newEnv(t)
	old, next := rsaKey(t, "url-old"), ecKey(t, "url-next")
	host := newJWKSHost(t, old.jwks, "public, max-age=600")
	id := e.addURLClient(t, host.url())

	steps := []struct {
		name    string
		key     testKey
		hdr     map[string]any
		before  func()
		status  int
		fetches int32
	}{
		{"first use fetches", old, nil, nil, 200, 1},
		{"second use is cached (max-age=600)", old, nil, nil, 200, 1},
		{"jku equal to the registered URL", old, map[string]any{"jku": host.url()}, nil, 200, 1},
		{"jku elsewhere", old, map[string]any{"jku": host.srv.URL + "/other.json"}, nil, 401, 1},
		{"rotation: an unknown kid refetches", next, nil, func() { host.serve(200, next.jwks) }, 200, 2},
		{"the retired key is refused after a refetch", old, nil, nil, 401, 3},
		{"the new key is served from the cache", next, nil, nil, 200, 3},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		r := e.tryToken(t, id, s.key, s.hdr)
		if r.status != s.status || host.fetches.Load() != s.fetches {
			t.Fatalf("%s: %d %s with %d fetches, want %d with %d", s.name, r.status, r.Error, host.fetches.Load(), s.status, s.fetches)
		}
	}
}

// TestJWKSForcedRefreshIsRateLimited: made-up kids cannot make the server poll a JWKS host.
func TestJWKSForcedRefreshIsRateLimited(t *testing.T) {
	e := newEnv(t, func(c *smart.Config) { c.JWKSForcedRefresh = time.Hour })
	k, stranger := ecKey(t, "url-a"), ecKey(t, "url-stranger")
	host := newJWKSHost(t, k.jwks, "max-age=600")
	id := e.addURLClient(t, host.url())
	if r := e.tryToken(t, id, k, nil); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.Error)
	}
	for range 5 {
		if r := e.tryToken(t, id, stranger, nil); r.status != 401 {
			t.Fatalf("unknown kid: %d", r.status)
		}
	}
	if n := host.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2 (the first and one forced)", n)
	}
}

// TestJWKSHostDown: a JWKS host that fails is an authentication failure, not a hang, and the
// client recovers once its host does.
func TestJWKSHostDown(t *testing.T) {
	e := newEnv(t)
	k := rsaKey(t, "url-down")
	host := newJWKSHost(t, k.jwks, "max-age=600")
	host.serve(http.StatusInternalServerError, []byte(`oops`))
	id := e.addURLClient(t, host.url())
	start := time.Now()
	if r := e.tryToken(t, id, k, nil); r.status != 401 || r.Error != "invalid_client" {
		t.Fatalf("host down: %d %s", r.status, r.Error)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a failing JWKS host held the request %s", d)
	}
	host.serve(http.StatusOK, k.jwks)
	if r := e.tryToken(t, id, k, nil); r.status != 200 {
		t.Fatalf("host back: %d %s", r.status, r.Error)
	}
}
