package resolver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
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
	"providerdir/store"
)

func TestMain(m *testing.M) {
	code := m.Run()
	demosnapshot.Close()
	os.Exit(code)
}

// env is one running server over a store, mounted as providerd mounts it: the resolver behind
// the gate's key check on /resolver/v1, and the supply API on /v1, which serves the interface
// description the responses are validated against.
type env struct {
	url   string
	gate  *gate.Gate
	clock *testenv.Clock
	ip    string // the client address this env plays (X-Forwarded-For from a trusted loopback)
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

var clients atomic.Int64

func newEnv(tb testing.TB, st store.Store) *env {
	tb.Helper()
	clock := testenv.NewClock()
	g := gate.New(st, gate.Options{TrustedProxies: loopback, Now: clock.Now})
	if err := g.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	h, err := httpserver.New(httpserver.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: []httpserver.Surface{
			{Name: "v1", Prefix: "/v1", Error: rest.V1Error, Routes: gate.Guard(g.SupplySurface("/v1"), supply.New(st, base).Routes)},
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
	return &env{url: srv.URL, gate: g, clock: clock, ip: fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)}
}

// key issues a real resolver key of the tier and returns its plaintext.
func (e *env) key(tb testing.TB, tier apikey.Tier) string {
	tb.Helper()
	secret, _, err := e.gate.Keys().Create(context.Background(), tier, tb.Name(), apikey.CreateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return secret.Reveal()
}

// sandbox is the published sandbox key.
func (e *env) sandbox(tb testing.TB) string {
	tb.Helper()
	secret, _, err := e.gate.Keys().Sandbox(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return secret.Reveal()
}

// response is what a test looks at.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// do sends one request with the key (none when empty) and validates the response against the
// interface description.
func (e *env) do(tb testing.TB, method, path, key string, body []byte) response {
	tb.Helper()
	req, err := http.NewRequest(method, e.url+path, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", e.ip)
	if key != "" {
		req.Header.Set(gate.HeaderServiceKey, key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	if out.raw, err = io.ReadAll(resp.Body); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(out.raw, &out.body); err != nil {
		tb.Fatalf("%s %s: body is not a JSON object: %q", method, path, out.raw)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	testenv.Validate(tb, e.url, req, out.status, out.header, out.raw)
	return out
}

func (e *env) get(tb testing.TB, path, key string) response {
	tb.Helper()
	return e.do(tb, http.MethodGet, path, key, nil)
}

// errorCode is error.code of an error envelope, "" for a success.
func (r response) errorCode() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}
