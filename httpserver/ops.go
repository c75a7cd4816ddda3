package httpserver

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"providerdir/logging"
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
// otherwise, so a load balancer stops sending traffic to a replica that lost its store. The cause
// goes to the log, not to the (unauthenticated) client.
func ready(check func(context.Context) error, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if check != nil {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer cancel()
			if err := check(ctx); err != nil {
				logging.Logger(r.Context()).Warn("not ready", slog.Any("error", err))
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte("store unavailable\n"))
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}

// StoreCheck is a readiness check of a store: one read of the serving snapshot pointer, the
// cheapest call that proves the store answers and that every request needs anyway.
func StoreCheck(s store.Store) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := store.Serving(ctx, s)
		return err
	}
}

// getOnly lets GET and HEAD through and answers other methods with a plain 405.
func getOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			TextError(w, r, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed on "+r.URL.Path)
			return
		}
		next.ServeHTTP(w, r)
	})
}
