package httpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"providerdir/fhir"
	"providerdir/internal/httpserver"
	"providerdir/internal/logging"
	"providerdir/internal/metrics"
	"providerdir/internal/requestid"
	"providerdir/rest"
	"providerdir/testing/backends"
	"providerdir/testing/liveserver"
)

// logLines returns the JSON log lines written to logs so far.
func logLines(t *testing.T, logs *liveserver.SyncBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

type fixture struct {
	srv     *httptest.Server
	logs    *liveserver.SyncBuffer
	metrics *metrics.Metrics
}

// newFixture serves the five surfaces with a few test routes on a real loopback server.
func newFixture(t *testing.T, ready func(context.Context) error, mods ...func(*httpserver.Options)) *fixture {
	t.Helper()
	h, logs, m := newHandler(t, ready, mods...)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &fixture{srv: srv, logs: logs, metrics: m}
}

// newHandler builds the handler of the five surfaces with a few test routes; mods adjust its
// options last.
func newHandler(t *testing.T, ready func(context.Context) error, mods ...func(*httpserver.Options)) (*httpserver.Handler, *liveserver.SyncBuffer, *metrics.Metrics) {
	t.Helper()
	logs := &liveserver.SyncBuffer{}
	log, err := logging.New(logs, "json", slog.LevelDebug)
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	routes := func(r *mux.Router) {
		r.HandleFunc("/items/{id}", func(w http.ResponseWriter, r *http.Request) {
			logging.Logger(r.Context()).Info("handler line")
			_, _ = io.WriteString(w, "item "+mux.Vars(r)["id"])
		}).Methods(http.MethodGet, http.MethodHead)
		r.HandleFunc("/items/{id}", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}).Methods(http.MethodDelete)
		r.HandleFunc("/stream", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "part1 ")
			if err := http.NewResponseController(w).Flush(); err != nil {
				_, _ = io.WriteString(w, "flush failed: "+err.Error())
				return
			}
			_, _ = io.WriteString(w, "part2")
		})
		r.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			fmt.Fprintf(w, "got %d bytes", len(b))
		}).Methods(http.MethodPost)
		r.HandleFunc("/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
		r.HandleFunc("/panic-late", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "partial")
			panic("late boom")
		})
	}
	o := httpserver.Options{
		Logger:       log,
		Metrics:      m,
		Ready:        ready,
		ReadyTimeout: 100 * time.Millisecond,
		Surfaces: []httpserver.Surface{
			{Name: "web", Prefix: "", Error: httpserver.TextError, Routes: routes},
			{Name: "v1", Prefix: "/v1", Error: rest.V1Error, Routes: routes},
			{Name: "resolver", Prefix: "/resolver/v1", Error: rest.ResolverError, Routes: routes},
			{Name: "fhir", Prefix: "/fhir", Error: fhir.Error, Routes: routes},
			{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: routes},
		},
	}
	for _, mod := range mods {
		mod(&o)
	}
	h, err := httpserver.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return h, logs, m
}

type response struct {
	status int
	header http.Header
	body   string
	close  bool // the server closes the connection after this response
}

func (f *fixture) do(t *testing.T, method, path string, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return response{resp.StatusCode, resp.Header, string(b), resp.Close}
}

// get fetches url with a plain client.
func get(t *testing.T, url string) response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, string(b), resp.Close}
}

// jsonEqual compares a JSON body with the expected value, both decoded, so that key order and
// spacing do not matter but every key and value does.
func jsonEqual(t *testing.T, body string, want any) {
	t.Helper()
	var got, exp any
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("body is not JSON: %q", body)
	}
	b, _ := json.Marshal(want)
	_ = json.Unmarshal(b, &exp)
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("body\n got %s\nwant %s", body, b)
	}
}

type obj = map[string]any

