package smart

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/clientip"
	"providerdir/quota"
	"providerdir/store"
)

// Config configures the Service. Store and BaseURL are required.
type Config struct {
	Store store.Store
	// BaseURL is the public base URL of the service (config.Config.BaseURL), without a trailing
	// slash. The token URL clients must put in aud is BaseURL + "/fhir/token".
	BaseURL string
	// PublicRead admits requests without a token as Grant{Public: true} (Plan-Net directories
	// are often public). Off by default.
	PublicRead bool
	// SandboxKeyFile is where the sandbox client's private JWK is written at start, so the demo
	// can show it and a newcomer can sign an assertion with it. Empty writes no file.
	SandboxKeyFile string
	// Log receives start-up messages; nil means slog.Default(). Request logs go through the
	// request's logger (logging.Logger).
	Log *slog.Logger

	// Now is the clock for token and assertion times; nil means time.Now. Tests move it forward
	// instead of sleeping.
	Now func() time.Time
	// HTTPClient fetches clients' JWKS URLs; nil means jwx's default (30 s timeout, no https to
	// http redirects).
	HTTPClient *http.Client
	// JWKSMinRefresh and JWKSMaxRefresh clamp how long a fetched JWKS is kept when its
	// Cache-Control max-age (or Expires) says otherwise; zero means 15 s and 1 h. The floor stops
	// a JWKS served with max-age=0 from turning the cache into a poller.
	JWKSMinRefresh, JWKSMaxRefresh time.Duration
	// JWKSForcedRefresh is the least time between two refetches of one JWKS URL forced by an
	// assertion with an unknown kid; zero means 10 s.
	JWKSForcedRefresh time.Duration

	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client
	// (config.Config.TrustedProxies), for the limits kept per client address.
	TrustedProxies []netip.Prefix
	// ClientPolicy, SandboxPolicy and TokenPolicy replace the budgets of the same names; a
	// policy without windows means the package's default.
	ClientPolicy, SandboxPolicy, TokenPolicy quota.Policy
	// Limiter meters them; nil is quota.New on Store, which replicas on a shared store may share
	// a budget through. providerd passes a local one on a store it owns alone and a leasing one
	// on a shared store.
	Limiter *quota.Limiter
}

// Service is SMART Backend Services for one deployment. It is safe for concurrent use; every
// replica builds its own on the shared store and they agree on clients, the token secret and
// the jti replay guard, all of which live in the store.
type Service struct {
	store      store.Store
	tokenURL   string
	issuer     string
	publicRead bool
	now        func() time.Time
	log        *slog.Logger
	tokenKey   *tokenKey
	keys       *keyStore
	clients    clientStatus
	grants     grantCache
	limits     limits
}

// startTimeout bounds New's store work and sandbox key generation.
const startTimeout = 30 * time.Second

// New builds the service: it loads (or creates, on the very first start) the access-token
// secret and the sandbox client, and writes the sandbox key file. Call Close when done.
func New(c Config) (*Service, error) {
	if c.Store == nil {
		return nil, errors.New("smart: no store")
	}
	base, err := checkBaseURL(c.BaseURL)
	if err != nil {
		return nil, err
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	c.JWKSMinRefresh = orDefault(c.JWKSMinRefresh, 15*time.Second)
	c.JWKSMaxRefresh = orDefault(c.JWKSMaxRefresh, time.Hour)
	c.JWKSForcedRefresh = orDefault(c.JWKSForcedRefresh, 10*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	tk, err := loadTokenKey(ctx, c.Store)
	if err != nil {
		return nil, fmt.Errorf("smart: %w", err)
	}
	if err := ensureSandbox(ctx, c.Store, c.SandboxKeyFile, c.Log); err != nil {
		return nil, fmt.Errorf("smart: sandbox client: %w", err)
	}
	keys, err := newKeyStore(c)
	if err != nil {
		return nil, fmt.Errorf("smart: %w", err)
	}
	return &Service{
		store:      c.Store,
		tokenURL:   base + "/fhir/token",
		issuer:     base + "/fhir",
		publicRead: c.PublicRead,
		now:        c.Now,
		log:        c.Log,
		tokenKey:   tk,
		keys:       keys,
		clients:    clientStatus{entries: map[string]statusEntry{}},
		limits: limits{
			limiter: orDefaultLimiter(c.Limiter, c.Store, c.Now),
			ips:     clientip.New(c.TrustedProxies),
			client:  orDefaultPolicy(c.ClientPolicy, ClientPolicy),
			sandbox: orDefaultPolicy(c.SandboxPolicy, SandboxPolicy),
			token:   orDefaultPolicy(c.TokenPolicy, TokenPolicy),
		},
	}, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func orDefaultLimiter(l *quota.Limiter, st store.Store, now func() time.Time) *quota.Limiter {
	if l == nil {
		return quota.New(st, now)
	}
	return l
}

func orDefaultPolicy(p, def quota.Policy) quota.Policy {
	if len(p.Windows) == 0 {
		return def
	}
	return p
}

func checkBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("smart: base URL %q is not an absolute http(s) URL", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// TokenURL is the token endpoint's absolute URL: the aud every assertion must carry, and the
// token URI of the CapabilityStatement's SMART security extension.
func (s *Service) TokenURL() string { return s.tokenURL }

// Routes registers the token endpoint and the discovery document on the /fhir subrouter.
func (s *Service) Routes(r *mux.Router) {
	r.HandleFunc("/token", s.token).Methods(http.MethodPost)
	r.HandleFunc("/.well-known/smart-configuration", s.discovery).Methods(http.MethodGet, http.MethodHead)
}

// Close stops the JWKS cache's background fetchers.
func (s *Service) Close() error { return s.keys.close() }
