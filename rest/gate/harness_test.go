package gate_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/gate"
	"providerdir/store"
	"providerdir/testing/handclock"
)

// server is one replica of the service under test: the real router and middleware, with
// stand-in handlers behind the gate, on a loopback listener.
type server struct {
	*httptest.Server
	gate *gate.Gate
}

// loopback is trusted as a proxy in these tests, so that X-Forwarded-For can play clients at
// different addresses.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

func newServer(t testing.TB, st store.Store, clock *handclock.Clock) *server {
	t.Helper()
	g := gate.New(st, gate.Options{TrustedProxies: loopback, Now: clock.Now})
	h, err := httpserver.New(httpserver.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: []httpserver.Surface{
			{Name: "v1", Prefix: "/v1", Error: rest.V1Error, Routes: gate.Guard(g.SupplySurface("/v1"), supplyRoutes)},
			{Name: "resolver", Prefix: "/resolver/v1", Error: rest.ResolverError, Routes: gate.Guard(g.RequireResolverKey, resolverRoutes)},
			{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: func(r *mux.Router) {
				r.Handle("/evidence-query/demo", g.LimitIP(gate.EvidenceDemoPolicy)(http.HandlerFunc(echoCaller))).Methods(http.MethodPost)
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &server{Server: srv, gate: g}
}

func supplyRoutes(r *mux.Router) {
	r.HandleFunc("/health", echoCaller).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/specialties", echoCaller).Methods(http.MethodGet)
	r.HandleFunc("/providers/{npi}", func(w http.ResponseWriter, r *http.Request) {
		rest.V1Error(w, r, http.StatusNotFound, "provider_not_found", "no such provider")
	}).Methods(http.MethodGet)
	r.HandleFunc("/npi/{npi:[0-9]{10}}", echoCaller).Methods(http.MethodGet)
}

func resolverRoutes(r *mux.Router) {
	r.HandleFunc("/npi/{npi}", echoCaller).Methods(http.MethodGet)
	r.HandleFunc("/ccn/{ccn}", func(w http.ResponseWriter, r *http.Request) {
		rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound, "no such facility")
	}).Methods(http.MethodGet)
	r.HandleFunc("/batch/npi", echoCaller).Methods(http.MethodPost)
}

// echoCaller answers with who the gate says called.
func echoCaller(w http.ResponseWriter, r *http.Request) {
	c, ok := gate.CallerFrom(r.Context())
	k, authenticated := gate.KeyFrom(r.Context())
	rest.WriteJSON(w, r, http.StatusOK, map[string]any{
		"gated": ok, "authenticated": authenticated, "key_id": k.ID, "tier": k.Tier, "name": k.Name, "client_ip": c.ClientIP.String(),
	})
}

// response is what a test looks at.
type response struct {
	status int
	header http.Header
	body   map[string]any
}

// do sends one request; headers are name/value pairs.
func do(t testing.TB, method, url string, headers ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	b, _ := io.ReadAll(resp.Body)
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out.body); err != nil {
			t.Fatalf("%s %s: body %q is not a JSON object", method, url, b)
		}
	}
	return out
}

func bearer(key string) []string  { return []string{"Authorization", "Bearer " + key} }
func service(key string) []string { return []string{"X-Service-Key", key} }
func from(ip string) []string     { return []string{"X-Forwarded-For", ip} }

func join(hs ...[]string) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h...)
	}
	return out
}

var (
	policyField = regexp.MustCompile(`^"[a-z0-9-]+";q=\d+;w=\d+(, "[a-z0-9-]+";q=\d+;w=\d+)*$`)
	limitField  = regexp.MustCompile(`^"[a-z0-9-]+";r=\d+;t=\d+(, "[a-z0-9-]+";r=\d+;t=\d+)*$`)
)

// checkSupplyHeaders checks the supply API's field set (docs/contracts/supply-api.md §8) and the
// IETF pair.
func checkSupplyHeaders(t testing.TB, r response, limit, remaining int, window string, now time.Time) {
	t.Helper()
	h := r.header
	if got := h.Get("X-RateLimit-Limit"); got != strconv.Itoa(limit) {
		t.Errorf("X-RateLimit-Limit %q, want %d", got, limit)
	}
	if got := h.Get("X-RateLimit-Remaining"); got != strconv.Itoa(remaining) {
		t.Errorf("X-RateLimit-Remaining %q, want %d", got, remaining)
	}
	reset, err := time.Parse(time.RFC3339, h.Get("X-RateLimit-Reset"))
	if err != nil || !strings.HasSuffix(h.Get("X-RateLimit-Reset"), "Z") || reset.Before(now) {
		t.Errorf("X-RateLimit-Reset %q: want an RFC 3339 UTC time not before %s", h.Get("X-RateLimit-Reset"), now)
	}
	if got := h.Get("X-RateLimit-Window"); got != window {
		t.Errorf("X-RateLimit-Window %q, want %q", got, window)
	}
	checkIETF(t, h)
}

// checkResolverHeaders checks the resolver's field set (docs/contracts/resolver-api.md §8).
func checkResolverHeaders(t testing.TB, r response, limit, remaining int, now time.Time) {
	t.Helper()
	h := r.header
	if got := h.Get("X-RateLimit-Limit"); got != strconv.Itoa(limit) {
		t.Errorf("X-RateLimit-Limit %q, want %d", got, limit)
	}
	if got := h.Get("X-RateLimit-Remaining"); got != strconv.Itoa(remaining) {
		t.Errorf("X-RateLimit-Remaining %q, want %d", got, remaining)
	}
	reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil || reset < now.Unix() {
		t.Errorf("X-RateLimit-Reset %q: want Unix seconds not before %d", h.Get("X-RateLimit-Reset"), now.Unix())
	}
	if h.Get("X-RateLimit-Window") != "" {
		t.Error("the resolver contract has no X-RateLimit-Window")
	}
	checkIETF(t, h)
}

func checkIETF(t testing.TB, h http.Header) {
	t.Helper()
	if p := h.Get("RateLimit-Policy"); !policyField.MatchString(p) {
		t.Errorf("RateLimit-Policy %q", p)
	}
	if l := h.Get("RateLimit"); !limitField.MatchString(l) {
		t.Errorf("RateLimit %q", l)
	}
}

// checkError checks a supply API error envelope, exactly.
func checkV1Error(t testing.TB, r response, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d (%v)", r.status, status, r.body)
	}
	e, _ := r.body["error"].(map[string]any)
	m, _ := r.body["meta"].(map[string]any)
	if e["code"] != code || e["message"] == "" || len(e) != 2 || m["api_version"] != "v1" || m["request_id"] != r.header.Get("X-Request-ID") || len(m) != 2 || len(r.body) != 2 {
		t.Fatalf("envelope %v, want error %s with meta request_id and api_version", r.body, code)
	}
}

// checkResolverError checks a resolver (or service host) error envelope, exactly.
func checkResolverError(t testing.TB, r response, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d (%v)", r.status, status, r.body)
	}
	e, _ := r.body["error"].(map[string]any)
	if e["code"] != code || e["message"] == "" || e["request_id"] != r.header.Get("X-Request-ID") || len(e) != 3 || len(r.body) != 1 {
		t.Fatalf("envelope %v, want error %s with request_id", r.body, code)
	}
}
