package metrics

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"providerdir/store"
)

func TestHTTPMetrics(t *testing.T) {
	m := New()
	m.ObserveHTTP("/v1/health", "GET", 200, 3*time.Millisecond)
	m.ObserveHTTP("/v1/health", "GET", 200, 5*time.Millisecond)
	m.ObserveHTTP("/v1/health", "BREW", 405, time.Millisecond)

	body := scrape(t, m)
	for _, want := range []string{
		`providerd_http_requests_total{code="200",method="GET",route="/v1/health"} 2`,
		`providerd_http_requests_total{code="405",method="OTHER",route="/v1/health"} 1`,
		`providerd_http_request_duration_seconds_count{route="/v1/health"} 3`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

func TestStoreMetrics(t *testing.T) {
	m := New()
	m.ObserveStore("get", "ok", time.Millisecond)
	m.ObserveStore("get", "ok", 2*time.Millisecond)
	m.ObserveStore("get", "not_found", time.Millisecond)
	body := scrape(t, m)
	for _, want := range []string{
		`providerd_store_operation_duration_seconds_count{op="get",outcome="ok"} 2`,
		`providerd_store_operation_duration_seconds_count{op="get",outcome="not_found"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

func TestDocumentsWritten(t *testing.T) {
	m := New()
	m.DocumentsWritten("nppes_providers", 1000)
	m.DocumentsWritten("nppes_providers", 500)
	m.DocumentsWritten("leie_exclusions", 0)
	body := scrape(t, m)
	if strings.Contains(body, `collection="leie_exclusions"`) {
		t.Error("an empty write created a series")
	}
	for _, want := range []string{
		`providerd_store_documents_written_total{collection="nppes_providers"} 1500`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{store.ErrNotFound, "not_found"},
		{fmt.Errorf("wrapped: %w", store.ErrConflict), "conflict"},
		{store.ErrInvalid, "error"},
		{io.ErrUnexpectedEOF, "error"},
	}
	for _, tt := range tests {
		if got := Outcome(tt.err); got != tt.want {
			t.Errorf("Outcome(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestNilMetricsIsNoop(t *testing.T) {
	var m *Metrics
	m.ObserveHTTP("/x", "GET", 200, time.Millisecond)
	m.ObserveStore("get", "ok", time.Millisecond)
	m.DocumentsWritten("nppes_providers", 1)
	if m.Registry() != nil {
		t.Error("nil metrics has a registry")
	}
	var s store.Store
	if m.Store(s) != s {
		t.Error("nil metrics wrapped the store")
	}
}

func TestHandlerExposesPrivateRegistryOnly(t *testing.T) {
	m := New()
	m.ObserveHTTP("/livez", "GET", 200, time.Millisecond)
	// A collector on the global registry must not leak into the private one.
	global := prometheus.NewCounter(prometheus.CounterOpts{Name: "metrics_test_global_total", Help: "x"})
	prometheus.MustRegister(global)
	defer prometheus.Unregister(global)

	body := scrape(t, m)
	for _, want := range []string{
		`providerd_http_requests_total{code="200",method="GET",route="/livez"} 1`,
		"providerd_http_request_duration_seconds_bucket",
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
	if strings.Contains(body, "metrics_test_global_total") {
		t.Error("global registry leaked into /metrics")
	}
}

// scrape returns the text exposition of m, as /metrics serves it.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics status %d", rec.Code)
	}
	return rec.Body.String()
}