func TestErrorEnvelopesPerSurface(t *testing.T) {
	f := newFixture(t, nil)
	const id = "test-req-1"
	tests := []struct {
		name, method, path string
		status             int
		contentType        string
		want               func(id string) any // nil: plain text checked separately
		allow              string
	}{
		{"v1 404", "GET", "/v1/nope", 404, "application/json; charset=utf-8", func(id string) any {
			return obj{"error": obj{"code": "not_found", "message": "no resource at /v1/nope"}, "meta": obj{"request_id": id, "api_version": "v1"}}
		}, ""},
		{"v1 405", "POST", "/v1/items/7", 405, "application/json; charset=utf-8", func(id string) any {
			return obj{"error": obj{"code": "method_not_allowed", "message": "POST is not allowed on /v1/items/7"}, "meta": obj{"request_id": id, "api_version": "v1"}}
		}, "GET, HEAD, DELETE"},
		{"v1 500", "GET", "/v1/panic", 500, "application/json; charset=utf-8", func(id string) any {
			return obj{"error": obj{"code": "internal_error", "message": "internal error; quote request id " + id + " when reporting it"}, "meta": obj{"request_id": id, "api_version": "v1"}}
		}, ""},
		{"resolver 404", "GET", "/resolver/v1/nope", 404, "application/json; charset=utf-8", func(id string) any {
			return obj{"error": obj{"code": "not_found", "message": "no resource at /resolver/v1/nope", "request_id": id}}
		}, ""},
		{"resolver 500", "GET", "/resolver/v1/panic", 500, "application/json; charset=utf-8", func(id string) any {
			return obj{"error": obj{"code": "internal_error", "message": "internal error; quote request id " + id + " when reporting it", "request_id": id}}
		}, ""},
		{"fhir 404", "GET", "/fhir/Nope", 404, "application/fhir+json", func(id string) any {
			return obj{"resourceType": "OperationOutcome", "issue": []any{obj{"severity": "error", "code": "not-found", "diagnostics": "no resource at /fhir/Nope (request id " + id + ")"}}}
		}, ""},
		{"fhir 405", "PUT", "/fhir/items/1", 405, "application/fhir+json", func(id string) any {
			return obj{"resourceType": "OperationOutcome", "issue": []any{obj{"severity": "error", "code": "not-supported", "diagnostics": "PUT is not allowed on /fhir/items/1 (request id " + id + ")"}}}
		}, "GET, HEAD, DELETE"},
		{"fhir 500", "GET", "/fhir/panic", 500, "application/fhir+json", func(id string) any {
			return obj{"resourceType": "OperationOutcome", "issue": []any{obj{"severity": "fatal", "code": "exception", "diagnostics": "internal error; quote request id " + id + " when reporting it (request id " + id + ")"}}}
		}, ""},
		{"api 404", "GET", "/api/nope", 404, "application/json; charset=utf-8", func(id string) any {
			return obj{"error": obj{"code": "not_found", "message": "no resource at /api/nope", "request_id": id}}
		}, ""},
		{"api 500", "GET", "/api/panic", 500, "application/json; charset=utf-8", func(id string) any {
			return obj{"error": obj{"code": "internal_error", "message": "internal error; quote request id " + id + " when reporting it", "request_id": id}}
		}, ""},
		{"web 404", "GET", "/nope", 404, "text/plain; charset=utf-8", nil, ""},
		{"web 500", "GET", "/panic", 500, "text/plain; charset=utf-8", nil, ""},
		{"prefix is whole segments", "GET", "/v1x", 404, "text/plain; charset=utf-8", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do(t, tt.method, tt.path, map[string]string{requestid.Header: id})
			if r.status != tt.status {
				t.Fatalf("status %d, want %d; body %q", r.status, tt.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != tt.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tt.contentType)
			}
			if got := r.header.Get(requestid.Header); got != id {
				t.Errorf("X-Request-ID %q, want %q", got, id)
			}
			if got := r.header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if tt.want != nil {
				jsonEqual(t, r.body, tt.want(id))
			} else if tt.status >= 400 && !strings.Contains(r.body, "request id: "+id) {
				t.Errorf("text error %q does not quote the request id", r.body)
			}
		})
	}
}

func TestRoutesServeInEverySurface(t *testing.T) {
	f := newFixture(t, nil)
	for _, prefix := range []string{"", "/v1", "/resolver/v1", "/fhir", "/api"} {
		r := f.do(t, "GET", prefix+"/items/42", nil)
		if r.status != 200 || r.body != "item 42" {
			t.Errorf("%s/items/42: %d %q", prefix, r.status, r.body)
		}
	}
	if r := f.do(t, "HEAD", "/v1/items/42", nil); r.status != 200 {
		t.Errorf("HEAD: %d", r.status)
	}
}

