package supply_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"providerdir/internal/demosnapshot"
	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/rest/internal/testenv"
	"providerdir/rest/resolver"
	"providerdir/rest/supply"
	"providerdir/source/synth"
	"providerdir/store"
)

func TestMain(m *testing.M) {
	code := m.Run()
	demosnapshot.Close()
	os.Exit(code)
}

// demoSnapshot is the shared demo snapshot: its store, source drop and generation manifest.
func demoSnapshot(tb testing.TB) (store.Store, string, *synth.Manifest) {
	d := demosnapshot.Open(tb)
	return d.Store, d.Drop, d.Manifest
}

// referenceDir is the repository's copy of the reference files, which the independent
// recomputation reads from disk rather than through the files built into the binary.
func referenceDir(tb testing.TB) string {
	return filepath.Join(repoRoot(tb), "source", "reference")
}

// repoRoot is the directory holding go.mod.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// env is one running server over a store: the real router, middleware, gate (keys and quotas
// in the store) and supply API on a loopback listener, with a clock the test moves.
type env struct {
	url   string
	base  string // the configured public base URL, used in links
	gate  *gate.Gate
	clock *testenv.Clock
	store store.Store
	ip    string // the client address this env plays (X-Forwarded-For from a trusted loopback)
	api   *supply.API
}

// loopback is trusted as a proxy, so that X-Forwarded-For plays distinct clients.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

var clients atomic.Int64

// newEnv serves the supply API over st. Its base URL is the server's own, so that the links in
// responses can be followed.
func newEnv(tb testing.TB, st store.Store) *env {
	tb.Helper()
	clock := testenv.NewClock()
	g := gate.New(st, gate.Options{TrustedProxies: loopback, Now: clock.Now})
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	api := supply.New(st, base)
	h, err := httpserver.New(httpserver.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: []httpserver.Surface{
			{Name: "v1", Prefix: "/v1", Error: rest.V1Error, Routes: gate.Guard(g.SupplySurface("/v1"), api.Routes)},
			{Name: "resolver", Prefix: "/resolver/v1", Error: rest.ResolverError, Routes: gate.Guard(g.RequireResolverKey, resolver.New(st).Routes)},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	tb.Cleanup(srv.Close)
	n := clients.Add(1)
	return &env{url: srv.URL, base: base, gate: g, clock: clock, store: st, api: api,
		ip: fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)}
}

// demoEnv is newEnv over the demo snapshot.
func demoEnv(tb testing.TB) *env {
	st, _, _ := demoSnapshot(tb)
	return newEnv(tb, st)
}

// key issues a real key of the tier and returns its plaintext.
func (e *env) key(tb testing.TB, tier apikey.Tier, opts ...apikey.CreateOptions) string {
	tb.Helper()
	var o apikey.CreateOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	secret, _, err := e.gate.Keys().Create(context.Background(), tier, tb.Name(), o)
	if err != nil {
		tb.Fatal(err)
	}
	return secret.Reveal()
}
