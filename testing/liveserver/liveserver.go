// Package liveserver runs the service's HTTP surfaces over a store on a loopback listener, mounted
// as the service package mounts them, for black-box tests: the real HTTP server and the gate, started over
// the store, with loopback trusted as a proxy so that X-Forwarded-For plays distinct clients and
// each test meets its own per-address limits. A test says only what it mounts; the API keys and
// SMART clients it plays are real registrations in the store. Only tests import it.
package liveserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/rest/resolver"
	"providerdir/rest/supply"
	"providerdir/store"
)

// Loopback is the proxy list the gate and the HTTP server trust: the test's own requests come
// from loopback, so the X-Forwarded-For they carry names the client.
var Loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

var clients atomic.Int64

// ClientIP returns an address no other caller in the test binary plays, so that per-address
// limits of one test never meet another's.
func ClientIP() string {
	n := clients.Add(1)
	return fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)
}

// Options are what a test changes in the wiring.
type Options struct {
	// Now is the gate's clock (key expiry, quota windows); nil is the real clock.
	Now func() time.Time
	// Log receives the server's log at debug level, so that a test can read all it says; nil
	// discards it.
	Log io.Writer
}

// Mount returns the surfaces a test serves. base is the server's own URL, which the surfaces
// take as their configured public base URL so that links in responses can be followed.
type Mount func(base string, g *gate.Gate) []httpserver.Surface

// Server is one running server.
type Server struct {
	URL  string // where it listens, also the configured public base URL
	Gate *gate.Gate
}

// Start serves what mount returns over st until the test ends. The gate is started first, as
// providerd starts it, so the published sandbox key exists.
func Start(tb testing.TB, st store.Store, o Options, mount Mount) *Server {
	tb.Helper()
	g := gate.New(st, gate.Options{TrustedProxies: Loopback, Now: o.Now})
	if err := g.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	h, err := httpserver.New(httpserver.Options{Logger: logger(o.Log), TrustedProxies: Loopback, Surfaces: mount(base, g)})
	if err != nil {
		tb.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	tb.Cleanup(srv.Close)
	return &Server{URL: srv.URL, Gate: g}
}

// Supply is the /v1 surface as the service mounts it (gate.V1): the supply API over st, its
// links built on base, and whatever more routes on the same surface.
func Supply(st store.Store, base string, g *gate.Gate, more ...func(*mux.Router)) httpserver.Surface {
	return g.V1(append([]func(*mux.Router){supply.New(st, base).Routes}, more...)...)
}

// Resolver is the /resolver/v1 surface as the service mounts it (gate.Resolver): the resolver
// over st.
func Resolver(st store.Store, g *gate.Gate) httpserver.Surface {
	return g.Resolver(resolver.New(st).Routes)
}

// ResolverPrefix is where the service mounts the resolver.
const ResolverPrefix = gate.ResolverPrefix

func logger(w io.Writer) *slog.Logger {
	if w == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Key issues a real key of the tier, named after the test, and returns its plaintext.
func (s *Server) Key(tb testing.TB, tier apikey.Tier, opts ...apikey.CreateOptions) string {
	tb.Helper()
	var o apikey.CreateOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	secret, _, err := s.Gate.Keys().Create(context.Background(), tier, tb.Name(), o)
	if err != nil {
		tb.Fatal(err)
	}
	return secret.Reveal()
}

// Fetch sends one request to url with body and the headers given as name/value pairs, and reads
// the whole answer: it returns the response, its body already read and closed, and that body. A
// request that gets no answer fails the test.
func Fetch(tb testing.TB, method, url string, body io.Reader, header ...string) (*http.Response, []byte) {
	tb.Helper()
	_, resp, b := FetchSent(tb, method, url, body, header...)
	return resp, b
}

// FetchSent is Fetch that also returns the request it built and sent, its body read: after a
// redirect the response carries only the last request of the chain, and a test that holds its
// own request to the interface description needs the first.
func FetchSent(tb testing.TB, method, url string, body io.Reader, header ...string) (*http.Request, *http.Response, []byte) {
	tb.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return req, resp, b
}

// SyncBuffer is a log sink safe for the server's goroutines.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns all that was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
