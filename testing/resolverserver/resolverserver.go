// Package resolverserver runs the resolver API as providerd mounts it (behind the gate's key check
// on /resolver/v1, in the service's HTTP server) over a store, on a loopback listener, for the
// tests of its clients: the Go client and the agent tool server. It is a test helper; only
// tests import it.
package resolverserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"providerdir/internal/httpserver"
	"providerdir/rest/gate"
	"providerdir/store"
	"providerdir/testing/liveserver"
)

// Server is one running resolver; its Key issues resolver keys.
type Server struct {
	*liveserver.Server
	// URL is the resolver's base (the server's URL and the resolver's prefix), what a client is
	// given.
	URL string
}

// Start serves the resolver over st until the test ends.
func Start(tb testing.TB, st store.Store) *Server {
	tb.Helper()
	srv := liveserver.Start(tb, st, liveserver.Options{}, func(_ string, g *gate.Gate) []httpserver.Surface {
		return []httpserver.Surface{liveserver.Resolver(st, g)}
	})
	return &Server{Server: srv, URL: srv.URL + liveserver.ResolverPrefix}
}

// Raw sends a request to the resolver with key and returns its body, which must be a JSON
// object: what the resolver itself answers, for comparison with what a client made of it.
func (s *Server) Raw(tb testing.TB, key, method, path, body string) map[string]any {
	tb.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set(gate.HeaderServiceKey, key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("%s: %v: %s", path, err, b)
	}
	return m
}
