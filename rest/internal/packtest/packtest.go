// Package packtest runs the server the export and audit pack tests talk to: the real router,
// gate (keys and quotas in the store), the supply API with its interface description, the
// exports and the audit packs on /v1, and the packs' public forms on /api, on a loopback
// listener. Every response a test receives is checked against the served description. Only
// tests import it.
package packtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/auditpack"
	"providerdir/rest/export"
	"providerdir/rest/gate"
	"providerdir/rest/internal/testenv"
	"providerdir/rest/supply"
	"providerdir/store"
)

func init() {
	// The validator decodes the bodies it knows; an ndjson export is checked as the string the
	// description says it is (its lines are checked by the tests).
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
}

// Env is one running server over a store.
type Env struct {
	URL   string // where the server listens; also the configured base URL, so links can be followed
	Gate  *gate.Gate
	Store store.Store
	Packs *auditpack.Service
	IP    string // the client address this env plays
}

// loopback is trusted as a proxy, so that X-Forwarded-For plays distinct clients.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

var clients atomic.Int64

// Open serves st; o configures the exports (BaseURL is set to the server's).
func Open(tb testing.TB, st store.Store, o export.Options) *Env {
	tb.Helper()
	g := gate.New(st, gate.Options{TrustedProxies: loopback})
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	o.BaseURL = base
	packs := auditpack.New(st, base)
	h, err := httpserver.New(httpserver.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: []httpserver.Surface{
			{Name: "v1", Prefix: "/v1", Error: rest.V1Error, Routes: gate.Guard(g.SupplySurface("/v1"), func(r *mux.Router) {
				supply.New(st, base).Routes(r)
				export.New(st, o).Routes(r)
				packs.Routes(r)
			})},
			{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: func(r *mux.Router) {
				packs.Register(r, g.LimitIP(auditpack.Policy))
			}},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	tb.Cleanup(srv.Close)
	n := clients.Add(1)
	return &Env{URL: srv.URL, Gate: g, Store: st, Packs: packs, IP: fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)}
}

// Key issues a real pilot key and returns its plaintext.
func (e *Env) Key(tb testing.TB) string {
	tb.Helper()
	secret, _, err := e.Gate.Keys().Create(context.Background(), apikey.TierPilot, tb.Name(), apikey.CreateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return secret.Reveal()
}

// Response is what a test looks at.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any // the JSON object of a JSON response, else nil
}

// Get sends a GET as the env's client with the key ("" sends none), reads the whole body and
// validates the response against the served interface description.
func (e *Env) Get(tb testing.TB, path, key string) Response {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, e.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", e.IP)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	out := Response{Status: resp.StatusCode, Header: resp.Header}
	if out.Raw, err = io.ReadAll(resp.Body); err != nil {
		tb.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); len(ct) >= 16 && ct[:16] == "application/json" {
		if err := json.Unmarshal(out.Raw, &out.Body); err != nil {
			tb.Fatalf("GET %s: body is not a JSON object: %.300q", path, out.Raw)
		}
	}
	testenv.Validate(tb, e.URL, req, out.Status, out.Header, out.Raw)
	return out
}

// ErrorCode is the error code of a /v1 or /api error envelope, "" for a success.
func (r Response) ErrorCode() string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}
