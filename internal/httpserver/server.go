// Package httpserver owns the HTTP front of providerd: the router that splits requests into
// surfaces (supply API, resolver, FHIR, service host, web) and the probes, and the middleware
// every request passes through: request id, security headers, request-scoped logging, metrics,
// panic recovery and the bounds on a request's URL and body. It also runs the listener, with
// timeouts against slow clients and a graceful drain, and serves the metrics on a listener of
// their own.
//
// It knows no surface's content. Each surface hands in its routes and its own error writer, and
// the router answers that surface's unknown paths, wrong methods and panics in that surface's
// envelope, so a FHIR client gets an OperationOutcome and a supply API client its error/meta
// object even for requests no handler saw.
package httpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"sort"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/clientip"
	"providerdir/internal/metrics"
	"providerdir/internal/safetext"
)

// ErrorWriter writes an error response in a surface's envelope. code is a machine-readable code
// (rest.CodeNotFound and the like); message is safe to show to the client.
type ErrorWriter func(w http.ResponseWriter, r *http.Request, status int, code, message string)

// Surface is one API or page tree under a path prefix.
type Surface struct {
	// Name labels the surface in logs ("v1", "resolver", "fhir", "api", "web").
	Name string
	// Prefix is the path prefix, like "/v1" or "/resolver/v1"; "" is the root surface (the web
	// pages), which gets every path no other surface or endpoint claims. A prefix matches whole
	// path segments: "/v1" claims "/v1" and "/v1/x", not "/v1x".
	Prefix string
	// Error writes the surface's error envelope.
	Error ErrorWriter
	// Routes registers the surface's handlers on its subrouter; paths are relative to Prefix.
	// Nil leaves the surface empty: every path is its 404.
	Routes func(r *mux.Router)
	// CORS lets browser applications on the origins of Options.CORSOrigins call the surface
	// (cors.go): its responses carry the CORS headers and its preflights are answered.
	CORS bool
}

// Options configures the handler.
type Options struct {
	// Logger is the process logger; request loggers derive from it. Nil means slog.Default().
	Logger *slog.Logger
	// Metrics receives request metrics; nil records none. They are served by MetricsHandler on
	// a separate listener, never by this handler.
	Metrics *metrics.Metrics
	// Ready reports whether the service can serve (its store is reachable); /readyz calls it.
	// Nil means always ready.
	Ready func(context.Context) error
	// ReadyTimeout bounds one Ready call; 0 means DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// Surfaces are the API and page trees.
	Surfaces []Surface
	// TrustedProxies are the reverse proxies whose X-Forwarded-Proto is believed when deciding
	// whether a request arrived over TLS (see overTLS).
	TrustedProxies []netip.Prefix
	// MaxURLBytes bounds the request target; 0 means DefaultMaxURLBytes.
	MaxURLBytes int
	// MaxBodyBytes bounds a request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// CORSOrigins are the origins (scheme://host[:port], as a browser sends them in Origin)
	// whose pages may call the surfaces marked CORS; AnyOrigin allows every origin. Empty
	// allows none: no CORS header is sent and preflights are not answered.
	CORSOrigins []string
}

// DefaultReadyTimeout keeps a readiness probe shorter than the typical probe timeouts (1 to 5 s)
// of load balancers and orchestrators, so a hung store reads as not ready, not as a hung probe.
const DefaultReadyTimeout = 2 * time.Second

// Paths of the operational endpoints. The probes sit outside every surface so that they work
// whatever the surfaces' authentication; the metrics are served only on the admin listener
// (MetricsHandler).
const (
	PathMetrics = "/metrics"
	PathLive    = "/livez"
	PathReady   = "/readyz"
)

// Handler is the service's root handler.
type Handler struct {
	log      *slog.Logger
	metrics  *metrics.Metrics
	root     *mux.Router
	surfaces []*surface // longest prefix first, the root surface (if any) last
	proxies  clientip.Resolver
	maxURL   int
	maxBody  int64
	drain    *drain
	cors     *cors
}

type surface struct {
	Surface
	router *mux.Router
}

// New builds the root handler. It fails on a surface list that could not route unambiguously.
func New(o Options) (*Handler, error) {
	if err := checkSurfaces(o.Surfaces); err != nil {
		return nil, err
	}
	h := &Handler{
		// Paths are routed as sent: mux would answer one with dot segments or doubled slashes with
		// a bare 301 to its cleaned form, outside every surface's envelope.
		log: o.Logger, metrics: o.Metrics, root: mux.NewRouter().SkipClean(true),
		proxies: clientip.New(o.TrustedProxies), maxURL: o.MaxURLBytes, maxBody: o.MaxBodyBytes,
		drain: newDrain(), cors: newCORS(o.CORSOrigins),
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.maxURL <= 0 {
		h.maxURL = DefaultMaxURLBytes
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	readyTimeout := o.ReadyTimeout
	if readyTimeout <= 0 {
		readyTimeout = DefaultReadyTimeout
	}
	h.root.Use(captureRoute)
	h.root.Handle(PathLive, getOnly(http.HandlerFunc(live)))
	h.root.Handle(PathReady, getOnly(ready(o.Ready, readyTimeout, h.drain.ready)))

	ordered := make([]Surface, len(o.Surfaces))
	copy(ordered, o.Surfaces)
	sort.SliceStable(ordered, func(i, j int) bool { return len(ordered[i].Prefix) > len(ordered[j].Prefix) })
	for _, s := range ordered {
		var sub *mux.Router
		if s.Prefix == "" {
			sub = h.root.NewRoute().Subrouter()
		} else {
			sub = h.root.PathPrefix(s.Prefix).MatcherFunc(segmentMatcher(s.Prefix)).Subrouter()
		}
		sf := &surface{Surface: s, router: sub}
		sub.NotFoundHandler = http.HandlerFunc(sf.notFound)
		sub.MethodNotAllowedHandler = http.HandlerFunc(sf.methodNotAllowed)
		if s.Routes != nil {
			s.Routes(sub)
		}
		h.surfaces = append(h.surfaces, sf)
	}
	// Without a root surface, paths outside every prefix still get an answer in a known shape.
	h.root.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setRoute(r, "/{unmatched}")
		TextError(w, r, http.StatusNotFound, "not_found", "no such page")
	})
	return h, nil
}

