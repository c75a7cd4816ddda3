package mcptools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"providerdir/internal/config"
	"providerdir/internal/storeopen"
	"providerdir/rest/apikey"
)

// Environment variables the tool server reads (seeds/001 section 4).
const (
	// EnvAPIKey is the resolver key sent in X-Service-Key.
	EnvAPIKey = "SERVICE_API_KEY"
	// EnvBaseURL is where the service is: its base URL (http://127.0.0.1:8080, as providerd's
	// --base-url) or the resolver's own base (http://127.0.0.1:8080/resolver/v1).
	EnvBaseURL = "SERVICE_BASE_URL"
)

// ResolverPath is where the service mounts the resolver.
const ResolverPath = "/resolver/v1"

// Settings are what the tool server calls the resolver with.
type Settings struct {
	// ResolverURL is the resolver's base, ending in /resolver/v1.
	ResolverURL string
	APIKey      string
	// KeyFrom says where the key came from, for the start-up line: the environment variable or
	// the store the sandbox key was read from.
	KeyFrom string
}

// Load reads the settings from the environment. Without SERVICE_API_KEY the key is the
// service's published sandbox key (shared, read-only, 100 requests per hour), read from the
// store of the providerd at SERVICE_BASE_URL: store names it (--store, PROVIDERD_STORE, by
// default providerd's default store), and must already exist.
func Load(ctx context.Context, getenv func(string) string, store func() (storeopen.Spec, error)) (Settings, error) {
	base := getenv(EnvBaseURL)
	if base == "" {
		base = config.DefaultBaseURL(config.DefaultAddr)
	}
	u, err := ResolverURL(base)
	if err != nil {
		return Settings{}, fmt.Errorf("%s: %w", EnvBaseURL, err)
	}
	s := Settings{ResolverURL: u, APIKey: strings.TrimSpace(getenv(EnvAPIKey)), KeyFrom: EnvAPIKey}
	if s.APIKey != "" {
		return s, nil
	}
	spec, err := store()
	if err != nil {
		return Settings{}, err
	}
	if s.APIKey, err = SandboxKey(ctx, spec); err != nil {
		return Settings{}, fmt.Errorf("%s is not set, and the published sandbox key could not be read from store %s "+
			"(set %s, or --store / %s to providerd's store): %w", EnvAPIKey, spec, EnvAPIKey, config.EnvName("store"), err)
	}
	s.KeyFrom = "the sandbox key published in " + spec.String()
	return s, nil
}

// ResolverURL is the resolver's base for a service base URL, or the resolver base itself.
func ResolverURL(base string) (string, error) {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an http(s) URL with a host and no query", base)
	}
	if strings.HasSuffix(u.Path, ResolverPath) {
		return base, nil
	}
	return base + ResolverPath, nil
}

// SandboxKey reads the resolver's published sandbox key from the store spec names, through a
// running providerd's socket when it holds the store (seeds/001 section 5: shared, read-only,
// usable without signup). A store that does not exist is an error, not a new empty one.
func SandboxKey(ctx context.Context, spec storeopen.Spec) (string, error) {
	s, err := storeopen.Open(ctx, spec, storeopen.MustExist())
	if err != nil {
		return "", err
	}
	secret, _, err := apikey.NewManager(s, nil).Sandbox(ctx)
	return secret.Reveal(), errors.Join(err, s.Close())
}
