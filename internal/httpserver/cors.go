package httpserver

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"providerdir/internal/requestid"
)

// Cross-origin resource sharing (the Fetch standard's CORS protocol) for the surfaces that ask for
// it (Surface.CORS): a browser application on an allowed origin may call them. The service uses
// no cookies, so credentials are never allowed; a client sends its token or key in a header,
// which the preflight allows.

// CORSMaxAge is how long a browser may keep a preflight's answer: the most Chromium keeps one.
const CORSMaxAge = 2 * time.Hour

// AnyOrigin allows every origin, for a deployment whose APIs are public (a public-read FHIR
// directory).
const AnyOrigin = "*"

// corsAllowHeaders are the request headers a cross-origin request may carry beyond the ones CORS
// always allows: the credentials of each surface, FHIR's Prefer and conditional reads, and a
// request id to correlate with the server's logs.
var corsAllowHeaders = strings.Join([]string{
	"Authorization", "Content-Type", "Accept", "Prefer", "If-None-Match", "If-Modified-Since",
	"X-Service-Key", requestid.Header,
}, ", ")

// corsExposeHeaders are the response headers a cross-origin caller may read beyond the ones CORS
// always exposes: the rate-limit fields (quota and rest/gate), caching validators, where a
// created or found resource is, the request id, and the authentication challenge.
var corsExposeHeaders = strings.Join([]string{
	"ETag", "Last-Modified", "Location", "Content-Location", requestid.Header, "WWW-Authenticate", "Allow",
	"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Window",
	"RateLimit", "RateLimit-Policy",
}, ", ")

// cors holds the allowed origins; nil allows none and sends no CORS headers at all.
type cors struct {
	any     bool
	origins []string
}

func newCORS(origins []string) *cors {
	if len(origins) == 0 {
		return nil
	}
	return &cors{any: slices.Contains(origins, AnyOrigin), origins: origins}
}

// allowOrigin is the Access-Control-Allow-Origin value for a request's Origin, "" when the
// origin is not allowed (or the request is not cross-origin).
func (c *cors) allowOrigin(origin string) string {
	switch {
	case origin == "":
		return ""
	case c.any:
		return AnyOrigin
	case slices.Contains(c.origins, origin):
		return origin
	}
	return ""
}

// headers sets the CORS headers of a response on a CORS surface. The answer depends on the
// request's Origin unless every origin is allowed, so caches are told to key on it.
func (c *cors) headers(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if !c.any {
		h.Add("Vary", "Origin")
	}
	if allow := c.allowOrigin(r.Header.Get("Origin")); allow != "" {
		h.Set("Access-Control-Allow-Origin", allow)
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	}
}

// isPreflight reports whether a request is a CORS preflight: an OPTIONS request from a browser
// asking whether it may send another method.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// preflight answers a preflight to a path the surface routes: 204 with the methods the path
// takes, the headers allowed and how long to keep the answer; without the Allow headers when
// the origin is not allowed, which the browser reads as a refusal. A preflight to a path the
// surface does not route is left to the router, whose 404 (or 405) says so. It reports whether
// it answered.
func (c *cors) preflight(w http.ResponseWriter, r *http.Request, s *surface) bool {
	methods, template := s.allowed(r)
	if len(methods) == 0 {
		return false
	}
	setRoute(r, template)
	h := w.Header()
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	if h.Get("Access-Control-Allow-Origin") != "" {
		h.Del("Access-Control-Expose-Headers") // a preflight's answer is not read by the caller
		h.Set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Max-Age", strconv.Itoa(int(CORSMaxAge/time.Second)))
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}
