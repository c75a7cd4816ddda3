package mcptools_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"providerdir/cmd/provider-mcp/internal/mcptools"
	"providerdir/internal/storeopen"
	"providerdir/rest/apikey"
	"providerdir/store/embedded"
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

// The key comes from SERVICE_API_KEY, else it is the sandbox key the service published in its
// store; a store that is not there is an error naming both ways to fix it, and is not created.
func TestLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	st, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	published, _, err := apikey.NewManager(st, nil).Sandbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nothing-here")
	tests := []struct {
		name     string
		env      map[string]string
		store    string
		url, key string
		err      string // a fragment of the error, "" for none
	}{
		{"key and base from the environment", map[string]string{"SERVICE_API_KEY": "pdlive_x", "SERVICE_BASE_URL": "http://h:1"}, missing,
			"http://h:1/resolver/v1", "pdlive_x", ""},
		{"the published sandbox key, default base", nil, dir, "http://127.0.0.1:8080/resolver/v1", published.Reveal(), ""},
		{"no key and no store", nil, missing, "", "", "SERVICE_API_KEY is not set"},
		{"bad base", map[string]string{"SERVICE_BASE_URL": "localhost:8080", "SERVICE_API_KEY": "k"}, dir, "", "", "SERVICE_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := func() (storeopen.Spec, error) { return storeopen.Parse("embedded:" + tt.store) }
			s, err := mcptools.Load(context.Background(), func(k string) string { return tt.env[k] }, spec)
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
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the missing store was created: %v", err)
	}
}
