package mcptools_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"providerdir/cmd/provider-mcp/internal/mcptools"
	"providerdir/internal/config"
	"providerdir/rest/apikey"
	"providerdir/testing/demostore"
	"providerdir/testing/resolverserver"
)

func TestResolverURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/resolver/v1"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/resolver/v1"},
		{" https://api.example.org/base ", "https://api.example.org/base/resolver/v1"},
		{"http://h/resolver/v1", "http://h/resolver/v1"},
		{"http://h/resolver/v1/", "http://h/resolver/v1"},
		{"localhost:8080", ""},
		{"ftp://h", ""},
		{"http://", ""},
		{"http://h/?a=1", ""},
	}
	for _, tt := range tests {
		got, err := mcptools.ResolverURL(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("ResolverURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// The default base is providerd's default address.
func TestDefaultBaseURL(t *testing.T) {
	if want := config.DefaultBaseURL(config.DefaultAddr); mcptools.DefaultBaseURL != want {
		t.Errorf("DefaultBaseURL %s, providerd's %s", mcptools.DefaultBaseURL, want)
	}
}

// The key comes from SERVICE_API_KEY, else it is the sandbox key the service publishes at
// /resolver/v1/sandbox; a service that does not answer there is an error naming both ways to
// fix it.
func TestLoad(t *testing.T) {
	d := demostore.Open(t)
	srv := resolverserver.Start(t, d.Store)
	published, _, err := apikey.NewManager(d.Store, nil).Sandbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	down := httptest.NewServer(nil)
	down.Close()
	tests := []struct {
		name     string
		env      map[string]string
		url, key string
		err      string // a fragment of the error, "" for none
	}{
		{"key and base from the environment", map[string]string{"SERVICE_API_KEY": "pdlive_x", "SERVICE_BASE_URL": "http://h:1"},
			"http://h:1/resolver/v1", "pdlive_x", ""},
		{"the published sandbox key", map[string]string{"SERVICE_BASE_URL": srv.Server.URL}, srv.URL, published.Reveal(), ""},
		{"the published sandbox key, resolver base given", map[string]string{"SERVICE_BASE_URL": srv.URL + "/", "SERVICE_API_KEY": " "},
			srv.URL, published.Reveal(), ""},
		{"no key and no service", map[string]string{"SERVICE_BASE_URL": down.URL}, "", "", "SERVICE_API_KEY is not set"},
		{"no key and no sandbox endpoint", map[string]string{"SERVICE_BASE_URL": srv.Server.URL + "/elsewhere"}, "", "", "404"},
		{"bad base", map[string]string{"SERVICE_BASE_URL": "localhost:8080", "SERVICE_API_KEY": "k"}, "", "", "SERVICE_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := mcptools.Load(context.Background(), func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil || s.ResolverURL != tt.url || s.APIKey != tt.key {
				t.Fatalf("%+v, %v; want %s with key %s", s, err, tt.url, tt.key)
			}
		})
	}
}
