package httpserver

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/logging"
	"providerdir/internal/requestid"
)

// ServeHTTP runs every request through the middleware, outermost first: request id, security
// and CORS headers, request logger, metrics and access log, panic recovery, the request limits,
// CORS preflights, the drain's admission, then the router. Recovery sits inside the measuring so a recovered panic is
// counted and logged as the 500 it became; refusals are logged and counted like any answer.
//
// The middleware wraps the router instead of being registered with mux's Use because mux skips
// Use middleware for its 404 and 405 handlers, and those responses need an id and a log line too.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := r.Header.Get(requestid.Header)
	if !requestid.Valid(id) {
		id = requestid.New()
	}
	w.Header().Set(requestid.Header, id)
	h.setSecurityHeaders(w, r)
	info := &requestInfo{}
	ctx := requestid.With(r.Context(), id)
	ctx = logging.WithRequest(ctx, h.log, id)
	ctx = context.WithValue(ctx, infoKey{}, info)
	r = r.WithContext(ctx)
	rw := &responseWriter{ResponseWriter: w}

	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler { // a deliberate abort: let net/http drop the connection
				panic(v)
			}
			logging.Logger(ctx).Error("panic serving request", slog.String("panic", fmt.Sprint(v)), slog.String("stack", string(debug.Stack())))
			if rw.wroteHeader {
				// The status line is gone; the client sees a short body, which is all that can
				// be done without hiding the failure behind a dropped connection.
				rw.status = http.StatusInternalServerError
			} else {
				h.writeError(rw, r, http.StatusInternalServerError, "internal_error",
					"internal error; quote request id "+id+" when reporting it")
			}
		}
		status := rw.status
		if !rw.wroteHeader {
			status = http.StatusOK // a handler that wrote nothing sent an empty 200
		}
		route := info.route
		if route == "" {
			route = "/{unmatched}"
		}
		elapsed := time.Since(start)
		h.metrics.ObserveHTTP(route, r.Method, status, elapsed)
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		if !h.log.Enabled(ctx, level) {
			return // the access log is off at this level; the request's logger need not exist
		}
		logging.Logger(ctx).LogAttrs(ctx, level, "request",
			slog.String("surface", h.surfaceName(r.URL.Path)),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("route", route),
			slog.Int("status", status),
			slog.Int64("bytes", rw.bytes),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.String("remote", r.RemoteAddr),
		)
	}()
	sf := h.surfaceFor(r.URL.Path)
	crossOrigin := h.cors != nil && sf != nil && sf.CORS
	if crossOrigin {
		h.cors.headers(rw, r) // before any answer, errors included, so a browser can read it
	}
	if !h.withinLimits(rw, r) {
		return
	}
	if crossOrigin && isPreflight(r) && h.cors.preflight(rw, r, sf) {
		return
	}
	if !isProbe(r.URL.Path) { // probes answer through a drain: they report it
		if !h.drain.enter() {
			h.refuseDraining(rw, r)
			return
		}
		defer h.drain.leave()
	}
	h.root.ServeHTTP(rw, r)
}

// isProbe reports whether path is one of the orchestrator's probes.
func isProbe(path string) bool { return path == PathLive || path == PathReady }

// writeError writes an error in the envelope of the surface that owns the request's path.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	if s := h.surfaceFor(r.URL.Path); s != nil {
		s.Error(w, r, status, code, message)
		return
	}
	TextError(w, r, status, code, message)
}

// surfaceName names the part of the service a path belongs to, for the access log.
func (h *Handler) surfaceName(path string) string {
	if isProbe(path) {
		return "ops"
	}
	if s := h.surfaceFor(path); s != nil {
		return s.Name
	}
	return ""
}

// requestInfo collects what inner layers learn about a request for the outer middleware: the
// matched route template, which only exists once mux has matched.
type requestInfo struct {
	route string
}

type infoKey struct{}

func setRoute(r *http.Request, template string) {
	if info, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
		info.route = template
	}
}

// captureRoute records the matched route's template. Metrics are labelled by template, never by
// raw path, so that one label value stands for all NPIs rather than one per NPI.
func captureRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if route := mux.CurrentRoute(r); route != nil {
			if t, err := route.GetPathTemplate(); err == nil {
				setRoute(r, t)
			}
		}
		next.ServeHTTP(w, r)
	})
}

func requestIDOf(r *http.Request) string { return requestid.From(r.Context()) }

// responseWriter remembers the status and size of a response. Unwrap lets
// http.ResponseController reach the connection's Flush, deadlines and hijacking.
type responseWriter struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
}

func (w *responseWriter) WriteHeader(status int) {
	if !w.wroteHeader && status >= 200 {
		w.status = status
		w.wroteHeader = true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.status = http.StatusOK
		w.wroteHeader = true
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush supports streaming responses (exports, NDJSON) through the wrapper.
func (w *responseWriter) Flush() {
	if !w.wroteHeader {
		w.status = http.StatusOK
		w.wroteHeader = true
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
