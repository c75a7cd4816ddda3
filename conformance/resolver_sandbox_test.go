package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/gate"
	"providerdir/rest/resolver"
	"providerdir/testing/demostore"
	"providerdir/testing/liveserver"
)

// The sandbox check passes against the resolver as providerd mounts it, and fails against one
// that asks for a key on every path, the sandbox key's included.
func TestResolverSandboxCheck(t *testing.T) {
	st := demostore.Open(t).Store
	tests := []struct {
		name  string
		guard func(g *gate.Gate) func(next http.Handler) http.Handler
		fails string // a fragment of the failure, "" for a pass
	}{
		{"as providerd mounts it", func(g *gate.Gate) func(http.Handler) http.Handler {
			return g.ResolverSurface(liveserver.ResolverPrefix)
		}, ""},
		{"a key asked everywhere", func(g *gate.Gate) func(http.Handler) http.Handler { return g.RequireResolverKey }, "without a key: 401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := liveserver.Start(t, st, liveserver.Options{}, func(_ string, g *gate.Gate) []httpserver.Surface {
				return []httpserver.Surface{{Name: "resolver", Prefix: liveserver.ResolverPrefix, Error: rest.ResolverError,
					Routes: gate.Guard(tt.guard(g), resolver.New(st).Routes)}}
			})
			err := checkResolverSandbox(context.Background(), newEnv(Options{Credentials: Credentials{BaseURL: srv.URL}}))
			if tt.fails == "" && err != nil || tt.fails != "" && (err == nil || !strings.Contains(err.Error(), tt.fails)) {
				t.Errorf("%v, want a failure saying %q (none when empty)", err, tt.fails)
			}
		})
	}
}