func TestStreamingThroughMiddleware(t *testing.T) {
	f := newFixture(t, nil)
	r := f.do(t, "GET", "/v1/stream", nil)
	if r.status != 200 || r.body != "part1 part2" || r.header.Get("Content-Length") != "" {
		t.Fatalf("got %d %q (Content-Length %q): flush did not reach the connection", r.status, r.body, r.header.Get("Content-Length"))
	}
}

func TestRequestID(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		name, incoming string
		kept           bool
	}{
		{"well-formed id kept", "abc-123_X.y:z", true},
		{"missing id generated", "", false},
		{"id with spaces replaced", "a b", false},
		{"overlong id replaced", strings.Repeat("x", requestid.MaxLen+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{}
			if tt.incoming != "" {
				h[requestid.Header] = tt.incoming
			}
			r := f.do(t, "GET", "/v1/nope", h)
			got := r.header.Get(requestid.Header)
			if tt.kept && got != tt.incoming {
				t.Fatalf("id %q, want %q", got, tt.incoming)
			}
			if !tt.kept && (got == tt.incoming || !requestid.Valid(got)) {
				t.Fatalf("id %q not replaced by a fresh one", got)
			}
			var body rest.V1ErrorBody
			if err := json.Unmarshal([]byte(r.body), &body); err != nil || body.Meta.RequestID != got {
				t.Fatalf("envelope request id %q, header %q", body.Meta.RequestID, got)
			}
		})
	}
}

func TestEveryLogLineCarriesTheRequestID(t *testing.T) {
	f := newFixture(t, nil)
	f.do(t, "GET", "/v1/items/1", map[string]string{requestid.Header: "log-1"})
	f.do(t, "GET", "/v1/panic", map[string]string{requestid.Header: "log-2"})
	lines := logLines(t, f.logs)
	byID := map[string][]string{}
	for _, l := range lines {
		id, _ := l["request_id"].(string)
		if id == "" {
			t.Errorf("log line without request_id: %v", l)
		}
		byID[id] = append(byID[id], l["msg"].(string))
	}
	if got := byID["log-1"]; !reflect.DeepEqual(got, []string{"handler line", "request"}) {
		t.Errorf("log-1 lines %v", got)
	}
	if got := byID["log-2"]; !reflect.DeepEqual(got, []string{"panic serving request", "request"}) {
		t.Errorf("log-2 lines %v", got)
	}
	for _, l := range lines {
		switch l["msg"] {
		case "panic serving request":
			if l["level"] != "ERROR" || l["panic"] != "boom" || !strings.Contains(l["stack"].(string), "server_test.go") {
				t.Errorf("panic line lacks level, value or stack: %v", l)
			}
		case "request":
			if l["request_id"] == "log-1" && (l["route"] != "/v1/items/{id}" || l["status"] != 200.0 || l["method"] != "GET" || l["surface"] != "v1") {
				t.Errorf("access line %v", l)
			}
		}
	}
}

func TestPanicAfterWriteKeepsConnection(t *testing.T) {
	f := newFixture(t, nil)
	r := f.do(t, "GET", "/v1/panic-late", nil)
	if r.status != 200 || r.body != "partial" {
		t.Fatalf("got %d %q", r.status, r.body)
	}
	// The same client still works: the server neither crashed nor poisoned the pool.
	if r := f.do(t, "GET", "/v1/items/1", nil); r.status != 200 {
		t.Fatalf("after panic: %d", r.status)
	}
}

