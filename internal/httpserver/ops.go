package httpserver

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"providerdir/internal/logging"
	"providerdir/internal/metrics"
	"providerdir/store"
)

// live answers whether the process is up and serving HTTP; it checks nothing else, so an
// orchestrator restarts the process only when restarting can help.
func live(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}

// ready answers whether the service can serve data: 200 when check succeeds within timeout, 503
// with Retry-After otherwise, so a load balancer stops sending traffic to a replica that lost its
// store. It answers 503 too once serving reports false (the server is shutting down), while the
// server still serves whatever the balancer sends until it notices. The cause goes to the log,
// not to the (unauthenticated) client.
func ready(check func(context.Context) error, timeout time.Duration, serving func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		notReady := func(message string) {
			w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(message + "\n"))
		}
		if !serving() {
			notReady("shutting down")
			return
		}
		if check != nil {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer cancel()
			if err := check(ctx); err != nil {
				logging.Logger(r.Context()).Warn("not ready", slog.Any("error", err))
				notReady("store unavailable")
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}

// Pinger is a store that can tell cheaply whether its storage is still there. A read alone does
// not: the embedded store answers reads from its caches and open files after its directory is
// deleted. *embedded.Store is one.
type Pinger interface {
	Ping(context.Context) error
}

// StoreCheck is a readiness check of a store: its Ping when it has one, then one read of the
// serving snapshot pointer, the cheapest call that proves the store answers and that every
// request needs anyway.
func StoreCheck(s store.Store) func(context.Context) error {
	p, _ := s.(Pinger)
	return func(ctx context.Context) error {
		if p != nil {
			if err := p.Ping(ctx); err != nil {
				return err
			}
		}
		_, err := store.Serving(ctx, s)
		return err
	}
}

// MetricsHandler serves m on /metrics and nothing else, for the admin listener: the figures
// (routes, volumes, store timings) are for the operator, not for the public listener.
func MetricsHandler(m *metrics.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(PathMetrics, getOnly(m.Handler()))
	return mux
}

// getOnly lets GET and HEAD through and answers other methods with a plain 405.
func getOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			TextError(w, r, http.StatusMethodNotAllowed, "method_not_allowed", notAllowed(r))
			return
		}
		next.ServeHTTP(w, r)
	})
}
