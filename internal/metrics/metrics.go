// Package metrics owns the service's Prometheus metrics: one private registry per process (never
// the global one, so tests and embedded uses do not collide and nothing registers behind the
// service's back), the HTTP request collectors, and the collectors other packages report to:
// store operation timings and documents written (through Store, a wrapper of store.Store), which show an ingest's progress.
//
// Every method is safe on a nil *Metrics and does nothing, so code that runs both inside the server
// and in providerctl can report unconditionally.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric name.
const Namespace = "providerd"

// Metrics holds the registry and the service's collectors.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	storeOps     *prometheus.HistogramVec
	storeWritten *prometheus.CounterVec

	// The series of each label combination seen, kept: looking a series up by its label values
	// hashes them and takes the vector's lock, on every request and every store call. Labels
	// come from small fixed sets (route templates, methods, codes, operations, outcomes), so
	// these hold as many entries as the exposition has series.
	httpSeries  sync.Map // httpKey -> httpSeries
	storeSeries sync.Map // storeKey -> prometheus.Observer
}

type httpKey struct {
	route, method string
	code          int
}

type httpSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

type storeKey struct{ op, outcome string }

// New returns a fresh set of collectors in a private registry that also carries the Go runtime
// and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests served, by route template, method and status code.",
		}, []string{"route", "method", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help: "HTTP request latency by route template.",
			// Finer at the low end, where the published FHIR latency targets (p50 38 ms,
			// p95 142 ms, p99 290 ms) lie.
			Buckets: []float64{.005, .01, .025, .04, .075, .1, .15, .2, .3, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		storeOps: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "store", Name: "operation_duration_seconds",
			Help:    "Store operation latency by operation and outcome (ok, not_found, conflict, error).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
		}, []string{"op", "outcome"}),
		storeWritten: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "store", Name: "documents_written_total",
			Help: "Documents written, by collection: an ingest's progress, since providerctl ingest writes through the serving process's store.",
		}, []string{"collection"}),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.httpRequests, m.httpDuration, m.storeOps, m.storeWritten,
	)
	return m
}

// Registry is the private registry, for packages that own collectors of their own (a webhook
// outbox depth, a rate limiter) to register them where /metrics will expose them.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveHTTP records one served request. route must be a route template (or another value from
// a small fixed set), never a raw path: a label per distinct path would grow without bound.
func (m *Metrics) ObserveHTTP(route, method string, code int, d time.Duration) {
	if m == nil {
		return
	}
	k := httpKey{route, normalizeMethod(method), code}
	v, ok := m.httpSeries.Load(k)
	if !ok {
		v, _ = m.httpSeries.LoadOrStore(k, httpSeries{
			requests: m.httpRequests.WithLabelValues(k.route, k.method, strconv.Itoa(code)),
			duration: m.httpDuration.WithLabelValues(route),
		})
	}
	series := v.(httpSeries)
	series.requests.Inc()
	series.duration.Observe(d.Seconds())
}

// ObserveStore records one store operation of kind op that took d and ended with outcome
// (see Outcome).
func (m *Metrics) ObserveStore(op, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	k := storeKey{op, outcome}
	v, ok := m.storeSeries.Load(k)
	if !ok {
		v, _ = m.storeSeries.LoadOrStore(k, m.storeOps.WithLabelValues(op, outcome))
	}
	v.(prometheus.Observer).Observe(d.Seconds())
}

// DocumentsWritten counts documents a Put stored in a collection. An ingest into a running
// server's embedded store goes through the server (store/remote), so its progress shows here.
func (m *Metrics) DocumentsWritten(collection string, n int) {
	if m == nil || n <= 0 {
		return
	}
	m.storeWritten.WithLabelValues(collection).Add(float64(n))
}

// normalizeMethod keeps the method label to a fixed set; a client can send any token as method.
func normalizeMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}