func TestOperationalEndpoints(t *testing.T) {
	var mu sync.Mutex
	var readyErr error
	f := newFixture(t, func(ctx context.Context) error {
		mu.Lock()
		err := readyErr
		mu.Unlock()
		if err != nil && err.Error() == "hang" {
			<-ctx.Done() // a store that does not answer
			return ctx.Err()
		}
		return err
	})
	setReady := func(err error) { mu.Lock(); readyErr = err; mu.Unlock() }

	if r := f.do(t, "GET", "/livez", nil); r.status != 200 || r.body != "ok\n" {
		t.Errorf("livez: %d %q", r.status, r.body)
	}
	if r := f.do(t, "POST", "/livez", nil); r.status != 405 || r.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST livez: %d allow %q", r.status, r.header.Get("Allow"))
	}
	if r := f.do(t, "GET", "/readyz", nil); r.status != 200 {
		t.Errorf("readyz ready: %d", r.status)
	}
	setReady(errors.New("connection refused"))
	if r := f.do(t, "GET", "/readyz", nil); r.status != 503 || strings.Contains(r.body, "refused") || r.header.Get("Retry-After") != "5" {
		t.Errorf("readyz failing store: %d %q, Retry-After %q", r.status, r.body, r.header.Get("Retry-After"))
	}
	setReady(errors.New("hang"))
	start := time.Now()
	if r := f.do(t, "GET", "/readyz", nil); r.status != 503 {
		t.Errorf("readyz hung store: %d", r.status)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("readyz waited %s for a hung store", d)
	}

	f.do(t, "GET", "/v1/items/1", nil)
	f.do(t, "GET", "/v1/items/2", nil)
	f.do(t, "GET", "/v1/nope/deeper", nil)
	f.do(t, "POST", "/fhir/items/1", nil)
	// The public listener does not serve the metrics; the admin listener's handler does.
	if r := f.do(t, "GET", "/metrics", nil); r.status != 404 || strings.Contains(r.body, "providerd_http_requests_total") {
		t.Errorf("public /metrics: %d, serves the figures: %v", r.status, strings.Contains(r.body, "providerd_http_requests_total"))
	}
	admin := httptest.NewServer(httpserver.MetricsHandler(f.metrics))
	t.Cleanup(admin.Close)
	m := get(t, admin.URL+"/metrics")
	if m.status != 200 {
		t.Fatalf("admin /metrics: %d", m.status)
	}
	if r := get(t, admin.URL+"/v1/items/1"); r.status != 404 {
		t.Errorf("admin listener serves %d for a public path", r.status)
	}
	for _, want := range []string{
		`providerd_http_requests_total{code="200",method="GET",route="/v1/items/{id}"} 2`,
		`providerd_http_requests_total{code="404",method="GET",route="/v1/{unmatched}"} 1`,
		`providerd_http_requests_total{code="405",method="POST",route="/fhir/items/{id}"} 1`,
		`providerd_http_requests_total{code="503",method="GET",route="/readyz"} 2`,
		`providerd_http_requests_total{code="404",method="GET",route="/{unmatched}"} 1`,
		`providerd_http_request_duration_seconds_count{route="/v1/items/{id}"} 2`,
	} {
		if !strings.Contains(m.body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(m.body, "/v1/items/1") || strings.Contains(m.body, "deeper") {
		t.Error("/metrics labels raw paths")
	}
}

func TestNewRejectsAmbiguousSurfaces(t *testing.T) {
	e := rest.V1Error
	tests := []struct {
		name     string
		surfaces []httpserver.Surface
	}{
		{"no name", []httpserver.Surface{{Prefix: "/v1", Error: e}}},
		{"no error writer", []httpserver.Surface{{Name: "v1", Prefix: "/v1"}}},
		{"trailing slash", []httpserver.Surface{{Name: "v1", Prefix: "/v1/", Error: e}}},
		{"relative prefix", []httpserver.Surface{{Name: "v1", Prefix: "v1", Error: e}}},
		{"duplicate prefix", []httpserver.Surface{{Name: "a", Prefix: "/v1", Error: e}, {Name: "b", Prefix: "/v1", Error: e}}},
		{"hides an operational endpoint", []httpserver.Surface{{Name: "m", Prefix: "/readyz", Error: e}}},
	}
	for _, tt := range tests {
		if _, err := httpserver.New(httpserver.Options{Surfaces: tt.surfaces}); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

func TestNoRootSurface(t *testing.T) {
	h, err := httpserver.New(httpserver.Options{
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: []httpserver.Surface{{Name: "v1", Prefix: "/v1", Error: rest.V1Error}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/elsewhere", nil))
	if rec.Code != 404 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("got %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func TestStoreCheck(t *testing.T) {
	s := backends.Embedded(t)
	check := httpserver.StoreCheck(s)
	if err := check(context.Background()); err != nil {
		t.Fatalf("open store not ready: %v", err)
	}
	_ = s.Close()
	if err := check(context.Background()); err == nil {
		t.Fatal("closed store reads as ready")
	}
}
