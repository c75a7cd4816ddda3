package gate

import (
	"context"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/rest"
)

// Guard returns a surface's Routes function (httpserver.Surface.Routes) with mw around every
// request of the surface: the matched routes, and also the router's own 404 and 405 answers,
// which mux sends without running a subrouter's middleware. So an unknown path under /v1 asks
// for a key like any other, and its 404 carries the rate-limit fields too. A known path asked
// with a method it does not route is marked (WrongMethod) before mw sees it, so that an access
// rule can let the 405 through without a key.
func Guard(mw func(http.Handler) http.Handler, routes func(*mux.Router)) func(*mux.Router) {
	return func(r *mux.Router) {
		mark := func(h http.Handler) http.Handler {
			guarded := mw(h)
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if len(httpserver.RoutedMethods(r, req)) > 0 {
					req = req.WithContext(context.WithValue(req.Context(), wrongMethodKey{}, true))
				}
				guarded.ServeHTTP(w, req)
			})
		}
		if r.NotFoundHandler != nil {
			r.NotFoundHandler = mark(r.NotFoundHandler)
		}
		if r.MethodNotAllowedHandler != nil {
			r.MethodNotAllowedHandler = mark(r.MethodNotAllowedHandler)
		}
		r.Use(mux.MiddlewareFunc(mw))
		if routes != nil {
			routes(r)
		}
	}
}

type wrongMethodKey struct{}

// WrongMethod reports whether r asks a path of a guarded surface with a method the path does
// not route: the router answers it with 405 and Allow.
func WrongMethod(r *http.Request) bool {
	v, _ := r.Context().Value(wrongMethodKey{}).(bool)
	return v
}

// SupplySurface is the supply API's access rule for a whole subrouter mounted at prefix ("/v1"),
// chosen per route as docs/contracts/supply-api.md §5 rule 3 states it: /health and /openapi.json
// public, /npi/{npi} open to anonymous callers, everything else (unknown paths included) keyed; a
// known path asked with a wrong method is answered 405 as a public endpoint is, with no key asked
// for and nothing counted. Use it with Guard; a surface that wraps its routes one by one uses the
// three middlewares directly.
func (g *Gate) SupplySurface(prefix string) func(http.Handler) http.Handler {
	public := map[string]bool{prefix + "/health": true, prefix + "/openapi.json": true}
	optional := map[string]bool{prefix + "/npi/{npi}": true}
	return func(next http.Handler) http.Handler {
		req, opt, pub := g.RequireSupplyKey(next), g.OptionalSupplyKey(next), g.PublicSupply(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch t := routeTemplate(r); {
			case public[t], WrongMethod(r):
				pub.ServeHTTP(w, r)
			case optional[t]:
				opt.ServeHTTP(w, r)
			default:
				req.ServeHTTP(w, r)
			}
		})
	}
}

// routeTemplate is the matched route's path template with variable patterns dropped
// ("/v1/npi/{npi:[0-9]{10}}" is "/v1/npi/{npi}"), or "" when no route matched.
func routeTemplate(r *http.Request) string {
	route := mux.CurrentRoute(r)
	if route == nil {
		return ""
	}
	t, err := route.GetPathTemplate()
	if err != nil {
		return ""
	}
	return plainTemplate(t)
}

func plainTemplate(t string) string {
	var b strings.Builder
	depth, inPattern := 0, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '{':
			depth++
			if depth == 1 {
				b.WriteByte(c)
			}
		case c == '}':
			depth--
			if depth == 0 {
				inPattern = false
				b.WriteByte(c)
			}
		case c == ':' && depth == 1:
			inPattern = true
		case depth == 0 || !inPattern:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// V1Prefix and ResolverPrefix are where the service mounts the supply API and the resolver.
const (
	V1Prefix       = "/v1"
	ResolverPrefix = "/resolver/v1"
)

// V1 is the supply API's surface as the service mounts it: routes on /v1, every request behind
// the supply access rule (SupplySurface), errors in the v1 envelope, open to the configured CORS
// origins.
func (g *Gate) V1(routes ...func(*mux.Router)) httpserver.Surface {
	return httpserver.Surface{Name: "v1", Prefix: V1Prefix, Error: rest.V1Error, CORS: true,
		Routes: Guard(g.SupplySurface(V1Prefix), all(routes))}
}

// Resolver is the resolver's surface as the service mounts it: routes on /resolver/v1, every
// request behind the resolver access rule (ResolverSurface), errors in the resolver envelope,
// open to the configured CORS origins.
func (g *Gate) Resolver(routes ...func(*mux.Router)) httpserver.Surface {
	return httpserver.Surface{Name: "resolver", Prefix: ResolverPrefix, Error: rest.ResolverError, CORS: true,
		Routes: Guard(g.ResolverSurface(ResolverPrefix), all(routes))}
}

// all registers every routes function on one router, in order.
func all(routes []func(*mux.Router)) func(*mux.Router) {
	return func(r *mux.Router) {
		for _, add := range routes {
			add(r)
		}
	}
}