func checkSurfaces(ss []Surface) error {
	seen := map[string]bool{}
	for _, s := range ss {
		switch {
		case s.Name == "":
			return errors.New("httpserver: a surface needs a name")
		case s.Error == nil:
			return fmt.Errorf("httpserver: surface %q has no error writer", s.Name)
		case s.Prefix != "" && (!strings.HasPrefix(s.Prefix, "/") || strings.HasSuffix(s.Prefix, "/")):
			return fmt.Errorf("httpserver: surface %q prefix %q must start and not end with '/'", s.Name, s.Prefix)
		case seen[s.Prefix]:
			return fmt.Errorf("httpserver: two surfaces share prefix %q", s.Prefix)
		}
		for _, p := range []string{PathLive, PathReady} {
			if s.Prefix != "" && underPrefix(p, s.Prefix) {
				return fmt.Errorf("httpserver: surface %q prefix %q hides %s", s.Name, s.Prefix, p)
			}
		}
		seen[s.Prefix] = true
	}
	return nil
}

// underPrefix reports whether path is prefix itself or below it, by whole segments.
func underPrefix(path, prefix string) bool {
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}

func segmentMatcher(prefix string) mux.MatcherFunc {
	return func(r *http.Request, _ *mux.RouteMatch) bool { return underPrefix(r.URL.Path, prefix) }
}

// surfaceFor returns the surface that owns a path, or nil.
func (h *Handler) surfaceFor(path string) *surface {
	for _, s := range h.surfaces {
		if underPrefix(path, s.Prefix) {
			return s
		}
	}
	return nil
}

// notFound answers a path no route of the surface matched with this method. mux (v1.8.1) does
// not reliably tell "wrong method" from "no such path" once a subrouter holds several routes, so
// the surface asks its router which methods would match and answers 405 when any would.
func (s *surface) notFound(w http.ResponseWriter, r *http.Request) {
	if allow, _ := s.allowed(r); len(allow) > 0 {
		s.methodNotAllowed(w, r)
		return
	}
	setRoute(r, s.Prefix+"/{unmatched}")
	s.Error(w, r, http.StatusNotFound, "not_found", "no resource at "+safetext.EchoEscaped(r.URL.Path))
}

func (s *surface) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	allow, template := s.allowed(r)
	if template != "" {
		setRoute(r, template)
	} else {
		setRoute(r, s.Prefix+"/{unmatched}")
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	s.Error(w, r, http.StatusMethodNotAllowed, "method_not_allowed", notAllowed(r))
}

// notAllowed is the message of a 405: the method and path, each as an error repeats a client's
// value (safetext.EchoEscaped).
func notAllowed(r *http.Request) string {
	return safetext.EchoEscaped(r.Method) + " is not allowed on " + safetext.EchoEscaped(r.URL.Path)
}

// candidateMethods are the methods tried when listing what a path allows.
var candidateMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions,
}

// allowed lists the methods the surface routes for r's path (for the Allow header a 405 must
// carry) and the template of the route they belong to.
func (s *surface) allowed(r *http.Request) (methods []string, template string) {
	return routed(s.router, r)
}

// RoutedMethods lists the methods router routes for r's path, whatever r's own method: none for
// a path it does not know. A surface's middleware uses it to tell a wrong method, which the
// router answers with 405, from an unknown path.
func RoutedMethods(router *mux.Router, r *http.Request) []string {
	methods, _ := routed(router, r)
	return methods
}

func routed(router *mux.Router, r *http.Request) (methods []string, template string) {
	for _, m := range candidateMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		var match mux.RouteMatch
		if router.Match(probe, &match) && match.MatchErr == nil && match.Route != nil {
			methods = append(methods, m)
			if template == "" {
				template, _ = match.Route.GetPathTemplate()
			}
		}
	}
	return methods, template
}

// TextError is the error writer of a surface without a JSON contract (the web pages): plain text
// a person can read, with the request id to quote.
func TextError(w http.ResponseWriter, r *http.Request, status int, _ string, message string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintf(w, "%d %s: %s\nrequest id: %s\n", status, http.StatusText(status), message, requestIDOf(r))
}
