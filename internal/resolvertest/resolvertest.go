// Package resolvertest runs the resolver API as providerd mounts it (behind the gate's key check
// on /resolver/v1, in the service's HTTP server) over a store, on a loopback listener, for the
// tests of its clients: the Go client and the agent tool server. It is a test helper; only
// tests import it.
package resolvertest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/rest/resolver"
	"providerdir/store"
)

// Prefix is where providerd mounts the resolver.
const Prefix = "/resolver/v1"

// Server is one running resolver.
type Server struct {
	// URL is the resolver's base (the server's URL and Prefix), what a client is given.
	URL  string
	gate *gate.Gate
}

// Start serves the resolver over st until the test ends.
func Start(tb testing.TB, st store.Store) *Server {
	tb.Helper()
	g := gate.New(st, gate.Options{})
	if err := g.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	h, err := httpserver.New(httpserver.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: []httpserver.Surface{
			{Name: "resolver", Prefix: Prefix, Error: rest.ResolverError, Routes: gate.Guard(g.RequireResolverKey, resolver.New(st).Routes)},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return &Server{URL: srv.URL + Prefix, gate: g}
}

// Key issues a real resolver key of the tier (pilot, starter or pro) and returns its plaintext.
func (s *Server) Key(tb testing.TB, tier apikey.Tier) string {
	tb.Helper()
	secret, _, err := s.gate.Keys().Create(context.Background(), tier, tb.Name(), apikey.CreateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return secret.Reveal()
}
