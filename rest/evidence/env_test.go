package evidence_test

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
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/internal/demosnapshot"
	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/evidence"
	"providerdir/rest/gate"
	"providerdir/rest/internal/testenv"
	"providerdir/rest/supply"
	"providerdir/store"
)

func TestMain(m *testing.M) {
	code := m.Run()
	demosnapshot.Close()
	os.Exit(code)
}

// env is one running server as providerd wires it: the supply API and the evidence query on
// /v1 behind the gate, the demo on /api behind the per-address limiter, on a loopback listener.
type env struct {
	url   string
	gate  *gate.Gate
	clock *testenv.Clock
	ip    string
	log   *syncBuffer
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

var clients atomic.Int64

// newEnv serves over st; model, when not nil, is the language model the evidence query uses.
func newEnv(tb testing.TB, st store.Store, model evidence.Completer) *env {
	tb.Helper()
	clock := testenv.NewClock()
	g := gate.New(st, gate.Options{TrustedProxies: loopback, Now: clock.Now})
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	api := supply.New(st, base)
	ask := evidence.New(evidence.Config{Store: st, Studies: api, BaseURL: base, Model: model})
	logs := &syncBuffer{}
	h, err := httpserver.New(httpserver.Options{
		Logger:         slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		TrustedProxies: loopback,
		Surfaces: []httpserver.Surface{
			{Name: "v1", Prefix: "/v1", Error: rest.V1Error, Routes: gate.Guard(g.SupplySurface("/v1"), func(r *mux.Router) { api.Routes(r); ask.Routes(r) })},
			{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: func(r *mux.Router) { ask.RegisterDemo(r, g.LimitIP(gate.EvidenceDemoPolicy)) }},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	tb.Cleanup(srv.Close)
	n := clients.Add(1)
	return &env{url: srv.URL, gate: g, clock: clock, log: logs, ip: fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)}
}

// demoEnv serves the shared demo snapshot.
func demoEnv(tb testing.TB, model evidence.Completer) *env {
	return newEnv(tb, demosnapshot.Open(tb).Store, model)
}

// key issues a pilot key.
func (e *env) key(tb testing.TB) string {
	tb.Helper()
	secret, _, err := e.gate.Keys().Create(context.Background(), apikey.TierPilot, tb.Name(), apikey.CreateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return secret.Reveal()
}

// response is what a test looks at.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends one request and holds the response to the interface description the server serves.
func (e *env) do(tb testing.TB, method, path, contentType string, body []byte, key string) response {
	tb.Helper()
	req, err := http.NewRequest(method, e.url+path, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", e.ip)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	out := response{status: res.StatusCode, header: res.Header}
	if out.raw, err = io.ReadAll(res.Body); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(out.raw, &out.body); err != nil {
		tb.Fatalf("%s %s: body is not a JSON object: %q", method, path, out.raw)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	testenv.Validate(tb, e.url, req, out.status, out.header, out.raw)
	return out
}

// ask posts a question to /v1/evidence-query with key.
func (e *env) ask(tb testing.TB, key, question string, maxItems ...int) response {
	tb.Helper()
	body := map[string]any{"query": question}
	if len(maxItems) > 0 {
		body["options"] = map[string]any{"max_evidence_items": maxItems[0]}
	}
	raw, _ := json.Marshal(body)
	return e.do(tb, http.MethodPost, "/v1/evidence-query", "application/json", raw, key)
}

// result decodes the data of an evidence-query response.
func (r response) result(tb testing.TB) evidence.Result {
	tb.Helper()
	var env struct {
		Data evidence.Result `json:"data"`
	}
	if err := json.Unmarshal(r.raw, &env); err != nil {
		tb.Fatal(err)
	}
	return env.Data
}

// errorCode is error.code of an error body, in either envelope.
func (r response) errorCode() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// syncBuffer collects the server's log lines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
