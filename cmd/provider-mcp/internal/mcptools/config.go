package mcptools

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"providerdir/resolverclient"
)

// Environment variables the tool server reads (docs/contracts/resolver-api.md §4).
const (
	// EnvAPIKey is the resolver key sent in X-Service-Key.
	EnvAPIKey = "SERVICE_API_KEY"
	// EnvBaseURL is where the service is: its base URL (http://127.0.0.1:8080, as providerd's
	// --base-url) or the resolver's own base (http://127.0.0.1:8080/resolver/v1).
	EnvBaseURL = "SERVICE_BASE_URL"
)

// DefaultBaseURL is the service base without SERVICE_BASE_URL: providerd's default address.
const DefaultBaseURL = "http://127.0.0.1:8080"

// ResolverPath is where the service mounts the resolver.
const ResolverPath = "/resolver/v1"

// Settings are what the tool server calls the resolver with.
type Settings struct {
	// ResolverURL is the resolver's base, ending in /resolver/v1.
	ResolverURL string
	APIKey      string
	// KeyFrom says where the key came from, for the start-up line: the environment variable or
	// the URL the sandbox key was fetched from.
	KeyFrom string
}

// Load reads the settings from the environment. Without SERVICE_API_KEY the key is the
// service's published sandbox key (shared, read-only, 100 requests per hour), fetched from the
// resolver at SERVICE_BASE_URL (GET /resolver/v1/sandbox, which asks for no key).
func Load(ctx context.Context, getenv func(string) string) (Settings, error) {
	base := getenv(EnvBaseURL)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := ResolverURL(base)
	if err != nil {
		return Settings{}, fmt.Errorf("%s: %w", EnvBaseURL, err)
	}
	s := Settings{ResolverURL: u, APIKey: strings.TrimSpace(getenv(EnvAPIKey)), KeyFrom: EnvAPIKey}
	if s.APIKey != "" {
		return s, nil
	}
	from := u + "/sandbox"
	c, err := resolverclient.New(u, resolverclient.Options{UserAgent: Name})
	if err != nil {
		return Settings{}, err
	}
	sandbox, err := c.Sandbox(ctx)
	if err == nil && sandbox.Key == "" {
		err = fmt.Errorf("the answer holds no key")
	}
	if err != nil {
		return Settings{}, fmt.Errorf("%s is not set, and the published sandbox key could not be fetched from %s "+
			"(set %s, or %s to a running service): %w", EnvAPIKey, from, EnvAPIKey, EnvBaseURL, err)
	}
	s.APIKey, s.KeyFrom = sandbox.Key, "the sandbox key published at "+from
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
